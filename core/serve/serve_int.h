/* serve_int.h: what the serve files share
 * (SQLite's sqliteInt.h style: private to these files). */
#ifndef RUNNER_SERVE_INT_H
#define RUNNER_SERVE_INT_H

#include <jansson.h>
#include <microhttpd.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "base/strbuf.h"
#include "base/table.h"
#include "base/value.h"
#include "store/store.h"
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
 * two sweeps' sections compared (serve_compare.c); each fills reply (s:
 * the request's store). */
void servei_rows(store *s, struct MHD_Connection *connection, int64_t section_id,
                 servei_reply *reply);
void servei_plot(store *s, struct MHD_Connection *connection, int64_t section_id,
                 servei_reply *reply);
void servei_compare(store *s, struct MHD_Connection *connection, servei_reply *reply);
/* What the section shows first (serve_view.c; render/section_view.h):
 * columns in order, the folded constants, the default plot. */
void servei_view(store *s, int64_t section_id, servei_reply *reply);

/* serve_db.c: the request's store, opened for reading through the store's
 * checked open (store_open_read: a regular file holding runner's catalog)
 * and bounded for a server: its statements are interrupted after a time
 * limit, or once servei_db_stopping is set (the server is stopping).
 * Closed with store_close. NULL with *err. */
extern volatile sig_atomic_t servei_db_stopping;
store *servei_db_open(const char *path, char **err);
/* A cell as JSON: numbers, text, null; NaN and inf (stored as text or as
 * infinite reals) as the strings "NaN", "inf", "-inf". */
json_t *servei_cell(const value *v);
/* A table's rows as JSON objects keyed by column name (NULL: no memory). */
json_t *servei_table_objects(const table *t);

/* A section with its result columns (store_section_result_columns). */
typedef struct servei_section {
    int64_t id, sweep_id;
    char *plugin;   /* its result table */
    table *columns; /* in `runner show` order, no rows */
} servei_section;
/* 0, or -1 with reply set (404 for no such section, or 500). */
int servei_section_open(store *s, int64_t section_id, servei_section *out, servei_reply *reply);
void servei_section_clear(servei_section *section);
/* Index of name among the columns, or -1 (name NULL: -1). */
long servei_section_find(const servei_section *section, const char *name);
/* The columns as [{name, unit, type, param}]. */
json_t *servei_columns_json(const table *columns);

#endif
