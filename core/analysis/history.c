/* history: the computing part of `runner history` and GET /api/history
 * (history.h): the matching sweeps' values of a column read (a command's
 * measured runs, else the section's rows), the sweeps ordered by git's
 * commit order or start time, grouped, each group's median and interval
 * (robust.c), the change points (changepoint.c) and their sentences
 * (docs/analysis.md, "History across commits"). */
#include "analysis/history.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/robust.h"
#include "base/provenance.h"
#include "base/util.h"
#include "store/store_query.h"

/* One matching sweep: its id, commit, start and values of the column. */
typedef struct history_sweep {
    int64_t id;
    char *commit;     /* NULL without one; "-dirty" kept */
    char *started_at; /* ISO text, sorts as time */
    char *script;
    long position; /* in git's order; -1 unknown */
    double *values;
    size_t n;
} history_sweep;

/* One group of the series: a sweep, or every sweep of one commit. */
typedef struct history_group {
    size_t first, count; /* sweeps[first .. first+count) */
    double *values;      /* borrowed from the sweep, or pooled (owned) */
    size_t n;
    int owned;
} history_group;

static void sweep_clear(history_sweep *w)
{
    free(w->commit);
    free(w->started_at);
    free(w->script);
    free(w->values);
}

static char *cell_text(const table *t, const char *column)
{
    long c = t->row_count ? table_find_column(t, column) : -1;
    const value *v = c >= 0 ? table_cell(t, 0, (size_t)c) : NULL;
    return v && v->type == RUNNER_TEXT ? util_strdup(v->as.text) : NULL;
}

static int push_value(history_sweep *w, size_t *cap, double x)
{
    if (!isfinite(x))
        return 0;
    if (w->n == *cap) {
        size_t grown_cap = *cap ? *cap * 2 : 64;
        double *grown = realloc(w->values, grown_cap * sizeof *grown);
        if (!grown)
            return -1;
        w->values = grown;
        *cap = grown_cap;
    }
    w->values[w->n++] = x;
    return 0;
}

/* The column's values in one section: its command's runs (command_run)
 * when it has some with a number there, else its rows. *found 0 when the
 * section has no such column. */
static int read_values(store *s, int64_t section_id, const char *y, history_sweep *w,
                       int *time_unit, int *found, char **err)
{
    table *cols = NULL, *want = NULL, *run_want = NULL;
    char *plugin = NULL;
    size_t cap = 0;
    *found = 0;
    int rc = store_section_columns(s, section_id, &cols, &plugin, err);
    long c = rc == 0 ? table_find_column(cols, y) : -1;
    int run_own = !strcmp(y, "wall_s") || !strcmp(y, "user_s") || !strcmp(y, "sys_s");
    if (rc == 0 && (c >= 0 || run_own)) {
        const char *unit = c >= 0 ? cols->columns[c].unit : "s";
        *time_unit = unit && (!strcmp(unit, "s") || !strcmp(unit, "ms") || !strcmp(unit, "us") ||
                              !strcmp(unit, "ns") || !strcmp(unit, "min"));
        *found = 1;
        if (!(want = table_new("history")) ||
            table_add_column(want, y, unit, RUNNER_REAL, 0) != 0 ||
            !(run_want = table_new("history runs")) ||
            table_add_column(run_want, y, unit, RUNNER_REAL, 0) != 0 ||
            table_add_column(run_want, "warmup", NULL, RUNNER_BOOLEAN, 0) != 0)
            rc = util_fail(err, "out of memory");
        store_run_cursor *runs = NULL;
        value cell = VALUE_NULL, run[2] = { VALUE_NULL, VALUE_NULL };
        if (rc == 0)
            rc = store_run_cursor_open(s, section_id, run_want, &runs, err);
        while (rc == 0 && (rc = store_run_cursor_next(runs, run, err)) == 1) {
            int warmup = value_number(&run[1]) != 0; /* warm-ups are not measured */
            rc = !warmup && push_value(w, &cap, value_number(&run[0])) != 0
                     ? util_fail(err, "out of memory")
                     : 0;
            value_clear(&run[0]);
            value_clear(&run[1]);
        }
        store_run_cursor_close(runs);
        if (rc == 0 && w->n == 0 && c >= 0) {
            store_cursor *rows = NULL;
            rc = store_cursor_open(s, section_id, plugin, want, NULL, NULL, 0, &rows, err);
            while (rc == 0 && (rc = store_cursor_next(rows, &cell, NULL, err)) == 1) {
                rc = push_value(w, &cap, value_number(&cell)) != 0 ? util_fail(err, "out of memory")
                                                                   : 0;
                value_clear(&cell);
            }
            store_cursor_close(rows);
        }
    }
    table_free(cols);
    table_free(want);
    table_free(run_want);
    free(plugin);
    return rc < 0 ? -1 : 0;
}

