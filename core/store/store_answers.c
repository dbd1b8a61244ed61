/* store_answers: the rows of `runner sensitivity`, `runner pareto` and
 * `runner diff --stat` (schema version 13, docs/schema.md): each answer a
 * head row and its detail rows, written in one transaction; an answer to
 * the same question on the same rows is kept, not piled up (schema
 * version 22, store_answer_keep.c). */
#include "store_int.h"

#include <math.h>
#include <stdio.h>
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

/* Column i holds v as bind_real stored it, to the bit. */
static int same_real(sqlite3_stmt *st, int i, double v)
{
    if (!isfinite(v))
        return sqlite3_column_type(st, i) == SQLITE_NULL;
    return sqlite3_column_type(st, i) != SQLITE_NULL && sqlite3_column_double(st, i) == v;
}

/* Compares a stored answer (its id) with the one about to be written: 1
 * the same, 0 not, -1 with *err. */
typedef int answer_same(store *s, int64_t id, const void *answer, char **err);

/* Once the transaction is open: keeps the newest stored answer of kind to
 * question on (a, b) when same says it is this one (1, *id its id and its
 * rows_key updated), else deletes the stored ones when again says so (0:
 * write the new one). -1 with *err. */
static int keep_or_replace(answer_write *w, const char *kind, int64_t a, int64_t b,
                           const char *question, const char *rows_key, int again, answer_same *same,
                           const void *answer, int64_t *id, char **err)
{
    if (again == STORE_ANSWER_KEEP || again == STORE_ANSWER_KEEP_ADD) {
        int64_t found = 0;
        int rc = storei_answer_newest(w->s, kind, a, b, question, &found, err);
        if (rc == 1 && (rc = same(w->s, found, answer, err)) == 1) {
            *id = found;
            return storei_answer_touch(w->s, kind, found, rows_key, err) == 0 ? 1 : -1;
        }
        if (rc < 0)
            return -1;
    }
    if (again == STORE_ANSWER_KEEP || again == STORE_ANSWER_AGAIN)
        return storei_answer_drop_question(w->s, kind, a, b, question, err);
    return 0;
}

/* Prepares sql, binds id to ?1 and steps it once: SQLITE_ROW with *st
 * (the caller finalizes), or -1 with *err. */
static int read_stored(store *s, const char *sql, int64_t id, sqlite3_stmt **st, char **err)
{
    if (sqlite3_prepare_v2(s->db, sql, -1, st, NULL) != SQLITE_OK)
        return storei_fail_sql(s, err, "cannot read the stored answer");
    sqlite3_bind_int64(*st, 1, id);
    int rc = sqlite3_step(*st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
        sqlite3_finalize(*st);
        *st = NULL;
        return storei_fail_sql(s, err, "cannot read the stored answer");
    }
    return rc;
}

static int same_sensitivity(store *s, int64_t id, const void *answer, char **err)
{
    const store_sensitivity *r = answer;
    sqlite3_stmt *st = NULL;
    int rc = read_stored(s,
                         "SELECT base_samples, excluded, y_mean, y_variance, (SELECT count(*)"
                         " FROM sensitivity_index WHERE sensitivity_id = ?1) FROM sensitivity"
                         " WHERE id = ?1",
                         id, &st, err);
    if (rc < 0)
        return -1;
    int same = rc == SQLITE_ROW && sqlite3_column_int64(st, 0) == r->base_samples &&
               sqlite3_column_int64(st, 1) == r->excluded && same_real(st, 2, r->y_mean) &&
               same_real(st, 3, r->y_variance) && sqlite3_column_int64(st, 4) == (int64_t)r->count;
    sqlite3_finalize(st);
    return same;
}

