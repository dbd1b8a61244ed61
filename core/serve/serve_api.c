/* serve_api: the JSON API the dashboard's script reads (docs/serve.md):
 * the sweeps list (filtered, sorted and paged in SQL), one sweep's
 * provenance and sections, and its live progress. Tables, plots and the
 * comparison are in serve_table.c, serve_plot.c and serve_compare.c. Each
 * request reads through its own store (serve_db.c); the queries are the
 * store's (store_query.h). */
#include "serve_int.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/machine.h"
#include "base/util.h"
#include "store/store.h"

/* Sweeps one page lists when the client does not say. */
#define SERVE_API_DEFAULT_PAGE 50

/* --- the sweeps list ----------------------------------------------------- */

/* What the list may be sorted by: the client names one, never SQL. */
static const struct {
    const char *name;
    store_sweep_sort sort;
} sweep_sorts[] = {
    { "id", STORE_SWEEP_BY_ID },         { "started", STORE_SWEEP_BY_STARTED },
    { "script", STORE_SWEEP_BY_SCRIPT }, { "status", STORE_SWEEP_BY_STATUS },
    { "name", STORE_SWEEP_BY_NAME },     { "duration", STORE_SWEEP_BY_DURATION },
};

/* Page columns, as store_sweep_page returns them. */
enum {
    LIST_ID,
    LIST_SCRIPT,
    LIST_STATUS,
    LIST_STARTED,
    LIST_ENDED,
    LIST_DURATION,
    LIST_NAME,
    LIST_NOTE,
    LIST_TAGS,
    LIST_OK,
    LIST_FAILED,
    LIST_PLANNED
};

static json_int_t cell_integer(const table *t, size_t row, size_t column)
{
    const value *v = table_cell(t, row, column);
    return v && v->type == RUNNER_INTEGER ? (json_int_t)v->as.integer : 0;
}

static json_t *sweep_list_row(const table *t, size_t r)
{
    json_t *row = json_object();
    static const char *const names[] = { "id",       "script",     "status", "started_at",
                                         "ended_at", "duration_s", "name",   "note" };
    for (size_t i = 0; i < 8; i++)
        json_object_set_new(row, names[i], servei_cell(table_cell(t, r, i)));
    const value *tags = table_cell(t, r, LIST_TAGS);
    json_t *tag_list = tags->type == RUNNER_TEXT ? json_loads(tags->as.text, 0, NULL) : NULL;
    json_object_set_new(row, "tags", tag_list ? tag_list : json_array());
    json_object_set_new(row, "points_ok", json_integer(cell_integer(t, r, LIST_OK)));
    json_object_set_new(row, "points_failed", json_integer(cell_integer(t, r, LIST_FAILED)));
    json_object_set_new(row, "points_planned", json_integer(cell_integer(t, r, LIST_PLANNED)));
    return row;
}

/* The store reads only catalogs with sweep names, notes and tags (schema
 * 9 on): has_names and has_tags, which told older files apart, are true. */
static void api_sweeps(store *s, struct MHD_Connection *connection, servei_reply *reply)
{
    const char *sort = servei_arg(connection, "sort");
    size_t k = 0, count = sizeof sweep_sorts / sizeof sweep_sorts[0];
    while (k < count && strcmp(sort ? sort : "id", sweep_sorts[k].name) != 0)
        k++;
    if (k == count) {
        servei_reply_error(reply, 400,
                           "sort: expected id, started, script, status, name or "
                           "duration");
        return;
    }
    const char *order = servei_arg(connection, "order");
    if (servei_check_order(order, reply) != 0)
        return;
    int descending = order ? strcmp(order, "desc") == 0 : 1;
    int64_t limit =
        servei_arg_int(connection, "limit", 1, SERVEI_MAX_PAGE_ROWS, SERVE_API_DEFAULT_PAGE);
    int64_t offset = servei_arg_int(connection, "offset", 0, INT64_MAX / 2, 0);
    store_sweep_filter filter = { .text = servei_arg(connection, "q"),
                                  .status = servei_arg(connection, "status") };
    table *page = NULL;
    int64_t total = 0;
    char *err = NULL;
    if (store_sweep_page(s, &filter, sweep_sorts[k].sort, descending, limit, offset, &page, &total,
                         &err) != 0) {
        servei_reply_fail(reply, err);
        return;
    }
    json_t *rows = json_array();
    for (size_t r = 0; r < page->row_count; r++)
        json_array_append_new(rows, sweep_list_row(page, r));
    table_free(page);
    servei_reply_json(reply, json_pack("{s:I,s:I,s:I,s:o,s:b,s:b}", "total", (json_int_t)total,
                                       "offset", (json_int_t)offset, "limit", (json_int_t)limit,
                                       "rows", rows, "has_names", 1, "has_tags", 1));
}

/* --- one sweep ------------------------------------------------------------ */

