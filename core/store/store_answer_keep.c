/* store_answer_keep: answers kept, not piled up (issue 38, schema version
 * 21; docs/analysis.md, "Answers are kept"). The key of the rows an answer
 * read, the newest stored answer to a question, deleting answers (replaced
 * by a new one, or `runner rm --answer`), and the list `runner answers`
 * prints. The writers that use them are store_answers.c and store_fit.c. */
#include "store_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The rows key of the point blocks `where` picks: count, points, ok
 * points, newest block, highest point. A sweep writes a section's rows in
 * the transaction of their point block, and every resume, merge or removal
 * changes a block, so the key changes whenever the rows do. */
#define ROWS_KEY_OF(where)                                                                         \
    "(SELECT count(*) || ':' || coalesce(sum(point_count), 0) || ':' ||"                           \
    " coalesce(sum(ok_count), 0) || ':' || coalesce(max(id), 0) || ':' ||"                         \
    " coalesce(max(last_point_id), 0) FROM point_block WHERE " where ")"

/* An answer's head table and its detail rows (?1: the head's id), deleted
 * before the head. */
typedef struct answer_kind {
    const char *table;
    const char *details[3];
} answer_kind;

static const answer_kind kinds[] = {
    { "fit",
      { "DELETE FROM fit_curve WHERE fit_id = ?1", "DELETE FROM fit_residual WHERE fit_id = ?1",
        "DELETE FROM fit_param WHERE fit_id = ?1" } },
    { "pareto",
      { "DELETE FROM pareto_objective WHERE pareto_id = ?1",
        "DELETE FROM pareto_member WHERE pareto_id = ?1", NULL } },
    { "sensitivity", { "DELETE FROM sensitivity_index WHERE sensitivity_id = ?1", NULL, NULL } },
    { "stat_diff", { "DELETE FROM stat_diff_row WHERE stat_diff_id = ?1", NULL, NULL } },
};
#define KIND_COUNT (sizeof kinds / sizeof kinds[0])

static const answer_kind *find_kind(const char *table)
{
    for (size_t i = 0; table && i < KIND_COUNT; i++)
        if (strcmp(kinds[i].table, table) == 0)
            return &kinds[i];
    return NULL;
}

int store_answer_kind_known(const char *kind) { return find_kind(kind) != NULL; }

/* A file before version 22 is read as it is (the step only adds columns):
 * for each answers table that lacks them, a temporary view of the same
 * name, which unqualified names find before the file's table, adds the
 * question as the step would write it and no rows key. The temp schema is
 * the connection's own, so the file is not written. */
static const struct {
    const char *table, *view;
} shims[] = {
    { "fit", "CREATE TEMP VIEW fit AS SELECT *, " STOREI_FIT_QUESTION(
                 "model", "x_column", "y_column", "by_column",
                 "weight_column") " AS question, NULL AS rows_key FROM main.fit" },
    { "pareto", "CREATE TEMP VIEW pareto AS SELECT *, (SELECT group_concat(direction || ' ' ||"
                " column_name, ', ') FROM (SELECT direction, column_name FROM pareto_objective"
                " WHERE pareto_id = p.id ORDER BY position)) AS question, NULL AS rows_key"
                " FROM main.pareto AS p" },
    { "sensitivity", "CREATE TEMP VIEW sensitivity AS SELECT *, " STOREI_SENSITIVITY_QUESTION
                     " AS question, NULL AS rows_key FROM main.sensitivity" },
    { "stat_diff", "CREATE TEMP VIEW stat_diff AS SELECT *, NULL AS question, NULL AS rows_key"
                   " FROM main.stat_diff" },
};

int storei_answer_shim(store *s, char **err)
{
    for (size_t i = 0; i < sizeof shims / sizeof shims[0]; i++) {
        char sql[160];
        int64_t has_table = 0, has_key = 0;
        snprintf(sql, sizeof sql,
                 "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = '%s'",
                 shims[i].table);
        if (storei_count_query(s, sql, "cannot read the schema", &has_table, err) != 0)
            return -1;
        snprintf(sql, sizeof sql,
                 "SELECT count(*) FROM pragma_table_info('%s') WHERE name = 'rows_key'",
                 shims[i].table);
        if (has_table && storei_count_query(s, sql, "cannot read the schema", &has_key, err) != 0)
            return -1;
        if (has_table && !has_key &&
            sqlite3_exec(s->db, shims[i].view, NULL, NULL, NULL) != SQLITE_OK)
            return storei_fail_sql(s, err, "cannot read the stored answers");
    }
    return 0;
}

