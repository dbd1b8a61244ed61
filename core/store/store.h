/* store: the SQLite database. The catalog (sweep, sweep_plugin, section,
 * point, plugin_column) comes from schema.sql, compiled into the binary; each
 * plugin gets a result table named after it whose columns are the plugin's
 * parameters and outputs, created (and widened) from its metadata.
 *
 * Errors: every function returns 0 on success or -1, and on -1 sets *err to a
 * malloc'd one-line message that the caller frees. Messages name the
 * database file and what was being done ("results.db: cannot store point: ..."). */
#ifndef RUNNER_STORE_H
#define RUNNER_STORE_H

#include <stddef.h>
#include <stdint.h>
#include "base/lease.h"
#include "base/machine.h"
#include "base/process_identity.h"
#include "base/table.h"
#include "base/value.h"
#include "runner/plugin.h"

/* A store is used by one thread at a time (its connection has no mutex). */
typedef struct store store;

/* Provenance of one `runner sweep` run. All strings are borrowed. */
typedef struct store_sweep_info {
    const char *script_path;
    const char *script_text;
    const char *script_sha256;  /* hex */
    const char *options_json;   /* option values used, JSON object */
    const char *overrides_json; /* --set NAME=VALUE given, JSON object */
    const char *runner_version;
    const char *git_commit; /* NULL when the script is not in a git repo */
    const char *host;
    const char *command_line;
    uint64_t seed;
    double started_at;       /* unix time, s */
    int64_t pid;             /* the running process, so a dead one can be spotted */
    const char *name;        /* NULL: unnamed (checked by the caller: selector.h) */
    const char *note;        /* NULL: none */
    const char *const *tags; /* tag_count tags (checked by the caller) */
    size_t tag_count;
} store_sweep_info;

/* One finished point, ready to persist. All pointers are borrowed. */
typedef struct store_point {
    int64_t sweep_id;
    int64_t section_id;
    int64_t ordinal;          /* index of the point within its section */
    const char *params_json;  /* canonical parameters */
    const char *params_swept; /* JSON object of the parameters that vary within
                                  * the section, the others being the same for
                                  * all its points; NULL if unknown */
    const char *identity;     /* hex SHA-256 of plugin, version, params, seed */
    uint64_t seed;
    const char *status; /* "ok", "failed", "crashed" or "timeout" */
    const char *error;  /* NULL when ok */
    double started_at;  /* unix time, s */
    double duration_s;
    const value *params; /* plugin->param_count values */
    size_t row_count;
    const value *rows; /* row_count * plugin->column_count values */
    /* --reuse: the stored point whose rows are copied instead of rows
     * (0: none). The copy is done in SQL, value for value; row_count is
     * then what was copied. */
    int64_t reused_from, reused_sweep_id, reused_section_id;
    const struct artifact *artifacts; /* stored with the point (store_artifact.c); may be NULL */
    const struct point_runs *runs;    /* a command's runs, stored in command_run (store_run.c);
                                       * may be NULL */
} store_point;

/* Opens (creating if needed) the database at path: WAL, busy timeout,
 * foreign keys. Migrates an older schema; refuses a newer one. Both opens
 * refuse, before writing anything, a path that is not a regular file and a
 * file whose catalog is not runner's (docs/schema.md). */
int store_open(const char *path, store **out, char **err);
/* Opens an existing database for reading only (sweeps, show, plot,
 * report): never writes, never migrates, never changes the journal mode;
 * works on a read-only file. Refuses newer and non-runner files like
 * store_open, and an older runner database too (store_open upgrades it). */
int store_open_read(const char *path, store **out, char **err);
/* Commits any pending batch and closes. Accepts NULL. */
void store_close(store *s);
const char *store_path(const store *s);
/* The schema version this runner writes (PRAGMA user_version). */
int store_schema_version(void);
/* 1 if name cannot be a plugin (table) or column name: a catalog table or
 * index (sweep, sweep_plugin, section, point, plugin_column, ...), anything
 * starting with "sqlite_", or a fixed result column (row_id, sweep_id,
 * section_id, point_id). Case-insensitive, like SQLite's names. */
int store_reserved_name(const char *name);
/* The name of every object in the file's catalog (sqlite_schema: tables,
 * views, indexes, triggers), sorted; free with store_free_strings. */
int store_catalog_objects(store *s, char ***names, size_t *count, char **err);

/* Begins a sweep row (status 'running'); returns its id. */
int store_sweep_begin(store *s, const store_sweep_info *info, int64_t *sweep_id, char **err);
/* Records one plugin used by the sweep (once per plugin per sweep). */
int store_sweep_plugin(store *s, int64_t sweep_id, const char *name, const char *version,
                       const char *so_path, const char *so_sha256, char **err);
/* The machine the sweep runs on (store_machine.c; sweep_machine): each
 * fact of m as a row, in m's order (an earlier row of a field is replaced).
 * store_sweep_machine_set records one more, or replaces it (load_end). */
int store_sweep_machine_write(store *s, int64_t sweep_id, const machine_facts *m, char **err);
int store_sweep_machine_set(store *s, int64_t sweep_id, const char *field, const char *value,
                            char **err);
/* The machine facts recorded with the sweep, in their order, into *out
 * (zeroed or cleared; machine_facts_clear it). None for a sweep of an
 * older runner, or of a file older than schema 18 (read as it is). */
int store_sweep_machine(store *s, int64_t sweep_id, machine_facts *out, char **err);
/* The lines the sweep's script printed with printf (store_printed.c;
 * sweep_printed): set replaces the sweep's lines with text's non-empty
 * ones, in order, at most STORE_PRINTED_MAX_LINES of at most
 * STORE_PRINTED_MAX_BYTES each (longer ones cut). Read: *lines (malloc'd,
 * store_sweep_printed_free them), none for an older file. 0 or -1. */