static int by_position(const void *pa, const void *pb)
{
    const history_sweep *a = pa, *b = pb;
    if (a->position != b->position)
        return a->position < b->position ? -1 : 1;
    int t = strcmp(a->started_at ? a->started_at : "", b->started_at ? b->started_at : "");
    return t ? t : (a->id < b->id ? -1 : a->id > b->id);
}

/* Orders the sweeps by git's order of their commits when every commit is
 * in the repository of the first sweep's script (its recorded path read
 * from here), else of the current directory; else by start time. Returns 1 for git's order, 0 for time. */
static int order_sweeps(history_sweep *w, size_t count)
{
    char *order = NULL;
    /* git once per directory: a thousand sweeps of one script are one
     * `git rev-list`, not a thousand (each a process) */
    for (size_t i = 0; i < count && !order; i++) {
        if (!w[i].script || !w[i].commit)
            continue;
        const char *slash = strrchr(w[i].script, '/');
        size_t dir_len = slash ? (size_t)(slash - w[i].script) : 0;
        int tried = 0;
        for (size_t k = 0; k < i && !tried; k++) {
            const char *other = w[k].script, *other_slash = other ? strrchr(other, '/') : NULL;
            size_t other_len = other_slash ? (size_t)(other_slash - other) : 0;
            tried = other && w[k].commit && other_len == dir_len &&
                    !strncmp(other, w[i].script, dir_len);
        }
        if (!tried)
            order = provenance_git_order(w[i].script);
    }
    if (!order) /* a script path recorded relative to another directory */
        order = provenance_git_order("./");
    int git = order != NULL;
    for (size_t i = 0; i < count; i++) {
        w[i].position = -1;
        if (!git || !w[i].commit) {
            git = 0;
            continue;
        }
        size_t len = strcspn(w[i].commit, "-");
        for (const char *line = order; *line;
             line += strcspn(line, "\n") + (line[strcspn(line, "\n")] != 0)) {
            size_t line_len = strcspn(line, "\n");
            if (line_len == len && !strncmp(line, w[i].commit, len)) {
                w[i].position = (long)(line - order);
                break;
            }
        }
        git = w[i].position >= 0;
    }
    free(order);
    if (!git)
        for (size_t i = 0; i < count; i++)
            w[i].position = 0;
    qsort(w, count, sizeof *w, by_position);
    return git;
}

static void short_id(const history_sweep *w, int by_commit, char *buf, size_t size)
{
    if (by_commit && w->commit)
        snprintf(buf, size, "%.7s%s", w->commit, strstr(w->commit, "-dirty") ? "-dirty" : "");
    else
        snprintf(buf, size, "sweep %lld", (long long)w->id);
}

/* Groups the ordered sweeps: one per sweep, or (by commit) the sweeps of a
 * commit pooled. */
static int make_groups(history_sweep *w, size_t count, int by_commit, history_group *g,
                       size_t *groups)
{
    *groups = 0;
    for (size_t i = 0; i < count;) {
        size_t j = i + 1;
        while (by_commit && j < count && w[i].commit && w[j].commit &&
               !strcmp(w[i].commit, w[j].commit))
            j++;
        history_group *one = &g[(*groups)++];
        *one = (history_group){ .first = i, .count = j - i, .values = w[i].values, .n = w[i].n };
        if (j - i > 1) {
            size_t total = 0;
            for (size_t k = i; k < j; k++)
                total += w[k].n;
            if (!(one->values = malloc((total ? total : 1) * sizeof *one->values)))
                return -1;
            one->owned = 1;
            one->n = 0;
            for (size_t k = i; k < j; k++) {
                memcpy(one->values + one->n, w[k].values, w[k].n * sizeof *w[k].values);
                one->n += w[k].n;
            }
        }
        i = j;
    }
    return 0;
}