int store_rows_key(store *s, int64_t sweep_id, int64_t section_id, char **key, char **err)
{
    *key = NULL;
    sqlite3_stmt *st = NULL;
    const char *sql = section_id > 0 ? "SELECT " ROWS_KEY_OF("section_id = ?2")
                                     : "SELECT " ROWS_KEY_OF("sweep_id = ?1");
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
        return storei_fail_sql(s, err, "cannot read the rows' key");
    sqlite3_bind_int64(st, 1, sweep_id);
    sqlite3_bind_int64(st, 2, section_id);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        const char *text = (const char *)sqlite3_column_text(st, 0);
        *key = util_strdup(text ? text : "");
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW)
        return storei_fail_sql(s, err, "cannot read the rows' key");
    return *key ? 0 : util_fail(err, "%s: out of memory", s->path);
}

/* "sweep_id = ?1 AND section_id = ?2", or a comparison's two sweeps. */
static const char *question_scope(const answer_kind *k)
{
    return strcmp(k->table, "stat_diff") == 0 ? "sweep_a = ?1 AND sweep_b = ?2"
                                              : "sweep_id = ?1 AND section_id = ?2";
}

int storei_answer_newest(store *s, const char *kind, int64_t a, int64_t b, const char *question,
                         int64_t *id, char **err)
{
    const answer_kind *k = find_kind(kind);
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT max(id) FROM %s WHERE %s AND question = ?3", k->table,
             question_scope(k));
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
        return storei_fail_sql(s, err, "cannot read the stored %s", kind);
    sqlite3_bind_int64(st, 1, a);
    sqlite3_bind_int64(st, 2, b);
    storei_bind_text(st, 3, question);
    int rc = sqlite3_step(st);
    int found = rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL;
    *id = found ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW)
        return storei_fail_sql(s, err, "cannot read the stored %s", kind);
    return found;
}

/* Deletes one answer's detail rows and head row; *gone 1 when it was
 * stored (NULL: not asked). */
static int drop_one(store *s, const answer_kind *k, int64_t id, int *gone, char **err)
{
    char head[96];
    snprintf(head, sizeof head, "DELETE FROM %s WHERE id = ?1", k->table);
    const char *sql[4] = { k->details[0], k->details[1], k->details[2], NULL };
    size_t n = 0;
    while (n < 3 && sql[n])
        n++;
    sql[n++] = head;
    for (size_t i = 0; i < n; i++) {
        sqlite3_stmt *st = NULL;
        if (sqlite3_prepare_v2(s->db, sql[i], -1, &st, NULL) != SQLITE_OK)
            return storei_fail_sql(s, err, "cannot remove %s %lld", k->table, (long long)id);
        sqlite3_bind_int64(st, 1, id);
        int rc = storei_step_done(s, st, "cannot remove the stored answer", err);
        sqlite3_finalize(st);
        if (rc != 0)
            return -1;
        if (gone && i == n - 1)
            *gone = sqlite3_changes(s->db) > 0;
    }
    return 0;
}

int storei_answer_drop_question(store *s, const char *kind, int64_t a, int64_t b,
                                const char *question, char **err)
{
    const answer_kind *k = find_kind(kind);
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT id FROM %s WHERE %s AND question = ?3", k->table,
             question_scope(k));
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
        return storei_fail_sql(s, err, "cannot read the stored %s", kind);
    sqlite3_bind_int64(st, 1, a);
    sqlite3_bind_int64(st, 2, b);
    storei_bind_text(st, 3, question);
    int64_t *ids = NULL;
    size_t count = 0;
    int rc = storei_collect_ids(s, st, "cannot read the stored answers", &ids, &count, err);
    sqlite3_finalize(st);
    for (size_t i = 0; rc == 0 && i < count; i++)
        rc = drop_one(s, k, ids[i], NULL, err);
    free(ids);
    return rc;
}

