/* bench_sqlite_limit: the storage limit for a cheap point. A bare C loop
 * computes the speedup plugin's rows (walk-through model, strong scaling,
 * exact waits: plugins/speedup/model.c, compiled in) and inserts them into a
 * table with the same columns, types and indexes as runner's "speedup"
 * table, through one prepared statement in one transaction, WAL, synchronous
 * NORMAL: what runner's end-to-end points/s is measured against
 * (docs/performance.md). Not a test.
 *
 * usage: bench_sqlite_limit [--workers W] [--jitters J] [--dir DIR] [--keep]
 *                           [--only rows|no-index|point|relational|narrow]
 *   The grid is workers = range(1, W) x jitter = linspace(0.5, 2, J), jitter
 *   outermost as runner orders it (default 1000 x 1000 = 10^6 rows). Five
 *   variants (or the one --only names), each into a fresh
 *   DIR/bench_sqlite_limit_<pid>_<variant>.db:
 *     rows            the table as runner creates it (one index): the limit
 *     rows, no index  the same table without its indexes
 *     rows + points   also the points as runner stores them: one point_block
 *                     row per 1000 points (schema.sql), each point a JSON
 *                     element (swept params, identity not hashed)
 *     relational      the same information stored plainly: each point's row
 *                     plus one row in a `point` table (id, canonical
 *                     parameters as JSON, seed, status, start, duration;
 *                     indexed by section), the point timed with two clock
 *                     reads: the reference of the natural script's figure
 *     narrow          three REAL columns only (round_s, speedup, efficiency),
 *                     no index: how fast SQLite takes a narrow row
 *   Each prints "<variant>: N rows in T s = R rows/s (C s CPU = ... rows/CPU-s)",
 *   wall clock from open to close (the final checkpoint included). */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "model.h"

#define BASE_S 30.0
#define JITTER_FIRST 0.5
#define JITTER_LAST 2.0

/* runner's table for the speedup plugin: fixed columns, then the parameters
 * and the columns in declaration order (core/store/, plugins/speedup). */
static const char speedup_table_sql[] =
    "CREATE TABLE speedup (row_id INTEGER PRIMARY KEY, sweep_id INTEGER NOT NULL,"
    " section_id INTEGER NOT NULL, point_id INTEGER NOT NULL, base REAL, jitter REAL,"
    " workers INTEGER, trials INTEGER, model TEXT, scaling TEXT, model_params INTEGER,"
    " bytes_per_param INTEGER, latency_s REAL, bandwidth_bytes_per_s REAL,"
    " reduce_bytes_per_s REAL, wait_s REAL, round_s REAL, speedup REAL, efficiency REAL,"
    " ceiling REAL, ceiling_amdahl REAL, karp_flatt REAL, t1_s REAL, compute_s REAL,"
    " gustafson REAL, comm_s REAL, comm_share REAL)";
static const char speedup_index_sql[] =
    "CREATE INDEX speedup_by_sweep_section_point ON speedup (sweep_id, section_id, point_id)";
static const char speedup_insert_sql[] =
    "INSERT INTO speedup (sweep_id, section_id, point_id, base, jitter, workers, trials,"
    " model, scaling, model_params, bytes_per_param, latency_s, bandwidth_bytes_per_s,"
    " reduce_bytes_per_s, wait_s, round_s, speedup, efficiency, ceiling, ceiling_amdahl,"
    " karp_flatt, t1_s, compute_s, gustafson, comm_s, comm_share)"
    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17,"
    " ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26)";
/* schema.sql's point_block table and indexes, without its foreign keys (no
 * sweep table here), and runner's block size (core/store/). */
static const char point_table_sql[] =
    "CREATE TABLE point_block (id INTEGER PRIMARY KEY, sweep_id INTEGER NOT NULL,"
    " section_id INTEGER NOT NULL, first_point_id INTEGER NOT NULL,"
    " last_point_id INTEGER NOT NULL, point_count INTEGER NOT NULL,"
    " ok_count INTEGER NOT NULL, params_base TEXT NOT NULL, points TEXT NOT NULL);"
    "CREATE INDEX point_block_by_section ON point_block(section_id, first_point_id);"
    "CREATE INDEX point_block_by_last_id ON point_block(last_point_id)";
