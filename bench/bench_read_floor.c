/* bench_read_floor: the floor under `runner show --format csv`. A bare C
 * loop reads every row of a result table in stored order through one
 * statement and writes it as CSV the way runner does (integers exactly,
 * reals with 17 significant digits, NaN and infinities spelled out, text
 * as is) to stdout. What `runner show` streams is compared with it
 * (docs/performance.md); the difference is runner's own cost. Not a test.
 *
 * usage: bench_read_floor DB TABLE
 *   Prints the rows on stdout and "rows: N in T s = R rows/s" on stderr. */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void write_cell(sqlite3_stmt *st, int i)
{
    char cell[64];
    switch (sqlite3_column_type(st, i)) {
    case SQLITE_INTEGER:
        snprintf(cell, sizeof cell, "%" PRId64, (int64_t)sqlite3_column_int64(st, i));
        break;
    case SQLITE_FLOAT: {
        double x = sqlite3_column_double(st, i);
        if (isinf(x))
            snprintf(cell, sizeof cell, "%s", x < 0 ? "-inf" : "inf");
        else
            snprintf(cell, sizeof cell, "%.17g", x);
        break;
    }
    case SQLITE_NULL: cell[0] = '\0'; break;
    default: fputs((const char *)sqlite3_column_text(st, i), stdout); return;
    }
    fputs(cell, stdout);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: bench_read_floor DB TABLE\n");
        return 2;
    }
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    char sql[512];
    /* Every column after the four fixed ones, in the index's order. */
    snprintf(sql, sizeof sql,
             "SELECT * FROM \"%s\" ORDER BY sweep_id, section_id, point_id, "
             "row_id",
             argv[2]);
    double start = now_s();
    if (sqlite3_open_v2(argv[1], &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        fprintf(stderr, "bench_read_floor: %s\n", sqlite3_errmsg(db));
        sqlite3_close(db);
        return 1;
    }
    int columns = sqlite3_column_count(st);
    long long rows = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        for (int i = 4; i < columns; i++) {
            if (i > 4)
                fputc(',', stdout);
            write_cell(st, i);
        }
        fputc('\n', stdout);
        rows++;
    }
    fflush(stdout);
    double elapsed = now_s() - start;
    fprintf(stderr, "rows: %lld in %.3f s = %.0f rows/s\n", rows, elapsed, (double)rows / elapsed);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return 0;
}