static int compare_row_ids(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int same_pareto(store *s, int64_t id, const void *answer, char **err)
{
    const store_pareto *r = answer;
    sqlite3_stmt *st = NULL;
    int rc =
        read_stored(s, "SELECT rows, excluded, front_size FROM pareto WHERE id = ?1", id, &st, err);
    if (rc < 0)
        return -1;
    int same = rc == SQLITE_ROW && sqlite3_column_int64(st, 0) == r->rows &&
               sqlite3_column_int64(st, 1) == r->excluded &&
               sqlite3_column_int64(st, 2) == (int64_t)r->member_count;
    sqlite3_finalize(st);
    if (!same || r->member_count == 0)
        return same;
    int64_t *mine = malloc(r->member_count * sizeof *mine);
    if (!mine)
        return util_fail(err, "%s: out of memory", s->path);
    for (size_t i = 0; i < r->member_count; i++)
        mine[i] = r->members[i].row_id;
    qsort(mine, r->member_count, sizeof *mine, compare_row_ids);
    if (sqlite3_prepare_v2(s->db,
                           "SELECT row_id FROM pareto_member WHERE pareto_id = ?1 ORDER BY row_id",
                           -1, &st, NULL) != SQLITE_OK) {
        free(mine);
        return storei_fail_sql(s, err, "cannot read the stored front");
    }
    sqlite3_bind_int64(st, 1, id);
    size_t i = 0;
    while (same && (rc = sqlite3_step(st)) == SQLITE_ROW)
        same = i < r->member_count && sqlite3_column_int64(st, 0) == mine[i++];
    sqlite3_finalize(st);
    free(mine);
    if (same && rc != SQLITE_DONE)
        return storei_fail_sql(s, err, "cannot read the stored front");
    return same && i == r->member_count;
}

static int same_stat_diff(store *s, int64_t id, const void *answer, char **err)
{
    const store_stat_diff *r = answer;
    sqlite3_stmt *st = NULL;
    int rc = read_stored(s,
                         "SELECT compared, past_tolerance, (SELECT count(*) FROM stat_diff_row"
                         " WHERE stat_diff_id = ?1) FROM stat_diff WHERE id = ?1",
                         id, &st, err);
    if (rc < 0)
        return -1;
    int same = rc == SQLITE_ROW && sqlite3_column_int64(st, 0) == r->compared &&
               sqlite3_column_int64(st, 1) == r->past_tolerance &&
               sqlite3_column_int64(st, 2) == (int64_t)r->row_count;
    sqlite3_finalize(st);
    if (!same || r->row_count == 0)
        return same;
    if (sqlite3_prepare_v2(s->db,
                           "SELECT n_a, mean_a, n_b, mean_b, p_value, verdict FROM stat_diff_row"
                           " WHERE stat_diff_id = ?1 ORDER BY position",
                           -1, &st, NULL) != SQLITE_OK)
        return storei_fail_sql(s, err, "cannot read the stored comparison");
    sqlite3_bind_int64(st, 1, id);
    size_t i = 0;
    while (same && (rc = sqlite3_step(st)) == SQLITE_ROW && (same = i < r->row_count)) {
        const store_stat_diff_row *x = &r->rows[i++];
        const char *verdict = (const char *)sqlite3_column_text(st, 5);
        same = sqlite3_column_int64(st, 0) == x->n_a && same_real(st, 1, x->mean_a) &&
               sqlite3_column_int64(st, 2) == x->n_b && same_real(st, 3, x->mean_b) &&
               same_real(st, 4, x->p_value) && verdict && x->verdict &&
               strcmp(verdict, x->verdict) == 0;
    }
    sqlite3_finalize(st);
    if (same && rc != SQLITE_DONE)
        return storei_fail_sql(s, err, "cannot read the stored comparison");
    return same && i == r->row_count;
}

/* v as the shortest text that reads back as v. */
static void shortest_real(double v, char out[32])
{
    for (int digits = 1; digits <= 17; digits++) {
        snprintf(out, 32, "%.*g", digits, v);
        if (strtod(out, NULL) == v)
            return;
    }
}

int store_sensitivity_write(store *s, const store_sensitivity *r, int again, int64_t *id, int *kept,
                            char **err)
{
    answer_write w = { .s = s, .what = "cannot store the sensitivity indices" };
    char *question = util_format("y %s, bootstrap %lld, seed %llu", r->y_column,
                                 (long long)r->bootstrap, (unsigned long long)r->seed);
    *kept = 0;
    if (!question)
        return util_fail(err, "%s: %s: out of memory", s->path, w.what);
    int rc = answer_begin(
        &w,
        "INSERT INTO sensitivity (sweep_id, section_id, y_column, y_unit, base_samples, excluded,"
        " bootstrap, seed, confidence, y_mean, y_variance, created_at, question, rows_key)"
        " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
        "INSERT INTO sensitivity_index (sensitivity_id, position, parameter, unit, first_order,"
        " first_low, first_high, total, total_low, total_high) VALUES (?1, ?2, ?3, ?4, ?5, ?6,"
        " ?7, ?8, ?9, ?10)",
        NULL, err);
    int found = rc == 0 ? keep_or_replace(&w, "sensitivity", r->sweep_id, r->section_id, question,
                                          r->rows_key, again, same_sensitivity, r, id, err)
                        : 0;
    if (rc != 0 || found != 0) {
        *kept = found > 0;
        rc = answer_end(&w, NULL, rc != 0 || found < 0 ? -1 : 0, err);
        free(question);
        return rc;
    }
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
    storei_bind_text(h, 13, question);
    storei_bind_text(h, 14, r->rows_key);
    rc = storei_step_done(s, h, w.what, err);
    if (rc == 0)
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
    rc = answer_end(&w, "sensitivity", rc, err);
    free(question);
    return rc;
}

/* "min round_s, max speedup": the objectives in order (malloc'd). */
static char *pareto_question_text(const store_pareto *r)
{
    strbuf b = { 0 };
    for (size_t i = 0; i < r->objective_count; i++)
        strbuf_printf(&b, "%s%s %s", i ? ", " : "", r->objectives[i].maximize ? "max" : "min",
                      r->objectives[i].column);
    if (b.oom) {
        strbuf_free(&b);
        return NULL;
    }
    return b.data;
}

int store_pareto_write(store *s, const store_pareto *r, int again, int64_t *id, int *kept,
                       char **err)
{
    answer_write w = { .s = s, .what = "cannot store the front" };
    char *question = pareto_question_text(r);
    *kept = 0;
    if (!question)
        return util_fail(err, "%s: %s: out of memory", s->path, w.what);
    int rc = answer_begin(
        &w,
        "INSERT INTO pareto (sweep_id, section_id, rows, excluded, front_size, created_at,"
        " question, rows_key) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        "INSERT INTO pareto_objective (pareto_id, position, column_name, unit, direction)"
        " VALUES (?1, ?2, ?3, ?4, ?5)",
        "INSERT INTO pareto_member (pareto_id, row_id, point_id) VALUES (?1, ?2, ?3)", err);
    int found = rc == 0 ? keep_or_replace(&w, "pareto", r->sweep_id, r->section_id, question,
                                          r->rows_key, again, same_pareto, r, id, err)
                        : 0;
    if (rc != 0 || found != 0) {
        *kept = found > 0;
        rc = answer_end(&w, NULL, rc != 0 || found < 0 ? -1 : 0, err);
        free(question);
        return rc;
    }
    sqlite3_bind_int64(w.head, 1, r->sweep_id);
    sqlite3_bind_int64(w.head, 2, r->section_id);
    sqlite3_bind_int64(w.head, 3, r->rows);
    sqlite3_bind_int64(w.head, 4, r->excluded);
    sqlite3_bind_int64(w.head, 5, (int64_t)r->member_count);
    storei_bind_text(w.head, 6, w.created);
    storei_bind_text(w.head, 7, question);
    storei_bind_text(w.head, 8, r->rows_key);
    if ((rc = storei_step_done(s, w.head, w.what, err)) != 0) {
        rc = answer_end(&w, "pareto", rc, err);
        free(question);
        return rc;
    }
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
    rc = answer_end(&w, "pareto", rc, err);
    free(question);
    return rc;
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

/* "test mwu, tolerance 0.05, columns a,b" (malloc'd). */
static char *stat_diff_question(const store_stat_diff *r)
{
    char tolerance[32] = "";
    if (r->tolerance_s > 0)
        shortest_real(r->tolerance_s, tolerance);
    return util_format("test %s%s%s%s%s", r->test ? r->test : "welch",
                       *tolerance ? ", tolerance " : "", tolerance, r->columns ? ", columns " : "",
                       r->columns ? r->columns : "");
}

int store_stat_diff_write(store *s, const store_stat_diff *r, int again, int64_t *id, int *kept,
                          char **err)
{
    answer_write w = { .s = s, .what = "cannot store the comparison" };
    size_t full = r->row_count / STAT_ROWS_PER_INSERT, rest = r->row_count % STAT_ROWS_PER_INSERT;
    char *many = stat_rows_sql(STAT_ROWS_PER_INSERT), *tail = stat_rows_sql(rest ? rest : 1);
    char *question = stat_diff_question(r);
    *kept = 0;
    if (!many || !tail || !question) {
        free(many);
        free(tail);
        free(question);
        return util_fail(err, "%s: %s: out of memory", s->path, w.what);
    }
    int rc = answer_begin(&w,
                          "INSERT INTO stat_diff (sweep_a, sweep_b, tolerance_s, confidence,"
                          " compared, past_tolerance, created_at, question, rows_key) VALUES (?1,"
                          " ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                          many, tail, err);
    free(many);
    free(tail);
    int found = rc == 0 ? keep_or_replace(&w, "stat_diff", r->sweep_a, r->sweep_b, question,
                                          r->rows_key, again, same_stat_diff, r, id, err)
                        : 0;
    if (rc != 0 || found != 0) {
        *kept = found > 0;
        rc = answer_end(&w, NULL, rc != 0 || found < 0 ? -1 : 0, err);
        free(question);
        return rc;
    }
    sqlite3_bind_int64(w.head, 1, r->sweep_a);
    sqlite3_bind_int64(w.head, 2, r->sweep_b);
    sqlite3_bind_double(w.head, 3, r->tolerance_s);
    sqlite3_bind_double(w.head, 4, r->confidence);
    sqlite3_bind_int64(w.head, 5, r->compared);
    sqlite3_bind_int64(w.head, 6, r->past_tolerance);
    storei_bind_text(w.head, 7, w.created);
    storei_bind_text(w.head, 8, question);
    storei_bind_text(w.head, 9, r->rows_key);
    if ((rc = storei_step_done(s, w.head, w.what, err)) != 0) {
        rc = answer_end(&w, "stat_diff", rc, err);
        free(question);
        return rc;
    }
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
    rc = answer_end(&w, "stat_diff", rc, err);
    free(question);
    return rc;
}
