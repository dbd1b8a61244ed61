/* serve_http: every request passes here: only GET and HEAD, a Host that
 * names this server (no DNS rebinding), a bounded URL, no path outside the
 * fixed routes (checked on the decoded bytes, NUL included), the
 * per-address rate limit, the access token when one is required; then the
 * page, its script and style (compiled in from serve_assets/), the Debian
 * dygraphs files, or the JSON API. Every answer carries the same security
 * headers (docs/serve.md). */
#include "serve_int.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/util.h"

extern const char serve_asset_index_html[];
extern const char serve_asset_app_js[];
extern const char serve_asset_findings_js[];
extern const char serve_asset_compare_js[];
extern const char serve_asset_history_js[];
extern const char serve_asset_app_css[];
extern const char serve_asset_series_html[];
extern const char serve_asset_series_js[];

/* Longer URLs are refused (414): no query the pages make comes near it. */
#define SERVE_HTTP_MAX_URL 2048
/* A burst a client may spend at once before the per-second rate applies. */
#define SERVE_HTTP_BURST_SECONDS 2.0
/* Where Debian's libjs-dygraphs puts the chart script; RUNNER_DYGRAPHS_DIR
 * overrides it (read on each request, so installing it later works). */
#define SERVE_HTTP_DYGRAPHS_DIR "/usr/share/javascript/dygraphs"

/* Scripts only from this server, never inline; styles may be inline because
 * dygraphs writes style attributes (its legend, series colours). */
static const char security_policy[] =
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