int storei_answer_touch(store *s, const char *kind, int64_t id, const char *rows_key, char **err)
{
    char sql[128];
    snprintf(sql, sizeof sql, "UPDATE %s SET rows_key = ?2 WHERE id = ?1", find_kind(kind)->table);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
        return storei_fail_sql(s, err, "cannot update the stored %s", kind);
    sqlite3_bind_int64(st, 1, id);
    storei_bind_text(st, 2, rows_key);
    int rc = storei_step_done(s, st, "cannot update the stored answer", err);
    sqlite3_finalize(st);
    return rc;
}

int store_answers_remove(store *s, const store_answer_ref *refs, size_t count, char **err)
{
    const char *what = "cannot remove the answers";
    if (storei_batch_commit(s, err) != 0 || storei_exec(s, "BEGIN IMMEDIATE", what, err) != 0)
        return -1;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < count; i++) {
        const answer_kind *k = find_kind(refs[i].kind);
        int named = 0, gone = 0; /* the same answer named twice is removed once */
        for (size_t j = 0; j < i; j++)
            named |= refs[j].id == refs[i].id && k == find_kind(refs[j].kind);
        if (!k) {
            util_fail(err, "%s: no answer kind '%s' (fit, pareto, sensitivity or stat_diff)",
                      s->path, refs[i].kind);
            rc = 1;
        } else if (!named && (rc = drop_one(s, k, refs[i].id, &gone, err)) == 0 && !gone) {
            util_fail(err, "%s: no %s %lld; 'runner answers SWEEP' lists them", s->path, k->table,
                      (long long)refs[i].id);
            rc = 1;
        }
    }
    if (rc == 0 && storei_exec(s, "COMMIT", what, err) != 0)
        rc = -1;
    if (rc != 0)
        storei_rollback(s);
    return rc;
}

/* A fit is listed by its group ("usl: speedup on workers, jitter = 2");
 * stale: "unknown" before schema 22, "no" while the rows are the same. */
#define STALE(key_now)                                                                             \
    "CASE WHEN rows_key IS NULL THEN 'unknown' WHEN rows_key = " key_now " THEN 'no'"              \
    " ELSE 'yes' END"

/* The list's parts, one per answers table: a file from before version 11
 * (fit) or 13 (the others) lacks some, and lists the others. */
/* stale of the answer in alias, by its section's rows or a comparison's
 * two sweeps' */
#define SECTION_STALE(alias) STALE(ROWS_KEY_OF("section_id = " alias ".section_id"))
#define SWEEPS_STALE                                                                               \
    STALE(ROWS_KEY_OF("sweep_id = d.sweep_a") " || ';' || " ROWS_KEY_OF("sweep_id = d.sweep_b"))
#define FIT_LISTED                                                                                 \
    "f.model || ': ' || f.y_column || ' on ' || f.x_column || CASE WHEN f.by_column IS NULL"       \
    " THEN '' ELSE ', ' || f.by_column || ' = ' || f.by_value END || " STOREI_FIT_WEIGHTS(         \
        "f.weight_column")

#define FIT_STALE SECTION_STALE("f")
#define PARETO_STALE SECTION_STALE("p")
#define SENSITIVITY_STALE SECTION_STALE("x")

