/* plot_fit: stored fits as curves over a plot, a Pareto front as marked
 * rows (plot_fit.h). The numbers are analysis/'s: fit_model_eval, the
 * curve a Lua function's fit stored (fit_curve), and pareto_front. */
#include "plot_fit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "base/util.h"

/* Points on a drawn curve: smooth at 800 pixels. */
#define CURVE_POINTS 400

void plot_fit_set_clear(plot_fit_set *set)
{
    if (!set)
        return;
    for (size_t i = 0; i < set->count; i++) {
        free(set->curves[i].title);
        free(set->curves[i].x);
        free(set->curves[i].y);
        value_clear(&set->by_values[i]);
    }
    free(set->curves);
    free(set->by_values);
    free(set->ids);
    free(set->model);
    free(set->x);
    free(set->y);
    free(set->by);
    memset(set, 0, sizeof *set);
}

static const char *text_cell(const table *t, size_t r, const char *name)
{
    const value *v = table_cell(t, r, (size_t)table_find_column(t, name));
    return v->type == RUNNER_TEXT ? v->as.text : NULL;
}

static double number_cell(const table *t, size_t r, const char *name)
{
    return value_number(table_cell(t, r, (size_t)table_find_column(t, name)));
}

/* Evaluates row r's fit into curve; 0, or -1 (no memory). */
static int make_curve(const table *t, size_t r, const fit_model *m, int logx, plot_curve *curve)
{
    double p[3] = { number_cell(t, r, "p1"), number_cell(t, r, "p2"), number_cell(t, r, "p3") };
    double lo = number_cell(t, r, "x_min"), hi = number_cell(t, r, "x_max");
    int logspaced = lo > 0 && (logx || hi >= 10 * lo);
    curve->x = malloc(CURVE_POINTS * sizeof *curve->x);
    curve->y = malloc(CURVE_POINTS * sizeof *curve->y);
    if (!curve->x || !curve->y)
        return -1;
    for (size_t i = 0; i < CURVE_POINTS; i++) {
        double share = (double)i / (CURVE_POINTS - 1);
        double x = logspaced ? lo * pow(hi / lo, share) : lo + (hi - lo) * share;
        curve->x[i] = x;
        curve->y[i] = fit_model_eval(m, p, x);
    }
    curve->n = CURVE_POINTS;
    return 0;
}

/* A user model's curve as its fit stored it (fit_curve): *stored 0 when
 * there is none (a fit older than schema 15). 0, or -1 with *err. */
static int stored_curve(store *s, int64_t fit_id, plot_curve *curve, int *stored, char **err)
{
    double *low = NULL, *high = NULL;
    size_t n = 0;
    int rc = store_fit_curve(s, fit_id, &curve->x, &curve->y, &low, &high, &n, err);
    free(low);
    free(high);
    curve->n = n;
    *stored = n > 0;
    return rc;
}

