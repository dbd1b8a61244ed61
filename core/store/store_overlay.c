/* store_overlay: what the dashboard draws over a section's plot (store.h):
 * the stored fits and two-objective Pareto fronts of a section, the x (and
 * weights) a fit was fitted to, for its confidence band, the curve stored
 * with a user model's fit, and the values of a front's rows. Read-only. */
#include "store_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int store_section_overlays(store *s, int64_t section_id, table **fits, table **fronts, char **err)
{
    sqlite3_stmt *st = NULL;
    *fits = *fronts = NULL;
    if (store_section_fit_ids(s, section_id, fits, err) != 0)
        return -1;
    /* Fronts of exactly two objectives, the newest per pair. */
    if (sqlite3_prepare_v2(
            s->db,
            "SELECT max(p.id) AS id, a.column_name AS x_column, a.direction AS x_direction,"
            " b.column_name AS y_column, b.direction AS y_direction, p.rows, p.front_size"
            " FROM pareto p JOIN pareto_objective a ON a.pareto_id = p.id AND a.position = 1"
            " JOIN pareto_objective b ON b.pareto_id = p.id AND b.position = 2"
            " WHERE p.section_id = ?1"
            " AND NOT EXISTS (SELECT 1 FROM pareto_objective c WHERE c.pareto_id = p.id"
            " AND c.position > 2)"
            " GROUP BY a.column_name, a.direction, b.column_name, b.direction ORDER BY 1",
            -1, &st, NULL) != SQLITE_OK) {
        table_free(*fits);
        *fits = NULL;
        return storei_fail_sql(s, err, "cannot read the fronts of section %lld",
                               (long long)section_id);
    }
    sqlite3_bind_int64(st, 1, section_id);
    int rc = storei_query_table(s, st, "cannot read the fronts", fronts, err);
    sqlite3_finalize(st);
    if (rc != 0) {
        table_free(*fits);
        *fits = NULL;
    }
    return rc;
}

int store_fit_record(store *s, int64_t fit_id, table **out, char **err)
{
    sqlite3_stmt *st = NULL;
    *out = NULL;
    if (sqlite3_prepare_v2(s->db, "SELECT * FROM fit WHERE id = ?1", -1, &st, NULL) != SQLITE_OK)
        return storei_fail_sql(s, err, "cannot read fit %lld", (long long)fit_id);
    sqlite3_bind_int64(st, 1, fit_id);
    int rc = storei_query_table(s, st, "cannot read the fit", out, err);
    sqlite3_finalize(st);
    return rc;
}

/* Grows *a (and *b, when b) to hold capacity doubles; 0 or -1. */
static int grow(double **a, double **b, size_t capacity)
{
    double *na = realloc(*a, capacity * sizeof *na);
    if (!na)
        return -1;
    *a = na;
    if (!b)
        return 0;
    double *nb = realloc(*b, capacity * sizeof *nb);
    if (!nb)
        return -1;
    *b = nb;
    return 0;
}

/* Steps st, reading columns 0 and (when b) 1 as doubles into *a and *b,
 * at most limit rows (0: all); *n the rows read. */
static int collect_pairs(store *s, sqlite3_stmt *st, const char *what, size_t limit, double **a,
                         double **b, size_t *n, char **err)
{
    size_t capacity = 0;
    int step;
    *n = 0;
    while ((limit == 0 || *n < limit) && (step = sqlite3_step(st)) == SQLITE_ROW) {
        if (*n == capacity) {
            capacity = capacity ? 2 * capacity : 1024;
            if (grow(a, b, capacity) != 0)
                return util_fail(err, "%s: %s: out of memory", s->path, what);
        }
        (*a)[*n] = sqlite3_column_double(st, 0);
        if (b)
            (*b)[*n] = sqlite3_column_double(st, 1);
        (*n)++;
    }
    if ((limit == 0 || *n < limit) && step != SQLITE_DONE)
        return storei_fail_sql(s, err, "%s", what);
    return 0;
}

int store_fit_rows_x(store *s, int64_t fit_id, const char *plugin, const char *weight_column,
                     double **x, double **sd, size_t *n, char **err)
{
    const char *what = "cannot read the rows of the fit";
    strbuf sql = { 0 };
    sqlite3_stmt *st = NULL;
    *x = NULL;
    *n = 0;
    if (sd)
        *sd = NULL;
    strbuf_str(&sql, "SELECT r.x");
    if (weight_column) {
        strbuf_str(&sql, ", t.");
        storei_append_ident(&sql, weight_column);
        strbuf_str(&sql, " FROM fit_residual r JOIN ");
        storei_append_ident(&sql, plugin);
        strbuf_str(&sql, " t ON t.\"row_id\" = r.row_id");
    } else {
        strbuf_str(&sql, " FROM fit_residual r");
    }
    strbuf_str(&sql, " WHERE r.fit_id = ?1");
    int rc = -1;
    if (sql.oom)
        util_fail(err, "%s: %s: out of memory", s->path, what);
    else if (sqlite3_prepare_v2(s->db, sql.data, -1, &st, NULL) != SQLITE_OK)
        storei_fail_sql(s, err, "%s %lld", what, (long long)fit_id);
    else {
        sqlite3_bind_int64(st, 1, fit_id);
        rc = collect_pairs(s, st, what, 0, x, weight_column ? sd : NULL, n, err);
    }
    sqlite3_finalize(st);
    strbuf_free(&sql);
    if (rc != 0) {
        free(*x);
        *x = NULL;
        if (sd) {
            free(*sd);
            *sd = NULL;
        }
        *n = 0;
    }
    return rc;
}

