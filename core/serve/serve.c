/* serve: starts `runner serve`: checks the database once, binds the address
 * (loopback unless the user allows another, and then with an access token),
 * runs libmicrohttpd's thread pool with its connection, memory and time
 * limits, closes connections that keep a request's head waiting (the main
 * thread sweeps them each second) and stops cleanly on a stop signal
 * (SIGINT, SIGTERM, SIGHUP...: base/stop_signals.h; docs/serve.md). */
#include "serve_int.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "base/stop_signals.h"
#include "base/util.h"
#include "store/store.h"

/* Threads answering requests: each opens its own read-only connection. */
#define SERVE_THREADS 4
/* Bytes a connection may use for its request (headers, URL): a request
 * larger than this is refused by libmicrohttpd. */
#define SERVE_REQUEST_MEMORY_BYTES (32 * 1024)
/* An idle or slow connection is closed after this long. */
#define SERVE_CONNECTION_TIMEOUT_S 30
/* A request's head (request line and headers) must arrive within this
 * long of the connection's start or of the answer before it, however
 * busy the client keeps it (serve_watch.c). */
#define SERVE_HEAD_DEADLINE_S 10.0
/* The connections one client address may hold: a share of the global
 * limit, so that one address cannot take all of them. */
#define SERVE_PER_ADDRESS_SHARE 4

/* "ADDR:PORT" into addr; 0, or -1 with *err. */
static int parse_listen(const char *listen, struct sockaddr_in *addr, char **err)
{
    memset(addr, 0, sizeof *addr);
    addr->sin_family = AF_INET;
    const char *colon = strrchr(listen, ':');
    char host[64];
    char *end = NULL;
    unsigned long port = colon ? strtoul(colon + 1, &end, 10) : 0;
    if (!colon || colon == listen || (size_t)(colon - listen) >= sizeof host || !colon[1] || *end ||
        port > 65535)
        return util_fail(err,
                         "--listen %s: expected ADDR:PORT, like 127.0.0.1:8765 (port 0: "
                         "any free port)",
                         listen);
    memcpy(host, listen, (size_t)(colon - listen));
    host[colon - listen] = '\0';
    if (strcmp(host, "localhost") == 0)
        snprintf(host, sizeof host, "127.0.0.1");
    if (inet_pton(AF_INET, host, &addr->sin_addr) != 1)
        return util_fail(err, "--listen %s: %s is not an IPv4 address", listen, host);
    addr->sin_port = htons((uint16_t)port);
    return 0;
}

/* An --allow-host NAME: a host name or an IPv4 address (letters, digits,
 * dots, hyphens), or an IPv6 address in brackets, without a port. */
static int check_allow_host(const char *name, char **err)
{
    size_t n = strlen(name);
    int ok = n > 0 && n <= 253;
    if (ok && name[0] == '[')
        ok = n > 2 && name[n - 1] == ']' && strspn(name + 1, "0123456789abcdefABCDEF:.") == n - 2;
    else
        for (size_t i = 0; ok && i < n; i++)
            ok = isalnum((unsigned char)name[i]) || name[i] == '.' || name[i] == '-';
    if (!ok)
        return util_fail(err,
                         "--allow-host %s: expected a host name or address without a port, "
                         "like myhost.lan, 192.168.1.5 or [fe80::1]",
                         name);
    return 0;
}

/* 64 hex digits from the kernel's random source. */
static int make_token(char token[65], char **err)
{
    unsigned char bytes[32];
    size_t got = 0;
    while (got < sizeof bytes) {
        ssize_t n = getrandom(bytes + got, sizeof bytes - got, 0);
        if (n < 0 && errno != EINTR)
            return util_fail(err, "cannot make an access token: %s", strerror(errno));
        got += n > 0 ? (size_t)n : 0;
    }
    for (size_t i = 0; i < sizeof bytes; i++)
        snprintf(token + 2 * i, 3, "%02x", bytes[i]);
    return 0;
}

/* The file must be a runner database this runner reads (store_open_read
 * refuses other files, newer ones and ones that need `runner migrate`). */
static int check_database(const char *path, char **err)
{
    store *s = NULL;
    if (store_open_read(path, &s, err) != 0)
        return -1;
    store_close(s);
    return 0;
}

/* MHD_USE_ITC: a stop wakes every pool thread, even one at its share of the
 * connection limit (which no longer watches the listening socket). */
