/* serve: `runner serve`, a live dashboard over a database, read-only, on
 * GNU libmicrohttpd (docs/serve.md). serve.c starts and stops the server;
 * serve_http.c checks and routes each request; serve_api.c answers the JSON
 * API; serve_db.c opens each request's store (the queries are the store's,
 * store_query.h). */
#ifndef RUNNER_SERVE_H
#define RUNNER_SERVE_H

#include <stdio.h>

typedef struct serve_config {
    const char *db_path;
    const char *listen; /* "ADDR:PORT" (IPv4); port 0: any free port */
    int allow_remote;   /* a non-loopback address is allowed (then a token) */
    /* Host names requests may name besides localhost, 127.0.0.1, [::1] and
     * the listen address (--allow-host; borrowed); checked at start. */
    const char *const *allow_hosts;
    size_t allow_host_count;
    unsigned rate_per_s;      /* requests per second per client address */
    unsigned max_connections; /* at once, all clients together */
} serve_config;

/* Serves until SIGINT or SIGTERM. Prints the URL (with the access token when
 * one is required, the only time it is shown) on announce. Returns 0 after a
 * clean stop, or -1 with *err (malloc'd) when it could not start. */
int serve_run(const serve_config *config, FILE *announce, char **err);

#endif