#define STORE_PRINTED_MAX_LINES 500
#define STORE_PRINTED_MAX_BYTES 1000
int store_sweep_printed_set(store *s, int64_t sweep_id, const char *text, char **err);
int store_sweep_printed(store *s, int64_t sweep_id, char ***lines, size_t *count, char **err);
void store_sweep_printed_free(char **lines, size_t count);
/* The SQLite library's own version, for the machine facts. */
const char *store_sqlite_version(void);
/* Commits pending points and closes the sweep: status 'ok', 'failed'
 * (some points failed), 'interrupted' or 'error'. */
int store_sweep_end(store *s, int64_t sweep_id, const char *status, double ended_at, char **err);

/* Creates the plugin's result table if missing, adds columns a newer plugin
 * version declares, and records column metadata (units, docs). */
int store_prepare_plugin(store *s, const runner_plugin *plugin, char **err);
/* Begins a section: one `sweep` call of the script. */
int store_section_begin(store *s, int64_t sweep_id, int ordinal, const char *plugin,
                        const char *title, int script_line, int64_t point_count,
                        int64_t *section_id, char **err);

/* Stores one point and its rows atomically. Points are grouped into
 * transactions; a batch commits every few hundred points or milliseconds,
 * and at store_flush / store_sweep_end / store_close. */
int store_write_point(store *s, const runner_plugin *plugin, const store_point *point, char **err);
int store_flush(store *s, char **err);

/* Reading back. */
/* Lists every sweep: store_list_sweeps_matching with no filter. */
int store_list_sweeps(store *s, table **out, char **err);
/* One section's rows as a table (parameters then outputs, with units from the
 * stored column metadata). NaN, +inf and -inf come back as such. */
int store_section_table(store *s, int64_t section_id, table **out, char **err);
/* Section ids of a sweep, in order; *ids is malloc'd (caller frees). */
int store_sweep_sections(store *s, int64_t sweep_id, int64_t **ids, size_t *count, char **err);

/* --- streaming a section's rows (store_cursor.c) -------------------------
 * A cursor reads one section's rows in stored order (by point, then as the
 * point emitted them) straight from a statement: memory does not grow with
 * the section. Rows are keyed by (point_id, row_id), which grows in that
 * order, so a reader can come back to a row in one index seek. */
typedef struct store_row_key {
    int64_t point_id;
    int64_t row_id;
} store_row_key;
typedef struct store_cursor store_cursor;

/* The section with this ordinal (1, 2, ...) in the sweep; *section_id is 0
 * when there is none. */
int store_section_find(store *s, int64_t sweep_id, int ordinal, int64_t *section_id, char **err);
/* An empty table (title, no rows) with plugin's result columns: its
 * parameters, then its outputs, with their types and units. NULL when out of
 * memory. The caller frees it. */
table *store_plugin_columns(const runner_plugin *plugin, const char *title);
/* An empty table with the section's recorded columns (what `runner show`
 * prints), titled after the section; *plugin is its result table's name
 * (malloc'd, the caller frees). */
int store_section_columns(store *s, int64_t section_id, table **out, char **plugin, char **err);
/* How many rows the section stored in plugin's result table. */
int store_section_row_count(store *s, int64_t section_id, const char *plugin, int64_t *count,
                            char **err);
/* *varies is 1 when some row of the section has another value than v in
 * the column (IS NOT: numbers compare as numbers), else 0. Stops at the
 * first such row. */
int store_section_column_varies(store *s, int64_t section_id, const char *plugin,
                                const char *column, const value *v, int *varies, char **err);

/* Opens a cursor over the rows of section_id in plugin's result table,
 * reading the columns of `columns` (borrowed: it must outlive the cursor;
 * NULL: the keys only). where_count equality conditions (column names in
 * where_columns, values in where_values, both borrowed until the close)
 * select rows as SQL `=` does. Starts before the first row; *out is closed
 * with store_cursor_close. */
int store_cursor_open(store *s, int64_t section_id, const char *plugin, const table *columns,
                      const char *const *where_columns, const value *where_values,
                      size_t where_count, store_cursor **out, char **err);
/* store_cursor_open without conditions, reading only the columns i with
 * wanted[i] != 0 (borrowed for the call): the others come back as NULL
 * values, so a row keeps the layout of `columns` (a second pass that needs
 * fewer columns than the first). */
int store_cursor_open_some(store *s, int64_t section_id, const char *plugin, const table *columns,
                           const unsigned char *wanted, store_cursor **out, char **err);
/* Moves before the first row whose key is not below `from`. */
int store_cursor_seek(store_cursor *c, store_row_key from, char **err);
/* Reads the next row: its columns' values into row (the caller clears
 * them; NULL with a keys-only cursor) and its key into *key (may be NULL).
 * Returns 1, 0 at the end, or -1 with *err. */
int store_cursor_next(store_cursor *c, value *row, store_row_key *key, char **err);
/* Ends the read (the cursor holds no read transaction afterwards); the
 * next store_cursor_next starts from the beginning or the last seek. */
void store_cursor_rewind(store_cursor *c);
void store_cursor_close(store_cursor *c); /* accepts NULL */

/* Resuming. A sweep record found for resuming; strings owned (clear it). */
typedef struct store_sweep_record {
    int64_t id; /* 0: none found */
    char *script_path;
    char *script_text;
    char *overrides_json;
    uint64_t seed;
    char *status;
    int64_t pid; /* 0 when unknown */
    char *host;
    char script_sha256[65];
    uint32_t shard_index, shard_count; /* --shard I/N it ran; 0, 0: not sharded */
    int shard_by_identity; /* a shard an older runner made: its points chosen by identity */
    double ended_at;       /* its recorded end, Unix seconds; 0: none (still running, killed) */
} store_sweep_record;