int plot_fit_load(store *s, int64_t sweep_id, int64_t fit_id, int logx, plot_fit_set *out,
                  char **err)
{
    table *t = NULL;
    memset(out, 0, sizeof *out);
    if (store_fit_group(s, sweep_id, fit_id, &t, err) != 0)
        return -1;
    if (t->row_count == 0) {
        table_free(t);
        if (fit_id)
            return util_fail(err, "sweep %lld has no fit %lld ('runner fit' prints the ids)",
                             (long long)sweep_id, (long long)fit_id);
        return util_fail(err, "sweep %lld has no stored fit ('runner fit' stores them)",
                         (long long)sweep_id);
    }
    const char *model = text_cell(t, 0, "model");
    const fit_model *m = model ? fit_model_find(model) : NULL;
    /* A Lua function's fit draws the curve it stored (fit_curve). */
    int stored = 0;
    if (!m && model) {
        plot_curve probe = { 0 };
        if (stored_curve(s, (int64_t)number_cell(t, 0, "id"), &probe, &stored, err) != 0) {
            table_free(t);
            return -1;
        }
        free(probe.x);
        free(probe.y);
    }
    if (!m && !stored) {
        util_fail(err, "fit %lld: model %s is not one this runner draws (%s)",
                  (long long)number_cell(t, 0, "id"), model ? model : "?", fit_model_names());
        table_free(t);
        return -1;
    }
    size_t n = t->row_count;
    const char *by = text_cell(t, 0, "by_column");
    out->curves = calloc(n, sizeof *out->curves);
    out->by_values = calloc(n, sizeof *out->by_values);
    out->ids = calloc(n, sizeof *out->ids);
    out->model = util_strdup(model);
    out->x = util_strdup(text_cell(t, 0, "x_column"));
    out->y = util_strdup(text_cell(t, 0, "y_column"));
    out->by = by ? util_strdup(by) : NULL;
    int oom = !out->curves || !out->by_values || !out->ids || !out->model || !out->x || !out->y ||
              (by && !out->by);
    out->section_id = (int64_t)number_cell(t, 0, "section_id");
    out->first_id = (int64_t)number_cell(t, 0, "id");
    out->last_id = (int64_t)number_cell(t, n - 1, "id");
    for (size_t r = 0; !oom && r < n; r++) {
        plot_curve *c = &out->curves[r];
        out->count = r + 1;
        long id = (long)number_cell(t, r, "id");
        out->ids[r] = id;
        if (by) {
            char shown[128];
            const value *v = table_cell(t, r, (size_t)table_find_column(t, "by_value"));
            value_format(v, 6, shown, sizeof shown);
            oom = value_copy(&out->by_values[r], v) != 0 ||
                  !(c->title = util_format("%s fit %ld (%s = %s)", model, id, by, shown));
            c->by = &out->by_values[r];
        } else {
            oom = !(c->title = util_format("%s fit %ld", model, id));
        }
        if (!oom && m) {
            oom = make_curve(t, r, m, logx, c) != 0;
        } else if (!oom && stored_curve(s, id, c, &stored, err) != 0) {
            table_free(t);
            plot_fit_set_clear(out);
            return -1;
        }
    }
    table_free(t);
    if (oom) {
        plot_fit_set_clear(out);
        return util_fail(err, "out of memory");
    }
    return 0;
}

int plot_pareto_parse(const char *text, char **copy, const char **names, int *maximize,
                      size_t max_count, char **err)
{
    size_t k = 0;
    if (!(*copy = util_strdup(text)))
        return util_fail(err, "out of memory");
    for (char *part = *copy, *next; part; part = next) {
        next = strchr(part, ',');
        if (next)
            *next++ = '\0';
        int max = strncmp(part, "max:", 4) == 0;
        if ((!max && strncmp(part, "min:", 4) != 0) || !part[4])
            return util_fail(err,
                             "--pareto %s: expected min:COL,max:COL,... (two or more "
                             "objectives, each min: or max:)",
                             text);
        if (k == max_count)
            return util_fail(err, "--pareto %s: at most %zu objectives", text, max_count);
        for (size_t i = 0; i < k; i++)
            if (strcmp(names[i], part + 4) == 0)
                return util_fail(err, "--pareto %s: %s is named twice", text, part + 4);
        names[k] = part + 4;
        maximize[k++] = max;
    }
    if (k < 2)
        return util_fail(err,
                         "--pareto %s: expected min:COL,max:COL,... (two or more "
                         "objectives, each min: or max:)",
                         text);
    return (int)k;
}

int plot_pareto_mark(const table *t, const char *const *names, const int *maximize, size_t k,
                     unsigned char **marked, size_t *front, size_t *excluded, char **err)
{
    long cols[16];
    *marked = NULL;
    *front = *excluded = 0;
    for (size_t j = 0; j < k && j < 16; j++) {
        cols[j] = table_find_column(t, names[j]);
        if (cols[j] < 0)
            return util_fail(err, "--pareto: the section has no column %s", names[j]);
        if (!value_type_is_numeric(t->columns[cols[j]].type))
            return util_fail(err, "--pareto: %s is not a numeric column", names[j]);
    }
    size_t n = t->row_count;
    double *values = malloc((n ? n : 1) * k * sizeof *values);
    *marked = calloc(n ? n : 1, 1);
    if (!values || !*marked) {
        free(values);
        free(*marked);
        *marked = NULL;
        return util_fail(err, "out of memory");
    }
    for (size_t r = 0; r < n; r++) {
        int nan = 0;
        for (size_t j = 0; j < k; j++) {
            double v = value_number(table_cell(t, r, (size_t)cols[j]));
            nan |= isnan(v);
            values[r * k + j] = maximize[j] ? -v : v;
        }
        *excluded += (size_t)nan;
    }
    long size = pareto_front(values, n, k, *marked);
    free(values);
    if (size < 0) {
        free(*marked);
        *marked = NULL;
        return util_fail(err, "out of memory");
    }
    *front = (size_t)size;
    return 0;
}
