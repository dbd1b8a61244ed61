/* store_fit: the rows of `runner fit` (docs/analysis.md, docs/schema.md):
 * a fit, its parameters and derived quantities, its residual per row and,
 * for a user model, its curve sampled (fit_curve), written in one
 * transaction so that a fit is stored whole or not at all. */
#include "store_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A real that may be NaN or infinite: NULL for those (undefined). */
static int bind_real(sqlite3_stmt *st, int index, double v)
{
    return isfinite(v) ? sqlite3_bind_double(st, index, v) : sqlite3_bind_null(st, index);
}

static int bind_typed(sqlite3_stmt *st, int index, const value *v)
{
    switch (v ? v->type : 0) {
    case RUNNER_INTEGER: return sqlite3_bind_int64(st, index, v->as.integer);
    case RUNNER_REAL: return bind_real(st, index, v->as.real);
    case RUNNER_TEXT: return storei_bind_text(st, index, v->as.text);
    case RUNNER_BOOLEAN: return sqlite3_bind_int(st, index, v->as.boolean != 0);
    default: return sqlite3_bind_null(st, index);
    }
}

/* Residual rows go in RESIDUALS_PER_INSERT to a statement: a million rows
 * cost a million steps of one statement otherwise (a third of the time);
 * 256 execute 3 % fewer instructions than 64 (callgrind, 10^5 rows), 1024
 * no fewer. */
#define RESIDUAL_COLUMNS 7
#define RESIDUALS_PER_INSERT 256

static void bind_residual(sqlite3_stmt *st, int first, const store_fit *f, int64_t fit_id,
                          int64_t i)
{
    sqlite3_bind_int64(st, first + 1, fit_id);
    sqlite3_bind_int64(st, first + 2, f->keys[i].row_id);
    sqlite3_bind_int64(st, first + 3, f->keys[i].point_id);
    sqlite3_bind_double(st, first + 4, f->x[i]);
    sqlite3_bind_double(st, first + 5, f->y[i]);
    sqlite3_bind_double(st, first + 6, f->fitted[i]);
    sqlite3_bind_double(st, first + 7, f->residual[i]);
}

/* "INSERT INTO fit_residual (...) VALUES (?, ...), ..." with rows rows. */
static char *residual_insert_sql(int rows)
{
    strbuf b = { 0 };
    strbuf_str(&b, "INSERT INTO fit_residual (fit_id, row_id, point_id, x, y, fitted, residual)"
                   " VALUES ");
    for (int r = 0; r < rows; r++)
        strbuf_str(&b, r ? ", (?, ?, ?, ?, ?, ?, ?)" : "(?, ?, ?, ?, ?, ?, ?)");
    if (b.oom) {
        strbuf_free(&b);
        return NULL;
    }
    return b.data;
}

