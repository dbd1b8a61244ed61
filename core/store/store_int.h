/* store_int.h: the store's private header, shared by its files and by no
 * other module (store.h is the public one). The store is split by concern,
 * like SQLite's sqliteInt.h with build.c, insert.c and select.c:
 *   store_sql.c     the fixed statements, errors, binding, small SQL helpers
 *   store_open.c    connection, which files are runner's, pragmas, migration,
 *                   the WAL checkpointer, close
 *   store_write.c   sweeps, sections, result tables, points and point blocks
 *   store_read.c    reading back: sweeps, sections, a point's rows, digests
 *   store_resume.c  resuming: the sweep to resume, a section's finished points
 *   store_catalog.c the names the catalog takes (one list), reserved names
 *   store_query.c   read-only queries for serve and the report: the sweeps
 *                   page, a sweep's record, sections, failed points, docs;
 *                   limits on a server's reading connection
 *   store_page.c    a page of a section's rows (keyset paging), its total
 *                   kept per section and filter (store_count.c)
 *   store_sort_cache.c  a big section's column sorted once, in a cache file
 *                   next to the database, for sorted and filtered pages
 *   store_plot.c    two columns of a section cut down in SQL for a chart
 *   store_outbox.c  closing a sweep with its webhook summary, the outbox
 *   store_process.c which process runs a sweep (for resume's liveness check)
 *   store_lease.c   the thread renewing a running sweep's lease
 *
 * Naming: public functions are store_* (store.h); functions shared between
 * the store's files are storei_* ("store internal") and declared here;
 * everything else is static in the one file that uses it. */
#ifndef RUNNER_STORE_INT_H
#define RUNNER_STORE_INT_H

#include <pthread.h>
#include <sqlite3.h>
#include <stdint.h>
#include <string.h>

#include "base/strbuf.h"
#include "base/util.h"
#include "store.h"
#include "store_query.h"

/* Fixed statements, prepared on first use (storei_stmt) and kept until
 * store_close; their SQL is in store_sql.c. */
/* Index rows STMT_INDEX_OK_RUN inserts per step. */
#define STOREI_INDEX_RUN 100
/* point_once rows STMT_KEY_RUN inserts per step. */
#define STOREI_KEY_RUN 100

enum storei_stmt_id {
    STMT_BEGIN,
    STMT_COMMIT,
    STMT_ROLLBACK,
    STMT_INSERT_BLOCK,
    STMT_INDEX_BLOCK,
    STMT_INDEX_OK_BLOCK,
    STMT_INDEX_OK_RUN,
    STMT_KEY_RUN,
    STMT_KEY,
    STMT_NEXT_POINT_ID,
    STMT_INSERT_SWEEP,
    STMT_END_SWEEP,
    STMT_INSERT_SWEEP_PLUGIN,
    STMT_INSERT_SECTION,
    STMT_TABLE_COLUMNS,
    STMT_SHIFT_COLUMNS,
    STMT_UPSERT_COLUMN,
    STMT_SECTION,
    STMT_SECTION_COLUMNS,
    STMT_SWEEP_SECTIONS,
    STMT_INSERT_RUN,
    STMT_FENCE,
    STMT_COUNT
};

/* The background checkpointer: its own connection to the file, woken by
 * the writer's WAL hook. Owned by store_open.c, which starts it on first
 * need and stops it in store_close; no other file touches it. */
typedef struct storei_checkpointer {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    pthread_cond_t idle; /* signalled when a checkpoint ends */
    int started;         /* thread, lock and conditions exist */
    int pending;         /* the WAL grew past the checkpoint threshold */
    int running;         /* the thread is checkpointing */
    int quit;
    int late;   /* storei_checkpoint_late: only at the backstop, by the writer */
    char *path; /* owned */
} storei_checkpointer;

/* A plugin's result table and its cached INSERT, made by
 * store_prepare_plugin (store_write.c), finalized by store_close. */
