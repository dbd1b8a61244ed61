/* section_view: what matters in a section, the one rule (section_view.h). */
#include "section_view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "base/util.h"

/* A number column with two different finite values: something to draw. */
static int varies_finite(const table_column *col, const column_facts *f)
{
    return value_type_is_numeric(col->type) && f->finite > 0 && f->min != f->max;
}

int section_view_log_axis(const column_facts *f)
{
    return f->finite > 0 && !f->nonpositive && f->max / f->min >= SECTION_VIEW_LOG_RATIO;
}

static void order_columns(section_view *v, const table *cols, const table_facts *facts,
                          const char *plugin)
{
    const column_facts *f = facts->columns;
    int compare = facts->rows >= 2;
    long named = plugin ? table_find_column(cols, plugin) : -1;
    if (named >= 0 && (cols->columns[named].is_param || !f[named].varies))
        named = -1;
    for (size_t c = 0; c < cols->column_count; c++)
        if (cols->columns[c].is_param && (!compare || f[c].varies))
            v->shown[v->shown_count++] = c;
    if (named >= 0 && compare)
        v->shown[v->shown_count++] = (size_t)named;
    for (size_t c = 0; c < cols->column_count; c++)
        if (!cols->columns[c].is_param && (long)c != named && (!compare || f[c].varies))
            v->shown[v->shown_count++] = c;
    for (size_t c = 0; compare && c < cols->column_count; c++)
        if (!f[c].varies)
            v->folded[v->folded_count++] = c;
}

/* x: the varying numeric parameter with the most distinct values; of
 * equals (FACTS_DISTINCT_CAP makes big grids equal), an integer (a count of
 * workers, of nodes) before a real, then the first. A text parameter has
 * no axis. */
static long pick_x(const section_view *v, const table *cols, const table_facts *facts)
{
    long x = -1;
    for (size_t i = 0; i < v->shown_count; i++) {
        size_t c = v->shown[i];
        const column_facts *f = &facts->columns[c];
        if (!cols->columns[c].is_param || !varies_finite(&cols->columns[c], f))
            continue;
        size_t best = x < 0 ? 0 : facts->columns[x].distinct;
        int integer = cols->columns[c].type == RUNNER_INTEGER;
        if (x < 0 || f->distinct > best ||
            (f->distinct == best && integer && cols->columns[x].type != RUNNER_INTEGER))
            x = (long)c;
    }
    return x;
}

static long pick_by(const section_view *v, const table *cols, const table_facts *facts)
{
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < v->shown_count; i++) {
            size_t c = v->shown[i];
            const table_column *col = &cols->columns[c];
            if ((long)c == v->x || (long)c == v->y)
                continue;
            if (pass == 0
                    ? !col->is_param
                    : col->is_param || (col->type != RUNNER_TEXT && col->type != RUNNER_BOOLEAN))
                continue;
            size_t n = facts->columns[c].distinct;
            if (n >= 2 && n <= SECTION_VIEW_MAX_LINES)
                return (long)c;
        }
    }
    return -1;
}

/* The names of the varying parameters that are not numbers ("law"). */
static void text_parameters(const section_view *v, const table *cols, char *buf, size_t size)
{
    size_t used = 0, n = 0;
    buf[0] = 0;
    for (size_t i = 0; i < v->shown_count && used < size; i++) {
        const table_column *col = &cols->columns[v->shown[i]];
        if (!col->is_param)
            continue;
        int k = snprintf(buf + used, size - used, "%s%s", n++ ? ", " : "", col->name);
        used += k > 0 ? (size_t)k : 0;
    }
}

static void choose_plot(section_view *v, const table *cols, const table_facts *facts)
{
    v->x = v->y = v->by = -1;
    size_t rows = facts->rows;
    if (rows < 2) {
        snprintf(v->why, sizeof v->why, "%s", rows ? "one row: nothing to compare" : "no rows");
        return;
    }
    if (v->shown_count == 0) {
        snprintf(v->why, sizeof v->why, "nothing varies across the %zu rows", rows);
        return;
    }
    if ((v->x = pick_x(v, cols, facts)) < 0) {
        char names[120];
        text_parameters(v, cols, names, sizeof names);
        if (*names)
            snprintf(v->why, sizeof v->why, "no numeric parameter varies (%s: not numbers)", names);
        else
            snprintf(v->why, sizeof v->why, "no parameter varies across the %zu rows", rows);
        return;
    }
    for (size_t i = 0; i < v->shown_count && v->y < 0; i++) {
        size_t c = v->shown[i];
        if (!cols->columns[c].is_param && varies_finite(&cols->columns[c], &facts->columns[c]))
            v->y = (long)c;
    }
    if (v->y < 0) {
        snprintf(v->why, sizeof v->why, "no numeric result varies across the %zu rows", rows);
        v->x = -1;
        return;
    }
    v->by = pick_by(v, cols, facts);
    v->logx = section_view_log_axis(&facts->columns[v->x]);
    v->logy = section_view_log_axis(&facts->columns[v->y]);
}

