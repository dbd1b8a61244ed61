/* serve_answers: the stored answers the dashboard draws over a section's
 * plot (GET /api/section/N/answers, docs/serve.md). Without x and y: what
 * there is (fits and two-objective fronts, for the sweep page's links).
 * With them: each fit of y against x as its curve with a 95 % band and its
 * quantities, and each front of the two columns as its rows. The numbers
 * are analysis/'s (fit_band, on the curve plot_fit_load spaces; a Lua
 * function's curve and band as its fit stored them), never the page's. */
#include "serve_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "base/util.h"
#include "render/render.h"

/* Front rows sent at most: a front is a handful of rows, but a column
 * with many ties can put a section's every row on it. */
#define SERVE_FRONT_MAX_POINTS 6000

static json_t *number(double v) { return isfinite(v) ? json_real(v) : json_null(); }

static const char *text_at(const table *t, size_t r, const char *name)
{
    long c = table_find_column(t, name);
    const value *v = c < 0 ? NULL : table_cell(t, r, (size_t)c);
    return v && v->type == RUNNER_TEXT ? v->as.text : NULL;
}

static double number_at(const table *t, size_t r, const char *name)
{
    long c = table_find_column(t, name);
    return c < 0 ? NAN : value_number(table_cell(t, r, (size_t)c));
}

static int same(const char *a, const char *b) { return a && b && strcmp(a, b) == 0; }

/* A fit's quantities as `runner fit --format json` names them; the
 * parameters' values into p (at most FIT_MAX_PARAMS). */
static json_t *params_json(const table *t, double *p, size_t *param_count)
{
    json_t *list = json_array();
    *param_count = 0;
    for (size_t r = 0; r < t->row_count; r++) {
        const char *kind = text_at(t, r, "kind");
        double v = number_at(t, r, "value");
        if (same(kind, "param") && *param_count < FIT_MAX_PARAMS)
            p[(*param_count)++] = v;
        json_array_append_new(list, json_pack("{s:o,s:o,s:o,s:o,s:o,s:o,s:o}", "name",
                                              servei_cell(table_cell(t, r, 0)), "kind",
                                              servei_cell(table_cell(t, r, 1)), "value", number(v),
                                              "stderr", number(number_at(t, r, "stderr")), "ci_low",
                                              number(number_at(t, r, "ci_low")), "ci_high",
                                              number(number_at(t, r, "ci_high")), "unit",
                                              servei_cell(table_cell(t, r, 6))));
    }
    return list;
}

/* The curve's points [x, f, low, high] with the band from fit_band, or
 * [x, f] with *note when there is no band. */
static json_t *curve_json(store *s, const servei_section *section, const fit_model *m,
                          const table *record, const double *p, const plot_curve *c, json_t **note,
                          char **err)
{
    double *x = NULL, *sd = NULL, *f = NULL, *low = NULL, *high = NULL;
    size_t n = 0;
    const char *weights = text_at(record, 0, "weight_column");
    int64_t id = (int64_t)number_at(record, 0, "id");
    json_t *points = NULL;
    if (store_fit_rows_x(s, id, section->plugin, weights, &x, &sd, &n, err) != 0)
        return NULL;
    f = malloc(c->n * sizeof *f);
    low = malloc(c->n * sizeof *low);
    high = malloc(c->n * sizeof *high);
    if (!f || !low || !high) {
        util_fail(err, "out of memory");
        goto done;
    }
    fit_band_input in = { .model = m,
                          .params = p,
                          .n = n,
                          .x = x,
                          .sd = weights ? sd : NULL,
                          .rss = number_at(record, 0, "rss"),
                          .dof = (size_t)number_at(record, 0, "dof"),
                          .confidence = number_at(record, 0, "confidence") };
    char *why = NULL;
    int banded = fit_band(&in, c->x, c->n, f, low, high, &why) == 0;
    if (!banded) {
        *note = value_json_text(why);
        free(why);
    }
    points = json_array();
    for (size_t i = 0; i < c->n; i++) {
        if (!isfinite(c->x[i]) || !isfinite(c->y[i]))
            continue;
        json_array_append_new(points, banded ? json_pack("[f,f,o,o]", c->x[i], c->y[i],
                                                         number(low[i]), number(high[i]))
                                             : json_pack("[f,f]", c->x[i], c->y[i]));
    }
done:
    free(x);
    free(sd);
    free(f);
    free(low);
    free(high);
    return points;
}

/* A Lua function's curve as its fit stored it (fit_curve): [x, f, low,
 * high], or [x, f] with *note where the band is not defined. */
