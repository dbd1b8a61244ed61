/* store_answers: the rows of `runner sensitivity`, `runner pareto` and
 * `runner diff --stat` (schema version 13, docs/schema.md): each answer a
 * head row and its detail rows, written in one transaction. */
#include "store_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* NaN or inf is stored NULL (undefined). */
static int bind_real(sqlite3_stmt *st, int index, double v)
{
    return isfinite(v) ? sqlite3_bind_double(st, index, v) : sqlite3_bind_null(st, index);
}

/* The statements of one answer: the head, then its rows. */
typedef struct answer_write {
    store *s;
    const char *what;
    sqlite3_stmt *head, *detail, *extra;
    char created[32];
    int begun; /* the transaction is open */
} answer_write;

static int answer_begin(answer_write *w, const char *head_sql, const char *detail_sql,
                        const char *extra_sql, char **err)
{
    storei_format_utc(util_now(), w->created);
    if (storei_answer_begin(w->s, w->what, err) != 0)
        return -1;
    w->begun = 1;
    if (sqlite3_prepare_v2(w->s->db, head_sql, -1, &w->head, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(w->s->db, detail_sql, -1, &w->detail, NULL) != SQLITE_OK ||
        (extra_sql && sqlite3_prepare_v2(w->s->db, extra_sql, -1, &w->extra, NULL) != SQLITE_OK))
        return storei_fail_sql(w->s, err, "%s", w->what);
    return 0;
}

/* Checks head_table's references (NULL: none to check), commits when rc
 * is 0, else rolls back; finalizes. Returns rc or -1. */
static int answer_end(answer_write *w, const char *head_table, int rc, char **err)
{
    if (rc == 0 && head_table)
        rc = storei_answer_check(w->s, head_table, w->what, err);
    sqlite3_finalize(w->head);
    sqlite3_finalize(w->detail);
    sqlite3_finalize(w->extra);
    return w->begun ? storei_answer_end(w->s, rc, w->what, err) : rc;
}

int store_sensitivity_write(store *s, const store_sensitivity *r, int64_t *id, char **err)
{
    answer_write w = { .s = s, .what = "cannot store the sensitivity indices" };
    int rc = answer_begin(
        &w,
        "INSERT INTO sensitivity (sweep_id, section_id, y_column, y_unit, base_samples, excluded,"
        " bootstrap, seed, confidence, y_mean, y_variance, created_at) VALUES (?1, ?2, ?3, ?4,"
        " ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
        "INSERT INTO sensitivity_index (sensitivity_id, position, parameter, unit, first_order,"
        " first_low, first_high, total, total_low, total_high) VALUES (?1, ?2, ?3, ?4, ?5, ?6,"
        " ?7, ?8, ?9, ?10)",
        NULL, err);
    if (rc != 0)
        return answer_end(&w, "sensitivity", rc, err);
    sqlite3_stmt *h = w.head, *d = w.detail;
    sqlite3_bind_int64(h, 1, r->sweep_id);
    sqlite3_bind_int64(h, 2, r->section_id);
    storei_bind_text(h, 3, r->y_column);
    storei_bind_text(h, 4, r->y_unit ? r->y_unit : "");
    sqlite3_bind_int64(h, 5, r->base_samples);
    sqlite3_bind_int64(h, 6, r->excluded);
    sqlite3_bind_int64(h, 7, r->bootstrap);
    sqlite3_bind_int64(h, 8, (int64_t)r->seed); /* as SQLite's signed 64 bits */
    sqlite3_bind_double(h, 9, r->confidence);
    bind_real(h, 10, r->y_mean);
    bind_real(h, 11, r->y_variance);
    storei_bind_text(h, 12, w.created);
    if ((rc = storei_step_done(s, h, w.what, err)) != 0)
        return answer_end(&w, "sensitivity", rc, err);
    *id = sqlite3_last_insert_rowid(s->db);
    for (size_t i = 0; rc == 0 && i < r->count; i++) {
        const store_sensitivity_index *x = &r->indices[i];
        sqlite3_bind_int64(d, 1, *id);
        sqlite3_bind_int64(d, 2, (int64_t)i + 1);
        storei_bind_text(d, 3, x->parameter);
        storei_bind_text(d, 4, x->unit ? x->unit : "");
        bind_real(d, 5, x->first);
        bind_real(d, 6, x->first_low);
        bind_real(d, 7, x->first_high);
        bind_real(d, 8, x->total);
        bind_real(d, 9, x->total_low);
        bind_real(d, 10, x->total_high);
        rc = storei_step_done(s, d, w.what, err);
    }
    return answer_end(&w, "sensitivity", rc, err);
}

int store_pareto_write(store *s, const store_pareto *r, int64_t *id, char **err)
{
    answer_write w = { .s = s, .what = "cannot store the front" };
    int rc = answer_begin(
        &w,
        "INSERT INTO pareto (sweep_id, section_id, rows, excluded, front_size, created_at)"
        " VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        "INSERT INTO pareto_objective (pareto_id, position, column_name, unit, direction)"
        " VALUES (?1, ?2, ?3, ?4, ?5)",
        "INSERT INTO pareto_member (pareto_id, row_id, point_id) VALUES (?1, ?2, ?3)", err);
    if (rc != 0)
        return answer_end(&w, "pareto", rc, err);
    sqlite3_bind_int64(w.head, 1, r->sweep_id);
    sqlite3_bind_int64(w.head, 2, r->section_id);
    sqlite3_bind_int64(w.head, 3, r->rows);
    sqlite3_bind_int64(w.head, 4, r->excluded);
    sqlite3_bind_int64(w.head, 5, (int64_t)r->member_count);
    storei_bind_text(w.head, 6, w.created);
    if ((rc = storei_step_done(s, w.head, w.what, err)) != 0)
        return answer_end(&w, "pareto", rc, err);
    *id = sqlite3_last_insert_rowid(s->db);
    for (size_t i = 0; rc == 0 && i < r->objective_count; i++) {
        const store_pareto_objective *o = &r->objectives[i];
        sqlite3_bind_int64(w.detail, 1, *id);
        sqlite3_bind_int64(w.detail, 2, (int64_t)i + 1);
        storei_bind_text(w.detail, 3, o->column);
        storei_bind_text(w.detail, 4, o->unit ? o->unit : "");
        storei_bind_text(w.detail, 5, o->maximize ? "max" : "min");
        rc = storei_step_done(s, w.detail, w.what, err);
    }
    for (size_t i = 0; rc == 0 && i < r->member_count; i++) {
        sqlite3_bind_int64(w.extra, 1, *id);
        sqlite3_bind_int64(w.extra, 2, r->members[i].row_id);
        sqlite3_bind_int64(w.extra, 3, r->members[i].point_id);
        rc = storei_step_done(s, w.extra, w.what, err);
    }
    return answer_end(&w, "pareto", rc, err);
}

/* stat_diff_row's columns, and rows per statement: a statement per row
 * cost twice the inserting itself (its start and reset), so they go
 * STAT_ROWS_PER_INSERT to a statement (the rest in a statement of their
 * own size). */
#define STAT_ROW_COLUMNS 24
#define STAT_ROWS_PER_INSERT 32

/* "INSERT INTO stat_diff_row (...) VALUES (?, ...), ..." for rows rows
 * (malloc'd; NULL: no memory). */
static char *stat_rows_sql(size_t rows)
{
    strbuf b = { 0 };
    strbuf_str(&b,
               "INSERT INTO stat_diff_row (stat_diff_id, position, plugin, section_a,"
               " section_b, point, column_name, unit, n_a, mean_a, sd_a, n_b, mean_b, sd_b,"
               " ratio, ratio_low, ratio_high, p_value, verdict, test, mild_a, severe_a, mild_b,"
               " severe_b) VALUES ");
    for (size_t r = 0; r < rows; r++) {
        strbuf_str(&b, r ? ", (?" : "(?");
        for (int c = 1; c < STAT_ROW_COLUMNS; c++)
            strbuf_str(&b, ", ?");
        strbuf_str(&b, ")");
    }
    if (b.oom) {
        strbuf_free(&b);
        return NULL;
    }
    return b.data;
}

/* Binds row i (position i + 1) at the statement's row slot k. */
static void bind_stat_row(sqlite3_stmt *d, size_t k, int64_t id, size_t i,
                          const store_stat_diff_row *x)
{
    int c = (int)(k * STAT_ROW_COLUMNS);
    sqlite3_bind_int64(d, c + 1, id);
    sqlite3_bind_int64(d, c + 2, (int64_t)i + 1);
    storei_bind_text(d, c + 3, x->plugin);
    x->section_a ? sqlite3_bind_int64(d, c + 4, x->section_a) : sqlite3_bind_null(d, c + 4);
    x->section_b ? sqlite3_bind_int64(d, c + 5, x->section_b) : sqlite3_bind_null(d, c + 5);
    storei_bind_text(d, c + 6, x->point);
    storei_bind_text(d, c + 7, x->column);
    storei_bind_text(d, c + 8, x->unit ? x->unit : "");
    sqlite3_bind_int64(d, c + 9, x->n_a);
    bind_real(d, c + 10, x->mean_a);
    bind_real(d, c + 11, x->sd_a);
    sqlite3_bind_int64(d, c + 12, x->n_b);
    bind_real(d, c + 13, x->mean_b);
    bind_real(d, c + 14, x->sd_b);
    bind_real(d, c + 15, x->ratio);
    bind_real(d, c + 16, x->ratio_low);
    bind_real(d, c + 17, x->ratio_high);
    bind_real(d, c + 18, x->p_value);
    storei_bind_text(d, c + 19, x->verdict);
    storei_bind_text(d, c + 20, x->test ? x->test : "welch");
    for (int side = 0; side < 2; side++)
        for (int kind = 0; kind < 2; kind++) {
            int at = c + 21 + 2 * side + kind;
            x->outliers[side][kind] >= 0 ? sqlite3_bind_int64(d, at, x->outliers[side][kind])
                                         : sqlite3_bind_null(d, at);
        }
}

int store_stat_diff_write(store *s, const store_stat_diff *r, int64_t *id, char **err)
{
    answer_write w = { .s = s, .what = "cannot store the comparison" };
    size_t full = r->row_count / STAT_ROWS_PER_INSERT, rest = r->row_count % STAT_ROWS_PER_INSERT;
    char *many = stat_rows_sql(STAT_ROWS_PER_INSERT), *tail = stat_rows_sql(rest ? rest : 1);
    if (!many || !tail) {
        free(many);
        free(tail);
        return util_fail(err, "%s: %s: out of memory", s->path, w.what);
    }
    int rc = answer_begin(&w,
                          "INSERT INTO stat_diff (sweep_a, sweep_b, tolerance_s, confidence,"
                          " compared, past_tolerance, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6,"
                          " ?7)",
                          many, tail, err);
    free(many);
    free(tail);
    if (rc != 0)
        return answer_end(&w, "stat_diff", rc, err);
    sqlite3_bind_int64(w.head, 1, r->sweep_a);
    sqlite3_bind_int64(w.head, 2, r->sweep_b);
    sqlite3_bind_double(w.head, 3, r->tolerance_s);
    sqlite3_bind_double(w.head, 4, r->confidence);
    sqlite3_bind_int64(w.head, 5, r->compared);
    sqlite3_bind_int64(w.head, 6, r->past_tolerance);
    storei_bind_text(w.head, 7, w.created);
    if ((rc = storei_step_done(s, w.head, w.what, err)) != 0)
        return answer_end(&w, "stat_diff", rc, err);
    *id = sqlite3_last_insert_rowid(s->db);
    size_t i = 0;
    for (size_t batch = 0; rc == 0 && batch < full; batch++) {
        for (size_t k = 0; k < STAT_ROWS_PER_INSERT; k++, i++)
            bind_stat_row(w.detail, k, *id, i, &r->rows[i]);
        rc = storei_step_done(s, w.detail, w.what, err);
    }
    if (rc == 0 && rest) {
        for (size_t k = 0; k < rest; k++, i++)
            bind_stat_row(w.extra, k, *id, i, &r->rows[i]);
        rc = storei_step_done(s, w.extra, w.what, err);
    }
    return answer_end(&w, "stat_diff", rc, err);
}
