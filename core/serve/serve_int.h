/* serve_int.h: what serve.c, serve_http.c, serve_api.c and serve_db.c share
 * (SQLite's sqliteInt.h style: private to these files). */
#ifndef RUNNER_SERVE_INT_H
#define RUNNER_SERVE_INT_H

#include <jansson.h>
#include <microhttpd.h>
#include <pthread.h>
#include <signal.h>
#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "base/strbuf.h"
#include "base/value.h"
#include "serve.h"

/* Clients tracked by the rate limiter; beyond this many addresses the
 * oldest bucket is reused, so memory stays fixed. */
#define SERVEI_RATE_SLOTS 256
/* Rows one page of a table holds at most, whatever the client asks. */
#define SERVEI_MAX_PAGE_ROWS 500
/* Points one plot carries at most (downsampled above, plot_reduce.c). */
#define SERVEI_PLOT_MAX_POINTS 6000

typedef struct servei_rate_slot {
    uint32_t address; /* IPv4, network order; 0: free */
    double tokens;
    double updated_s; /* monotonic */
} servei_rate_slot;

/* The running server: fixed after start but for the rate buckets. */
typedef struct servei_server {
    const char *db_path;
    char token[65]; /* hex; empty: no token required (loopback) */
    unsigned rate_per_s;
    pthread_mutex_t rate_lock;
    servei_rate_slot rate[SERVEI_RATE_SLOTS];
} servei_server;

/* One request's answer: status, body and its type. */
typedef struct servei_reply {
    unsigned status;
    char *body; /* malloc'd */
    size_t size;
    const char *content_type;
    const char *set_cookie; /* borrowed; NULL: none */
    const char *location;   /* borrowed; NULL: none */
} servei_reply;

/* serve_http.c: libmicrohttpd's access handler (cls: servei_server). */
enum MHD_Result servei_handle(void *cls, struct MHD_Connection *connection, const char *url,
                              const char *method, const char *version, const char *upload_data,
                              size_t *upload_data_size, void **state);

/* serve_api.c: answers GET /api/... (path after "/api/"); query values are
 * read from the connection. Fills reply with JSON or a JSON error. */
void servei_api(const servei_server *server, struct MHD_Connection *connection, const char *path,
                servei_reply *reply);

/* Helpers the API handlers share (serve_api.c). */
/* A query argument, or NULL when absent or empty. */
const char *servei_arg(struct MHD_Connection *connection, const char *name);
/* An integer argument, brought into [min, max]; fallback when absent or
 * not an integer. */
int64_t servei_arg_int(struct MHD_Connection *connection, const char *name, int64_t min,
                       int64_t max, int64_t fallback);
/* Sets reply to the JSON of root (stolen) with status 200. */
void servei_reply_json(servei_reply *reply, json_t *root);
/* Sets reply to {"error": message} with status; message is copied. */
void servei_reply_error(servei_reply *reply, unsigned status, const char *message);
/* Sets reply to a 500 naming err (freed here). */
void servei_reply_fail(servei_reply *reply, char *err);

/* A section's rows (serve_table.c), a plot of its columns (serve_plot.c),
 * two sweeps' sections compared (serve_compare.c); each fills reply (db:
 * the request's connection). */
void servei_rows(sqlite3 *db, struct MHD_Connection *connection, int64_t section_id,
                 servei_reply *reply);
void servei_plot(sqlite3 *db, struct MHD_Connection *connection, int64_t section_id,
                 servei_reply *reply);
void servei_compare(sqlite3 *db, struct MHD_Connection *connection, servei_reply *reply);

/* serve_count.c: the number of a section's rows a filter matches, into
 * *total. key names the section and filter; count is the bound count(*)
 * statement, stepped only when the cache has no total for key with the
 * section's rows as they are now (a process-wide cache, fixed size). 0, or
 * -1 with *err. */
int servei_count_rows(sqlite3 *db, int64_t section_id, const char *key, sqlite3_stmt *count,
                      int64_t *total, char **err);

/* serve_db.c: a read-only connection to the database for one request
 * (WAL: sweeps keep writing); closed with sqlite3_close. NULL with *err.
 * Its statements are interrupted after a time limit, or once
 * servei_db_stopping is set (the server is stopping). */
extern volatile sig_atomic_t servei_db_stopping;
sqlite3 *servei_db_open(const char *path, char **err);
/* 1 when table has the column (the catalog is read each time: a newer
 * runner may migrate the file while the server runs). */
int servei_db_has_column(sqlite3 *db, const char *table, const char *column);
int servei_db_has_table(sqlite3 *db, const char *table);
/* Appends name as a quoted SQL identifier. Only names read from the
 * catalog ever reach it, never a client's text unchecked. */
void servei_db_ident(strbuf *sql, const char *name);
/* Column i of the current row as JSON: numbers, text (NaN and inf, stored
 * as text or as infinite reals, come out as the strings "NaN", "inf"). */
json_t *servei_db_cell(sqlite3_stmt *st, int i);
/* Prepares sql, or NULL with *err naming what. */
sqlite3_stmt *servei_db_prepare(sqlite3 *db, const char *sql, const char *what, char **err);

/* A section's result columns (from plugin_column), in `runner show` order. */
typedef struct servei_columns {
    char *plugin; /* result table */
    size_t count;
    char **name;
    char **unit;
    char **type; /* "integer", "real", "text", "boolean" */
    int *is_param;
    int64_t sweep_id;
} servei_columns;
/* 0 (section found), 1 (no such section) or -1 with *err. */
int servei_db_columns(sqlite3 *db, int64_t section_id, servei_columns *out, char **err);
void servei_columns_clear(servei_columns *c);
/* Index of name among the columns, or -1. */
int servei_columns_find(const servei_columns *c, const char *name);
/* The section's columns, for a handler (serve_api.c); 0, or -1 with reply
 * set (404 or 500). */
int servei_section_columns(sqlite3 *db, int64_t section_id, servei_columns *c, servei_reply *reply);

#endif