typedef struct storei_plugin_entry {
    const runner_plugin *plugin; /* the descriptor last prepared (borrowed) */
    char *name;                  /* owned */
    uint32_t param_count;
    uint32_t column_count;
    sqlite3_stmt *insert; /* params bound once per point, outputs per row */
    sqlite3_stmt *copy;   /* --reuse: a stored point's rows copied (store_reuse.c);
                                   * prepared on first use */
} storei_plugin_entry;

/* The bound on every statement (store_bound.c). */
typedef struct storei_bound {
    sqlite3 *db;
    double timeout_s;   /* no row for this long: stopped */
    double since;       /* monotonic s: the statement's start or its last row */
    double step_budget; /* in progress-handler calls */
    double row_budget;  /* rows one statement may return */
    int64_t steps;      /* progress-handler calls of this statement */
    int64_t rows;       /* rows it returned */
    int fresh;          /* a statement started: the handler resets the count */
    int row_seen;       /* a row was returned since the handler's last call */
    int timed;          /* the statement only reads: the time bound applies */
    int stopped;        /* why the last statement was interrupted; 0: it was not */
    char reason[256];   /* storei_bound_errmsg's text */
} storei_bound;

/* One open database, used by one thread at a time. Who owns what:
 *   db, path, stmts      store_open.c opens and closes them; every file
 *                        uses them (the fixed statements through storei_stmt)
 *   plugins              store_write.c fills them; store_close frees them
 *   the batch and the    store_batch.c, and store_write.c through it
 *                        (in_batch .. block_ok); every
 *   open point block     other write commits them first (storei_batch_commit),
 *                        and store_close commits and frees them
 *   checkpoints          store_open.c alone: a thread with its own
 *                        connection, woken by the writer's WAL hook */
struct store {
    sqlite3 *db;
    char *path;
    sqlite3_stmt *stmts[STMT_COUNT];
    storei_plugin_entry *plugins;
    size_t plugin_count;
    size_t last_plugin; /* index of the last plugin written, for a fast lookup */
    int in_batch;       /* 1 while our batch transaction is open */
    int read_only;      /* opened by store_open_read */
    int64_t batch_points;
    double batch_started;  /* monotonic s */
    double last_point_at;  /* monotonic s of the previous store_write_point */
    int64_t next_point_id; /* the id the next point gets; read at batch begin */
    /* The open block: this batch's points of one section so far, a JSON
     * array without its closing bracket, written at the batch's commit or
     * when the section changes. */
    strbuf block;
    char *block_params_base; /* the first point's parameters (owned) */
    int64_t block_sweep_id, block_section_id;
    int64_t block_first_id, block_points, block_ok;
    int64_t *block_ordinals; /* each point's ordinal, for its key (owned) */
    size_t block_ordinals_cap;
    storei_checkpointer checkpoints;
    store_read_limits limits; /* store_read_limit's (store_query.c); unset: 0 */
    storei_bound bound;       /* store_bound.c */
    /* Fencing (store_fence.c): the sweep this store writes as its owner and
     * the owner epoch its claim got; 0: none (a store that claimed nothing
     * writes unfenced). Once another process took the sweep over, every
     * write fails with taken_over_line (owned). */
    int64_t fence_sweep_id, fence_epoch;
    char *taken_over_line;
};

/* --- store_bound.c --------------------------------------------------------- */

/* RUNNER_QUERY_TIMEOUT in seconds (its default when unset); -1 with *err for
 * a value that is not a positive number of seconds up to a day. */
int storei_bound_timeout(double *timeout_s, char **err);
/* Bounds every statement of db (a progress handler and a trace callback
 * that keep their count in b, which must outlive the connection). */
void storei_bound_install(sqlite3 *db, storei_bound *b, double timeout_s);
/* Why the connection's last statement failed: the bound's reason when it
 * stopped it (then cleared), else sqlite3_errmsg. Valid until the next call. */
const char *storei_bound_errmsg(storei_bound *b);

/* --- store_migrate.c ---------------------------------------------------- */

/* The schema version this runner writes: one step per version in
 * store_migrate.c's migrations[]. */
#define STORE_SCHEMA_VERSION 24

