/* store_open.c: the connection. Opens and checks the file, sets the
 * pragmas, migrates an older schema (store_migrate.c), runs the WAL
 * checkpointer thread, and closes. */
#include "store_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BUSY_TIMEOUT_MS 10000
/* The WAL is copied into the database (checkpointed) by a thread of its own
 * once it holds this many pages (16 MiB), so the writer does not stop for
 * it. The thread always lags the writer by a commit or so, and SQLite only
 * rewinds a WAL that is wholly copied: past BACKSTOP pages (64 MiB) the
 * writer copies that last bit itself, which lets its next transaction start
 * the WAL over, so the file stays under about 70 MB. */
#define CHECKPOINT_PAGES 4096
#define CHECKPOINT_BACKSTOP_PAGES 16384

/* --- opening ------------------------------------------------------------ */

/* Version 0 is either a new, empty file or somebody else's database; only
 * the first becomes a runner database. */
static int check_empty(store *s, char **err)
{
    int64_t objects = 0;
    if (storei_count_query(s,
                           "SELECT count(*) FROM sqlite_master WHERE name NOT LIKE 'sqlite\\_%'"
                           " ESCAPE '\\'",
                           "cannot read the schema", &objects, err) != 0)
        return -1;
    if (objects > 0)
        return util_fail(err,
                         "%s: not a runner database (it holds other tables and no runner "
                         "schema version)",
                         s->path);
    return 0;
}

/* What makes a file runner's: user_version alone is one number another
 * program may set, so a file at version 1 to STORE_SCHEMA_VERSION must also
 * hold the catalog of that version: each object below, of its type, with at
 * least these columns (a comma-separated list). Columns a later version
 * added are listed with that version; never remove a line. */
typedef struct catalog_object {
    int since, until; /* the versions that have it; until 0: still current */
    const char *name;
    const char *type; /* "table" or "view" */
    const char *columns;
} catalog_object;

static const catalog_object catalog[] = {
    { 1, 0, "sweep", "table", "id,script_path,script_text,seed,started_at,ended_at,status" },
    { 4, 0, "sweep", "table", "pid,pid_host,pid_start_ticks,pid_boot_id" },
    { 1, 0, "sweep_plugin", "table", "sweep_id,plugin,plugin_version,so_path" },
    { 1, 0, "section", "table", "id,sweep_id,ordinal,plugin,title,point_count" },
    { 1, 2, "point", "table", "id,sweep_id,section_id,ordinal,params_json,identity,status" },
    { 3, 0, "point", "view", "id,sweep_id,section_id,ordinal,params_json,identity,status" },
    { 3, 0, "point_block", "table",
      "id,sweep_id,section_id,first_point_id,last_point_id,point_count,ok_count,params_base,"
      "points" },
    { 1, 0, "plugin_column", "table", "plugin,name,role,type,unit,doc,position" },
    { 2, 0, "outbox", "table", "id,sweep_id,body,idempotency_key,delivered_at" },
    { 5, 0, "point_index", "table", "id,block_id,status" },
    { 8, 0, "sweep", "table", "shard_index,shard_count" },
    { 9, 0, "sweep", "table", "name,note" },
    { 9, 0, "sweep_tag", "table", "sweep_id,tag" },
    { 9, 0, "id_high_water", "table", "kind,last_id" },
    { 11, 0, "fit", "table",
      "id,sweep_id,section_id,model,x_column,y_column,by_column,by_value,n,excluded,r2" },
    { 11, 0, "fit_param", "table", "fit_id,position,name,kind,value,stderr,ci_low,ci_high,unit" },
    { 11, 0, "fit_residual", "table", "fit_id,row_id,point_id,x,y,fitted,residual" },
    { 12, 0, "sweep", "table",
      "lease_renewed_at,lease_period_s,slurm_job_id,slurm_array_job_id,slurm_array_task_id,"
      "slurm_step_id" },
    { 13, 0, "sensitivity", "table", "id,sweep_id,section_id,y_column,base_samples" },
    { 13, 0, "sensitivity_index", "table", "sensitivity_id,position,parameter,first_order,total" },
    { 13, 0, "pareto", "table", "id,sweep_id,section_id,rows,front_size" },
    { 13, 0, "pareto_objective", "table", "pareto_id,position,column_name,direction" },
    { 13, 0, "pareto_member", "table", "pareto_id,row_id,point_id" },
    { 13, 0, "stat_diff", "table", "id,sweep_a,sweep_b,compared" },
    { 13, 0, "stat_diff_row", "table", "stat_diff_id,position,plugin,point,column_name,verdict" },
    { 14, 0, "merge_source", "table",
      "sweep_id,shard_index,shard_count,host,pid,path,source_sweep_id,points,rows,status" },
    { 15, 0, "fit_curve", "table", "fit_id,position,x,fitted,ci_low,ci_high" },
    { 16, 0, "command_run", "table",
      "sweep_id,point_id,run,warmup,wall_s,user_s,sys_s,max_rss_kib,exit_status,run_values" },
    { 17, 0, "sweep_machine", "table", "sweep_id,field,value" },
    { 18, 0, "series", "table", "sweep_id,section_id,ordinal,name,step,value,t_s" },
    { 18, 0, "point_system", "table",
      "sweep_id,section_id,ordinal,wall_s,cpu_s,cpu_cores_mean,cpu_cores_peak,rss_peak_bytes,"
      "read_bytes,written_bytes,samples" },
    { 20, 0, "sweep", "table", "owner_epoch,owner_claimed_at" },
    { 20, 0, "point_once", "table", "section_id,ordinal,point_id" },
    { 21, 0, "sweep_printed", "table", "sweep_id,position,line" },
    { 22, 0, "fit", "table", "question,rows_key" },
    { 22, 0, "sensitivity", "table", "question,rows_key" },
    { 22, 0, "pareto", "table", "question,rows_key" },
    { 22, 0, "stat_diff", "table", "question,rows_key" },
    { 23, 0, "sweep", "table", "shard_by" },
};

