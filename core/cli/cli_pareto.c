/* cli_pareto: `runner pareto SWEEP --min COL --max COL ...`: the rows of one
 * section that no other row beats on every objective (analysis/pareto.c),
 * printed with their parameters, sorted by the objectives. The section is
 * read twice, objectives first and then the front's whole rows, so memory
 * holds k numbers a row, not the rows. */
#include "base/exit_status.h"
#include "cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "base/util.h"
#include "render/render.h"

/* The question: a section, its objectives and their directions. */
typedef struct pareto_job {
    int64_t sweep, section;
    int ordinal;        /* the section's number (1, 2, ...) */
    char *plugin;       /* owned: its result table */
    table *all;         /* owned: the section's columns */
    size_t objectives;  /* k */
    const char **names; /* owned array, borrowed names: the objectives in order */
    int *maximize;      /* owned: per objective */
} pareto_job;

static void pareto_job_clear(pareto_job *j)
{
    free(j->plugin);
    table_free(j->all);
    free(j->names);
    free(j->maximize);
}

/* 1 when the section's columns hold every objective. */
static int has_objectives(const table *all, const pareto_job *j)
{
    for (size_t i = 0; i < j->objectives; i++)
        if (table_find_column(all, j->names[i]) < 0)
            return 0;
    return 1;
}

/* Picks the section (--section, else the first with the objectives) and
 * checks the objectives. EXIT_OK or EXIT_USAGE (printed). */
static int pick_section(const options_parsed *a, store *s, const int64_t *ids, size_t count,
                        pareto_job *j)
{
    const option_value *given = &a->values[OPTION_PARETO_SECTION];
    char *err = NULL;
    for (size_t i = 0; i < count; i++) {
        if (given->given && i + 1 != given->integer)
            continue;
        table *all = NULL;
        char *plugin = NULL;
        if (store_section_columns(s, ids[i], &all, &plugin, &err) != 0)
            return cli_fail(err);
        if (given->given || has_objectives(all, j)) {
            j->section = ids[i];
            j->ordinal = (int)i + 1;
            j->all = all;
            j->plugin = plugin;
            break;
        }
        table_free(all);
        free(plugin);
    }
    if (given->given && !j->all) {
        fprintf(stderr, "runner: pareto: sweep %lld has %zu section%s, not %llu\n",
                (long long)j->sweep, count, count == 1 ? "" : "s",
                (unsigned long long)given->integer);
        return EXIT_USAGE;
    }
    if (!j->all) {
        fprintf(stderr, "runner: pareto: no section of sweep %lld has the columns",
                (long long)j->sweep);
        for (size_t i = 0; i < j->objectives; i++)
            fprintf(stderr, "%s %s", i ? "," : "", j->names[i]);
        fprintf(stderr, " ('runner show' names them)\n");
        return EXIT_USAGE;
    }
    for (size_t i = 0; i < j->objectives; i++) {
        long c = table_find_column(j->all, j->names[i]);
        const char *why = c < 0                                             ? "no such column"
                          : !value_type_is_numeric(j->all->columns[c].type) ? "not numeric"
                                                                            : NULL;
        if (why) {
            fprintf(stderr, "runner: pareto: column '%s' of section %d of sweep %lld: %s\n",
                    j->names[i], j->ordinal, (long long)j->sweep, why);
            return EXIT_USAGE;
        }
        for (size_t o = 0; o < i; o++)
            if (strcmp(j->names[o], j->names[i]) == 0) {
                fprintf(stderr, "runner: pareto: column '%s' is named twice\n", j->names[i]);
                return EXIT_USAGE;
            }
    }
    return EXIT_OK;
}

/* An empty table: the parameters (when with_params), then the objectives. */
static table *read_columns(const pareto_job *j, int with_params, const char *title)
{
    table *t = table_new(title);
    int bad = !t;
    for (size_t c = 0; !bad && with_params && c < j->all->column_count; c++) {
        const table_column *col = &j->all->columns[c];
        int objective = 0; /* a parameter may be an objective (workers: the cost) */
        for (size_t i = 0; i < j->objectives; i++)
            objective |= strcmp(j->names[i], col->name) == 0;
        if (col->is_param && !objective)
            bad = table_add_column(t, col->name, col->unit, col->type, 1) != 0;
    }
    for (size_t i = 0; !bad && i < j->objectives; i++) {
        const table_column *col = &j->all->columns[table_find_column(j->all, j->names[i])];
        bad = table_add_column(t, col->name, col->unit, col->type, 0) != 0;
    }
    if (bad) {
        table_free(t);
        return NULL;
    }
    return t;
}