/* The sweeps f picks, oldest first, each with its values of q->y: 0, 1
 * (bad input, *err), -1 (*err). */
static int read_sweeps(store *s, const store_sweep_filter *f, const history_query *q,
                       history_sweep **out, size_t *out_count, int *time_unit, char **err)
{
    int64_t *ids = NULL;
    size_t count = 0;
    *out = NULL;
    *out_count = 0;
    if (store_sweeps_matching(s, f, &ids, &count, err) != 0)
        return -1;
    if (count < 2) {
        free(ids);
        *err = util_format("history: %zu sweep%s match%s; a history needs at least 2", count,
                           count == 1 ? "" : "s", count == 1 ? "es" : "");
        return 1;
    }
    history_sweep *w = calloc(count, sizeof *w);
    if (!w) {
        free(ids);
        return -1;
    }
    *out = w;
    *out_count = count;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < count; i++) {
        table *row = NULL;
        int64_t section_id = 0;
        int has = 0;
        w[i].id = ids[count - 1 - i]; /* oldest first */
        if (store_sweep_row(s, w[i].id, &row, err) != 0 ||
            store_section_find(s, w[i].id, q->section, &section_id, err) != 0) {
            table_free(row);
            rc = -1;
            break;
        }
        w[i].commit = cell_text(row, "git_commit");
        w[i].started_at = cell_text(row, "started_at");
        w[i].script = cell_text(row, "script_path");
        table_free(row);
        if (section_id == 0) {
            *err = util_format("history: sweep %lld has no section %d", (long long)w[i].id,
                               q->section);
            rc = 1;
        } else if (read_values(s, section_id, q->y, &w[i], time_unit, &has, err) != 0) {
            rc = -1;
        } else if (!has) {
            *err = util_format("history: sweep %lld, section %d has no column %s",
                               (long long)w[i].id, q->section, q->y);
            rc = 1;
        } else if (w[i].n == 0) {
            *err = util_format("history: sweep %lld, section %d has no number in %s",
                               (long long)w[i].id, q->section, q->y);
            rc = 1;
        }
    }
    free(ids);
    return rc;
}

/* Change k's text in the table ("+5.0 % [+4.5, +5.8] p < 0.001") and its
 * sentence; 1 when it is a regression past the tolerance. */
static int describe_change(const history_query *q, const changepoint *cp, size_t groups,
                           int time_unit, const char *name, char *change, size_t change_size,
                           char *sentence, size_t sentence_size)
{
    double pct = (cp->ratio - 1) * 100;
    double p = cp->p_value * (double)(groups - 1);
    char pt[32];
    if (p < 0.001)
        snprintf(pt, sizeof pt, "p < 0.001");
    else
        snprintf(pt, sizeof pt, "p = %.2g", p > 1 ? 1 : p);
    snprintf(change, change_size, "%+.1f %% [%+.1f, %+.1f] %s", pct, (cp->low - 1) * 100,
             (cp->high - 1) * 100, pt);
    int worse = time_unit ? cp->ratio - 1 > q->tolerance : fabs(cp->ratio - 1) > q->tolerance;
    snprintf(sentence, sentence_size, "%s %s %.1f %% [%.1f, %.1f] at %s (%s)%s", q->y,
             pct >= 0 ? "rose" : "fell", fabs(pct),
             pct >= 0 ? (cp->low - 1) * 100 : (1 - cp->high) * 100,
             pct >= 0 ? (cp->high - 1) * 100 : (1 - cp->low) * 100, name, pt,
             worse ? ": a regression past --tolerance" : "");
    return worse;
}