/* 0 when the file holds version's catalog; otherwise -1 with "not a runner
 * database (...)" naming the first object that differs. Reads only. */
static int check_catalog(store *s, int version, char **err)
{
    static const char sql[] =
        "SELECT (SELECT type FROM sqlite_master WHERE name = ?1 COLLATE NOCASE),"
        " (SELECT count(*) FROM pragma_table_info(?1)"
        "  WHERE instr(',' || ?2 || ',', ',' || name || ',') > 0)";
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
        return storei_fail_sql(s, err, "cannot read the schema");
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < sizeof catalog / sizeof catalog[0]; i++) {
        const catalog_object *o = &catalog[i];
        if (version < o->since || (o->until && version > o->until))
            continue;
        int expected = 1;
        for (const char *c = o->columns; *c; c++)
            expected += *c == ',';
        sqlite3_bind_text(st, 1, o->name, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, o->columns, -1, SQLITE_STATIC);
        if (sqlite3_step(st) != SQLITE_ROW) {
            rc = storei_fail_sql(s, err, "cannot read the schema");
            break;
        }
        const char *type = (const char *)sqlite3_column_text(st, 0);
        if (!type)
            rc = util_fail(err,
                           "%s: not a runner database (its user_version is %d, but it has "
                           "no \"%s\" %s)",
                           s->path, version, o->name, o->type);
        else if (strcmp(type, o->type) != 0)
            rc = util_fail(err,
                           "%s: not a runner database (its user_version is %d, but its "
                           "\"%s\" is a %s where runner's is a %s)",
                           s->path, version, o->name, type, o->type);
        else if (sqlite3_column_int(st, 1) != expected)
            rc = util_fail(err,
                           "%s: not a runner database (its user_version is %d, but its "
                           "%s \"%s\" lacks columns runner's has: %s)",
                           s->path, version, o->type, o->name, o->columns);
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    return rc;
}

/* A FIFO would block the open forever and a device is no database (SQLite
 * would create "/dev/null-journal" beside it): anything that exists and is
 * not a regular file (or a link to one) is refused before it is opened. */
static int check_regular_file(const char *path, char **err)
{
    struct stat st;
    if (stat(path, &st) != 0 || S_ISREG(st.st_mode))
        return 0; /* missing: the open says so, or creates it */
    const char *kind = S_ISDIR(st.st_mode)    ? "a directory"
                       : S_ISFIFO(st.st_mode) ? "a FIFO"
                       : S_ISCHR(st.st_mode)  ? "a character device"
                       : S_ISBLK(st.st_mode)  ? "a block device"
                       : S_ISSOCK(st.st_mode) ? "a socket"
                                              : "not a regular file";
    return util_fail(err, "%s: not a database file (it is %s); --db needs a regular file", path,
                     kind);
}

/* --- checkpoints ---------------------------------------------------------- */