/* Brings the schema to STORE_SCHEMA_VERSION in one write transaction; 0,
 * or -1 with *err (nothing changed). */
int storei_migrate(store *s, char **err);
/* 1 when every step from version on only adds indexes or tables no
 * reading command reads: a reader reads such a file as it is. */
int storei_readable_as_is(int version);
/* PRAGMA user_version into *version, without writing anything. */
int storei_read_user_version(store *s, int *version, char **err);
/* -1 with *err: version is newer than this runner's. */
int storei_refuse_newer(store *s, int version, char **err);
/* storei_read_user_version, refusing a newer version. */
int storei_read_supported_version(store *s, int *version, char **err);
/* A temporary view a reader of a file older than version 12 adds (the
 * lease columns as NULL), without writing the file. */
extern const char storei_lease_shim_sql[];

/* --- store_fence.c ------------------------------------------------------ */

/* Inside an open write transaction: 0 while this store's claim on its sweep
 * still holds (or it claimed none); otherwise -1 with the taken-over line
 * in *err, remembered for every later write. unstored: the points this
 * transaction holds, which the caller rolls back. */
int storei_fence_check(store *s, int64_t unstored, char **err);
/* -1 with the taken-over line in *err once the sweep was taken over; 0
 * before. For a write about to begin. */
int storei_fence_refuse(store *s, char **err);

/* --- store_sql.c: errors ------------------------------------------------ */

/* Sets *err to "<path>: <what>: <sqlite message>" and returns -1. Call it
 * before anything else touches the connection, or the message is lost. */
int storei_fail_sql(store *s, char **err, const char *fmt, ...) RUNNER_PRINTF(3, 4);
/* Appends note to *err, when there is one. */
void storei_append_note(char **err, const char *note);

/* After a failure to open or read: the note that WAL needs the file
 * writable and its -wal and -shm files creatable beside it, when SQLite's
 * error says so. */
void storei_hint_writable(store *s, char **err);

/* --- store_sql.c: statements -------------------------------------------- */

/* The cached statement id, prepared on first use; NULL with *err set. */
sqlite3_stmt *storei_stmt(store *s, enum storei_stmt_id id, const char *what, char **err);
/* Runs a statement that returns no rows and leaves it reset. */
int storei_step_done(store *s, sqlite3_stmt *st, const char *what, char **err);
/* storei_stmt then storei_step_done. */
int storei_run_stmt(store *s, enum storei_stmt_id id, const char *what, char **err);
/* Rolls back the open transaction, if there is one. */
void storei_rollback(store *s);
/* Runs a query that returns one integer into *out; 0, or -1 with "<what>:
 * <sqlite message>" in *err. */
int storei_count_query(store *s, const char *sql, const char *what, int64_t *out, char **err);
/* The point_index rows (schema.sql) of block block_id, which holds the
 * ids first_id .. last_id: counted when all_ok, else read from its points
 * (the block's JSON, points_len bytes). A writer's and a merge's. */
/* The point_once rows of a block about to be written: point first_id + i
 * of section_id has ordinals[i], i < count. Before the block's INSERT, so
 * that its trigger finds them and reads nothing out of the JSON (schema
 * 24); a second row set for a point fails here, as in the trigger. */
int storei_block_keys(store *s, int64_t section_id, int64_t first_id, const int64_t *ordinals,
                      int64_t count, char **err);
int storei_index_block(store *s, int64_t block_id, int64_t first_id, int64_t last_id, int all_ok,
                       const char *points, size_t points_len, char **err);
/* From now on s's WAL is copied only once it holds the backstop's 64 MiB,
 * by the writer itself: each page once per 64 MiB instead of once a commit
 * (a page the next commit changes again is copied again). For a writer no
 * one reads while it writes, a merge: 5% less CPU than the thread's
 * checkpoints (docs/performance/merge.md). */
void storei_checkpoint_late(store *s);
/* 1 when a statement of s's connection has been stepped and not reset:
 * across a commit it keeps the connection's read snapshot, and with it
 * every checkpoint fails (SQLITE_LOCKED). */