/* A REAL cell, NaN for NULL. */
static double column_real(sqlite3_stmt *st, int column)
{
    return sqlite3_column_type(st, column) == SQLITE_NULL ? NAN : sqlite3_column_double(st, column);
}

int store_fit_curve(store *s, int64_t fit_id, double **x, double **f, double **low, double **high,
                    size_t *n, char **err)
{
    const char *what = "cannot read the curve of the fit";
    sqlite3_stmt *st = NULL;
    double **columns[4] = { x, f, low, high };
    size_t capacity = 0;
    *x = *f = *low = *high = NULL;
    *n = 0;
    /* A file read as it is (schema 14) has no fit_curve, and no curves. */
    int64_t tables = 0;
    if (sqlite3_prepare_v2(s->db,
                           "SELECT count(*) FROM sqlite_master WHERE type = 'table'"
                           " AND name = 'fit_curve'",
                           -1, &st, NULL) != SQLITE_OK ||
        sqlite3_step(st) != SQLITE_ROW) {
        sqlite3_finalize(st);
        return storei_fail_sql(s, err, "%s %lld", what, (long long)fit_id);
    }
    tables = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    st = NULL;
    if (tables == 0)
        return 0;
    if (sqlite3_prepare_v2(s->db,
                           "SELECT x, fitted, ci_low, ci_high FROM fit_curve WHERE fit_id = ?1"
                           " ORDER BY position",
                           -1, &st, NULL) != SQLITE_OK)
        return storei_fail_sql(s, err, "%s %lld", what, (long long)fit_id);
    sqlite3_bind_int64(st, 1, fit_id);
    int rc = 0, step = SQLITE_DONE;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        if (*n == capacity) {
            capacity = capacity ? 2 * capacity : 256;
            if (grow(x, f, capacity) != 0 || grow(low, high, capacity) != 0) {
                rc = util_fail(err, "%s: %s: out of memory", s->path, what);
                break;
            }
        }
        for (int c = 0; c < 4; c++)
            (*columns[c])[*n] = column_real(st, c);
        (*n)++;
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = storei_fail_sql(s, err, "%s %lld", what, (long long)fit_id);
    sqlite3_finalize(st);
    if (rc != 0) {
        for (int c = 0; c < 4; c++) {
            free(*columns[c]);
            *columns[c] = NULL;
        }
        *n = 0;
    }
    return rc;
}

/* The front's size as stored (pareto.front_size). */
static int front_size(store *s, int64_t pareto_id, int64_t *size, char **err)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db, "SELECT front_size FROM pareto WHERE id = ?1", -1, &st, NULL) !=
        SQLITE_OK)
        return storei_fail_sql(s, err, "cannot read pareto %lld", (long long)pareto_id);
    sqlite3_bind_int64(st, 1, pareto_id);
    int step = sqlite3_step(st);
    if (step == SQLITE_ROW)
        *size = sqlite3_column_int64(st, 0);
    int rc = step == SQLITE_ROW || step == SQLITE_DONE
                 ? 0
                 : storei_fail_sql(s, err, "cannot read pareto %lld", (long long)pareto_id);
    sqlite3_finalize(st);
    return rc;
}

int store_pareto_points(store *s, int64_t pareto_id, const char *plugin, const char *x,
                        const char *y, size_t max_points, double **xs, double **ys, size_t *n,
                        int64_t *total, char **err)
{
    const char *what = "cannot read the front's rows";
    strbuf sql = { 0 };
    sqlite3_stmt *st = NULL;
    *xs = *ys = NULL;
    *n = 0;
    *total = 0;
    strbuf_str(&sql, "SELECT t.");
    storei_append_ident(&sql, x);
    strbuf_str(&sql, ", t.");
    storei_append_ident(&sql, y);
    strbuf_str(&sql, " FROM pareto_member m JOIN ");
    storei_append_ident(&sql, plugin);
    strbuf_str(&sql, " t ON t.\"row_id\" = m.row_id WHERE m.pareto_id = ?1 ORDER BY 1, 2");
    int rc = -1;
    if (sql.oom)
        util_fail(err, "%s: %s: out of memory", s->path, what);
    else if (sqlite3_prepare_v2(s->db, sql.data, -1, &st, NULL) != SQLITE_OK)
        storei_fail_sql(s, err, "%s (pareto %lld)", what, (long long)pareto_id);
    else {
        sqlite3_bind_int64(st, 1, pareto_id);
        rc = collect_pairs(s, st, what, max_points, xs, ys, n, err);
    }
    sqlite3_finalize(st);
    strbuf_free(&sql);
    if (rc == 0)
        rc = front_size(s, pareto_id, total, err);
    if (rc != 0) {
        free(*xs);
        free(*ys);
        *xs = *ys = NULL;
        *n = 0;
    }
    return rc;
}