static void *checkpointer_main(void *arg)
{
    storei_checkpointer *c = arg;
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(c->path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) !=
        SQLITE_OK) {
        sqlite3_close(db);
        db = NULL; /* the writer's backstop checkpoints instead */
    }
    /* A connection sees the WAL only once it has read the file. */
    if (db &&
        sqlite3_exec(db, "SELECT count(*) FROM sqlite_master", NULL, NULL, NULL) != SQLITE_OK) {
        sqlite3_close(db);
        db = NULL;
    }
    pthread_mutex_lock(&c->lock);
    for (;;) {
        while (!c->pending && !c->quit)
            pthread_cond_wait(&c->wake, &c->lock);
        if (c->quit)
            break;
        c->pending = 0;
        c->running = 1;
        pthread_mutex_unlock(&c->lock);
        /* PASSIVE: copies what no reader needs, never waits for the writer.
         * A failure (disk full) leaves the pages in the WAL, where they are
         * safe; the final checkpoint at close reports it. */
        if (db)
            sqlite3_wal_checkpoint_v2(db, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
        pthread_mutex_lock(&c->lock);
        c->running = 0;
        pthread_cond_broadcast(&c->idle);
    }
    pthread_mutex_unlock(&c->lock);
    sqlite3_close(db);
    return NULL;
}

/* Starts the thread on first need: short sweeps never pay for it. */
static int start_checkpointer(store *s)
{
    storei_checkpointer *c = &s->checkpoints;
    if (c->started)
        return 0;
    if (!(c->path = util_strdup(s->path)))
        return -1;
    if (pthread_mutex_init(&c->lock, NULL) != 0)
        goto fail_path;
    if (pthread_cond_init(&c->wake, NULL) != 0)
        goto fail_lock;
    if (pthread_cond_init(&c->idle, NULL) != 0)
        goto fail_wake;
    if (pthread_create(&c->thread, NULL, checkpointer_main, c) != 0)
        goto fail_idle;
    c->started = 1;
    return 0;
fail_idle:
    pthread_cond_destroy(&c->idle);
fail_wake:
    pthread_cond_destroy(&c->wake);
fail_lock:
    pthread_mutex_destroy(&c->lock);
fail_path:
    free(c->path);
    c->path = NULL;
    return -1;
}

/* Waits for the thread to finish its checkpoint and end. Before the
 * writer's connection closes: the last connection's close checkpoints what
 * is left and removes the WAL. */
static void stop_checkpointer(store *s)
{
    storei_checkpointer *c = &s->checkpoints;
    if (!c->started)
        return;
    pthread_mutex_lock(&c->lock);
    c->quit = 1;
    pthread_cond_signal(&c->wake);
    pthread_mutex_unlock(&c->lock);
    pthread_join(c->thread, NULL);
    pthread_cond_destroy(&c->idle);
    pthread_cond_destroy(&c->wake);
    pthread_mutex_destroy(&c->lock);
    free(c->path);
    memset(c, 0, sizeof *c);
}

void storei_checkpoint_late(store *s) { s->checkpoints.late = 1; }

