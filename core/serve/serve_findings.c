/* serve_findings: what a sweep found, for the top of its page
 * (GET /api/sweep/ID/findings, docs/serve.md): the lines its script
 * printed (sweep_printed), then its stored answers: each section's newest
 * fit groups with their quantities and intervals, fronts, sensitivity
 * indices, and the newest `runner diff --stat` of each pair of sweeps it
 * is in, with its first rows (changes first). Read from the store as the
 * commands stored them; the page draws and words them. */
#include "serve_int.h"

#include <stdlib.h>

#include "base/util.h"

/* Rows of a comparison sent with it (changes first); the compare page's
 * stat mode pages through the rest. */
#define SERVE_FINDINGS_STAT_ROWS 12

static int64_t integer_at(const table *t, size_t r, size_t c)
{
    const value *v = table_cell(t, r, c);
    return v && v->type == RUNNER_INTEGER ? v->as.integer : 0;
}

/* t's rows as objects, freeing t; [] for NULL (no such table). */
static json_t *objects(table *t)
{
    json_t *list = t ? servei_table_objects(t) : json_array();
    table_free(t);
    return list;
}

/* One fit: its stored row and quantities, the section it fitted. */
static json_t *fit_json(store *s, int64_t fit_id, int64_t group, const value *ordinal, char **err)
{
    table *record = NULL, *params = NULL;
    json_t *out = NULL;
    if (store_fit_record(s, fit_id, &record, err) == 0 &&
        store_fit_params(s, fit_id, &params, err) == 0 && record->row_count == 1) {
        json_t *rows = servei_table_objects(record);
        out = json_incref(json_array_get(rows, 0));
        json_decref(rows);
        if (out) {
            json_object_set_new(out, "group", json_integer(group));
            json_object_set_new(out, "ordinal", servei_cell(ordinal));
            json_object_set_new(out, "params", objects(params));
            params = NULL;
        }
    }
    if (!out && !*err)
        util_fail(err, "cannot read fit %lld: it is gone, or out of memory", (long long)fit_id);
    table_free(record);
    table_free(params);
    return out;
}

/* Every curve of the newest fit groups of each section. */
static json_t *fits_json(store *s, int64_t sweep_id, const table *sections, char **err)
{
    json_t *list = json_array();
    for (size_t r = 0; r < sections->row_count; r++) {
        table *groups = NULL;
        if (store_section_fit_ids(s, integer_at(sections, r, 0), &groups, err) != 0)
            goto fail;
        for (size_t g = 0; g < groups->row_count; g++) {
            int64_t group = integer_at(groups, g, 0);
            table *members = NULL;
            if (store_fit_group(s, sweep_id, group, &members, err) != 0) {
                table_free(groups);
                goto fail;
            }
            for (size_t m = 0; m < members->row_count; m++) {
                json_t *one =
                    fit_json(s, integer_at(members, m, 0), group, table_cell(sections, r, 1), err);
                if (!one) {
                    table_free(members);
                    table_free(groups);
                    goto fail;
                }
                json_array_append_new(list, one);
            }
            table_free(members);
        }
        table_free(groups);
    }
    return list;
fail:
    json_decref(list);
    return NULL;
}

/* The newest comparison of each pair, with its first rows. */
static json_t *stat_diffs_json(store *s, int64_t sweep_id, char **err)
{
    table *heads = NULL;
    if (store_sweep_stat_diffs(s, sweep_id, &heads, err) != 0)
        return NULL;
    json_t *list = heads ? servei_table_objects(heads) : json_array();
    for (size_t r = 0; heads && r < heads->row_count; r++) {
        table *rows = NULL;
        if (!list || store_stat_diff_rows(s, integer_at(heads, r, 0), 1, 0,
                                          SERVE_FINDINGS_STAT_ROWS, &rows, err) != 0) {
            json_decref(list);
            list = NULL;
            break;
        }
        json_object_set_new(json_array_get(list, r), "rows", objects(rows));
    }
    table_free(heads);
    if (!list && !*err)
        util_fail(err, "out of memory");
    return list;
}

void servei_findings(store *s, int64_t sweep_id, servei_reply *reply)
{
    char *err = NULL, **lines = NULL;
    size_t line_count = 0;
    table *record = NULL, *sections = NULL, *fronts = NULL, *indices = NULL;
    json_t *fits = NULL, *comparisons = NULL;
    if (store_sweep_row(s, sweep_id, &record, &err) != 0) {
        servei_reply_fail(reply, err);
        return;
    }
    if (record->row_count == 0) {
        table_free(record);
        servei_reply_error(reply, 404, "no such sweep");
        return;
    }
    if (store_sweep_printed(s, sweep_id, &lines, &line_count, &err) != 0 ||
        store_sweep_section_list(s, sweep_id, &sections, &err) != 0 ||
        !(fits = fits_json(s, sweep_id, sections, &err)) ||
        store_sweep_fronts(s, sweep_id, &fronts, &err) != 0 ||
        store_sweep_sensitivities(s, sweep_id, &indices, &err) != 0 ||
        !(comparisons = stat_diffs_json(s, sweep_id, &err))) {
        json_decref(fits);
        servei_reply_fail(reply, err);
    } else {
        json_t *printed = json_array();
        for (size_t i = 0; i < line_count; i++)
            json_array_append_new(printed, value_json_text(lines[i]));
        json_t *section_list = objects(sections);
        sections = NULL;
        json_t *front_list = objects(fronts), *index_list = objects(indices);
        fronts = indices = NULL;
        servei_reply_json(
            reply, json_pack("{s:I,s:o,s:o,s:o,s:o,s:o,s:o}", "sweep_id", (json_int_t)sweep_id,
                             "printed", printed, "sections", section_list, "fits", fits, "fronts",
                             front_list, "sensitivities", index_list, "comparisons", comparisons));
    }
    store_sweep_printed_free(lines, line_count);
    table_free(record);
    table_free(sections);
    table_free(fronts);
    table_free(indices);
}