/* The sweep with this id, or (sweep_id 0) the newest sweep of script_path.
 * out->id is 0 when there is none. */
int store_find_sweep(store *s, int64_t sweep_id, const char *script_path, store_sweep_record *out,
                     char **err);
void store_sweep_record_clear(store_sweep_record *r);
/* Marks the sweep running again under this process. */
int store_sweep_reopen(store *s, int64_t sweep_id, int64_t pid, char **err);

/* Identities of a section's finished points, sorted for lookup; a grid may
 * hold one point several times, so an identity may appear more than once. */
typedef struct store_identity {
    char id[65];      /* first, so the entries sort by it */
    int64_t point_id; /* the stored point's row */
} store_identity;
typedef struct store_identity_set {
    store_identity *entries;
    unsigned char *taken; /* per entry: claimed by store_identity_set_take */
    size_t count;
} store_identity_set;
/* Claims one unclaimed occurrence of identity; 1 (and its point id in
 * *point_id) if there was one. */
int store_identity_set_take(store_identity_set *set, const char *identity, int64_t *point_id);
void store_identity_set_free(store_identity_set *set); /* accepts NULL */

/* Finds section `ordinal` of the sweep (same plugin) or begins it. For an
 * existing one, deletes its points that did not succeed (they run again) and
 * returns the identities of those that did in *done (caller frees). */
int store_section_resume(store *s, int64_t sweep_id, int ordinal, const char *plugin,
                         const char *title, int script_line, int64_t point_count,
                         int64_t *section_id, store_identity_set **done, char **err);
/* Appends the stored rows of one point of the section to out, laid out as
 * parameters then outputs of plugin. */
int store_point_rows(store *s, const runner_plugin *plugin, int64_t section_id, int64_t point_id,
                     table *out, char **err);

/* --- reuse (store_reuse.c, `runner sweep --reuse`) ----------------------
 * A point stored ok by another sweep with the same plugin file, identity
 * and seed: its rows can be copied instead of computed. */
typedef struct store_reuse_entry {
    char identity[65];
    uint64_t seed;
    int64_t point_id, sweep_id, section_id;
} store_reuse_entry;
typedef struct store_reuse_set {
    store_reuse_entry *entries; /* one per identity and seed */
    size_t count;
    size_t *slots; /* a hash table of entries (store_reuse.c) */
    size_t slot_count;
} store_reuse_set;
/* The points of plugin, stored ok by sweeps other than exclude_sweep_id
 * whose sweep_plugin row has so_sha256. *out: free with
 * store_reuse_set_free. Commits a pending batch first. */
int store_reuse_find(store *s, const char *plugin, const char *so_sha256, int64_t exclude_sweep_id,
                     store_reuse_set **out, char **err);
/* The stored point with this identity and seed, or NULL. Read-only: any
 * thread may look up while nobody frees the set. */
const store_reuse_entry *store_reuse_lookup(const store_reuse_set *set, const char *identity,
                                            uint64_t seed);
void store_reuse_set_free(store_reuse_set *set); /* accepts NULL */

/* --- a sweep's points with their rows (store_points.c: diff, verify) ----- */
typedef enum store_point_order {
    STORE_ORDER_PARAMS, /* by canonical parameters, then section and point */
    STORE_ORDER_STORED, /* by section, point, row: as stored */
} store_point_order;
typedef struct store_point_stream store_point_stream;
/* One result row with its point (a point without rows comes once, has_row
 * 0). Strings and cells are the stream's, valid until the next call. */
typedef struct store_stream_row {
    const char *params_json, *status, *error, *identity;
    int64_t point_id, section_id;
    int section_ordinal;
    uint64_t seed;
    int has_row;
    const value *cells; /* the stream's columns, in their order */
} store_stream_row;
/* Opens a stream of the rows of every point plugin's sections of the sweep
 * hold, reading the columns `columns` names (borrowed: it outlives the
 * stream; their types say how to read NaN). */
int store_point_stream_open(store *s, int64_t sweep_id, const char *plugin, const table *columns,
                            store_point_order order, store_point_stream **out, char **err);
/* The same over one section of the sweep (section_id 0: all of plugin's). */
int store_point_stream_open_section(store *s, int64_t sweep_id, int64_t section_id,
                                    const char *plugin, const table *columns,
                                    store_point_order order, store_point_stream **out, char **err);
/* 1 with *row, 0 at the end, -1 with *err. */
int store_point_stream_next(store_point_stream *ps, store_stream_row *row, char **err);
void store_point_stream_close(store_point_stream *ps); /* accepts NULL */
/* The version and .so SHA-256 the sweep recorded for plugin (malloc'd; NULL
 * when it recorded none). */
int store_sweep_plugin_file(store *s, int64_t sweep_id, const char *plugin, char **version,
                            char **so_sha256, char **err);
/* The file the sweep loaded plugin from (sweep_plugin.so_path), malloc'd in
 * *so_path; NULL there when the sweep has no such plugin. */
int store_sweep_plugin_path(store *s, int64_t sweep_id, const char *plugin, char **so_path,
                            char **err);

/* --- a command point's runs (command_run, store_run.c) ----------------- */

/* Reads the measured runs (warm-ups left out) of one point at a time, each
 * run's value of the named columns: wall_s, user_s, sys_s, max_rss_kib are
 * the run's own, any other name a declared column of its run_values. A
 * value that is not a number (text, NULL, "NaN") reads as NaN. */