/* SQLite calls this after each commit with the WAL's size in pages. */
static int on_wal_commit(void *arg, sqlite3 *db, const char *schema, int wal_pages)
{
    store *s = arg;
    storei_checkpointer *c = &s->checkpoints;
    if (wal_pages >= CHECKPOINT_BACKSTOP_PAGES && c->started) {
        /* Wait out the thread's checkpoint (a second one would only get
         * SQLITE_BUSY), then copy the rest while the lock keeps it from
         * starting another: the WAL is then wholly copied and the next
         * transaction rewinds it. */
        pthread_mutex_lock(&c->lock);
        while (c->running)
            pthread_cond_wait(&c->idle, &c->lock);
        sqlite3_wal_checkpoint_v2(db, schema, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
        pthread_mutex_unlock(&c->lock);
        return SQLITE_OK;
    }
    if (wal_pages >= CHECKPOINT_BACKSTOP_PAGES ||
        (wal_pages >= CHECKPOINT_PAGES && !c->late && start_checkpointer(s) != 0)) {
        sqlite3_wal_checkpoint_v2(db, schema, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
        return SQLITE_OK;
    }
    if (wal_pages >= CHECKPOINT_PAGES && !c->late) {
        pthread_mutex_lock(&s->checkpoints.lock);
        s->checkpoints.pending = 1;
        pthread_cond_signal(&s->checkpoints.wake);
        pthread_mutex_unlock(&s->checkpoints.lock);
    }
    return SQLITE_OK;
}

static int set_pragmas(store *s, char **err)
{
    sqlite3_stmt *st = NULL;
    int ok = 0, rc = SQLITE_ERROR;
    /* Switching to WAL does not wait on the busy handler: while another
     * runner creates the file, retry for as long as the busy timeout. */
    for (int waited_ms = 0; waited_ms <= BUSY_TIMEOUT_MS; waited_ms += 10) {
        if (sqlite3_prepare_v2(s->db, "PRAGMA journal_mode = WAL", -1, &st, NULL) != SQLITE_OK)
            break;
        rc = sqlite3_step(st);
        if ((rc & 0xff) != SQLITE_BUSY && (rc & 0xff) != SQLITE_LOCKED)
            break;
        sqlite3_finalize(st);
        st = NULL;
        sqlite3_sleep(10);
    }
    if (rc != SQLITE_ROW) {
        storei_fail_sql(s, err, "cannot switch to WAL journal mode");
        storei_hint_writable(s, err);
        goto done;
    }
    const char *mode = (const char *)sqlite3_column_text(st, 0);
    if (!mode || (strcmp(mode, "wal") != 0 && strcmp(mode, "memory") != 0)) {
        util_fail(err,
                  "%s: cannot switch to WAL journal mode (SQLite kept \"%s\"); is the "
                  "directory writable and on a local file system?",
                  s->path, mode ? mode : "?");
        goto done;
    }
    /* temp_store = MEMORY keeps temporary b-trees off the disk. */
    if (sqlite3_exec(s->db,
                     "PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL;"
                     " PRAGMA temp_store = MEMORY",
                     NULL, NULL, NULL) != SQLITE_OK) {
        storei_fail_sql(s, err, "cannot set connection options");
        goto done;
    }
    /* Replaces SQLite's autocheckpoint (the same hook). */
    sqlite3_wal_hook(s->db, on_wal_commit, s);
    ok = 1;
done:
    sqlite3_finalize(st);
    return ok ? 0 : -1;
}

/* SQLite's memory statistics (nothing here reads them) take a global mutex
 * on every allocation, which the writer and the checkpointer thread then
 * contend for. Set before the library initialises; later it is refused,
 * harmlessly. */
static pthread_once_t sqlite_config_once = PTHREAD_ONCE_INIT;
static void configure_sqlite(void) { sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); }

/* A new store with its connection open (flags: SQLITE_OPEN_*; by the URI
 * uri when not NULL), or NULL with *err set. NOMUTEX: a store is used by
 * one thread at a time. */
static store *store_connect_as(const char *path, const char *uri, int flags, char **err)
{
    pthread_once(&sqlite_config_once, configure_sqlite);
    double timeout_s;
    if (check_regular_file(path, err) != 0 || storei_bound_timeout(&timeout_s, err) != 0)
        return NULL;
    store *s = calloc(1, sizeof *s);
    if (!s || !(s->path = util_strdup(path))) {
        free(s);
        util_fail(err, "%s: cannot open database: out of memory", path);
        return NULL;
    }
    int rc = sqlite3_open_v2(uri ? uri : path, &s->db, flags | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK) {
        util_fail(err, "%s: cannot open database: %s%s", path,
                  s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc),
                  (rc & 0xff) == SQLITE_CANTOPEN && (flags & SQLITE_OPEN_CREATE)
                      ? " (does the directory exist, and may runner write to it?)"
                      : "");
        store_close(s);
        return NULL;
    }
    sqlite3_extended_result_codes(s->db, 1);
    sqlite3_busy_timeout(s->db, BUSY_TIMEOUT_MS);
    storei_bound_install(s->db, &s->bound, timeout_s);
    if (store_process_register_sql(s->db) != 0) {
        util_fail(err, "%s: cannot open database: out of memory", path);
        store_close(s);
        return NULL;
    }
    return s;
}

static store *store_connect(const char *path, int flags, char **err)
{
    return store_connect_as(path, NULL, flags, err);
}

/* Whether this user may create files in the directory that holds path
 * (write and search permission, as access(2) judges them). */
static int directory_writable(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return access(".", W_OK | X_OK) == 0;
    char *dir = slash == path ? util_strdup("/") : strndup(path, (size_t)(slash - path));
    int writable = dir && access(dir, W_OK | X_OK) == 0;
    free(dir);
    return writable;
}

/* A writer needs the file writable and its -wal and -shm (made beside it
 * unless both are there and writable): an existing file this user cannot
 * so change is refused in one line before SQLite opens it (readers still
 * read it, store_open_read). */