/* Plugins by name (the store gives them as recorded). */
static int by_plugin_name(const void *a, const void *b)
{
    const char *x = json_string_value(json_object_get(*(json_t *const *)a, "plugin"));
    const char *y = json_string_value(json_object_get(*(json_t *const *)b, "plugin"));
    return strcmp(x ? x : "", y ? y : "");
}

static json_t *plugins_by_name(json_t *plugins)
{
    size_t n = json_array_size(plugins);
    json_t **items = calloc(n + 1, sizeof *items);
    json_t *sorted = items ? json_array() : NULL;
    for (size_t i = 0; sorted && i < n; i++)
        items[i] = json_array_get(plugins, i);
    if (sorted) {
        qsort(items, n, sizeof *items, by_plugin_name);
        for (size_t i = 0; i < n; i++)
            json_array_append(sorted, items[i]);
    }
    free(items);
    json_decref(plugins);
    return sorted;
}

/* Sections as the dashboard shows them, each with its columns (name, unit,
 * type, role), from the catalog. */
static json_t *sections_json(store *s, const table *list, char **err)
{
    static const char *const keys[] = {
        "id",          "ordinal",     "plugin",      "title",
        "script_line", "point_count", "points_done", "points_failed"
    };
    json_t *sections = json_array();
    for (size_t r = 0; r < list->row_count; r++) {
        json_t *section = json_object();
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
            json_object_set_new(section, keys[k], servei_cell(table_cell(list, r, k)));
        json_array_append_new(sections, section);
        table *columns = NULL;
        char *plugin = NULL;
        int64_t sweep_id = 0;
        const value *id = table_cell(list, r, 0);
        if (store_section_result_columns(s, id->as.integer, &columns, &plugin, &sweep_id, err) !=
            0) {
            json_decref(sections);
            return NULL;
        }
        json_object_set_new(section, "columns",
                            columns ? servei_columns_json(columns) : json_array());
        table_free(columns);
        free(plugin);
    }
    return sections;
}

/* The machine the sweep ran on (sweep_machine), in its order, with what in
 * it made timings noisy (machine_judge, without --jobs): {facts: [{field,
 * value}], findings: [{problem, advice, noisy}]}. NULL with *err. */
static json_t *machine_json(store *s, int64_t sweep_id, char **err)
{
    machine_facts m = { 0 };
    machine_finding *found = NULL;
    size_t count = 0;
    if (store_sweep_machine(s, sweep_id, &m, err) != 0)
        return NULL;
    if (machine_judge(&m, 0, &found, &count) != 0) {
        machine_facts_clear(&m);
        *err = util_strdup("out of memory");
        return NULL;
    }
    json_t *facts = json_array(), *findings = json_array();
    for (size_t i = 0; i < m.count; i++)
        json_array_append_new(facts,
                              json_pack("{s:o,s:o}", "field", value_json_text(m.fields[i].name),
                                        "value", value_json_text(m.fields[i].value)));
    for (size_t i = 0; i < count; i++)
        json_array_append_new(findings,
                              json_pack("{s:o,s:o,s:b}", "problem",
                                        value_json_text(found[i].problem), "advice",
                                        value_json_text(found[i].advice), "noisy", found[i].noisy));
    machine_findings_free(found, count);
    machine_facts_clear(&m);
    return json_pack("{s:o,s:o}", "facts", facts, "findings", findings);
}

static void api_sweep(store *s, int64_t sweep_id, servei_reply *reply)
{
    char *err = NULL;
    table *record = NULL, *plugins = NULL, *sections = NULL, *tags = NULL;
    json_t *sweep = NULL, *plugin_list = NULL, *section_list = NULL, *machine = NULL;
    if (store_sweep_row(s, sweep_id, &record, &err) != 0)
        goto fail;
    if (record->row_count == 0) {
        table_free(record);
        servei_reply_error(reply, 404, "no such sweep");
        return;
    }
    if (store_sweep_plugin_list(s, sweep_id, &plugins, &err) != 0 ||
        store_sweep_section_list(s, sweep_id, &sections, &err) != 0 ||
        store_sweep_tag_list(s, sweep_id, &tags, &err) != 0)
        goto fail;
    json_t *records = servei_table_objects(record);
    sweep = json_incref(json_array_get(records, 0));
    json_decref(records);
    plugin_list = plugins_by_name(servei_table_objects(plugins));
    if (!sweep || !plugin_list || !(section_list = sections_json(s, sections, &err)) ||
        !(machine = machine_json(s, sweep_id, &err)))
        goto fail;
    json_t *tag_names = json_array();
    for (size_t r = 0; r < tags->row_count; r++)
        json_array_append_new(tag_names, servei_cell(table_cell(tags, r, 0)));
    json_object_set_new(sweep, "tags", tag_names);
    servei_reply_json(reply, json_pack("{s:o,s:o,s:o,s:o}", "sweep", sweep, "plugins", plugin_list,
                                       "sections", section_list, "machine", machine));
    table_free(record);
    table_free(plugins);
    table_free(sections);
    table_free(tags);
    return;
fail:
    json_decref(sweep);
    json_decref(plugin_list);
    json_decref(section_list);
    table_free(record);
    table_free(plugins);
    table_free(sections);
    table_free(tags);
    servei_reply_fail(reply, err);
}