/* Pass 1: every row's objectives, maxima negated, into *values (n rows). */
static int read_objectives(store *s, const pareto_job *j, double **values, size_t *n, char **err)
{
    table *columns = read_columns(j, 0, NULL);
    store_point_stream *ps = NULL;
    size_t capacity = 0, k = j->objectives;
    int rc = -1;
    *values = NULL;
    *n = 0;
    if (!columns) {
        util_fail(err, "out of memory");
        goto done;
    }
    if (store_point_stream_open_section(s, j->sweep, j->section, j->plugin, columns,
                                        STORE_ORDER_STORED, &ps, err) != 0)
        goto done;
    store_stream_row row;
    int more;
    while ((more = store_point_stream_next(ps, &row, err)) == 1) {
        if (!row.has_row)
            continue;
        if (*n == capacity) {
            capacity = capacity ? 2 * capacity : 1024;
            double *grown = realloc(*values, capacity * k * sizeof *grown);
            if (!grown) {
                util_fail(err, "out of memory");
                goto done;
            }
            *values = grown;
        }
        for (size_t i = 0; i < k; i++) {
            double x = value_number(&row.cells[i]);
            (*values)[*n * k + i] = j->maximize[i] ? -x : x;
        }
        (*n)++;
    }
    rc = more < 0 ? -1 : 0;
done:
    store_point_stream_close(ps);
    table_free(columns);
    return rc;
}

/* Pass 2: the front's rows, in stream order, appended to out. */
static int read_front(store *s, const pareto_job *j, const unsigned char *on_front, size_t n,
                      table *out, char **err)
{
    store_point_stream *ps = NULL;
    if (store_point_stream_open_section(s, j->sweep, j->section, j->plugin, out, STORE_ORDER_STORED,
                                        &ps, err) != 0)
        return -1;
    store_stream_row row;
    int more;
    size_t index = 0, width = out->column_count;
    value *copy = calloc(width, sizeof *copy);
    int rc = copy ? 0 : util_fail(err, "out of memory");
    while (rc == 0 && (more = store_point_stream_next(ps, &row, err)) == 1) {
        if (!row.has_row)
            continue;
        if (index < n && on_front[index]) {
            for (size_t c = 0; c < width && rc == 0; c++)
                rc = value_copy(&copy[c], &row.cells[c]);
            if (rc == 0)
                rc = table_append_row(out, copy);
            if (rc != 0)
                rc = util_fail(err, "out of memory");
        }
        index++;
    }
    if (rc == 0 && more < 0)
        rc = -1;
    for (size_t c = 0; copy && c < width; c++)
        value_clear(&copy[c]);
    free(copy);
    store_point_stream_close(ps);
    return rc;
}

/* The front's row order: by the objectives as given, best first. */
typedef struct front_order {
    const table *t;
    size_t first, k; /* the objectives' columns */
    const int *maximize;
    size_t row;
} front_order;

static int compare_front(const void *pa, const void *pb)
{
    const front_order *a = pa, *b = pb;
    for (size_t i = 0; i < a->k; i++) {
        double x = value_number(table_cell(a->t, a->row, a->first + i));
        double y = value_number(table_cell(b->t, b->row, b->first + i));
        if (a->maximize[i]) {
            x = -x;
            y = -y;
        }
        if (x != y)
            return x < y ? -1 : 1;
    }
    return (a->row > b->row) - (a->row < b->row);
}