int storei_statement_open(store *s);
/* Runs SQL with no parameters (savepoints, transactions); 0 or -1. */
int storei_exec(store *s, const char *sql, const char *what, char **err);
/* Steps a prepared, bound statement and collects column 0 of every row
 * into a malloc'd array (caller frees). The caller resets or finalizes. */
int storei_collect_ids(store *s, sqlite3_stmt *st, const char *what, int64_t **ids, size_t *count,
                       char **err);

/* Binds text, or NULL when text is NULL. SQLITE_STATIC: callers keep the
 * text alive until the statement has been stepped. */
static inline int storei_bind_text(sqlite3_stmt *st, int index, const char *text)
{
    return text ? sqlite3_bind_text(st, index, text, -1, SQLITE_STATIC)
                : sqlite3_bind_null(st, index);
}

/* Binds a point block's JSON, len bytes followed by a NUL (a strbuf's).
 * Given its length, SQLite cannot know the text ends in a NUL, and copies
 * all of it (a block: about 150 KB) each time a trigger or function reads
 * it as text; given -1 it measures it and copies nothing. A text holding a
 * NUL (JSON escapes them; this is a guard) keeps its length. */
static inline int storei_bind_block(sqlite3_stmt *st, int index, const char *text, size_t len)
{
    int whole = text[len] == '\0' && !memchr(text, '\0', len);
    return sqlite3_bind_text(st, index, text, whole ? -1 : (int)len, SQLITE_STATIC);
}

/* Copies column i as text, NULL for SQL NULL; sets *oom when a copy fails. */
char *storei_column_strdup(sqlite3_stmt *st, int i, int *oom);

/* --- store_sql.c: building SQL and values -------------------------------- */

/* Appends name as a double-quoted SQL identifier. */
void storei_append_ident(strbuf *b, const char *name);
/* Formats unix seconds as UTC ISO 8601 with milliseconds,
 * "2026-11-30T05:12:00.123Z", into out. */
void storei_format_utc(double unix_s, char out[32]);
/* "file:PATH?immutable=1" (open with SQLITE_OPEN_URI), malloc'd; NULL on
 * no memory (store_open.c). */
char *storei_immutable_uri(const char *path);

/* A plugin's columns as the result table holds them: parameters first
 * (i < param_count), then outputs. */
static inline const char *storei_column_name(const runner_plugin *p, uint32_t i)
{
    return i < p->param_count ? p->params[i].name : p->columns[i - p->param_count].name;
}

static inline runner_type storei_column_type(const runner_plugin *p, uint32_t i)
{
    return i < p->param_count ? p->params[i].type : p->columns[i - p->param_count].type;
}

/* --- store_manage.c ------------------------------------------------------- */

/* Prepares "<head> FROM sweep AS s WHERE <f> <tail>" with f's values bound
 * (f NULL: every sweep); NULL with *err. The one sweep filter: `runner
 * sweeps`, the selectors and the dashboard's list all go through it. */
sqlite3_stmt *storei_prepare_filtered(store *s, const char *head, const store_sweep_filter *f,
                                      const char *tail, const char *what, char **err);

/* --- store_catalog.c ------------------------------------------------------ */

/* The fixed columns that start every result table. */
#define STOREI_FIXED_COLUMNS 4
extern const char *const storei_fixed_columns[STOREI_FIXED_COLUMNS];
/* strcmp with ASCII letters folded, as SQLite compares names. */
int storei_casecmp(const char *a, const char *b);

/* --- values: store_sql.c (column), store_read.c (type) ----------------- */

/* Reads column i of st's current row as the declared type (NaN stored as
 * the text 'NaN' comes back as NaN). 0, or -1 when out of memory. */
int storei_column_value(sqlite3_stmt *st, int i, runner_type declared, value *out);
/* "integer", "real", "text", "boolean" (plugin_column.type) as a type; 0
 * for anything else. */
runner_type storei_type_from_name(const char *name);

/* --- store_query.c: tables as stored (store_query.h) ---------------------- */

