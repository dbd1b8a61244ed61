/* serve_int.h: what the serve files share
 * (SQLite's sqliteInt.h style: private to these files). */
#ifndef RUNNER_SERVE_INT_H
#define RUNNER_SERVE_INT_H

#include <jansson.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "base/strbuf.h"
#include "base/table.h"
#include "base/value.h"
#include "store/store.h"
#include "store/store_query.h"
#include "serve.h"
#include "serve_mhd.h" /* <microhttpd.h>, its functions opened by serve_run */

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

/* A connection the head deadline watches (serve_watch.c). */
typedef struct servei_watch_slot {
    int fd;                 /* its socket; -1: a free slot */
    int answering;          /* its request's head arrived; not answered yet */
    double waiting_since_s; /* monotonic: since when it waits for a head */
} servei_watch_slot;

typedef struct servei_watch {
    pthread_mutex_t lock;
    servei_watch_slot *slots; /* malloc'd */
    size_t slot_count;
    double head_deadline_s;
} servei_watch;

/* The running server: fixed after start but for the rate buckets, the
 * watched connections and the port (known once listening). */
typedef struct servei_server {
    const char *db_path;
    char token[65]; /* hex; empty: no token required (loopback) */
    unsigned rate_per_s;
    pthread_mutex_t rate_lock;
    servei_rate_slot rate[SERVEI_RATE_SLOTS];
    /* Host names a request may name (serve_http.c): localhost, 127.0.0.1,
     * [::1], the listen address and these (borrowed from serve_config). */
    char listen_host[16];
    const char *const *allow_hosts;
    size_t allow_host_count;
    atomic_uint port; /* 0 until the socket is bound */
    servei_watch watch;
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

/* serve_http.c: libmicrohttpd's URI log callback (cls: servei_server):
 * sees the request line's URI as sent, before %-decoding, and returns the
 * request's first state for servei_handle (a NUL or a control byte in the
 * decoded path, or %00 anywhere, marks it bad). */
void *servei_uri_seen(void *cls, const char *uri, struct MHD_Connection *connection);

/* serve_watch.c: a deadline for each request's head. init: slot_count
 * connections at most (more are not watched); 0, or -1 with *err. */
int servei_watch_init(servei_watch *w, size_t slot_count, double head_deadline_s, char **err);
void servei_watch_free(servei_watch *w);
/* MHD_OPTION_NOTIFY_CONNECTION and MHD_OPTION_NOTIFY_COMPLETED (cls: the
 * watch): a connection starts waiting for a head when it opens and again
 * when an answer is complete. */
void servei_watch_connection(void *cls, struct MHD_Connection *connection, void **socket_context,
                             enum MHD_ConnectionNotificationCode code);
void servei_watch_completed(void *cls, struct MHD_Connection *connection, void **request_context,
                            enum MHD_RequestTerminationCode code);
/* The connection's request head is complete (its handler's first call). */
void servei_watch_head(servei_watch *w, struct MHD_Connection *connection);
/* Shuts down each connection that has waited for a head longer than the
 * deadline at now_s (monotonic); returns how many. */
size_t servei_watch_sweep(servei_watch *w, double now_s);

/* serve_api.c: answers GET /api/... (path after "/api/"); query values are
 * read from the connection. Fills reply with JSON or a JSON error. */
void servei_api(const servei_server *server, struct MHD_Connection *connection, const char *path,
                servei_reply *reply);

/* Helpers the API handlers share (serve_reply.c). */
/* A query argument, or NULL when absent or empty. */
const char *servei_arg(struct MHD_Connection *connection, const char *name);
/* An integer argument, brought into [min, max]; fallback when absent or
 * not an integer. */
int64_t servei_arg_int(struct MHD_Connection *connection, const char *name, int64_t min,
                       int64_t max, int64_t fallback);
/* 0 when order (an "order" argument; NULL: absent) is asc or desc, else
 * -1 with a 400 in reply: the words are exact, as docs/serve.md lists. */
int servei_check_order(const char *order, servei_reply *reply);
/* Sets reply to the JSON of root (stolen) with status 200. */
void servei_reply_json(servei_reply *reply, json_t *root);
/* Sets reply to {"error": message} with status; message is copied. */
void servei_reply_error(servei_reply *reply, unsigned status, const char *message);
/* Sets reply to a 500 naming err (freed here). */
void servei_reply_fail(servei_reply *reply, char *err);

/* `runner history` for the dashboard (serve_history.c): GET /api/history. */
void servei_history(store *s, struct MHD_Connection *connection, servei_reply *reply);

/* The series recorded during a sweep's points (serve_series.c). */
void servei_series(store *s, struct MHD_Connection *connection, int64_t sweep_id,
                   servei_reply *reply);

/* A section's rows (serve_table.c), a plot of its columns (serve_plot.c),
 * two sweeps' sections compared (serve_compare.c); each fills reply (s:
 * the request's store). */
void servei_rows(store *s, struct MHD_Connection *connection, int64_t section_id,
                 servei_reply *reply);
/* The sort cache servei_rows uses for big sections (serve_table.c):
 * db_path.runner-cache, or none with RUNNER_SERVE_CACHE_MIN_ROWS=off (that
 * variable, for tests, also sets the rows a section needs, 100000 by
 * default). init: 0, or -1 with *err; free accepts no init. */
int servei_sort_cache_init(const char *db_path, char **err);
void servei_sort_cache_free(void);
void servei_plot(store *s, struct MHD_Connection *connection, int64_t section_id,
                 servei_reply *reply);
void servei_compare(store *s, struct MHD_Connection *connection, servei_reply *reply);
/* compare's stat=1 mode: the stored `runner diff --stat` of a and b
 * (serve_compare_stat.c). */
void servei_compare_stat(store *s, struct MHD_Connection *connection, servei_reply *reply);
/* The stored fits and fronts drawn over a section's plot (serve_answers.c). */
void servei_answers(store *s, struct MHD_Connection *connection, int64_t section_id,
                    servei_reply *reply);
/* What a sweep found (serve_findings.c): the lines its script printed and
 * its stored answers, for the top of its page. */
void servei_findings(store *s, int64_t sweep_id, servei_reply *reply);
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