static int write_one(store *s, const store_fit *f, const char *created, sqlite3_stmt *fit_st,
                     sqlite3_stmt *param_st, sqlite3_stmt *residual_st, sqlite3_stmt *residuals_st,
                     sqlite3_stmt *curve_st, int64_t *id, char **err)
{
    const char *what = "cannot store the fit";
    sqlite3_bind_int64(fit_st, 1, f->sweep_id);
    sqlite3_bind_int64(fit_st, 2, f->section_id);
    storei_bind_text(fit_st, 3, f->model);
    storei_bind_text(fit_st, 4, f->formula);
    storei_bind_text(fit_st, 5, f->x_column);
    storei_bind_text(fit_st, 6, f->y_column);
    storei_bind_text(fit_st, 7, f->x_unit ? f->x_unit : "");
    storei_bind_text(fit_st, 8, f->y_unit ? f->y_unit : "");
    storei_bind_text(fit_st, 9, f->by_column);
    bind_typed(fit_st, 10, f->by_column ? f->by_value : NULL);
    storei_bind_text(fit_st, 11, f->weight_column);
    sqlite3_bind_int64(fit_st, 12, f->n);
    sqlite3_bind_int64(fit_st, 13, f->excluded);
    sqlite3_bind_int64(fit_st, 14, f->dof);
    bind_real(fit_st, 15, f->r2);
    sqlite3_bind_double(fit_st, 16, f->rss);
    sqlite3_bind_double(fit_st, 17, f->residual_sd);
    sqlite3_bind_double(fit_st, 18, f->confidence);
    sqlite3_bind_int64(fit_st, 19, f->iterations);
    storei_bind_text(fit_st, 20, created);
    storei_bind_text(fit_st, 21, f->rows_key);
    if (storei_step_done(s, fit_st, what, err) != 0)
        return -1;
    *id = sqlite3_last_insert_rowid(s->db);
    for (size_t i = 0; i < f->param_count; i++) {
        const store_fit_param *p = &f->params[i];
        sqlite3_bind_int64(param_st, 1, *id);
        sqlite3_bind_int64(param_st, 2, (int64_t)i + 1);
        storei_bind_text(param_st, 3, p->name);
        storei_bind_text(param_st, 4, p->derived ? "derived" : "param");
        bind_real(param_st, 5, p->value);
        bind_real(param_st, 6, p->std_error);
        bind_real(param_st, 7, p->ci_low);
        bind_real(param_st, 8, p->ci_high);
        storei_bind_text(param_st, 9, p->unit ? p->unit : "");
        storei_bind_text(param_st, 11, p->interval ? p->interval : "wald");
        storei_bind_text(param_st, 10, p->doc ? p->doc : "");
        if (storei_step_done(s, param_st, what, err) != 0)
            return -1;
    }
    /* RESIDUALS_PER_INSERT rows a statement, then one at a time. */
    int64_t i = 0;
    for (; i + RESIDUALS_PER_INSERT <= f->n; i += RESIDUALS_PER_INSERT) {
        for (int k = 0; k < RESIDUALS_PER_INSERT; k++)
            bind_residual(residuals_st, k * RESIDUAL_COLUMNS, f, *id, i + k);
        if (sqlite3_step(residuals_st) != SQLITE_DONE)
            return storei_fail_sql(s, err, "%s (its residuals)", what);
        sqlite3_reset(residuals_st);
    }
    for (; i < f->n; i++) {
        bind_residual(residual_st, 0, f, *id, i);
        if (sqlite3_step(residual_st) != SQLITE_DONE)
            return storei_fail_sql(s, err, "%s (its residuals)", what);
        sqlite3_reset(residual_st);
    }
    for (size_t k = 0; k < f->curve_n; k++) {
        sqlite3_bind_int64(curve_st, 1, *id);
        sqlite3_bind_int64(curve_st, 2, (int64_t)k + 1);
        sqlite3_bind_double(curve_st, 3, f->curve_x[k]);
        bind_real(curve_st, 4, f->curve_f[k]);
        bind_real(curve_st, 5, f->curve_low[k]);
        bind_real(curve_st, 6, f->curve_high[k]);
        if (storei_step_done(s, curve_st, what, err) != 0)
            return -1;
    }
    return 0;
}

/* The request a fit answers, as SQL over fit's columns (?1 .. ?8: sweep,
 * section, model, formula, x, y, by column, weight column); the groups of
 * a --by request differ in by_value only. */
#define SAME_REQUEST                                                                               \
    "sweep_id = ?1 AND section_id = ?2 AND model = ?3 AND formula = ?4 AND x_column = ?5"          \
    " AND y_column = ?6 AND by_column IS ?7 AND weight_column IS ?8"

static void bind_request(sqlite3_stmt *st, const store_fit *f)
{
    sqlite3_bind_int64(st, 1, f->sweep_id);
    sqlite3_bind_int64(st, 2, f->section_id);
    storei_bind_text(st, 3, f->model);
    storei_bind_text(st, 4, f->formula);
    storei_bind_text(st, 5, f->x_column);
    storei_bind_text(st, 6, f->y_column);
    storei_bind_text(st, 7, f->by_column);
    storei_bind_text(st, 8, f->weight_column);
}

/* 1 when the fits stored for this request are these (one per group, the
 * same rows fitted: n, excluded and the residual sum of squares bit for
 * bit, stored together), their ids into ids; 0 when not; -1 on an error. */
static int find_kept(store *s, const store_fit *fits, size_t count, int64_t *ids, char **err)
{
    const char *what = "cannot read the stored fits";
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db,
                           "SELECT id, n, excluded, rss, created_at, by_value IS ?9,"
                           " (SELECT count(*) FROM fit WHERE " SAME_REQUEST ")"
                           " FROM fit WHERE " SAME_REQUEST " AND by_value IS ?9",
                           -1, &st, NULL) != SQLITE_OK)
        return storei_fail_sql(s, err, "%s", what);
    char created[64] = "";
    int same = 1;
    for (size_t i = 0; same && i < count; i++) {
        const store_fit *f = &fits[i];
        sqlite3_reset(st);
        bind_request(st, f);
        bind_typed(st, 9, f->by_column ? f->by_value : NULL);
        int rc = sqlite3_step(st);
        if (rc != SQLITE_ROW) {
            same = 0;
            if (rc != SQLITE_DONE) {
                sqlite3_finalize(st);
                return storei_fail_sql(s, err, "%s", what);
            }
            break;
        }
        /* read before the next step, which ends the row's values */
        const char *at = (const char *)sqlite3_column_text(st, 4);
        ids[i] = sqlite3_column_int64(st, 0);
        same = sqlite3_column_int64(st, 1) == f->n && sqlite3_column_int64(st, 2) == f->excluded &&
               sqlite3_column_double(st, 3) == f->rss &&
               sqlite3_column_int64(st, 6) == (int64_t)count && at &&
               (i == 0 || strcmp(created, at) == 0);
        if (i == 0 && at)
            snprintf(created, sizeof created, "%s", at);
        same = same && sqlite3_step(st) == SQLITE_DONE; /* one stored fit per group */
    }
    sqlite3_finalize(st);
    return same;
}