static const char point_insert_sql[] =
    "INSERT INTO point_block (sweep_id, section_id, first_point_id, last_point_id,"
    " point_count, ok_count, params_base, points) VALUES (1, 1, ?1, ?2, ?3, ?3, ?4, ?5)";
#define BLOCK_POINTS 1000

/* The relational variant: one plain row per point, with an index. */
static const char relational_table_sql[] =
    "CREATE TABLE point (id INTEGER PRIMARY KEY, sweep_id INTEGER NOT NULL,"
    " section_id INTEGER NOT NULL, params_json TEXT NOT NULL, seed INTEGER NOT NULL,"
    " status TEXT NOT NULL, started_at REAL NOT NULL, duration_s REAL NOT NULL);"
    "CREATE INDEX point_by_section ON point(section_id, id)";
static const char relational_insert_sql[] =
    "INSERT INTO point (id, sweep_id, section_id, params_json, seed, status, started_at,"
    " duration_s) VALUES (?1, 1, 1, ?2, ?3, 'ok', ?4, ?5)";

/* The narrow variant: what a minimal table costs. */
static const char narrow_table_sql[] =
    "CREATE TABLE narrow (round_s REAL, speedup REAL, efficiency REAL)";
static const char narrow_insert_sql[] =
    "INSERT INTO narrow (round_s, speedup, efficiency) VALUES (?1, ?2, ?3)";

typedef struct variant {
    const char *name;
    const char *file; /* also the --only name */
    int indexes;
    int point_rows;
    int narrow;
    int relational;
} variant;

/* User + system CPU seconds of this process: on a shared machine, the
 * figure the other processes do not inflate. */
static double cpu_s(void)
{
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return (double)usage.ru_utime.tv_sec + 1e-6 * (double)usage.ru_utime.tv_usec +
           (double)usage.ru_stime.tv_sec + 1e-6 * (double)usage.ru_stime.tv_usec;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double unix_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The relational variant's point row: canonical parameters made with
 * snprintf for every point, as a plain program would. */
static int insert_point_row(sqlite3_stmt *st, int64_t point_id, const char *jitter_text,
                            int64_t workers, uint64_t seed, double started_at, double duration_s)
{
    char params[512];
    int n = snprintf(params, sizeof params,
                     "{\"base\":%.17g,\"jitter\":%s,\"workers\":%" PRId64 ",\"trials\":0,"
                     "\"model\":\"walkthrough\",\"scaling\":\"strong\","
                     "\"model_params\":44500000,\"bytes_per_param\":4,"
                     "\"latency_s\":5.0000000000000004e-6,"
                     "\"bandwidth_bytes_per_s\":3125000000.0,"
                     "\"reduce_bytes_per_s\":100000000000.0}",
                     BASE_S, jitter_text, workers);
    sqlite3_bind_int64(st, 1, point_id);
    sqlite3_bind_text(st, 2, params, n, SQLITE_STATIC);
    sqlite3_bind_int64(st, 3, (int64_t)seed);
    sqlite3_bind_double(st, 4, started_at);
    sqlite3_bind_double(st, 5, duration_s);
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

/* runner stores NaN as the text 'NaN' (docs/schema.md). */
static void bind_real(sqlite3_stmt *st, int index, double value)
{
    if (isnan(value))
        sqlite3_bind_text(st, index, "NaN", 3, SQLITE_STATIC);
    else
        sqlite3_bind_double(st, index, value);
}

/* Removes a database and its WAL and shared-memory files, if present. */
static void remove_db(const char *path)
{
    char extra[4200];
    unlink(path);
    snprintf(extra, sizeof extra, "%s-wal", path);
    unlink(extra);
    snprintf(extra, sizeof extra, "%s-shm", path);
    unlink(extra);
}

static int exec(sqlite3 *db, const char *sql, const char *what)
{
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) == SQLITE_OK)
        return 0;
    fprintf(stderr, "bench_sqlite_limit: %s: %s\n", what, msg ? msg : sqlite3_errmsg(db));
    sqlite3_free(msg);
    return -1;
}