static int refuse_unwritable(const char *path, char **err)
{
    if (access(path, F_OK) != 0)
        return 0; /* a new file: the open creates it, or says why not */
    if (access(path, W_OK) != 0)
        return util_fail(err,
                         "%s: this user may not write the database (only reading commands "
                         "read it: sweeps, show, export, diff, report, serve)",
                         path);
    char *wal = util_format("%s-wal", path), *shm = util_format("%s-shm", path);
    int have_files = wal && shm && access(wal, W_OK) == 0 && access(shm, W_OK) == 0;
    free(wal);
    free(shm);
    if (!have_files && !directory_writable(path))
        return util_fail(err,
                         "%s: this user may not create files in its directory, where a writer "
                         "keeps the -wal and -shm files (only reading commands read it: "
                         "sweeps, show, export, diff, report, serve)",
                         path);
    return 0;
}

/* On success *out is a new store the caller closes with store_close. The
 * file is checked before anything is written to it: a newer schema or a
 * foreign file is refused and left byte-for-byte untouched. */
int store_open(const char *path, store **out, char **err)
{
    *out = NULL;
    if (refuse_unwritable(path, err) != 0)
        return -1;
    store *s = store_connect(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, err);
    if (!s)
        return -1;
    if (sqlite3_db_readonly(s->db, "main") == 1) {
        util_fail(err, "%s: cannot open database for writing: the file is read-only", path);
        goto fail;
    }
    int version = 0;
    if (storei_read_supported_version(s, &version, err) != 0)
        goto fail;
    if (version == 0 && check_empty(s, err) != 0) {
        /* Another runner may be creating this database right now: wait for
         * its write transaction (a lock, not a write), then look again. */
        char *first_err = *err;
        *err = NULL;
        int now = 0;
        int settled = sqlite3_exec(s->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) == SQLITE_OK &&
                      storei_read_user_version(s, &now, err) == 0;
        if (!sqlite3_get_autocommit(s->db))
            sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
        if (!settled || now == 0) {
            free(*err);
            *err = first_err;
            goto fail;
        }
        free(first_err);
        version = now;
        if (version > STORE_SCHEMA_VERSION) {
            storei_refuse_newer(s, version, err);
            goto fail;
        }
    }
    /* Nothing is written before the file is known to be runner's. */
    if (version > 0 && check_catalog(s, version, err) != 0)
        goto fail;
    if (set_pragmas(s, err) != 0)
        goto fail;
    if (version < STORE_SCHEMA_VERSION && storei_migrate(s, err) != 0)
        goto fail;
    *out = s;
    return 0;
fail:
    store_close(s);
    return -1;
}

/* --- reading without a trace ---------------------------------------------
 * A read-only connection to a WAL database creates -wal and -shm beside it
 * and, unlike a writer, never removes them; in a directory it may not write
 * it cannot open the file at all. So a reader opens as immutable (which
 * needs neither file) a file that cannot change (no write permission for
 * anyone, no -wal holding commits), and one whose -wal and -shm are absent
 * and that this user could not give them as a writer would: the directory
 * is not writable (access(2) says, as the user runs), or the file is not
 * (files made by a reader would then be this user's, and could keep the
 * owner's writer from its own -shm). Absent files mean no connection in
 * WAL mode has the file open: every such connection keeps both. When a
 * reader found neither file and could create them as a writer would, it
 * lets SQLite remove them after its close (SQLite's last connection out
 * removes them, and only when it is the last). */
#define READ_ONLY 1
#define READ_ONLY_WAL_FILES_OURS 2 /* store.read_only: -wal/-shm were not there */

/* The size of path + suffix, or -1 when there is none. */
static long long sibling_size(const char *path, const char *suffix)
{
    char *name = util_format("%s%s", path, suffix);
    struct stat st;
    long long size = name && lstat(name, &st) == 0 ? (long long)st.st_size : -1;
    free(name);
    return size;
}

/* "file:PATH?immutable=1", PATH percent-encoded where URI syntax needs it. */
char *storei_immutable_uri(const char *path)
{
    strbuf b = { 0 };
    strbuf_str(&b, "file:");
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
            strchr("/._-~", *p))
            strbuf_printf(&b, "%c", *p);
        else
            strbuf_printf(&b, "%%%02X", *p);
    }
    strbuf_str(&b, "?immutable=1");
    if (b.oom) {
        strbuf_free(&b);
        return NULL;
    }
    return b.data;
}

/* After a reader's close: if it created -wal and -shm, a connection that
 * may write and reads once takes them away on its close when no other
 * connection has the file open (an empty WAL: nothing is copied). */