static struct MHD_Daemon *start_daemon(const serve_config *config, servei_server *server,
                                       struct sockaddr_in *addr)
{
    unsigned limit = config->max_connections;
    /* libmicrohttpd splits the connection limit between the pool's threads. */
    unsigned threads = limit < SERVE_THREADS ? limit : SERVE_THREADS;
    unsigned per_address = limit / SERVE_PER_ADDRESS_SHARE ? limit / SERVE_PER_ADDRESS_SHARE : 1;
    return MHD_start_daemon(
        MHD_USE_AUTO_INTERNAL_THREAD | MHD_USE_ITC, 0, NULL, NULL, servei_handle, server,
        MHD_OPTION_SOCK_ADDR, (struct sockaddr *)addr, MHD_OPTION_THREAD_POOL_SIZE, threads,
        MHD_OPTION_CONNECTION_LIMIT, limit, MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_address,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)SERVE_REQUEST_MEMORY_BYTES,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)SERVE_CONNECTION_TIMEOUT_S,
        MHD_OPTION_URI_LOG_CALLBACK, servei_uri_seen, server, MHD_OPTION_NOTIFY_CONNECTION,
        servei_watch_connection, &server->watch, MHD_OPTION_NOTIFY_COMPLETED,
        servei_watch_completed, &server->watch, MHD_OPTION_END);
}

int serve_run(const serve_config *config, FILE *announce, char **err)
{
    struct sockaddr_in addr;
    if (parse_listen(config->listen, &addr, err) != 0)
        return -1;
    int loopback = (ntohl(addr.sin_addr.s_addr) >> 24) == 127;
    if (!loopback && !config->allow_remote)
        return util_fail(err,
                         "--listen %s: not a loopback address; add --allow-remote to let "
                         "other machines in (each then needs the access token printed at start)",
                         config->listen);
    for (size_t i = 0; i < config->allow_host_count; i++)
        if (check_allow_host(config->allow_hosts[i], err) != 0)
            return -1;
    if (check_database(config->db_path, err) != 0 ||
        servei_sort_cache_init(config->db_path, err) != 0)
        return -1;
    if (serve_mhd_load(err) != 0) /* before any MHD_* call (serve_mhd.h) */
        return -1;
    servei_server *server = calloc(1, sizeof *server);
    if (!server) {
        servei_sort_cache_free();
        return util_fail(err, "out of memory");
    }
    server->db_path = config->db_path;
    server->rate_per_s = config->rate_per_s;
    server->allow_hosts = config->allow_hosts;
    server->allow_host_count = config->allow_host_count;
    inet_ntop(AF_INET, &addr.sin_addr, server->listen_host, sizeof server->listen_host);
    pthread_mutex_init(&server->rate_lock, NULL);
    /* A slot for each connection the limit lets in, and a few more. */
    if (servei_watch_init(&server->watch, (size_t)config->max_connections + 16,
                          SERVE_HEAD_DEADLINE_S, err) != 0)
        goto fail;
    if (!loopback && make_token(server->token, err) != 0)
        goto fail;
    /* Signals go to sigwait below, never to a server thread (they inherit
     * this mask). */
    sigset_t stop_signals, old_mask;
    stop_signals_fill(&stop_signals);
    pthread_sigmask(SIG_BLOCK, &stop_signals, &old_mask);
    struct MHD_Daemon *daemon = start_daemon(config, server, &addr);
    if (!daemon) {
        pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
        util_fail(err,
                  "--listen %s: cannot listen there (address in use or not this "
                  "machine's?)",
                  config->listen);
        goto fail;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    const char *host = server->listen_host;
    unsigned port = info ? info->port : ntohs(addr.sin_port);
    atomic_store(&server->port, port);
    if (server->token[0])
        fprintf(announce,
                "runner: serving %s at http://%s:%u/?token=%s (the token is shown "
                "only now)\n",
                config->db_path, host, port, server->token);
    else
        fprintf(announce, "runner: serving %s at http://%s:%u/\n", config->db_path, host, port);
    fflush(announce);
    /* Wait for a stop, sweeping out each second the connections whose
     * request head is overdue. */
    int signo = -1;
    const struct timespec sweep_every = { 1, 0 };
    while (signo < 0) {
        signo = sigtimedwait(&stop_signals, NULL, &sweep_every);
        if (signo < 0 && errno == EAGAIN)
            servei_watch_sweep(&server->watch, util_monotonic());
    }
    servei_db_stopping = 1; /* a long query gives up instead of holding the stop */
    MHD_stop_daemon(daemon);
    pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
    fprintf(announce, "runner: stopped serving (%s)\n", stop_signals_name(signo));
    fflush(announce);
    servei_watch_free(&server->watch);
    pthread_mutex_destroy(&server->rate_lock);
    free(server);
    servei_sort_cache_free();
    return 0;
fail:
    servei_sort_cache_free();
    servei_watch_free(&server->watch);
    pthread_mutex_destroy(&server->rate_lock);
    free(server);
    return -1;
}