static void add_security_headers(struct MHD_Response *response)
{
    MHD_add_response_header(response, "Content-Security-Policy", security_policy);
    MHD_add_response_header(response, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(response, "X-Frame-Options", "DENY");
    MHD_add_response_header(response, "Referrer-Policy", "no-referrer");
    MHD_add_response_header(response, "Cache-Control", "no-store");
}

static enum MHD_Result queue(struct MHD_Connection *connection, struct MHD_Response *response,
                             unsigned status)
{
    if (!response)
        return MHD_NO;
    add_security_headers(response);
    enum MHD_Result result = MHD_queue_response(connection, status, response);
    MHD_destroy_response(response);
    return result;
}

/* A plain-text answer; header (may be NULL) is added with value. */
static enum MHD_Result send_text_with(struct MHD_Connection *connection, unsigned status,
                                      const char *text, const char *header, const char *value)
{
    struct MHD_Response *response =
        MHD_create_response_from_buffer(strlen(text), (void *)text, MHD_RESPMEM_MUST_COPY);
    if (response) {
        MHD_add_response_header(response, "Content-Type", "text/plain; charset=utf-8");
        if (header)
            MHD_add_response_header(response, header, value);
    }
    return queue(connection, response, status);
}

static enum MHD_Result send_text(struct MHD_Connection *connection, unsigned status,
                                 const char *text)
{
    return send_text_with(connection, status, text, NULL, NULL);
}

static enum MHD_Result send_reply(struct MHD_Connection *connection, servei_reply *reply)
{
    struct MHD_Response *response =
        MHD_create_response_from_buffer(reply->size, reply->body, MHD_RESPMEM_MUST_FREE);
    if (!response) {
        free(reply->body);
        return MHD_NO;
    }
    MHD_add_response_header(response, "Content-Type", reply->content_type);
    if (reply->set_cookie)
        MHD_add_response_header(response, "Set-Cookie", reply->set_cookie);
    if (reply->location)
        MHD_add_response_header(response, "Location", reply->location);
    return queue(connection, response, reply->status);
}

static enum MHD_Result send_asset(struct MHD_Connection *connection, const char *text,
                                  const char *type)
{
    struct MHD_Response *response =
        MHD_create_response_from_buffer(strlen(text), (void *)text, MHD_RESPMEM_PERSISTENT);
    if (response)
        MHD_add_response_header(response, "Content-Type", type);
    return queue(connection, response, MHD_HTTP_OK);
}

/* A file of Debian's dygraphs package, streamed from its descriptor. */
static enum MHD_Result send_dygraphs(struct MHD_Connection *connection, const char *name,
                                     const char *type)
{
    const char *dir = getenv("RUNNER_DYGRAPHS_DIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir && *dir ? dir : SERVE_HTTP_DYGRAPHS_DIR, name);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        if (fd >= 0)
            close(fd);
        return send_text(connection, MHD_HTTP_NOT_FOUND,
                         "dygraphs is not installed here (Debian package libjs-dygraphs)\n");
    }
    struct MHD_Response *response = MHD_create_response_from_fd((uint64_t)st.st_size, fd);
    if (!response) {
        close(fd);
        return MHD_NO;
    }
    MHD_add_response_header(response, "Content-Type", type);
    return queue(connection, response, MHD_HTTP_OK);
}

/* Equal strings, in a time that depends only on the length of expected. */
static int same_secret(const char *given, const char *expected)
{
    size_t n = strlen(expected);
    unsigned char diff = strlen(given) != n;
    size_t given_len = strlen(given);
    for (size_t i = 0; i < n; i++)
        diff |= (unsigned char)(expected[i] ^ (i < given_len ? given[i] : 0));
    return diff == 0;
}

/* The token from "Authorization: Bearer T" or the runner_token cookie. */
static int has_token(const servei_server *server, struct MHD_Connection *connection)
{
    const char *auth =
        MHD_lookup_connection_value(connection, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
    if (auth && strncmp(auth, "Bearer ", 7) == 0 && same_secret(auth + 7, server->token))
        return 1;
    const char *cookie = MHD_lookup_connection_value(connection, MHD_COOKIE_KIND, "runner_token");
    return cookie && same_secret(cookie, server->token);
}

/* Token bucket per client address: rate_per_s, bursts of two seconds' worth. */
static int rate_allows(servei_server *server, struct MHD_Connection *connection)
{
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    uint32_t address = 1;
    if (info && info->client_addr && info->client_addr->sa_family == AF_INET)
        address = ((const struct sockaddr_in *)(const void *)info->client_addr)->sin_addr.s_addr;
    double now = util_monotonic(), burst = server->rate_per_s * SERVE_HTTP_BURST_SECONDS;
    pthread_mutex_lock(&server->rate_lock);
    servei_rate_slot *slot = NULL, *oldest = &server->rate[0];
    for (size_t i = 0; i < SERVEI_RATE_SLOTS && !slot; i++) {
        if (server->rate[i].address == address)
            slot = &server->rate[i];
        else if (server->rate[i].updated_s < oldest->updated_s)
            oldest = &server->rate[i];
    }
    if (!slot) {
        slot = oldest;
        slot->address = address;
        slot->tokens = burst;
        slot->updated_s = now;
    }
    slot->tokens += (now - slot->updated_s) * server->rate_per_s;
    if (slot->tokens > burst)
        slot->tokens = burst;
    slot->updated_s = now;
    int allowed = slot->tokens >= 1.0;
    if (allowed)
        slot->tokens -= 1.0;
    pthread_mutex_unlock(&server->rate_lock);
    return allowed;
}

/* "/?token=T" (the URL printed at start): sets the cookie and goes to "/",
 * so the token leaves the address bar and the history. */
static enum MHD_Result token_login(const servei_server *server, struct MHD_Connection *connection,
                                   const char *given)
{
    if (!same_secret(given, server->token))
        return send_text(connection, MHD_HTTP_UNAUTHORIZED, "wrong access token\n");
    char cookie[160];
    snprintf(cookie, sizeof cookie, "runner_token=%s; Path=/; HttpOnly; SameSite=Strict",
             server->token);
    servei_reply reply = { .status = MHD_HTTP_SEE_OTHER,
                           .body = util_strdup("see /\n"),
                           .size = 6,
                           .content_type = "text/plain; charset=utf-8",
                           .set_cookie = cookie,
                           .location = "/" };
    if (!reply.body)
        return MHD_NO;
    return send_reply(connection, &reply);
}

static enum MHD_Result add_length(void *cls, enum MHD_ValueKind kind, const char *key,
                                  const char *value)
{
    (void)kind;
    *(size_t *)cls += strlen(key) + 2 + (value ? strlen(value) : 0);
    return MHD_YES;
}

/* The path and its query arguments (MHD hands them apart). */
static size_t url_length(struct MHD_Connection *connection, const char *url)
{
    size_t length = strlen(url);
    MHD_get_connection_values(connection, MHD_GET_ARGUMENT_KIND, add_length, &length);
    return length;
}

/* A path that could name anything outside the routes below (MHD hands the
 * path already %-decoded, so "%2e%2e" arrives as ".."; a decoded NUL
 * would end it early, which servei_uri_seen catches on the raw URI). */
static int suspicious_path(const char *url)
{
    if (url[0] != '/' || strstr(url, "..") || strstr(url, "//") || strchr(url, '\\'))
        return 1;
    for (const unsigned char *p = (const unsigned char *)url; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            return 1;
    return 0;
}

/* What servei_uri_seen found, kept as the request's state (*state of the
 * handler): the address of one of these bytes, first in uri_seen, then,
 * once the head is read, in head_read. */
enum {
    URI_OK,
    URI_BAD_PATH,
    URI_BAD_QUERY,
    URI_VERDICTS
};
static char uri_seen[URI_VERDICTS];
static char head_read[URI_VERDICTS];

static int hex_digit(char c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/* The raw URI decoded as libmicrohttpd will: a control byte (NUL
 * included) in the path, or a NUL in the query, which would cut a value
 * short unseen. */
static int uri_verdict(const char *uri)
{
    int in_query = 0;
    for (const char *p = uri; *p; p++) {
        unsigned char byte = (unsigned char)*p;
        in_query |= *p == '?';
        if (*p == '%' && hex_digit(p[1]) >= 0 && hex_digit(p[2]) >= 0) {
            byte = (unsigned char)(hex_digit(p[1]) * 16 + hex_digit(p[2]));
            p += 2;
        }
        if (byte == 0 && in_query)
            return URI_BAD_QUERY;
        if (!in_query && (byte < 0x20 || byte == 0x7f))
            return URI_BAD_PATH;
    }
    return URI_OK;
}

void *servei_uri_seen(void *cls, const char *uri, struct MHD_Connection *connection)
{
    (void)cls;
    (void)connection;
    return &uri_seen[uri_verdict(uri)];
}

/* The request's Host names this server: localhost, 127.0.0.1, [::1], the
 * --listen address or an --allow-host name (any case), with the port it
 * listens on (no port: 80). A page elsewhere that points its own name at
 * 127.0.0.1 (DNS rebinding) sends its own name, and is refused. */
static int host_allowed(const servei_server *server, const char *host)
{
    if (!host)
        return 0;
    const char *end_of_name = host[0] == '[' ? strchr(host, ']') : host;
    if (!end_of_name)
        return 0;
    const char *colon = strchr(end_of_name, ':');
    size_t name_length = colon ? (size_t)(colon - host) : strlen(host);
    unsigned long port = 80;
    if (colon) {
        char *end = NULL;
        if (!isdigit((unsigned char)colon[1]))
            return 0;
        port = strtoul(colon + 1, &end, 10);
        if (*end || port > 65535)
            return 0;
    }
    if (port != atomic_load(&server->port) || name_length == 0)
        return 0;
    const char *const loopback[] = { "localhost", "127.0.0.1", "[::1]", server->listen_host };
    for (size_t i = 0; i < sizeof loopback / sizeof loopback[0]; i++)
        if (strlen(loopback[i]) == name_length && strncasecmp(host, loopback[i], name_length) == 0)
            return 1;
    for (size_t i = 0; i < server->allow_host_count; i++)
        if (strlen(server->allow_hosts[i]) == name_length &&
            strncasecmp(host, server->allow_hosts[i], name_length) == 0)
            return 1;
    return 0;
}

static enum MHD_Result route(servei_server *server, struct MHD_Connection *connection,
                             const char *url)
{
    if (strcmp(url, "/") == 0 || strcmp(url, "/index.html") == 0)
        return send_asset(connection, serve_asset_index_html, "text/html; charset=utf-8");
    if (strcmp(url, "/app.js") == 0)
        return send_asset(connection, serve_asset_app_js, "text/javascript; charset=utf-8");
    if (strcmp(url, "/findings.js") == 0)
        return send_asset(connection, serve_asset_findings_js, "text/javascript; charset=utf-8");
    if (strcmp(url, "/compare.js") == 0)
        return send_asset(connection, serve_asset_compare_js, "text/javascript; charset=utf-8");
    if (strcmp(url, "/history.js") == 0)
        return send_asset(connection, serve_asset_history_js, "text/javascript; charset=utf-8");
    if (strcmp(url, "/app.css") == 0)
        return send_asset(connection, serve_asset_app_css, "text/css; charset=utf-8");
    if (strcmp(url, "/series.html") == 0) /* a sweep's series, live (serve_series.c) */
        return send_asset(connection, serve_asset_series_html, "text/html; charset=utf-8");
    if (strcmp(url, "/series.js") == 0)
        return send_asset(connection, serve_asset_series_js, "text/javascript; charset=utf-8");
    if (strcmp(url, "/favicon.ico") == 0) /* browsers ask; there is none */
        return send_text(connection, MHD_HTTP_NO_CONTENT, "");
    if (strcmp(url, "/dygraph.min.js") == 0)
        return send_dygraphs(connection, "dygraph.min.js", "text/javascript; charset=utf-8");
    if (strcmp(url, "/dygraph.min.css") == 0)
        return send_dygraphs(connection, "dygraph.min.css", "text/css; charset=utf-8");
    if (strncmp(url, "/api/", 5) == 0) {
        servei_reply reply = { 0 };
        servei_api(server, connection, url + 5, &reply);
        return send_reply(connection, &reply);
    }
    return send_text(connection, MHD_HTTP_NOT_FOUND, "not found\n");
}

enum MHD_Result servei_handle(void *cls, struct MHD_Connection *connection, const char *url,
                              const char *method, const char *version, const char *upload_data,
                              size_t *upload_data_size, void **state)
{
    (void)version;
    (void)upload_data;
    servei_server *server = cls;
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0) {
        *upload_data_size = 0; /* a body is never read */
        return send_text_with(connection, MHD_HTTP_METHOD_NOT_ALLOWED, "method not allowed\n",
                              "Allow", "GET, HEAD");
    }
    /* Headers only so far: answer on the next call. */
    for (int verdict = URI_OK; verdict < URI_VERDICTS; verdict++)
        if (*state == &uri_seen[verdict] || (*state == NULL && verdict == URI_OK)) {
            *state = &head_read[verdict];
            servei_watch_head(&server->watch, connection);
            return MHD_YES;
        }
    const char *host =
        MHD_lookup_connection_value(connection, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST);
    if (!host_allowed(server, host))
        return send_text(connection, MHD_HTTP_MISDIRECTED_REQUEST,
                         "Host is not this server: runner serve answers only localhost, "
                         "127.0.0.1, [::1] and its --listen address, with its port, and names "
                         "given with --allow-host\n");
    if (url_length(connection, url) > SERVE_HTTP_MAX_URL)
        return send_text(connection, MHD_HTTP_URI_TOO_LONG, "URL too long\n");
    if (!rate_allows(server, connection))
        return send_text_with(connection, MHD_HTTP_TOO_MANY_REQUESTS, "too many requests\n",
                              "Retry-After", "1");
    if (*state == &head_read[URI_BAD_PATH] || suspicious_path(url))
        return send_text(connection, MHD_HTTP_BAD_REQUEST, "bad path\n");
    if (*state == &head_read[URI_BAD_QUERY])
        return send_text(connection, MHD_HTTP_BAD_REQUEST, "bad query: a NUL byte (%00)\n");
    if (server->token[0] && !has_token(server, connection)) {
        const char *given = MHD_lookup_connection_value(connection, MHD_GET_ARGUMENT_KIND, "token");
        if (given && strcmp(url, "/") == 0)
            return token_login(server, connection, given);
        return send_text(connection, MHD_HTTP_UNAUTHORIZED,
                         "an access token is required: open the URL runner serve printed\n");
    }
    return route(server, connection, url);
}
