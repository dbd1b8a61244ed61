/* serve_view: what a section shows first on the dashboard, by the rule
 * `runner show`, `report` and `plot` follow (render/section_view.h): the
 * columns in order, the folded line of what is the same on every row, and
 * the default plot or why there is none. One streaming pass over the
 * section's rows, asked for by the sweep page once per section. */
#include "serve_int.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "render/render.h"

/* The section's position in its sweep (1, 2, ...), and its title. */
static int section_place(store *s, const servei_section *section, json_int_t *ordinal,
                         json_t **title, char **err)
{
    table *list = NULL;
    if (store_sweep_section_list(s, section->sweep_id, &list, err) != 0)
        return -1;
    *ordinal = 0;
    *title = json_null();
    for (size_t r = 0; r < list->row_count; r++) {
        const value *id = table_cell(list, r, 0);
        if (id->type != RUNNER_INTEGER || id->as.integer != section->id)
            continue;
        const value *pos = table_cell(list, r, 1);
        *ordinal = pos->type == RUNNER_INTEGER ? (json_int_t)pos->as.integer : 0;
        json_decref(*title);
        *title = servei_cell(table_cell(list, r, 3));
    }
    table_free(list);
    return 0;
}

/* Where the rule finds no plot because the parameters that vary are text
 * (a delay law), the dashboard still has one: x the first such parameter,
 * its values as named places (serve_plot.c), y the first numeric result
 * that varies; logy as the rule decides it. NULL: none. */
static json_t *category_plot(const table *cols, const table_facts *facts, const section_view *v)
{
    long x = -1, y = -1;
    for (size_t i = 0; i < v->shown_count; i++) {
        size_t c = v->shown[i];
        const table_column *col = &cols->columns[c];
        const column_facts *f = &facts->columns[c];
        if (x < 0 && col->is_param && !value_type_is_numeric(col->type) && f->varies &&
            f->distinct <= SECTION_VIEW_MAX_LINES)
            x = (long)c;
        if (y < 0 && !col->is_param && value_type_is_numeric(col->type) && f->finite > 0 &&
            f->min != f->max)
            y = (long)c;
    }
    if (x < 0 || y < 0)
        return NULL;
    int logy = section_view_log_axis(&facts->columns[y]);
    return json_pack("{s:o,s:o,s:n,s:b,s:b,s:b}", "x", value_json_text(cols->columns[x].name), "y",
                     value_json_text(cols->columns[y].name), "by", "logx", 0, "logy", logy,
                     "categories", 1);
}

static json_t *view_json(const servei_section *section, const table_facts *facts,
                         const section_view *v)
{
    const table *cols = section->columns;
    json_t *shown = json_array(), *folded = json_array();
    for (size_t i = 0; i < v->shown_count; i++)
        json_array_append_new(shown, value_json_text(cols->columns[v->shown[i]].name));
    char setting[512];
    for (size_t i = 0; i < v->folded_count; i++) {
        size_t c = v->folded[i];
        section_view_setting(cols, c, &facts->columns[c].first, setting, sizeof setting);
        json_array_append_new(folded, json_pack("{s:o,s:o,s:o,s:o}", "name",
                                                value_json_text(cols->columns[c].name), "unit",
                                                value_json_text(cols->columns[c].unit), "value",
                                                servei_cell(&facts->columns[c].first), "text",
                                                value_json_text(setting)));
    }
    /* Each numeric column's axis by the rule, so that every plot the page
     * links (a fit's, a front's) draws its axes as the default plot does. */
    json_t *log = json_object();
    for (size_t c = 0; c < cols->column_count; c++)
        if (value_type_is_numeric(cols->columns[c].type))
            json_object_set_new(log, cols->columns[c].name,
                                json_boolean(section_view_log_axis(&facts->columns[c])));
    plot_spec spec = { 0 };
    json_t *plot = json_null();
    if (section_view_plot(v, cols, &spec) == 0)
        plot = json_pack("{s:o,s:o,s:o,s:b,s:b}", "x", value_json_text(spec.x), "y",
                         value_json_text(spec.y), "by",
                         spec.by ? value_json_text(spec.by) : json_null(), "logx", spec.logx,
                         "logy", spec.logy);
    else if (facts->rows >= 2 && (plot = category_plot(cols, facts, v)) == NULL)
        plot = json_null();
    return json_pack("{s:I,s:o,s:o,s:o,s:o,s:o}", "rows", (json_int_t)facts->rows, "shown", shown,
                     "folded", folded, "log", log, "plot", plot, "no_plot",
                     json_is_null(plot) ? value_json_text(v->why) : json_null());
}

void servei_view(store *s, int64_t section_id, servei_reply *reply)
{
    servei_section section = { 0 };
    table_facts facts = { 0 };
    section_view view = { 0 };
    char *err = NULL;
    json_int_t ordinal = 0;
    json_t *title = NULL;
    if (servei_section_open(s, section_id, &section, reply) != 0)
        return;
    if (section_place(s, &section, &ordinal, &title, &err) != 0 ||
        section_view_read_facts(s, section_id, section.plugin, section.columns, &facts, &err) !=
            0 ||
        (section_view_init(&view, section.columns, &facts, section.plugin) != 0 &&
         util_fail(&err, "out of memory") != 0)) {
        json_decref(title);
        servei_reply_fail(reply, err);
    } else {
        json_t *root = view_json(&section, &facts, &view);
        json_object_set_new(root, "section_id", json_integer(section_id));
        json_object_set_new(root, "sweep_id", json_integer(section.sweep_id));
        json_object_set_new(root, "ordinal", json_integer(ordinal));
        json_object_set_new(root, "title", title);
        servei_reply_json(reply, root);
    }
    section_view_clear(&view);
    table_facts_clear(&facts);
    servei_section_clear(&section);
}