/* Progress columns, as store_sweep_progress returns them. */
enum {
    PROGRESS_STATUS,
    PROGRESS_STARTED,
    PROGRESS_ENDED,
    PROGRESS_ELAPSED,
    PROGRESS_PLANNED,
    PROGRESS_SECTIONS,
    PROGRESS_DONE,
    PROGRESS_FAILED
};

/* Points done and failed, the rate since the start, and an ETA from the
 * sections begun so far (a script's later sections are not known yet). */
static void api_progress(store *s, int64_t sweep_id, servei_reply *reply)
{
    char *err = NULL;
    table *t = NULL;
    if (store_sweep_progress(s, sweep_id, &t, &err) != 0) {
        servei_reply_fail(reply, err);
        return;
    }
    if (t->row_count == 0) {
        table_free(t);
        servei_reply_error(reply, 404, "no such sweep");
        return;
    }
    const value *elapsed = table_cell(t, 0, PROGRESS_ELAPSED);
    const value *status = table_cell(t, 0, PROGRESS_STATUS);
    double elapsed_s = elapsed->type == RUNNER_REAL      ? elapsed->as.real
                       : elapsed->type == RUNNER_INTEGER ? (double)elapsed->as.integer
                                                         : 0;
    int64_t planned = cell_integer(t, 0, PROGRESS_PLANNED),
            done = cell_integer(t, 0, PROGRESS_DONE);
    double rate = elapsed_s > 0 ? done / elapsed_s : 0;
    int running = status->type == RUNNER_TEXT && strcmp(status->as.text, "running") == 0;
    json_t *eta =
        running && rate > 0 && planned >= done ? json_real((planned - done) / rate) : json_null();
    json_t *root = json_pack(
        "{s:o,s:o,s:o,s:f,s:I,s:I,s:I,s:I,s:f,s:o,s:b}", "status", servei_cell(status),
        "started_at", servei_cell(table_cell(t, 0, PROGRESS_STARTED)), "ended_at",
        servei_cell(table_cell(t, 0, PROGRESS_ENDED)), "elapsed_s", elapsed_s, "points_planned",
        (json_int_t)planned, "sections", cell_integer(t, 0, PROGRESS_SECTIONS), "points_done",
        (json_int_t)done, "points_failed", cell_integer(t, 0, PROGRESS_FAILED), "points_per_s",
        rate, "eta_s", eta, "running", running);
    table_free(t);
    servei_reply_json(reply, root);
}

/* "sweep/12" or "sweep/12/progress": the id, and the rest in *tail. */
static int64_t path_id(const char *path, const char *prefix, const char **tail)
{
    size_t n = strlen(prefix);
    if (strncmp(path, prefix, n) != 0 || path[n] < '1' || path[n] > '9')
        return 0;
    char *end = NULL;
    long long id = strtoll(path + n, &end, 10);
    *tail = end;
    return id > 0 && id < INT64_MAX ? id : 0;
}

void servei_api(const servei_server *server, struct MHD_Connection *connection, const char *path,
                servei_reply *reply)
{
    char *err = NULL;
    store *db = servei_db_open(server->db_path, &err);
    if (!db) {
        servei_reply_fail(reply, err);
        return;
    }
    const char *tail = "";
    int64_t id;
    if (strcmp(path, "sweeps") == 0)
        api_sweeps(db, connection, reply);
    else if (strcmp(path, "compare") == 0)
        servei_compare(db, connection, reply);
    else if (strcmp(path, "history") == 0)
        servei_history(db, connection, reply);
    else if ((id = path_id(path, "sweep/", &tail)) && strcmp(tail, "") == 0)
        api_sweep(db, id, reply);
    else if (id && strcmp(tail, "/progress") == 0)
        api_progress(db, id, reply);
    else if (id && strcmp(tail, "/findings") == 0)
        servei_findings(db, id, reply);
    else if (id && strcmp(tail, "/series") == 0)
        servei_series(db, connection, id, reply);
    else if ((id = path_id(path, "section/", &tail)) && strcmp(tail, "/rows") == 0)
        servei_rows(db, connection, id, reply);
    else if (id && strcmp(tail, "/plot") == 0)
        servei_plot(db, connection, id, reply);
    else if (id && strcmp(tail, "/view") == 0)
        servei_view(db, id, reply);
    else if (id && strcmp(tail, "/answers") == 0)
        servei_answers(db, connection, id, reply);
    else
        servei_reply_error(reply, 404, "no such API path");
    store_close(db);
}