static json_t *stored_curve_json(store *s, int64_t fit_id, json_t **note, char **err)
{
    double *x = NULL, *f = NULL, *low = NULL, *high = NULL;
    size_t n = 0;
    if (store_fit_curve(s, fit_id, &x, &f, &low, &high, &n, err) != 0)
        return NULL;
    int banded = n > 0;
    for (size_t i = 0; i < n; i++)
        banded &= !isfinite(f[i]) || (isfinite(low[i]) && isfinite(high[i]));
    if (!banded)
        *note = json_string("the band is not defined at every point of this model's curve");
    json_t *points = json_array();
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(x[i]) || !isfinite(f[i]))
            continue;
        json_array_append_new(points, banded ? json_pack("[f,f,f,f]", x[i], f[i], low[i], high[i])
                                             : json_pack("[f,f]", x[i], f[i]));
    }
    free(x);
    free(f);
    free(low);
    free(high);
    return points;
}

/* One curve of a fit group: its record, quantities and points. */
static json_t *fit_json(store *s, const servei_section *section, const plot_fit_set *set, size_t k,
                        char **err)
{
    table *record = NULL, *params = NULL;
    json_t *out = NULL, *note = json_null();
    const fit_model *m = fit_model_find(set->model);
    double p[FIT_MAX_PARAMS] = { 0 };
    size_t param_count = 0;
    if (store_fit_record(s, set->ids[k], &record, err) != 0 ||
        store_fit_params(s, set->ids[k], &params, err) != 0)
        goto done;
    if (record->row_count == 0) {
        util_fail(err, "fit %lld is gone", (long long)set->ids[k]);
        goto done;
    }
    json_t *quantities = params_json(params, p, &param_count);
    const char *formula = text_at(record, 0, "formula");
    /* m NULL: a Lua function, drawn from the curve its fit stored */
    json_t *points = m ? curve_json(s, section, m, record, p, &set->curves[k], &note, err)
                       : stored_curve_json(s, set->ids[k], &note, err);
    if (!points) {
        json_decref(quantities);
        goto done;
    }
    out = json_pack("{s:I,s:I,s:s,s:s,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o}", "id",
                    (json_int_t)set->ids[k], "group", (json_int_t)set->first_id, "model",
                    set->model, "formula",
                    m         ? fit_model_formula(m)
                    : formula ? formula
                              : "",
                    "title", value_json_text(set->curves[k].title), "by", value_json_text(set->by),
                    "by_value", set->by ? servei_cell(&set->by_values[k]) : json_null(), "n",
                    servei_cell(table_cell(record, 0, (size_t)table_find_column(record, "n"))),
                    "r2", number(number_at(record, 0, "r2")), "confidence",
                    number(number_at(record, 0, "confidence")), "weights",
                    value_json_text(text_at(record, 0, "weight_column")), "params", quantities,
                    "points", points, "band_note", note);
    note = NULL;
done:
    json_decref(note);
    table_free(record);
    table_free(params);
    return out;
}

/* The fits of y against x: every curve of every group, or NULL with *err. */
static json_t *fits_json(store *s, const servei_section *section, const table *fits, const char *x,
                         const char *y, int logx, json_t *notes, char **err)
{
    json_t *list = json_array();
    for (size_t r = 0; r < fits->row_count; r++) {
        if (!same(text_at(fits, r, "x_column"), x) || !same(text_at(fits, r, "y_column"), y))
            continue;
        plot_fit_set set;
        char *why = NULL;
        if (plot_fit_load(s, section->sweep_id, (int64_t)number_at(fits, r, "id"), logx, &set,
                          &why) != 0) {
            /* A model this runner does not draw (a Lua function's fit
             * that stored no curve: an older runner's): said, not drawn. */
            json_array_append_new(notes, value_json_text(why));
            free(why);
            continue;
        }
        for (size_t k = 0; k < set.count; k++) {
            json_t *one = fit_json(s, section, &set, k, err);
            if (!one) {
                plot_fit_set_clear(&set);
                json_decref(list);
                return NULL;
            }
            json_array_append_new(list, one);
        }
        plot_fit_set_clear(&set);
    }
    return list;
}