/* Runs one variant into a fresh database at path. Returns the rows per
 * second (open to close, so the final checkpoint is counted), or -1. */
static double run_variant(const variant *v, const char *path, int64_t workers, int64_t jitters,
                          double *checksum)
{
    remove_db(path);
    sqlite3 *db = NULL;
    sqlite3_stmt *insert = NULL, *insert_point = NULL;
    double rate = -1.0;
    double start = now_s(), cpu_start = cpu_s();
    if (sqlite3_open(path, &db) != SQLITE_OK) {
        fprintf(stderr, "bench_sqlite_limit: cannot open %s: %s\n", path, sqlite3_errmsg(db));
        goto done;
    }
    if (exec(db, "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL", "pragmas") != 0 ||
        exec(db, v->narrow ? narrow_table_sql : speedup_table_sql, "create table") != 0 ||
        (v->indexes && exec(db, speedup_index_sql, "create indexes") != 0) ||
        (v->point_rows && exec(db, point_table_sql, "create point_block table") != 0) ||
        (v->relational && exec(db, relational_table_sql, "create point table") != 0))
        goto done;
    if (sqlite3_prepare_v2(db, v->narrow ? narrow_insert_sql : speedup_insert_sql, -1, &insert,
                           NULL) != SQLITE_OK ||
        (v->point_rows &&
         sqlite3_prepare_v2(db, point_insert_sql, -1, &insert_point, NULL) != SQLITE_OK) ||
        (v->relational &&
         sqlite3_prepare_v2(db, relational_insert_sql, -1, &insert_point, NULL) != SQLITE_OK)) {
        fprintf(stderr, "bench_sqlite_limit: prepare: %s\n", sqlite3_errmsg(db));
        goto done;
    }
    if (exec(db, "BEGIN", "begin") != 0)
        goto done;

    uint64_t identity_state = 1;
    int64_t point_id = 0, block_first = 0, block_points = 0;
    static char block[BLOCK_POINTS * 256];
    char base[512], jitter_text[32];
    size_t block_len = 0;
    for (int64_t j = 0; j < jitters; j++) {
        /* linspace as runner's script.c computes it. */
        double jitter = jitters == 1       ? JITTER_FIRST
                        : j == jitters - 1 ? JITTER_LAST
                                           : JITTER_FIRST + (JITTER_LAST - JITTER_FIRST) *
                                                                (double)j / (double)(jitters - 1);
        snprintf(jitter_text, sizeof jitter_text, "%.17g", jitter);
        for (int64_t k = 1; k <= workers; k++) {
            point_id++;
            double started_at = v->relational ? unix_s() : 0.0, clock0 = now_s();
            speedup_row row;
            speedup_row_fill(&row, BASE_S, jitter, k, straggler_max_delay_exact(jitter, 1),
                             straggler_max_delay_exact(jitter, k));
            *checksum += row.speedup;
            if (v->relational && insert_point_row(insert_point, point_id, jitter_text, k,
                                                  runner_splitmix64(&identity_state), started_at,
                                                  now_s() - clock0) != 0) {
                fprintf(stderr, "bench_sqlite_limit: insert point: %s\n", sqlite3_errmsg(db));
                goto done;
            }
            if (insert_point && !v->relational) {
                /* A point's element, built as core/store/ builds it: the
                 * swept parameters' text made once per axis value. */
                char identity[65];
                for (int w = 0; w < 4; w++)
                    snprintf(identity + 16 * w, 17, "%016" PRIx64,
                             runner_splitmix64(&identity_state));
                if (block_points == 0) {
                    snprintf(base, sizeof base,
                             "{\"base\":%.17g,\"jitter\":%s,\"workers\":%" PRId64 ",\"trials\":0,"
                             "\"model\":\"walkthrough\",\"scaling\":\"strong\","
                             "\"model_params\":44500000,\"bytes_per_param\":4,"
                             "\"latency_s\":5.0000000000000004e-6,"
                             "\"bandwidth_bytes_per_s\":3125000000.0,"
                             "\"reduce_bytes_per_s\":100000000000.0}",
                             BASE_S, jitter_text, k);
                    block_first = point_id;
                    block_len = 0;
                }
                int n = snprintf(block + block_len, sizeof block - block_len,
                                 "%s[%" PRId64 ",%" PRId64 ",{\"jitter\":%s,\"workers\":%" PRId64
                                 "},\"%s\",%" PRId64 ",\"ok\",null,1798000000000,100,1]",
                                 block_points ? "," : "[", point_id, point_id - 1, jitter_text, k,
                                 identity, (int64_t)runner_splitmix64(&identity_state));
                block_len += (size_t)n;
                block_points++;
                if (block_points == BLOCK_POINTS || point_id == workers * jitters) {
                    block[block_len++] = ']';
                    sqlite3_bind_int64(insert_point, 1, block_first);
                    sqlite3_bind_int64(insert_point, 2, point_id);
                    sqlite3_bind_int64(insert_point, 3, block_points);
                    sqlite3_bind_text(insert_point, 4, base, -1, SQLITE_STATIC);
                    sqlite3_bind_text(insert_point, 5, block, (int)block_len, SQLITE_STATIC);
                    if (sqlite3_step(insert_point) != SQLITE_DONE) {
                        fprintf(stderr, "bench_sqlite_limit: insert points: %s\n",
                                sqlite3_errmsg(db));
                        goto done;
                    }
                    sqlite3_reset(insert_point);
                    block_points = 0;
                }
            }
            if (v->narrow) {
                bind_real(insert, 1, row.round_s);
                bind_real(insert, 2, row.speedup);
                bind_real(insert, 3, row.efficiency);
                if (sqlite3_step(insert) != SQLITE_DONE) {
                    fprintf(stderr, "bench_sqlite_limit: insert: %s\n", sqlite3_errmsg(db));
                    goto done;
                }
                sqlite3_reset(insert);
                continue;
            }
            sqlite3_bind_int64(insert, 1, 1);
            sqlite3_bind_int64(insert, 2, 1);
            sqlite3_bind_int64(insert, 3, point_id);
            sqlite3_bind_double(insert, 4, BASE_S);
            sqlite3_bind_double(insert, 5, jitter);
            sqlite3_bind_int64(insert, 6, k);
            sqlite3_bind_int64(insert, 7, 0);
            sqlite3_bind_text(insert, 8, "walkthrough", -1, SQLITE_STATIC);
            sqlite3_bind_text(insert, 9, "strong", -1, SQLITE_STATIC);
            sqlite3_bind_int64(insert, 10, 44500000);
            sqlite3_bind_int64(insert, 11, 4);
            sqlite3_bind_double(insert, 12, 5e-6);
            sqlite3_bind_double(insert, 13, 3.125e9);
            sqlite3_bind_double(insert, 14, 1e11);
            bind_real(insert, 15, row.wait_s);
            bind_real(insert, 16, row.round_s);
            bind_real(insert, 17, row.speedup);
            bind_real(insert, 18, row.efficiency);
            bind_real(insert, 19, row.ceiling);
            bind_real(insert, 20, row.ceiling_amdahl);
            bind_real(insert, 21, row.karp_flatt);
            bind_real(insert, 22, row.t1_s);
            bind_real(insert, 23, row.compute_s);
            bind_real(insert, 24, row.gustafson);
            bind_real(insert, 25, row.comm_s);
            bind_real(insert, 26, row.comm_share);
            if (sqlite3_step(insert) != SQLITE_DONE) {
                fprintf(stderr, "bench_sqlite_limit: insert: %s\n", sqlite3_errmsg(db));
                goto done;
            }
            sqlite3_reset(insert);
        }
    }
    if (exec(db, "COMMIT", "commit") != 0)
        goto done;
    sqlite3_finalize(insert);
    sqlite3_finalize(insert_point);
    insert = insert_point = NULL;
    if (sqlite3_close(db) != SQLITE_OK) {
        fprintf(stderr, "bench_sqlite_limit: close: %s\n", sqlite3_errmsg(db));
        return -1.0;
    }
    db = NULL;
    double elapsed = now_s() - start, cpu = cpu_s() - cpu_start;
    rate = (double)point_id / elapsed;
    printf("%-16s %" PRId64 " rows in %.3f s = %.0f rows/s (%.3f s CPU = %.0f rows/CPU-s)\n",
           v->name, point_id, elapsed, rate, cpu, (double)point_id / cpu);
done:
    sqlite3_finalize(insert);
    sqlite3_finalize(insert_point);
    sqlite3_close(db);
    return rate;
}