static const struct {
    const char *table, *sql;
} list_parts[] = {
    { "fit", "SELECT 'fit' AS kind, f.id AS id, c.ordinal AS section, " FIT_LISTED
             " AS question, f.created_at AS asked, " FIT_STALE " AS stale FROM fit f"
             " JOIN section c ON c.id = f.section_id WHERE f.sweep_id = ?1" },
    { "pareto", "SELECT 'pareto' AS kind, p.id AS id, c.ordinal AS section, 'front: ' ||"
                " coalesce(p.question, '?') AS question, p.created_at AS asked, " PARETO_STALE
                " AS stale FROM pareto p"
                " JOIN section c ON c.id = p.section_id WHERE p.sweep_id = ?1" },
    { "sensitivity", "SELECT 'sensitivity' AS kind, x.id AS id, c.ordinal AS section,"
                     " coalesce(x.question, 'y ' || x.y_column) AS question, x.created_at AS"
                     " asked, " SENSITIVITY_STALE " AS stale FROM sensitivity x"
                     " JOIN section c ON c.id = x.section_id WHERE x.sweep_id = ?1" },
    { "stat_diff", "SELECT 'stat_diff' AS kind, d.id AS id, NULL AS section, 'sweep ' || d.sweep_a"
                   " || ' against ' || d.sweep_b || ': ' || coalesce(d.question, 'stored"
                   " before schema 22') AS question, d.created_at AS asked, " SWEEPS_STALE
                   " AS stale FROM stat_diff d"
                   " WHERE d.sweep_a = ?1 OR d.sweep_b = ?1" },
};

int store_answers_list(store *s, int64_t sweep_id, table **out, char **err)
{
    strbuf sql = { 0 };
    strbuf_str(&sql, "SELECT kind, id, section, question, asked, stale FROM (");
    size_t parts = 0;
    for (size_t i = 0; i < sizeof list_parts / sizeof list_parts[0]; i++) {
        char has_sql[128];
        int64_t has = 0;
        snprintf(has_sql, sizeof has_sql,
                 "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = '%s'",
                 list_parts[i].table);
        if (storei_count_query(s, has_sql, "cannot list the answers", &has, err) != 0) {
            strbuf_free(&sql);
            return -1;
        }
        if (has)
            strbuf_printf(&sql, "%s%s", parts++ ? " UNION ALL " : "", list_parts[i].sql);
    }
    if (!parts) /* no answers table at all: an empty list of the same columns */
        strbuf_str(&sql, "SELECT NULL AS kind, NULL AS id, NULL AS section, NULL AS question,"
                         " NULL AS asked, NULL AS stale WHERE 0");
    strbuf_str(&sql, ") ORDER BY asked, kind, id");
    if (sql.oom) {
        strbuf_free(&sql);
        return util_fail(err, "%s: out of memory", s->path);
    }
    static const struct {
        const char *name;
        runner_type type;
    } columns[] = { { "kind", RUNNER_TEXT },       { "id", RUNNER_INTEGER },
                    { "section", RUNNER_INTEGER }, { "question", RUNNER_TEXT },
                    { "asked", RUNNER_TEXT },      { "stale", RUNNER_TEXT } };
    const size_t width = sizeof columns / sizeof columns[0];
    const char *what = "cannot list the answers";
    *out = NULL;
    sqlite3_stmt *st = NULL;
    int prepared = sqlite3_prepare_v2(s->db, sql.data, -1, &st, NULL);
    strbuf_free(&sql);
    if (prepared != SQLITE_OK)
        return storei_fail_sql(s, err, "%s", what);
    sqlite3_bind_int64(st, 1, sweep_id);
    table *t = table_new("answers");
    int rc = SQLITE_DONE, oom = !t;
    for (size_t i = 0; !oom && i < width; i++)
        oom = table_add_column(t, columns[i].name, "", columns[i].type, i < 3) != 0;
    while (!oom && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        value row[6];
        for (size_t i = 0; i < width; i++) {
            row[i] = VALUE_NULL;
            if (sqlite3_column_type(st, (int)i) == SQLITE_NULL)
                continue;
            if (columns[i].type == RUNNER_INTEGER)
                row[i] = value_integer(sqlite3_column_int64(st, (int)i));
            else if ((row[i] = value_text((const char *)sqlite3_column_text(st, (int)i))).type !=
                     RUNNER_TEXT)
                oom = 1;
        }
        oom = oom || table_append_row(t, row) != 0;
        for (size_t i = 0; i < width; i++)
            value_clear(&row[i]);
    }
    sqlite3_finalize(st);
    if (oom || rc != SQLITE_DONE) {
        table_free(t);
        return oom ? util_fail(err, "%s: %s: out of memory", s->path, what)
                   : storei_fail_sql(s, err, "%s", what);
    }
    *out = t;
    return 0;
}
