/* fit_answer: one section's fits, as `runner fit` and Lua's fit{} make
 * them: the rows read (fit_data.c), one fit per --by group (fit.c), all
 * stored in one transaction (store_fits_write). A fit refused in any group
 * stores nothing. */
#include "fit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "analysis_int.h"

void fit_answer_clear(fit_answer *a)
{
    if (!a)
        return;
    for (size_t i = 0; a->results && i < a->groups.count; i++)
        fit_result_clear(&a->results[i]);
    free(a->results);
    free(a->ids);
    fit_group_set_free(&a->groups);
    memset(a, 0, sizeof *a);
}

/* "sweep 3, section 1" and, under --by, ", jitter = 0.5": where a message
 * comes from (malloc'd). */
static char *group_label(const fit_question *q, const fit_group *g)
{
    const char *by = q->columns.by;
    char cell[64] = "";
    if (by && g)
        value_format(&g->by, 6, cell, sizeof cell);
    return util_format("sweep %lld, section %d%s%s%s%s", (long long)q->sweep_id, q->ordinal,
                       by && g ? ", " : "", by && g ? by : "", by && g ? " = " : "",
                       by && g ? cell : "");
}

/* The message err (owned) prefixed with where it comes from. */
static int fail_at(const fit_question *q, const fit_group *g, char *message, char **err)
{
    char *where = group_label(q, g);
    util_fail(err, "%s: %s", where ? where : "", message ? message : "out of memory");
    free(where);
    free(message);
    return -1;
}

static int store_all(store *s, const fit_question *q, fit_answer *a, const char *rows_key,
                     char **err)
{
    enum {
        PER_FIT = FIT_MAX_PARAMS + FIT_MAX_DERIVED
    };
    size_t count = a->groups.count;
    store_fit *fits = calloc(count, sizeof *fits);
    store_fit_param *params = calloc(count * PER_FIT, sizeof *params);
    char **units = calloc(count * PER_FIT, sizeof *units);
    int rc = -1;
    if (!fits || !params || !units) {
        util_fail(err, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < count; i++) {
        const fit_group *g = &a->groups.groups[i];
        const fit_result *r = &a->results[i];
        store_fit_param *p = &params[i * PER_FIT];
        char **u = &units[i * PER_FIT];
        for (size_t k = 0; k < r->estimate_count; k++) {
            const fit_estimate *e = &r->estimates[k];
            if (!(u[k] = fit_unit_text(e->unit, a->groups.x_unit, a->groups.y_unit))) {
                util_fail(err, "out of memory");
                goto done;
            }
            p[k] = (store_fit_param){ .name = e->name,
                                      .unit = u[k],
                                      .doc = e->doc,
                                      .derived = e->derived,
                                      .value = e->value,
                                      .std_error = e->std_error,
                                      .ci_low = e->ci_low,
                                      .ci_high = e->ci_high,
                                      .interval = e->interval };
        }
        fits[i] = (store_fit){ .sweep_id = q->sweep_id,
                               .section_id = q->section_id,
                               .model = fit_model_name(q->model),
                               .formula = fit_model_formula(q->model),
                               .x_column = q->columns.x,
                               .y_column = q->columns.y,
                               .x_unit = a->groups.x_unit,
                               .y_unit = a->groups.y_unit,
                               .by_column = q->columns.by,
                               .by_value = &g->by,
                               .weight_column =
                                   q->relative_noise ? FIT_RELATIVE_NOISE : q->columns.weights,
                               .n = (int64_t)r->n,
                               .excluded = (int64_t)g->excluded,
                               .dof = (int64_t)r->dof,
                               .iterations = (int64_t)r->iterations,
                               .r2 = r->r2,
                               .rss = r->rss,
                               .residual_sd = r->residual_sd,
                               .confidence = r->confidence,
                               .param_count = r->estimate_count,
                               .params = p,
                               .keys = g->keys,
                               .x = g->x,
                               .y = g->y,
                               .fitted = r->fitted,
                               .residual = r->residual,
                               .curve_n = r->curve_n,
                               .curve_x = r->curve_x,
                               .curve_f = r->curve_f,
                               .curve_low = r->curve_low,
                               .curve_high = r->curve_high,
                               .rows_key = rows_key };
    }
    rc = store_fits_write(s, fits, count, q->again, a->ids, &a->kept, err);
done:
    for (size_t i = 0; units && i < count * PER_FIT; i++)
        free(units[i]);
    free(units);
    free(params);
    free(fits);
    return rc;
}

/* --noise relative: the group's sd is |y| (owned by the group, freed with
 * it). A y of 0 has no relative noise to weigh: refused. */
static int relative_sd(const fit_question *q, fit_group *g, char **err)
{
    free(g->sd);
    if (!(g->sd = malloc((g->n ? g->n : 1) * sizeof *g->sd)))
        return util_fail(err, "out of memory");
    for (size_t i = 0; i < g->n; i++) {
        if (g->y[i] == 0)
            return util_fail(err,
                             "sweep %lld, section %d: --noise relative weighs each row by 1/%s^2, "
                             "and a row has %s = 0",
                             (long long)q->sweep_id, q->ordinal, q->columns.y, q->columns.y);
        g->sd[i] = fabs(g->y[i]);
    }
    return 0;
}

int fit_answer_section(store *s, const fit_question *q, fit_answer *out, char **err)
{
    memset(out, 0, sizeof *out);
    char *message = NULL, *rows_key = NULL;
    /* the key of the rows before they are read: rows added meanwhile make
     * the stored fit stale, never one that looks current */
    if (store_rows_key(s, q->sweep_id, q->section_id, &rows_key, err) != 0)
        return -1;
    if (fit_groups_load(s, q->section_id, &q->columns, &out->groups, &message) != 0) {
        free(rows_key);
        return fail_at(q, NULL, message, err);
    }
    size_t count = out->groups.count;
    out->results = calloc(count ? count : 1, sizeof *out->results);
    out->ids = calloc(count ? count : 1, sizeof *out->ids);
    int rc = -1;
    if (!out->results || !out->ids) {
        util_fail(err, "out of memory");
        goto done;
    }
    if (count == 0) {
        util_fail(err, "sweep %lld, section %d has no rows to fit", (long long)q->sweep_id,
                  q->ordinal);
        goto done;
    }
    for (size_t i = 0; i < count; i++) {
        fit_group *g = &out->groups.groups[i];
        if (q->relative_noise && relative_sd(q, g, err) != 0)
            goto done;
        fit_data data = { .n = g->n, .x = g->x, .y = g->y, .sd = g->sd };
        out->excluded += g->excluded;
        if (fit_run(q->model, &data, NULL, &out->results[i], &message) != 0) {
            fail_at(q, q->columns.by ? g : NULL, message, err);
            goto done;
        }
    }
    rc = store_all(s, q, out, rows_key, err);
done:
    free(rows_key);
    if (rc != 0)
        fit_answer_clear(out);
    return rc;
}