static void remove_wal_files(const char *path)
{
    if (sibling_size(path, "-wal") < 0 && sibling_size(path, "-shm") < 0)
        return;
    char *ignored = NULL;
    if (check_regular_file(path, &ignored) != 0) {
        free(ignored);
        return;
    }
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) ==
            SQLITE_OK &&
        !sqlite3_db_readonly(db, "main"))
        sqlite3_exec(db, "SELECT count(*) FROM sqlite_schema", NULL, NULL, NULL);
    sqlite3_close(db);
}

int store_open_read(const char *path, store **out, char **err)
{
    *out = NULL;
    struct stat st;
    long long wal = sibling_size(path, "-wal"), shm = sibling_size(path, "-shm");
    int wal_files_absent = wal < 0 && shm < 0;
    int no_writer = stat(path, &st) == 0 && S_ISREG(st.st_mode) && !(st.st_mode & 0222) && wal <= 0;
    int could_create = access(path, W_OK) == 0 && directory_writable(path);
    int immutable = no_writer || (wal_files_absent && !could_create);
    int wal_files_ours = wal_files_absent && could_create;
    char *uri = immutable ? storei_immutable_uri(path) : NULL;
    if (immutable && !uri)
        return util_fail(err, "%s: cannot open database: out of memory", path);
    store *s = store_connect_as(path, uri, SQLITE_OPEN_READONLY | (uri ? SQLITE_OPEN_URI : 0), err);
    free(uri);
    if (!s)
        return -1;
    s->read_only = !immutable && wal_files_ours ? READ_ONLY_WAL_FILES_OURS : READ_ONLY;
    int version = 0;
    if (storei_read_supported_version(s, &version, err) != 0)
        goto fail;
    if (version == 0) {
        if (check_empty(s, err) == 0)
            util_fail(err, "%s: not a runner database (it is empty)", path);
        goto fail;
    }
    if (check_catalog(s, version, err) != 0)
        goto fail;
    if (version < STORE_SCHEMA_VERSION && !storei_readable_as_is(version)) {
        /* Reading never writes: the upgrade is the user's explicit step
         * (docs/schema.md, "Upgrading"). */
        util_fail(err,
                  "%s: database schema version %d is older than this runner's (%d); "
                  "reading commands never change it: upgrade it with 'runner migrate' (or any "
                  "writing command: sweep, resume, notify), or read it with an older runner",
                  path, version, STORE_SCHEMA_VERSION);
        goto fail;
    }
    int64_t has_lease = 1;
    if (version < STORE_SCHEMA_VERSION &&
        (storei_count_query(s,
                            "SELECT count(*) FROM pragma_table_info('sweep')"
                            " WHERE name = 'lease_renewed_at'",
                            "cannot read the schema", &has_lease, err) != 0 ||
         (!has_lease && sqlite3_exec(s->db, storei_lease_shim_sql, NULL, NULL, NULL) != SQLITE_OK &&
          storei_fail_sql(s, err, "cannot read a sweep's lease") != 0)))
        goto fail;
    if (version < STORE_SCHEMA_VERSION && storei_answer_shim(s, err) != 0)
        goto fail;
    *out = s;
    return 0;
fail:
    store_close(s);
    return -1;
}

/* Commits any pending batch, finalizes every statement and frees s. A
 * failing final commit can only be reported on stderr here: call store_flush
 * first to handle it. */
void store_close(store *s)
{
    if (!s)
        return;
    char *err = NULL;
    if (s->db && !s->read_only && storei_batch_commit(s, &err) != 0) {
        fprintf(stderr, "runner: %s\n", err ? err : "cannot commit stored points");
        free(err);
    }
    for (size_t i = 0; i < s->plugin_count; i++) {
        sqlite3_finalize(s->plugins[i].insert);
        sqlite3_finalize(s->plugins[i].copy);
        free(s->plugins[i].name);
    }
    free(s->plugins);
    stop_checkpointer(s);
    strbuf_free(&s->block);
    free(s->block_params_base);
    free(s->block_ordinals);
    free(s->taken_over_line);
    for (int i = 0; i < STMT_COUNT; i++)
        sqlite3_finalize(s->stmts[i]);
    sqlite3_close(s->db);
    if (s->read_only == READ_ONLY_WAL_FILES_OURS)
        remove_wal_files(s->path);
    free(s->path);
    free(s);
}

const char *store_path(const store *s) { return s->path; }

int store_schema_version(void) { return STORE_SCHEMA_VERSION; }