typedef struct store_run_samples store_run_samples;
int store_run_samples_open(store *s, const char *const *columns, size_t count,
                           store_run_samples **out, char **err);
/* The point's runs, row-major (*runs rows of count values), valid until the
 * next read; *runs 0 when it has none (one run, or an older file). 0, or
 * -1 with *err. */
int store_run_samples_read(store_run_samples *r, int64_t sweep_id, int64_t point_id,
                           const double **values, size_t *runs, char **err);
void store_run_samples_close(store_run_samples *r); /* accepts NULL */

/* The runs of a section's points, in point then run order, one row at a
 * time in columns' order (borrowed: it outlives the cursor): a column with
 * is_param is the point's parameter of that name; point_id, run, warmup,
 * wall_s, user_s, sys_s, max_rss_kib, voluntary_switches,
 * involuntary_switches and exit_status the run's own; any other name the
 * declared column of that name in run_values (NULL when the run printed
 * none). Memory stays one row whatever the count. */
typedef struct store_run_cursor store_run_cursor;
int store_run_cursor_open(store *s, int64_t section_id, const table *columns,
                          store_run_cursor **out, char **err);
/* 1 with row filled (the caller clears it), 0 at the end, -1 with *err. */
int store_run_cursor_next(store_run_cursor *c, value *row, char **err);
void store_run_cursor_close(store_run_cursor *c); /* accepts NULL */

/* --- closing a sweep with a webhook summary (docs/webhooks.md) ---------- */

/* Makes the body of a sweep's summary by reading the sweep back through s,
 * inside the transaction that closes it, so the body describes exactly what
 * is committed with it. Returns 0 with *body malloc'd (the store frees it),
 * or -1 with *err. */
typedef int (*store_outbox_build_fn)(store *s, int64_t sweep_id, void *ctx, char **body,
                                     char **err);

/* A summary to queue in the outbox while closing a sweep. */
typedef struct store_outbox_request {
    const char *format; /* "generic" or "slack", kept with the row */
    store_outbox_build_fn build;
    void *ctx;   /* handed to build */
    int64_t id;  /* out: the outbox row written; 0 when none */
    char *error; /* out: why none was written (malloc'd; caller frees) */
} store_outbox_request;

/* store_sweep_end, and in the same transaction an outbox row holding the
 * body request->build makes (request may be NULL: no row). The summary never
 * costs the sweep: when it cannot be built or stored, the sweep is closed all
 * the same, request->id stays 0 and request->error says why. Returns -1 with
 * *err only when the sweep itself could not be closed. */
int store_sweep_end_with_outbox(store *s, int64_t sweep_id, const char *status, double ended_at,
                                store_outbox_request *request, char **err);

/* One outbox row; strings owned (clear it). */
typedef struct store_outbox_row {
    int64_t id; /* 0: no such row */
    int64_t sweep_id;
    char *format;
    char *body;
    char *idempotency_key;
    int64_t attempts;
    char *delivered_at;    /* NULL while pending */
    char *next_attempt_at; /* not before (a receiver's Retry-After); NULL: any time */
    int due;               /* pending, and next_attempt_at is NULL or has passed */
} store_outbox_row;
int store_outbox_read(store *s, int64_t id, store_outbox_row *out, char **err);
void store_outbox_row_clear(store_outbox_row *row); /* accepts NULL */
/* Ids of the undelivered rows, oldest first; *ids is malloc'd (caller frees). */
int store_outbox_pending(store *s, int64_t **ids, size_t *count, char **err);
/* Records one delivery attempt: attempts + 1; last_status = http_status (0:
 * no HTTP answer, stored NULL); last_error = error (NULL when delivered);
 * delivered_at = now when delivered; next_attempt_at = not_before (unix s;
 * 0 stores NULL). error must never hold the webhook URL. */
int store_outbox_attempt(store *s, int64_t id, int http_status, const char *error, int delivered,
                         double not_before, char **err);

/* A sweep as its summary describes it, read back; strings owned (clear it). */
typedef struct store_sweep_digest {
    int64_t id;
    char *script_path;
    char *status;
    char *started_at;
    char *ended_at;    /* NULL while running */
    double duration_s; /* ended_at - started_at, to the ms; NaN while running */
    char *host;
    char *runner_version;
    int64_t points_ok;
    int64_t points_failed; /* every point not ok: failed, crashed, timeout */
} store_sweep_digest;
int store_sweep_digest_read(store *s, int64_t sweep_id, store_sweep_digest *out, char **err);
void store_sweep_digest_clear(store_sweep_digest *d); /* accepts NULL */

/* One section as its summary describes it; owned (clear it). */
typedef struct store_section_digest {
    int64_t id;
    int ordinal;
    char *plugin;
    char *title; /* NULL without one */
    int64_t points_ok, points_failed;
    int64_t row_count;  /* rows stored for the section */
    table *head;        /* its first rows (at most max_rows): parameters, then outputs */
    value *min, *max;   /* per column of head, over all the section's numbers (NaN
                                    * excluded); a NULL value for other types or no numbers */
    int64_t *nan_count; /* per column of head: cells holding NaN */
} store_section_digest;
int store_section_digest_read(store *s, int64_t section_id, size_t max_rows,
                              store_section_digest *out, char **err);
void store_section_digest_clear(store_section_digest *d); /* accepts NULL */

/* Which process runs a sweep (store_process.c): claim records who (when a
 * sweep begins or resumes) with its lease (renewed_at_s, period_s; NULL or
 * period 0: none) and Slurm ids; process reads them back (zeros and ""
 * where the row does not say; the sweep's host for a row older than schema
 * 4; lease may be NULL). */