static int parse_count(const char *text, int64_t *out)
{
    char *end;
    long long value = strtoll(text, &end, 10);
    if (*text == '\0' || *end != '\0' || value < 1)
        return -1;
    *out = value;
    return 0;
}

int main(int argc, char **argv)
{
    int64_t workers = 1000, jitters = 1000;
    const char *dir = NULL, *only = NULL;
    int keep = 0;
    for (int i = 1; i < argc; i++) {
        int has_value = i + 1 < argc;
        if (strcmp(argv[i], "--workers") == 0 && has_value &&
            parse_count(argv[i + 1], &workers) == 0)
            i++;
        else if (strcmp(argv[i], "--jitters") == 0 && has_value &&
                 parse_count(argv[i + 1], &jitters) == 0)
            i++;
        else if (strcmp(argv[i], "--dir") == 0 && has_value)
            dir = argv[++i];
        else if (strcmp(argv[i], "--keep") == 0)
            keep = 1;
        else if (strcmp(argv[i], "--only") == 0 && has_value)
            only = argv[++i];
        else
            goto usage;
    }
    if (!dir)
        dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";

    static const variant variants[] = {
        { "rows:", "rows", 1, 0, 0, 0 },           { "rows, no index:", "no-index", 0, 0, 0, 0 },
        { "rows + points:", "point", 1, 1, 0, 0 }, { "relational:", "relational", 1, 0, 0, 1 },
        { "narrow:", "narrow", 0, 0, 1, 0 },
    };
    size_t variant_count = sizeof variants / sizeof variants[0];
    int known = !only;
    for (size_t i = 0; i < variant_count; i++)
        known |= only && strcmp(only, variants[i].file) == 0;
    if (!known)
        goto usage;
    printf("bench_sqlite_limit: %" PRId64 " x %" PRId64 " speedup rows, SQLite %s, "
           "one prepared statement, one transaction, WAL, synchronous NORMAL\n",
           workers, jitters, sqlite3_libversion());
    double checksum = 0.0;
    int status = 0;
    for (size_t i = 0; i < variant_count; i++) {
        if (only && strcmp(only, variants[i].file) != 0)
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/bench_sqlite_limit_%d_%s.db", dir, (int)getpid(),
                 variants[i].file);
        if (run_variant(&variants[i], path, workers, jitters, &checksum) < 0)
            status = 1;
        if (keep)
            printf("  kept %s\n", path);
        else
            remove_db(path);
    }
    printf("(checksum %.17g)\n", checksum);
    return status;

usage:
    fprintf(stderr, "usage: bench_sqlite_limit [--workers W >= 1] [--jitters J >= 1] [--dir DIR] "
                    "[--keep] [--only rows|no-index|point|relational|narrow]\n");
    return 2;
}