/* Column i of st's current row as SQLite holds it; 0, or -1 out of memory. */
int storei_column_as_stored(sqlite3_stmt *st, int i, value *out);
/* Steps st (prepared and bound; the caller finalizes) and reads every row
 * into *out, a new table with st's column names, cells as stored. */
int storei_query_table(store *s, sqlite3_stmt *st, const char *what, table **out, char **err);

/* --- store_count.c -------------------------------------------------------- */

/* The number of a section's rows a filter matches, into *total. key names
 * the section and filter; count is the bound count(*) statement, stepped
 * only when the process-wide cache has no total for key with the section's
 * point blocks as they are now. 0, or -1 with *err. */
int storei_count_rows(store *s, int64_t section_id, const char *key, sqlite3_stmt *count,
                      int64_t *total, char **err);
/* What changes whenever a section's rows do (a sweep writes them in the
 * transaction of their point block): its blocks' count, points, ok points,
 * newest block id and highest point id. 0, or -1 with *err. */
int storei_section_fingerprint(store *s, int64_t section_id, int64_t out[5], char **err);

/* --- store_plot_scan.c ---------------------------------------------------- */

/* Reads rows_sql (by or NULL, x, y; ?1 sweep, ?2 section; rows whose x
 * or y is not a number are left out) once for d's points_total and reduced, and when reduced (and
 * the by values are at most q->max_groups) a second time for the lowest
 * and highest y of each x-column of each line drawn (at most max_labels),
 * with *lines_chosen set; otherwise the caller chooses the lines and reads
 * the points. 0, or -1 with *err (d is the caller's to clear). */
/* Appends the point (line, x, y) to d, growing d->points (*capacity
 * entries) as needed; a NaN or infinite x or y is left out. 0, or -1 with
 * *err. */
int storei_plot_push(store *s, store_plot_data *d, size_t *capacity, size_t line, double x,
                     double y, char **err);
int storei_plot_scan(store *s, const store_plot_query *q, const char *rows_sql, store_plot_data *d,
                     size_t max_labels, int *lines_chosen, char **err);

/* --- store_page.c: what a page of rows shares with the sort cache --------- */

/* Appends q's filter condition on column (an identifier, quoted here; NULL:
 * the filter column itself); its value is ?2, bound by
 * storei_row_filter_bind. q's filter must have passed
 * store_row_filter_check. */
void storei_row_filter_sql(strbuf *sql, const store_row_query *q, const char *column);
void storei_row_filter_bind(sqlite3_stmt *st, const store_row_query *q);
/* What a total depends on: the section and the filter (malloc'd; NULL: no
 * memory). */
char *storei_row_count_key(const store_row_query *q);

/* --- store_batch.c ------------------------------------------------------ */

/* Commits the open batch, if any. On failure the batch is rolled back (its
 * points are lost) and the message says so. Every write that must not land
 * inside a batch calls it first. */
int storei_batch_commit(store *s, char **err);
/* Begins a batch unless one is open (refused once the sweep was taken
 * over: store_fence.c), numbering its points from the blocks. 0 or -1. */
int storei_batch_begin(store *s, char **err);
/* Forgets the open block (its batch was rolled back). */
void storei_block_discard(store *s);
/* Writes the open block, if it has points, as one point_block row with its
 * point_index rows. 0 or -1 with *err. */
int storei_block_write(store *s, char **err);
/* An answer (a fit, a front, diff --stat's rows) is a head row and many
 * detail rows referencing it, written in one transaction; SQLite's check of
 * each detail row's reference (a cursor opened on the head's table per row)
 * cost a fifth of storing 10^6 of them. storei_answer_begin turns foreign
 * keys off (the pragma is a no-op inside a transaction, so before it) and
 * begins; storei_answer_check, once the head rows are written, fails
 * ("<path>: <what>: a row it references is no longer stored") where
 * head_table holds a row whose references are gone, the check foreign keys
 * would have made (a `runner rm` between the read and the write);
 * storei_answer_end commits when rc is 0, else rolls back, and turns them
 * on again. Each returns 0 or -1 with *err. */
int storei_answer_begin(store *s, const char *what, char **err);
int storei_answer_check(store *s, const char *head_table, const char *what, char **err);
int storei_answer_end(store *s, int rc, const char *what, char **err);