int store_sweep_claim(store *s, int64_t sweep_id, const process_identity *who,
                      const sweep_lease *lease, char **err);
/* 1 once another process took over the sweep this store claimed
 * (store_sweep_claim raises the sweep's owner epoch; store_fence.c): every
 * write of this store then fails with the line "sweep N was taken over by
 * HOST:PID at TIME; this process stops; ..." (docs/guarantees.md). */
int store_taken_over(const store *s);
/* Registers SQL runner_sweep_status(status, pid, pid_host, pid_start_ticks,
 * pid_boot_id, lease_renewed_at, lease_period_s, the scheduler's id: ARRAYID_TASK
 * for an array task, else slurm_job_id) on db: the
 * status a reader shows, 'interrupted' for a sweep left 'running' by a
 * process that is gone as lease_judge tells it (this host's proof, the
 * scheduler, an expired lease; STORE_SWEEP_STATUS_SQL spells the call for a
 * sweep row s). Every connection runner opens has it. Returns 0 or -1 (out
 * of memory). */
struct sqlite3;
int store_process_register_sql(struct sqlite3 *db);
#define STORE_SWEEP_STATUS_SQL                                                                     \
    "runner_sweep_status(s.status, s.pid, coalesce(s.pid_host, s.host), s.pid_start_ticks,"        \
    " s.pid_boot_id, s.lease_renewed_at, s.lease_period_s,"                                        \
    " coalesce(s.slurm_array_job_id || '_' || s.slurm_array_task_id, s.slurm_job_id))"

/* The lease of a running sweep, renewed by a thread of its own with its own
 * connection (store_lease.c): the writer may be inside a point for minutes
 * (one job runs it on the writer's own thread), so renewal cannot wait for
 * points to end. Every period_s it sets sweep.lease_renewed_at, while the
 * row still names who as its process. */
typedef struct store_lease store_lease;
/* Starts renewing; *out is freed by store_lease_stop. 0, or -1 with *err. */
int store_lease_start(const char *path, int64_t sweep_id, const process_identity *who,
                      double period_s, store_lease **out, char **err);
/* While flush is set, the thread calls flush(ctx) before each renewal: the
 * writer's open batch holds the write lock the renewal needs, and flush
 * commits it (bounded; it may fail, and the renewal is then tried anyway).
 * Setting NULL waits for a flush under way, so ctx may go after it. */
void store_lease_watch(store_lease *lease, int (*flush)(void *ctx), void *ctx);
/* Stops renewing and frees lease (NULL: nothing). The lease stays as last
 * renewed: the caller ends the sweep, or a reader sees it expire. */
void store_lease_stop(store_lease *lease);

/* --- sharded sweeps (store_merge.c, docs/slurm.md) ----------------------- */

/* Records that the sweep runs shard index of count (--shard I/N). */
int store_sweep_shard(store *s, int64_t sweep_id, uint32_t index, uint32_t count, char **err);
int store_sweep_process(store *s, int64_t sweep_id, process_identity *out, sweep_lease *lease,
                        char **err);

/* Command experiments (store_artifact.c, docs/command-experiments.md). */
/* Records what a command of the sweep ran (once per command per sweep). */
int store_sweep_command(store *s, int64_t sweep_id, const char *command, const char *argv_json,
                        int shell, const char *executable, const char *sha256, char **err);
/* The program command `name` of the sweep ran (sweep_command.executable),
 * malloc'd in *executable; NULL there when name is no command of the sweep
 * (a plugin). */
int store_sweep_command_program(store *s, int64_t sweep_id, const char *name, char **executable,
                                char **err);
/* A sweep's artifacts (of one point when point_id > 0), ordered by point
 * and name: point_id, name, bytes, sha256. */
int store_artifact_list(store *s, int64_t sweep_id, int64_t point_id, table **out, char **err);
/* The content of one stored blob: *data malloc'd (the caller frees). */
int store_artifact_content(store *s, const char *sha256, void **data, size_t *size, char **err);
/* --- managing sweeps (store_manage.c) -------------------------------------
 * Which sweeps match: every field that is set must hold (NULL: any). */
typedef struct store_sweep_filter {
    int64_t id;         /* 0: any */
    const char *name;   /* sweep.name, exactly */
    const char *script; /* with a '/': the recorded path (a leading ./ either
                                  * side ignored); without: its file name (jitter.lua) */
    const char *tag;
    const char *plugin; /* has a section of this plugin */
    const char *status;
    const char *since, *until; /* started_at >= since, < until (UTC ISO 8601 text) */
    const char *text;          /* contains: part of the name, the script path or a tag
                       * (LIKE's wildcards taken literally), or the id itself */
} store_sweep_filter;

/* Ids of the sweeps matching f (NULL: all), newest (highest id) first;
 * *ids is malloc'd (caller frees). */
int store_sweeps_matching(store *s, const store_sweep_filter *f, int64_t **ids, size_t *count,
                          char **err);
/* The distinct script paths of the sweeps matching f, each with its newest
 * sweep id, newest first (to tell apart two scripts of one file name);
 * free with store_free_strings and free. */
int store_sweep_scripts_matching(store *s, const store_sweep_filter *f, char ***paths,
                                 int64_t **newest, size_t *count, char **err);
void store_free_strings(char **list, size_t count); /* accepts NULL */
/* The sweeps matching f as `runner sweeps` lists them: id, name, script,
 * tags (comma-separated, sorted), status, sections, points_ok,
 * points_failed, started_at, duration (s; NULL while running), overrides
 * ("NAME=VALUE ..."). Oldest first. */