/* Deletes the fits stored for the request of f, with their rows. */
static int drop_request(store *s, const store_fit *f, char **err)
{
    static const char *const sql[] = {
        "DELETE FROM fit_curve WHERE fit_id IN (SELECT id FROM fit WHERE " SAME_REQUEST ")",
        "DELETE FROM fit_residual WHERE fit_id IN (SELECT id FROM fit WHERE " SAME_REQUEST ")",
        "DELETE FROM fit_param WHERE fit_id IN (SELECT id FROM fit WHERE " SAME_REQUEST ")",
        "DELETE FROM fit WHERE " SAME_REQUEST,
    };
    for (size_t i = 0; i < sizeof sql / sizeof *sql; i++) {
        sqlite3_stmt *st = NULL;
        if (sqlite3_prepare_v2(s->db, sql[i], -1, &st, NULL) != SQLITE_OK)
            return storei_fail_sql(s, err, "cannot replace the stored fit");
        bind_request(st, f);
        int rc = storei_step_done(s, st, "cannot replace the stored fit", err);
        sqlite3_finalize(st);
        if (rc != 0)
            return -1;
    }
    return 0;
}

int store_fits_write(store *s, const store_fit *fits, size_t count, int again, int64_t *ids,
                     int *kept, char **err)
{
    const char *what = "cannot store the fit";
    sqlite3_stmt *fit_st = NULL, *param_st = NULL, *residual_st = NULL, *residuals_st = NULL,
                 *curve_st = NULL;
    char created[32];
    char *one = residual_insert_sql(1), *many = residual_insert_sql(RESIDUALS_PER_INSERT);
    if (!one || !many) {
        free(one);
        free(many);
        return util_fail(err, "%s: %s: out of memory", s->path, what);
    }
    storei_format_utc(util_now(), created);
    if (storei_answer_begin(s, what, err) != 0) {
        free(one);
        free(many);
        return -1;
    }
    int rc = -1;
    *kept = 0;
    if (count > 0 && (again == STORE_ANSWER_KEEP || again == STORE_ANSWER_KEEP_ADD)) {
        int found = find_kept(s, fits, count, ids, err);
        if (found < 0)
            goto done;
        if (found) {
            *kept = 1;
            rc = 0;
            for (size_t i = 0; rc == 0 && i < count; i++)
                rc = storei_answer_touch(s, "fit", ids[i], fits[0].rows_key, err);
            goto done;
        }
    }
    /* Asked again (--again) or the rows changed: the new answer replaces
     * the stored one, never piles up beside it. */
    if (count > 0 && (again == STORE_ANSWER_KEEP || again == STORE_ANSWER_AGAIN) &&
        drop_request(s, &fits[0], err) != 0)
        goto done;
    if (sqlite3_prepare_v2(
            s->db,
            "INSERT INTO fit (sweep_id, section_id, model, formula, x_column,"
            " y_column, x_unit, y_unit, by_column, by_value, weight_column, n,"
            " excluded, dof, r2, rss, residual_sd, confidence, iterations,"
            " created_at, question, rows_key) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7,"
            " ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, " STOREI_FIT_QUESTION(
                "?3", "?5", "?6", "?9", "?11") ", ?21)",
            -1, &fit_st, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(s->db,
                           "INSERT INTO fit_param (fit_id, position, name, kind, value, stderr,"
                           " ci_low, ci_high, unit, doc, interval) VALUES (?1, ?2, ?3, ?4, ?5, ?6,"
                           " ?7, ?8, ?9, ?10, ?11)",
                           -1, &param_st, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(s->db, one, -1, &residual_st, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(s->db, many, -1, &residuals_st, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(s->db,
                           "INSERT INTO fit_curve (fit_id, position, x, fitted, ci_low, ci_high)"
                           " VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                           -1, &curve_st, NULL) != SQLITE_OK) {
        storei_fail_sql(s, err, "%s", what);
        goto done;
    }
    for (size_t i = 0; i < count; i++)
        if (write_one(s, &fits[i], created, fit_st, param_st, residual_st, residuals_st, curve_st,
                      &ids[i], err) != 0)
            goto done;
    rc = storei_answer_check(s, "fit", what, err);
done:
    sqlite3_finalize(fit_st);
    sqlite3_finalize(param_st);
    sqlite3_finalize(residual_st);
    sqlite3_finalize(residuals_st);
    sqlite3_finalize(curve_st);
    free(one);
    free(many);
    return storei_answer_end(s, rc, what, err);
}

int store_fit_params(store *s, int64_t fit_id, table **out, char **err)
{
    sqlite3_stmt *st = NULL;
    *out = NULL;
    if (sqlite3_prepare_v2(s->db,
                           "SELECT name, kind, value, stderr, ci_low, ci_high, unit FROM fit_param"
                           " WHERE fit_id = ?1 ORDER BY position",
                           -1, &st, NULL) != SQLITE_OK)
        return storei_fail_sql(s, err, "cannot read fit %lld", (long long)fit_id);
    sqlite3_bind_int64(st, 1, fit_id);
    int rc = storei_query_table(s, st, "cannot read the fit", out, err);
    sqlite3_finalize(st);
    return rc;
}

/* The columns of store_fit_group, from fit f. */
#define FIT_GROUP_COLUMNS                                                                          \
    "f.id, f.section_id, f.model, f.x_column, f.y_column, f.by_column, f.by_value,"                \
    " (SELECT min(x) FROM fit_residual r WHERE r.fit_id = f.id) AS x_min,"                         \
    " (SELECT max(x) FROM fit_residual r WHERE r.fit_id = f.id) AS x_max,"                         \
    " (SELECT value FROM fit_param p WHERE p.fit_id = f.id AND p.position = 1) AS p1,"             \
    " (SELECT value FROM fit_param p WHERE p.fit_id = f.id AND p.position = 2) AS p2,"             \
    " (SELECT value FROM fit_param p WHERE p.fit_id = f.id AND p.position = 3) AS p3"

int store_fit_group(store *s, int64_t sweep_id, int64_t fit_id, table **out, char **err)
{
    sqlite3_stmt *st = NULL;
    *out = NULL;
    if (sqlite3_prepare_v2(
            s->db,
            "WITH one AS (SELECT * FROM fit WHERE sweep_id = ?1 AND (?2 = 0 OR id = ?2)"
            " ORDER BY id DESC LIMIT 1)"
            " SELECT " FIT_GROUP_COLUMNS " FROM fit f, one o"
            " WHERE f.sweep_id = o.sweep_id AND f.section_id = o.section_id AND f.model = o.model"
            " AND f.x_column = o.x_column AND f.y_column = o.y_column"
            " AND f.by_column IS o.by_column AND f.weight_column IS o.weight_column"
            " AND f.created_at = o.created_at ORDER BY f.id",
            -1, &st, NULL) != SQLITE_OK)
        return storei_fail_sql(s, err, "cannot read the fits of sweep %lld", (long long)sweep_id);
    sqlite3_bind_int64(st, 1, sweep_id);
    sqlite3_bind_int64(st, 2, fit_id);
    int rc = storei_query_table(s, st, "cannot read the fits", out, err);
    sqlite3_finalize(st);
    return rc;
}

int store_section_fit_ids(store *s, int64_t section_id, table **out, char **err)
{
    sqlite3_stmt *st = NULL;
    *out = NULL;
    /* One fit per model and columns: the newest (a --by group's first id
     * stands for the group; store_fit_group finds the rest). */
    if (sqlite3_prepare_v2(s->db,
                           "SELECT min(f.id) AS id, f.model, f.x_column, f.y_column, f.by_column"
                           " FROM fit f WHERE f.section_id = ?1"
                           " AND f.created_at = (SELECT max(g.created_at) FROM fit g"
                           " WHERE g.section_id = f.section_id AND g.model = f.model"
                           " AND g.x_column = f.x_column AND g.y_column = f.y_column)"
                           " GROUP BY f.model, f.x_column, f.y_column ORDER BY 1",
                           -1, &st, NULL) != SQLITE_OK)
        return storei_fail_sql(s, err, "cannot read the fits of section %lld",
                               (long long)section_id);
    sqlite3_bind_int64(st, 1, section_id);
    int rc = storei_query_table(s, st, "cannot read the fits", out, err);
    sqlite3_finalize(st);
    return rc;
}