/* The fronts of x and y (either order): their rows as [x, y], by x. */
static json_t *fronts_json(store *s, const servei_section *section, const table *fronts,
                           const char *x, const char *y, char **err)
{
    json_t *list = json_array();
    for (size_t r = 0; r < fronts->row_count; r++) {
        const char *a = text_at(fronts, r, "x_column"), *b = text_at(fronts, r, "y_column");
        int swapped = same(a, y) && same(b, x);
        if (!swapped && !(same(a, x) && same(b, y)))
            continue;
        const char *x_direction = text_at(fronts, r, swapped ? "y_direction" : "x_direction");
        const char *y_direction = text_at(fronts, r, swapped ? "x_direction" : "y_direction");
        int64_t id = (int64_t)number_at(fronts, r, "id"), total = 0;
        double *xs = NULL, *ys = NULL;
        size_t n = 0;
        if (store_pareto_points(s, id, section->plugin, x, y, SERVE_FRONT_MAX_POINTS, &xs, &ys, &n,
                                &total, err) != 0) {
            json_decref(list);
            return NULL;
        }
        json_t *points = json_array();
        for (size_t i = 0; i < n; i++)
            if (isfinite(xs[i]) && isfinite(ys[i]))
                json_array_append_new(points, json_pack("[f,f]", xs[i], ys[i]));
        free(xs);
        free(ys);
        json_array_append_new(
            list, json_pack("{s:I,s:s,s:s,s:s,s:s,s:I,s:I,s:I,s:o,s:o}", "id", (json_int_t)id, "x",
                            x, "y", y, "x_direction", x_direction ? x_direction : "min",
                            "y_direction", y_direction ? y_direction : "min", "front_size",
                            (json_int_t)total, "rows", (json_int_t)number_at(fronts, r, "rows"),
                            "points_drawn", (json_int_t)n, "title",
                            json_sprintf("front %lld (%s %s, %s %s)", (long long)id,
                                         x_direction ? x_direction : "min", x,
                                         y_direction ? y_direction : "min", y),
                            "points", points));
    }
    return list;
}

/* What there is, for links: each fit group's and front's columns. */
static json_t *listing_json(const table *fits, const table *fronts)
{
    json_t *fit_list = json_array(), *front_list = json_array();
    for (size_t r = 0; r < fits->row_count; r++)
        json_array_append_new(
            fit_list, json_pack("{s:I,s:o,s:o,s:o,s:o}", "id", (json_int_t)number_at(fits, r, "id"),
                                "model", value_json_text(text_at(fits, r, "model")), "x",
                                value_json_text(text_at(fits, r, "x_column")), "y",
                                value_json_text(text_at(fits, r, "y_column")), "by",
                                value_json_text(text_at(fits, r, "by_column"))));
    for (size_t r = 0; r < fronts->row_count; r++)
        json_array_append_new(
            front_list,
            json_pack("{s:I,s:o,s:o,s:o,s:o}", "id", (json_int_t)number_at(fronts, r, "id"), "x",
                      value_json_text(text_at(fronts, r, "x_column")), "y",
                      value_json_text(text_at(fronts, r, "y_column")), "x_direction",
                      value_json_text(text_at(fronts, r, "x_direction")), "y_direction",
                      value_json_text(text_at(fronts, r, "y_direction"))));
    return json_pack("{s:o,s:o}", "fits", fit_list, "fronts", front_list);
}

void servei_answers(store *s, struct MHD_Connection *connection, int64_t section_id,
                    servei_reply *reply)
{
    servei_section section;
    table *fits = NULL, *fronts = NULL;
    char *err = NULL;
    if (servei_section_open(s, section_id, &section, reply) != 0)
        return;
    const char *x = servei_arg(connection, "x"), *y = servei_arg(connection, "y");
    if ((x == NULL) != (y == NULL)) {
        servei_reply_error(reply, 400, "x and y: give both, or neither for the list");
    } else if (store_section_overlays(s, section_id, &fits, &fronts, &err) != 0) {
        servei_reply_fail(reply, err);
    } else if (!x) {
        servei_reply_json(reply, listing_json(fits, fronts));
    } else {
        int logx = servei_arg_int(connection, "logx", 0, 1, 0) == 1;
        json_t *notes = json_array();
        json_t *fit_list = fits_json(s, &section, fits, x, y, logx, notes, &err);
        json_t *front_list = fit_list ? fronts_json(s, &section, fronts, x, y, &err) : NULL;
        if (!front_list) {
            json_decref(fit_list);
            json_decref(notes);
            servei_reply_fail(reply, err);
        } else {
            servei_reply_json(reply, json_pack("{s:o,s:o,s:o}", "fits", fit_list, "fronts",
                                               front_list, "notes", notes));
        }
    }
    table_free(fits);
    table_free(fronts);
    servei_section_clear(&section);
}