int store_list_sweeps_matching(store *s, const store_sweep_filter *f, table **out, char **err);
/* Sets or (NULL) clears a sweep's name or note. */
int store_sweep_set_name(store *s, int64_t sweep_id, const char *name, char **err);
int store_sweep_set_note(store *s, int64_t sweep_id, const char *note, char **err);
/* Removes the tags drop, then adds add, in one transaction. */
int store_sweep_retag(store *s, int64_t sweep_id, const char *const *add, size_t add_count,
                      const char *const *drop, size_t drop_count, char **err);
/* Deletes the sweeps and every row of them (result rows in each plugin's
 * table, points, blocks, sections, plugins, outbox, tags, fits) in one
 * transaction: all or none. Checks nothing: the caller checks liveness. */
int store_sweeps_remove(store *s, const int64_t *ids, size_t count, char **err);
/* VACUUM: the file rebuilt without its free pages; its size before and
 * after (the WAL checkpointed first, so it does not count). */
int store_vacuum(store *s, int64_t *bytes_before, int64_t *bytes_after, char **err);

/* store_merge: merging the databases of a sharded sweep's shards (`runner
 * merge`, docs/slurm.md) into one sweep equal to a single-process run. */

typedef struct store_merge_result {
    int64_t sweep_id; /* the merged sweep in the output database */
    int already;      /* it was there from an earlier merge: nothing written */
    int failed;       /* some points failed (status 'failed') */
    int64_t points, rows;
    size_t parts; /* partial merges made beside OUT (and removed): more inputs than descriptors */
    int parts_for_memory; /* ... or than STORE_MERGE_OPEN_MAX, which bounds its memory */
} store_merge_result;

/* Inputs a merge reads at once at most: each open shard costs about 170 KB
 * (its schema, its pages), so 500 stay within 100 MB; more go in parts. */
#define STORE_MERGE_OPEN_MAX 500

/* Merges the newest sharded (or merged) sweep of each of the count
 * databases at paths into one new sweep of s, recorded with command_line,
 * with a merge_source row per shard. Refuses (-1, *err naming the field)
 * inputs that do not belong together: shard count, script SHA-256, sweep
 * seed, overrides, runner and schema version, plugins' .so SHA-256,
 * sections; a shard held twice; and, one per line with host and state,
 * shards missing (but with partial) or not finished, and the points
 * nobody has. Nothing is written then. A merge already in s is not done
 * again (result->already). More inputs than the descriptor limit lets it
 * read at once, or than STORE_MERGE_OPEN_MAX, are merged in parts, through
 * files beside s. */
int store_merge(store *s, const char *const *paths, size_t count, int partial,
                const char *command_line, store_merge_result *result, char **err);

/* --- fits (store_fit.c, `runner fit`, docs/analysis.md) ------------------ */

/* One fitted or derived quantity; strings borrowed. NaN or inf is stored
 * NULL (undefined). */
typedef struct store_fit_param {
    const char *name, *unit, *doc;
    int derived; /* 0: a parameter (kind 'param'); 1: 'derived' */
    double value, std_error, ci_low, ci_high;
    const char *interval; /* how ci_low, ci_high were made: wald, log, logit (NULL: wald) */
} store_fit_param;

/* One fit as the fit table stores it (docs/schema.md); everything borrowed.
 * keys, x, y, fitted and residual hold n entries each (fit_residual). */
typedef struct store_fit {
    int64_t sweep_id, section_id;
    const char *model, *formula;
    const char *x_column, *y_column, *x_unit, *y_unit;
    const char *by_column;     /* NULL: no --by */
    const value *by_value;     /* the group's value of by_column */
    const char *weight_column; /* NULL: unweighted */
    int64_t n, excluded, dof, iterations;
    double r2, rss, residual_sd, confidence;
    size_t param_count;
    const store_fit_param *params;
    const store_row_key *keys;
    const double *x, *y, *fitted, *residual;
    /* A curve to draw (fit_curve; curve_n 0: none, a built-in model's is
     * drawn from its formula): x, the model there and its band; NaN stored
     * as NULL. */
    size_t curve_n;
    const double *curve_x, *curve_f, *curve_low, *curve_high;
    const char *rows_key; /* store_rows_key before the rows were read (NULL: none) */
} store_fit;

/* How an answer is stored when one to the same question is (issue 38,
 * "answers are kept, not piled up"; docs/analysis.md): an answer is
 * identified by its question (the command, its sweeps and section, its
 * columns and options) and by the rows it read.
 *   STORE_ANSWER_KEEP (the commands): when the newest stored answer to the
 *     question has the same result on the same rows, nothing is written
 *     and it answers (*kept 1; its rows_key brought up to date); otherwise
 *     the stored ones are deleted and the new one written in their place.
 *   STORE_ANSWER_AGAIN (--again): always the latter.
 *   STORE_ANSWER_ADD: written beside any stored ones.
 *   STORE_ANSWER_KEEP_ADD (a script's pareto{} and sensitivity{}, whose
 *     ids the script holds): kept as KEEP, else written beside. */
enum {
    STORE_ANSWER_KEEP,
    STORE_ANSWER_AGAIN,
    STORE_ANSWER_ADD,
    STORE_ANSWER_KEEP_ADD
};

/* Stores count fits (the groups of one request: the same sweep, section,
 * model, formula, x, y, by column and weight column) in one transaction,
 * all or none: ids[count] receives their ids. again is a STORE_ANSWER_*:
 * the fits stored for the request are kept when they fitted the same rows
 * (n, excluded and rss alike, one per group, stored together); fit.question
 * is written from the columns. Writes only the fit tables. */
int store_fits_write(store *s, const store_fit *fits, size_t count, int again, int64_t *ids,
                     int *kept, char **err);