/* A copy of t with its rows sorted best first; NULL when out of memory. */
static table *sorted_front(const table *t, const pareto_job *j)
{
    front_order *order = malloc((t->row_count + 1) * sizeof *order);
    table *sorted = table_new(t->title);
    value *row = calloc(t->column_count + 1, sizeof *row);
    int bad = !order || !sorted || !row;
    for (size_t c = 0; !bad && c < t->column_count; c++)
        bad = table_add_column(sorted, t->columns[c].name, t->columns[c].unit, t->columns[c].type,
                               t->columns[c].is_param) != 0;
    for (size_t r = 0; !bad && r < t->row_count; r++)
        order[r] =
            (front_order){ t, t->column_count - j->objectives, j->objectives, j->maximize, r };
    if (!bad)
        qsort(order, t->row_count, sizeof *order, compare_front);
    for (size_t r = 0; !bad && r < t->row_count; r++) {
        for (size_t c = 0; !bad && c < t->column_count; c++)
            bad = value_copy(&row[c], table_cell(t, order[r].row, c)) != 0;
        bad = bad || table_append_row(sorted, row) != 0;
    }
    for (size_t c = 0; row && c < t->column_count; c++)
        value_clear(&row[c]);
    free(row);
    free(order);
    if (bad) {
        table_free(sorted);
        return NULL;
    }
    return sorted;
}

int cli_pareto(const options_parsed *a)
{
    const option_value *v = a->values;
    const option_value *mins = &v[OPTION_PARETO_MIN], *maxs = &v[OPTION_PARETO_MAX];
    if (!a->positional)
        return options_usage_error("%s needs a sweep: runner pareto SWEEP --min COL --max COL",
                                   "pareto");
    if (mins->count + maxs->count < 2) {
        fprintf(stderr, "runner: pareto: two or more objectives are needed (--min COL, --max "
                        "COL; each repeatable)\n");
        return EXIT_USAGE;
    }
    pareto_job j = { .objectives = mins->count + maxs->count };
    store *s = NULL;
    int64_t *ids = NULL;
    size_t count = 0, n = 0;
    double *values = NULL;
    unsigned char *on_front = NULL;
    table *front = NULL, *sorted = NULL;
    char *err = NULL, *title = NULL;
    int status = cli_open_sweep(a, &s, &j.sweep, &ids, &count);
    if (status != EXIT_OK)
        goto done;
    j.names = malloc(j.objectives * sizeof *j.names);
    j.maximize = malloc(j.objectives * sizeof *j.maximize);
    if (!j.names || !j.maximize) {
        status = cli_fail(NULL);
        goto done;
    }
    for (size_t i = 0; i < j.objectives; i++) {
        int max = i >= mins->count;
        j.names[i] = max ? maxs->list[i - mins->count] : mins->list[i];
        j.maximize[i] = max;
    }
    if ((status = pick_section(a, s, ids, count, &j)) != EXIT_OK)
        goto done;
    if (read_objectives(s, &j, &values, &n, &err) != 0) {
        status = cli_fail(err);
        goto done;
    }
    size_t with_nan = 0;
    for (size_t r = 0; r < n; r++)
        for (size_t i = 0; i < j.objectives; i++)
            if (isnan(values[r * j.objectives + i])) {
                with_nan++;
                break;
            }
    long size = (on_front = malloc(n + 1)) ? pareto_front(values, n, j.objectives, on_front) : -1;
    free(values);
    values = NULL;
    title = util_format("pareto front of sweep %lld, section %d (%s)", (long long)j.sweep,
                        j.ordinal, j.plugin);
    if (size < 0 || !title || !(front = read_columns(&j, 1, title))) {
        status = cli_fail(NULL);
        goto done;
    }
    if (read_front(s, &j, on_front, n, front, &err) != 0) {
        status = cli_fail(err);
        goto done;
    }
    if (!(sorted = sorted_front(front, &j))) {
        status = cli_fail(NULL);
        goto done;
    }
    output_format format = OUTPUT_TABLE;
    output_parse_format(v[OPTION_PARETO_FORMAT].text, &format);
    if (output_table(stdout, sorted, format) != 0) {
        status = cli_fail(util_format("cannot write the front"));
        goto done;
    }
    if (format == OUTPUT_TABLE)
        printf("front: %ld of %zu rows%s", size, n, with_nan ? "; " : "\n");
    if (with_nan)
        fprintf(format == OUTPUT_TABLE ? stdout : stderr, "%s%zu row%s with NaN excluded\n",
                format == OUTPUT_TABLE ? "" : "runner: pareto: ", with_nan,
                with_nan == 1 ? "" : "s");
done:
    free(title);
    free(values);
    free(on_front);
    table_free(front);
    table_free(sorted);
    free(ids);
    store_close(s);
    pareto_job_clear(&j);
    return status;
}