/* The table: one line a group, the change written where it starts. */
static int make_rows(const history_query *q, const history_sweep *w, const history_group *g,
                     size_t groups, int time_unit, history *h)
{
    table *t = table_new("history");
    h->rows = t;
    if (!t ||
        table_add_column(t, q->by_commit && w[0].commit ? "commit" : "sweep", NULL, RUNNER_TEXT,
                         0) != 0 ||
        table_add_column(t, "sweeps", NULL, RUNNER_INTEGER, 0) != 0 ||
        table_add_column(t, "n", NULL, RUNNER_INTEGER, 0) != 0 ||
        table_add_column(t, "median", NULL, RUNNER_REAL, 0) != 0 ||
        table_add_column(t, "low", NULL, RUNNER_REAL, 0) != 0 ||
        table_add_column(t, "high", NULL, RUNNER_REAL, 0) != 0 ||
        table_add_column(t, "change", NULL, RUNNER_TEXT, 0) != 0)
        return -1;
    for (size_t i = 0; i < groups; i++) {
        char name[64], change[96] = "";
        double m[3];
        double *sorted = malloc(g[i].n * sizeof *sorted);
        if (!sorted)
            return -1;
        memcpy(sorted, g[i].values, g[i].n * sizeof *sorted);
        robust_median_interval(sorted, g[i].n, 0.95, m);
        free(sorted);
        short_id(&w[g[i].first], q->by_commit, name, sizeof name);
        for (size_t k = 0; k < h->found; k++)
            if (h->changes[k].at == i)
                h->regression |=
                    describe_change(q, &h->changes[k], groups, time_unit, name, change,
                                    sizeof change, h->sentences[k], sizeof h->sentences[k]);
        value row[7] = { value_text(name),
                         value_integer((int64_t)g[i].count),
                         value_integer((int64_t)g[i].n),
                         value_real(m[0]),
                         value_real(m[1]),
                         value_real(m[2]),
                         value_text(change) };
        if (table_append_row(t, row) != 0) {
            for (size_t c = 0; c < 7; c++)
                value_clear(&row[c]);
            return -1;
        }
    }
    return 0;
}

int history_compute(store *s, const store_sweep_filter *f, const history_query *q, history *out,
                    char **err)
{
    *out = (history){ 0 };
    *err = NULL;
    history_sweep *w = NULL;
    history_group *g = NULL;
    size_t count = 0, groups = 0;
    int time_unit = 0;
    int rc = read_sweeps(s, f, q, &w, &count, &time_unit, err);
    if (rc == 0 && !(g = calloc(count, sizeof *g)))
        rc = -1;
    if (rc == 0) {
        out->sweeps = count;
        out->git = order_sweeps(w, count);
        rc = make_groups(w, count, q->by_commit, g, &groups);
    }
    const double **values = rc == 0 ? calloc(groups, sizeof *values) : NULL;
    size_t *sizes = rc == 0 ? calloc(groups, sizeof *sizes) : NULL;
    if (rc == 0 && (!values || !sizes))
        rc = -1;
    for (size_t i = 0; rc == 0 && i < groups; i++) {
        values[i] = g[i].values;
        sizes[i] = g[i].n;
    }
    if (rc == 0 &&
        changepoint_find(values, sizes, groups, HISTORY_ALPHA, ROBUST_BOOTSTRAP_RESAMPLES,
                         out->changes, HISTORY_MAX_CHANGES, &out->found) != 0) {
        *err = util_format("history: %s: a median is 0 or below, or out of memory", q->y);
        rc = 1;
    }
    free(values);
    free(sizes);
    if (rc == 0 && make_rows(q, w, g, groups, time_unit, out) != 0)
        rc = -1;
    for (size_t i = 0; g && i < groups; i++)
        if (g[i].owned)
            free(g[i].values);
    for (size_t i = 0; w && i < count; i++)
        sweep_clear(&w[i]);
    free(w);
    free(g);
    if (rc != 0)
        history_clear(out);
    return rc;
}

void history_clear(history *h)
{
    table_free(h->rows);
    *h = (history){ 0 };
}