/* A stored fit's quantities in order: name, kind, value, stderr, ci_low,
 * ci_high, unit (a new table; the caller frees it). */
int store_fit_params(store *s, int64_t fit_id, table **out, char **err);
/* The fits a plot draws (`runner plot --fit`, the report): fit_id and the
 * fits the same `runner fit` stored with it (a --by run: same section,
 * model, columns, weights and created_at); fit_id 0: the newest fit of
 * sweep_id, with its group. Only fits of sweep_id. *out (a new table, the
 * caller frees it; no rows when there is no such fit) has a row per fit:
 * id, section_id, model, x_column, y_column, by_column, by_value, x_min,
 * x_max (of the rows fitted), p1, p2, p3 (the first three quantities in
 * position order: the parameters, then derived ones). */
int store_fit_group(store *s, int64_t sweep_id, int64_t fit_id, table **out, char **err);
/* The newest fit group stored for section_id per model, x and y, for the
 * report and the dashboard: a table of id (the group's first fit), model,
 * x_column, y_column, by_column, oldest first (the caller frees it). */
int store_section_fit_ids(store *s, int64_t section_id, table **out, char **err);

/* --- drawn over a plot (store_overlay.c, the dashboard) ------------------ */

/* What can be drawn over section_id's plots. *fits (new table): id (a
 * group's first), model, x_column, y_column, by_column: store_section_fit_ids's
 * table. *fronts (new
 * table): id, x_column, x_direction, y_column, y_direction ("min"/"max"),
 * rows (considered), front_size, the newest stored front of exactly two objectives per pair, objective 1
 * as x. The caller frees both; on -1 neither is set. */
int store_section_overlays(store *s, int64_t section_id, table **fits, table **fronts, char **err);
/* Fit fit_id's row of the fit table, every column (no rows: no such fit);
 * the caller frees it. */
int store_fit_record(store *s, int64_t fit_id, table **out, char **err);
/* The x of each row fit_id fitted (fit_residual) and, when weight_column is
 * not NULL, that row's weight (its value in the section's result table
 * plugin): *x and *sd (n each, malloc'd; the caller frees them). */
int store_fit_rows_x(store *s, int64_t fit_id, const char *plugin, const char *weight_column,
                     double **x, double **sd, size_t *n, char **err);
/* The curve stored with fit fit_id (fit_curve, by x): *x, *f, *low and
 * *high (n each, NaN where stored NULL; malloc'd, the caller frees them).
 * *n 0, the arrays NULL: none stored (a built-in model, a fit older than
 * schema version 15, or a file read as it is without fit_curve). */
int store_fit_curve(store *s, int64_t fit_id, double **x, double **f, double **low, double **high,
                    size_t *n, char **err);
/* Columns x and y of the rows of front pareto_id (their values in the
 * section's result table plugin), ordered by x then y, at most max_points
 * of them: *xs, *ys (n each, malloc'd; the caller frees them), and the
 * front's size in *total. */
int store_pareto_points(store *s, int64_t pareto_id, const char *plugin, const char *x,
                        const char *y, size_t max_points, double **xs, double **ys, size_t *n,
                        int64_t *total, char **err);

/* --- answers as rows (store_answers.c, schema version 13) ----------------
 * `runner sensitivity`, `runner pareto` and `runner diff --stat` store what
 * they print (docs/schema.md, docs/analysis.md); each call is one
 * transaction that only adds rows to these tables. Everything borrowed. */

typedef struct store_sensitivity_index {
    const char *parameter, *unit;
    double first, first_low, first_high, total, total_low, total_high;
} store_sensitivity_index;

typedef struct store_sensitivity {
    int64_t sweep_id, section_id;
    const char *y_column, *y_unit;
    int64_t base_samples, excluded, bootstrap;
    uint64_t seed;
    double confidence, y_mean, y_variance;
    size_t count;
    const store_sensitivity_index *indices;
    const char *rows_key; /* store_rows_key before the rows were read (NULL: none) */
} store_sensitivity;

/* The answers' writers: a head row and its detail rows in one transaction.
 * again is a STORE_ANSWER_*; the question (sensitivity: y, bootstrap and
 * seed; pareto: the objectives in order; diff --stat: test, tolerance and
 * columns) is written in words into the head's question column. An answer
 * kept is one whose result is the same (sensitivity: samples, excluded,
 * mean and variance to the bit; pareto: rows, excluded and the front's
 * rows; diff --stat: every row's counts and means to the bit). *id
 * receives the answer's id, *kept 1 when the stored one answered. */
int store_sensitivity_write(store *s, const store_sensitivity *r, int again, int64_t *id, int *kept,
                            char **err);

typedef struct store_pareto_objective {
    const char *column, *unit;
    int maximize;
} store_pareto_objective;

typedef struct store_pareto {
    int64_t sweep_id, section_id;
    int64_t rows, excluded; /* rows considered; rows left out with NaN */
    size_t objective_count;
    const store_pareto_objective *objectives;
    size_t member_count; /* the front: its rows' keys */
    const store_row_key *members;
    const char *rows_key; /* store_rows_key before the rows were read (NULL: none) */
} store_pareto;

int store_pareto_write(store *s, const store_pareto *r, int again, int64_t *id, int *kept,
                       char **err);

/* One compared column at one matched point of diff --stat. */
typedef struct store_stat_diff_row {
    const char *plugin, *point, *column, *unit, *verdict;
    int64_t section_a, section_b;
    int64_t n_a, n_b;
    double mean_a, sd_a, mean_b, sd_b, ratio, ratio_low, ratio_high, p_value;
    const char *test;       /* welch, mwu, bootstrap */
    int64_t outliers[2][2]; /* per side: mild, severe (Tukey's fences); -1: not counted */
} store_stat_diff_row;

