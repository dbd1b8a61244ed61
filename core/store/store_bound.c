/* store_bound.c: every statement on every connection is bounded, so a file
 * runner did not write (a result table replaced by a view that recurses
 * forever, a trigger that loops) stops a command with one line instead of
 * spinning until it is killed. Two bounds, looked at by SQLite's progress
 * handler every BOUND_STEPS virtual machine steps (a clock read per 100,000
 * steps: nothing a normal read notices): a reading statement that returns no
 * row for RUNNER_QUERY_TIMEOUT seconds (300 by default), and any that runs
 * more steps or returns more rows than the files it reads could need or hold
 * (BOUND_BASE_STEPS plus BOUND_STEPS_PER_BYTE for each byte of them and their
 * WALs; BOUND_BASE_ROWS plus a row per BOUND_BYTES_PER_ROW bytes). */
#include "store_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define BOUND_STEPS 100000
#define BOUND_TIMEOUT_DEFAULT_S 300.0
#define BOUND_TIMEOUT_MAX_S 86400.0
#define BOUND_BASE_STEPS 200000000.0
#define BOUND_STEPS_PER_BYTE 256.0
#define BOUND_BASE_ROWS 100000.0
#define BOUND_BYTES_PER_ROW 2.0

enum {
    BOUND_RUNNING = 0,
    BOUND_STOPPED_TIME,
    BOUND_STOPPED_STEPS,
    BOUND_STOPPED_ROWS
};

/* The bytes of one attached file and its WAL (0 for a file it cannot see:
 * an in-memory or temporary schema). */
static double file_bytes(const char *path)
{
    if (!path || !*path)
        return 0;
    struct stat st;
    double bytes = stat(path, &st) == 0 ? (double)st.st_size : 0;
    char *wal = util_format("%s-wal", path);
    if (wal && stat(wal, &st) == 0)
        bytes += (double)st.st_size;
    free(wal);
    return bytes;
}

/* The bytes of the connection's files (main and each attached one).
 * Accessors only: a progress handler may not prepare or step a statement
 * on its own connection. */
static double connection_bytes(sqlite3 *db)
{
    double bytes = file_bytes(sqlite3_db_filename(db, "main"));
#if SQLITE_VERSION_NUMBER >= 3039000
    for (int i = 2; sqlite3_db_name(db, i); i++) /* 0: main, 1: temp */
        bytes += file_bytes(sqlite3_db_filename(db, sqlite3_db_name(db, i)));
#endif
    return bytes;
}

/* SQLite calls this when a statement starts and when it returns a row. */
static int on_trace(unsigned event, void *arg, void *statement, void *detail)
{
    storei_bound *b = arg;
    if (event == SQLITE_TRACE_ROW) {
        b->row_seen = 1;
        b->rows++;
    } else if (((const char *)detail)[0] != '-') { /* "--": a trigger's, not a new one */
        b->fresh = 1;
        /* Only a reading statement has a deadline: a write runner asks for
         * (a merge's copy, VACUUM, a migration) may take long on a big file,
         * and the step budget bounds it. */
        b->timed = sqlite3_stmt_readonly(statement);
    }
    return 0;
}

/* SQLite's progress handler: nonzero interrupts the statement. */
static int past_bound(void *arg)
{
    storei_bound *b = arg;
    double now = util_monotonic();
    if (b->fresh) {
        b->fresh = 0;
        b->row_seen = 0;
        b->since = now;
        b->steps = 0;
        b->rows = 0;
        double bytes = connection_bytes(b->db);
        b->step_budget = (BOUND_BASE_STEPS + BOUND_STEPS_PER_BYTE * bytes) / BOUND_STEPS;
        b->row_budget = BOUND_BASE_ROWS + bytes / BOUND_BYTES_PER_ROW;
    } else if (b->row_seen) {
        b->row_seen = 0;
        b->since = now;
    }
    b->steps++;
    if (b->timed && now - b->since > b->timeout_s)
        b->stopped = BOUND_STOPPED_TIME;
    else if ((double)b->steps > b->step_budget)
        b->stopped = BOUND_STOPPED_STEPS;
    else if ((double)b->rows > b->row_budget)
        b->stopped = BOUND_STOPPED_ROWS;
    return b->stopped != BOUND_RUNNING;
}

int storei_bound_timeout(double *timeout_s, char **err)
{
    *timeout_s = BOUND_TIMEOUT_DEFAULT_S;
    const char *text = getenv("RUNNER_QUERY_TIMEOUT");
    if (!text)
        return 0;
    double value = 0;
    if (util_positive_seconds(text, BOUND_TIMEOUT_MAX_S, &value) != 0) {
        char shown[64];
        return util_fail(err,
                         "RUNNER_QUERY_TIMEOUT='%s': expected how long a query may run without "
                         "returning a row, a positive number of seconds up to %.0f (like 300 "
                         "or 0.5)",
                         util_printable(text, shown, sizeof shown), BOUND_TIMEOUT_MAX_S);
    }
    *timeout_s = value;
    return 0;
}

void storei_bound_install(sqlite3 *db, storei_bound *b, double timeout_s)
{
    memset(b, 0, sizeof *b);
    b->db = db;
    b->timeout_s = timeout_s;
    b->fresh = 1;
    sqlite3_trace_v2(db, SQLITE_TRACE_STMT | SQLITE_TRACE_ROW, on_trace, b);
    sqlite3_progress_handler(db, BOUND_STEPS, past_bound, b);
}

const char *storei_bound_errmsg(storei_bound *b)
{
    int stopped = b->stopped;
    b->stopped = BOUND_RUNNING;
    if (stopped == BOUND_STOPPED_TIME)
        snprintf(b->reason, sizeof b->reason,
                 "a query returned no row for %g s (RUNNER_QUERY_TIMEOUT) and was stopped; a "
                 "view or trigger in the file may never end",
                 b->timeout_s);
    else if (stopped == BOUND_STOPPED_STEPS)
        snprintf(b->reason, sizeof b->reason,
                 "a query ran %.0f million steps, more than a file of this size can need, and "
                 "was stopped; a view or trigger in the file may never end",
                 (double)b->steps * BOUND_STEPS / 1e6);
    else if (stopped == BOUND_STOPPED_ROWS)
        snprintf(b->reason, sizeof b->reason,
                 "a query returned %lld rows, more than a file of this size can hold, and was "
                 "stopped; a view in the file may never end",
                 (long long)b->rows);
    return stopped != BOUND_RUNNING ? b->reason : sqlite3_errmsg(b->db);
}