int section_view_init(section_view *v, const table *cols, const table_facts *facts,
                      const char *plugin)
{
    memset(v, 0, sizeof *v);
    size_t n = cols->column_count ? cols->column_count : 1;
    v->shown = calloc(n, sizeof *v->shown);
    v->folded = calloc(n, sizeof *v->folded);
    if (!v->shown || !v->folded) {
        section_view_clear(v);
        return -1;
    }
    order_columns(v, cols, facts, plugin);
    choose_plot(v, cols, facts);
    return 0;
}

void section_view_clear(section_view *v)
{
    free(v->shown);
    free(v->folded);
    memset(v, 0, sizeof *v);
    v->x = v->y = v->by = -1;
}

void section_view_setting(const table *cols, size_t c, const value *v, char *buf, size_t size)
{
    const table_column *col = &cols->columns[c];
    char text[128];
    if (v->type == 0) { /* NULL: nothing was recorded, and no unit to it */
        snprintf(buf, size, "%s = none", col->name);
        return;
    }
    value_format(v, 6, text, sizeof text);
    int unit = *col->unit && strcmp(col->unit, col->name) != 0;
    snprintf(buf, size, "%s = %s%s%s", col->name, text, unit ? " " : "", unit ? col->unit : "");
}

char *section_view_folded_line(const section_view *v, const table *cols, const table_facts *facts)
{
    strbuf b = { 0 };
    char setting[512];
    for (size_t i = 0; i < v->folded_count; i++) {
        size_t c = v->folded[i];
        section_view_setting(cols, c, &facts->columns[c].first, setting, sizeof setting);
        if (i)
            strbuf_add(&b, SECTION_VIEW_SEPARATOR, strlen(SECTION_VIEW_SEPARATOR));
        strbuf_add(&b, setting, strlen(setting));
    }
    if (b.oom) {
        free(b.data);
        return NULL;
    }
    return b.data ? b.data : calloc(1, 1);
}

char **section_view_settings(const section_view *v, const table *cols, const table_facts *facts)
{
    char **settings = calloc(v->folded_count + 1, sizeof *settings);
    for (size_t i = 0; settings && i < v->folded_count; i++) {
        char setting[512];
        size_t c = v->folded[i];
        section_view_setting(cols, c, &facts->columns[c].first, setting, sizeof setting);
        if (!(settings[i] = util_strdup(setting))) {
            section_view_free_settings(settings, i);
            return NULL;
        }
    }
    return settings;
}

void section_view_free_settings(char **settings, size_t count)
{
    for (size_t i = 0; settings && i < count; i++)
        free(settings[i]);
    free(settings);
}

int section_view_plot(const section_view *v, const table *cols, plot_spec *spec)
{
    if (v->x < 0 || v->y < 0)
        return -1;
    spec->x = cols->columns[v->x].name;
    spec->y = cols->columns[v->y].name;
    spec->by = v->by >= 0 ? cols->columns[v->by].name : NULL;
    spec->logx = v->logx;
    spec->logy = v->logy;
    return 0;
}

int section_view_read_facts(store *s, int64_t section_id, const char *plugin, const table *cols,
                            table_facts *facts, char **err)
{
    size_t n = cols->column_count;
    value *row = NULL;
    store_cursor *cursor = NULL;
    if (table_facts_init(facts, n) != 0 || !(row = calloc(n ? n : 1, sizeof *row))) {
        table_facts_clear(facts);
        return util_fail(err, "out of memory");
    }
    int rc = 0;
    if (n > 0) /* nothing recorded for the plugin: no rows */
        rc = store_cursor_open(s, section_id, plugin, cols, NULL, NULL, 0, &cursor, err);
    store_row_key key;
    while (rc == 0 && n > 0 && (rc = store_cursor_next(cursor, row, &key, err)) == 1) {
        rc = table_facts_add(facts, row, (facts_where){ key.point_id, key.row_id }) == 0
                 ? 0
                 : util_fail(err, "out of memory");
        for (size_t c = 0; c < n; c++)
            value_clear(&row[c]);
    }
    store_cursor_close(cursor);
    free(row);
    if (rc != 0)
        table_facts_clear(facts);
    return rc;
}