typedef struct store_stat_diff {
    int64_t sweep_a, sweep_b;
    double tolerance_s, confidence;
    int64_t compared, past_tolerance;
    size_t row_count;
    const store_stat_diff_row *rows;
    const char *test;     /* --test: mwu, bootstrap, welch */
    const char *columns;  /* --columns as given; NULL: every column */
    const char *rows_key; /* both sweeps' store_rows_key, "A;B", before the read */
} store_stat_diff;

int store_stat_diff_write(store *s, const store_stat_diff *r, int again, int64_t *id, int *kept,
                          char **err);

/* --- store_answer_keep.c: which stored answer answers a question ------- */

/* What changes whenever the rows of a section (section_id > 0) or of every
 * section of a sweep (section_id 0) do: their point blocks' count, points,
 * ok points, newest block and highest point, as text (malloc'd *key). An
 * answer stores the key of the rows it read; `runner answers` calls it
 * stale when the key is no longer the same. */
int store_rows_key(store *s, int64_t sweep_id, int64_t section_id, char **key, char **err);

/* The answers a sweep has (fit, pareto, sensitivity; stat_diff where it is
 * either side), oldest first: kind, id, section (its ordinal; NULL for a
 * comparison), question (in words), asked (created_at), stale ("no",
 * "yes": the rows changed since; "unknown": stored before schema 22). *out
 * is a new table the caller frees. */
int store_answers_list(store *s, int64_t sweep_id, table **out, char **err);

/* One stored answer: its kind (the head table: fit, pareto, sensitivity,
 * stat_diff) and id. */
typedef struct store_answer_ref {
    const char *kind;
    int64_t id;
} store_answer_ref;

/* 1 when kind names an answer's head table, else 0. */
int store_answer_kind_known(const char *kind);
/* Removes the answers (each head row and its detail rows) in one
 * transaction, all or none: 0; 1 with *err when one is not stored
 * ("FILE: no fit 7; 'runner answers SWEEP' lists them"), nothing removed;
 * -1 with *err when the file cannot be written. */
int store_answers_remove(store *s, const store_answer_ref *refs, size_t count, char **err);

/* A sweep's stored answers for the dashboard (store_findings.c), each a
 * new table (the caller frees it) or NULL when the file has no such table
 * (older than schema 13). fronts: the newest per section and objectives:
 * id, section_id, rows, excluded, front_size, objectives ("min workers,
 * max speedup"). sensitivities: every index of the newest analysis per
 * section and output: id, section_id, y_column, y_unit, base_samples,
 * parameter, first_order, first_low, first_high, total, total_low,
 * total_high. stat_diffs: the newest `diff --stat` per pair of sweeps the
 * sweep is in: id, sweep_a, sweep_b, tolerance_s, confidence, compared,
 * past_tolerance, created_at, changed (rows whose verdict is a change),
 * row_count.
 * stat_diff_rows: rows offset on, up to limit (-1: all), of one: in printed
 * order, or changes first (each group in printed order); stat_diff_row's
 * columns but stat_diff_id and the outlier counts. 0, or -1 with *err. */
int store_sweep_fronts(store *s, int64_t sweep_id, table **out, char **err);
int store_sweep_sensitivities(store *s, int64_t sweep_id, table **out, char **err);
int store_sweep_stat_diffs(store *s, int64_t sweep_id, table **out, char **err);
int store_stat_diff_rows(store *s, int64_t stat_diff_id, int changes_first, int64_t offset,
                         int64_t limit, table **out, char **err);

/* --- store_series.c: what happens during a point ------------------------ */

/* Series names: 1 to STORE_SERIES_NAME_MAX bytes (docs/schema.md). */
#define STORE_SERIES_NAME_MAX 63
/* The most values store_series_values returns (a plot or a page). */
#define STORE_SERIES_READ_MAX 1000000
#define STORE_SERIES_READ_MAX_TEXT "1000000"

/* The writer of series and point_system rows (see store_series.c): its own
 * connection and thread, so that points add values while they run. */
typedef struct store_series store_series;

/* Which point a value belongs to. */
typedef struct store_series_key {
    int64_t sweep_id, section_id, ordinal;
} store_series_key;

/* A point's resources (a point_system row). Negative bytes: unknown. */
typedef struct store_point_system {
    double wall_s, cpu_s;
    double cpu_cores_peak; /* read when samples > 0 */
    int64_t rss_peak_bytes, read_bytes, written_bytes;
    int64_t samples;
} store_point_system;

/* Opens a writer on the database at path (already opened and migrated by
 * store_open). Its thread starts with the first value. */
int store_series_open(const char *path, store_series **out, char **err);
/* Queues one value (value may be NaN or infinite: stored NULL); waits for
 * room when the queue is full. Any thread. Returns 0, or -1 for a name
 * that is empty or too long. */
int store_series_add(store_series *ss, const store_series_key *key, const char *name, double step,
                     double value, double t_s);
/* Queues a point's point_system row (replacing one stored before). */
int store_series_system(store_series *ss, const store_series_key *key,
                        const store_point_system *summary);
/* Writes what is queued and closes; accepts NULL. Returns 0, or -1 with
 * *err (when err is not NULL) when a write failed: how many values it lost. */
int store_series_close(store_series *ss, char **err);

/* The sweep's series: name, n_values, n_points (by name). */
int store_series_names(store *s, int64_t sweep_id, table **out, char **err);
/* One series' values: section_id, ordinal, step, value, t_s, in that
 * order; at most STORE_SERIES_READ_MAX. An older file: no rows. */
int store_series_values(store *s, int64_t sweep_id, const char *name, table **out, char **err);

#endif