/* --- store_answer_keep.c: answers kept per question -------------------- */

/* fit.question in words from its columns, as SQL over the five given
 * (bound parameters when a fit is written, the columns in the version 22
 * step): "usl: speedup on workers, by jitter, weights sd". */
#define STOREI_FIT_QUESTION(model, x, y, by, weights)                                              \
    model " || ': ' || " y " || ' on ' || " x " || CASE WHEN " by " IS NULL THEN ''"               \
          " ELSE ', by ' || " by " END || " STOREI_FIT_WEIGHTS(weights)
#define STOREI_FIT_WEIGHTS(weights)                                                                \
    "CASE WHEN " weights " IS NULL THEN '' WHEN " weights " = '--noise relative'"                  \
    " THEN ', --noise relative' ELSE ', weights ' || " weights " END"
/* sensitivity.question from its columns, as store_sensitivity_write words
 * it: "y speedup, bootstrap 1000, seed 0". */
#define STOREI_SENSITIVITY_QUESTION                                                                \
    "'y ' || y_column || ', bootstrap ' || bootstrap || ', seed ' || seed"
/* A reader of a file before version 22: temporary views add the answers'
 * question and rows_key columns (store_answer_keep.c). 0 or -1 with *err. */
int storei_answer_shim(store *s, char **err);
/* store_answer_keep.c, inside a writer's transaction. The newest answer of
 * kind (its head table) to question on (a, b): sweep and section, or a
 * comparison's two sweeps; 1 with *id, 0 when none, -1 with *err. */
int storei_answer_newest(store *s, const char *kind, int64_t a, int64_t b, const char *question,
                         int64_t *id, char **err);
/* Deletes every answer of kind to question on (a, b) with its rows. */
int storei_answer_drop_question(store *s, const char *kind, int64_t a, int64_t b,
                                const char *question, char **err);
/* Sets a kept answer's rows_key. */
int storei_answer_touch(store *s, const char *kind, int64_t id, const char *rows_key, char **err);

/* --- store_write.c ------------------------------------------------------- */

/* Appends to b (when not NULL) the members of the flat JSON object params
 * whose values differ from base's, as an object: what json_patch(base, it)
 * turns into params. -1, appending nothing, when the two do not have the
 * same keys in the same order. */
int storei_params_diff(strbuf *b, const char *base, const char *params);

/* --- store_reuse.c -------------------------------------------------------- */

/* Copies the rows of point->reused_from into e's table as point point_id of
 * point's sweep and section, in their stored order; *copied says how many.
 * Runs inside the open batch. 0, or -1 with *err. */
int storei_copy_rows(store *s, storei_plugin_entry *e, const store_point *point, int64_t point_id,
                     size_t *copied, char **err);
/* --reuse: the reused point's artifacts (stdout, stderr, files) recorded for
 * point_id of this sweep too; the contents are shared by SHA-256, so they
 * outlive the sweep they were copied from (store_reuse.c). */
int storei_copy_artifacts(store *s, const store_point *point, int64_t point_id, char **err);
/* Inserts a point's artifacts (blobs deduplicated by SHA-256) inside the
 * open batch, before the point joins its block (store_artifact.c). */
struct artifact;
int storei_write_artifacts(store *s, int64_t sweep_id, int64_t point_id,
                           const struct artifact *list, char **err);

/* --- store_run.c ------------------------------------------------------------ */

/* Inserts a command point's runs inside the open batch, before the point
 * joins its block; on failure removes those it inserted. 0, or -1 with *err. */
struct point_runs;
int storei_write_runs(store *s, int64_t sweep_id, int64_t point_id, const struct point_runs *runs,
                      char **err);
/* Removes the runs stored for point_id (a point whose storing failed). */
void storei_undo_runs(store *s, int64_t sweep_id, int64_t point_id);
/* --reuse: the reused point's runs recorded for point_id of this sweep. */
int storei_copy_runs(store *s, const store_point *point, int64_t point_id, char **err);

#endif
