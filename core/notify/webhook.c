/* webhook: one summary, one receiver, libcurl (opened on first use:
 * curl_lazy.h). Each attempt is recorded in the outbox row before the next
 * begins, so a crash or Ctrl-C leaves the row pending for `runner notify`;
 * the Idempotency-Key stored with the row lets the receiver drop the
 * duplicate that may follow. */
#include "webhook.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/digest.h"
#include "base/log.h"
#include "base/util.h"
#include "curl_lazy.h"

/* Bytes of an error answer's body kept for last_error. */
#define ANSWER_SNIPPET_MAX 160
/* Parts of the URL at least this long are scrubbed from any message. */
#define SECRET_PART_MIN 6

/* --- the URL: parsing, showing, scrubbing ---------------------------------- */

static char *url_part(CURLU *h, CURLUPart part, unsigned int flags)
{
    char *raw = NULL;
    if (curl_url_get(h, part, &raw, flags) != CURLUE_OK || !raw)
        return NULL;
    char *copy = util_strdup(raw);
    curl_free(raw);
    return copy;
}

void webhook_url_display(const char *url, char *buf, size_t size)
{
    char *why = NULL;
    if (curl_lazy_load(&why) != 0) { /* webhook_target_init said why */
        free(why);
        snprintf(buf, size, "(a webhook URL)");
        return;
    }
    CURLU *h = curl_url();
    char *scheme = NULL, *host = NULL;
    if (h && url && curl_url_set(h, CURLUPART_URL, url, 0) == CURLUE_OK) {
        scheme = url_part(h, CURLUPART_SCHEME, 0);
        host = url_part(h, CURLUPART_HOST, 0);
    }
    if (scheme && host)
        snprintf(buf, size, "%s://%s/\xe2\x80\xa6", scheme, host);
    else
        snprintf(buf, size, "(a webhook URL that cannot be parsed)");
    free(scheme);
    free(host);
    curl_url_cleanup(h);
}

/* Replaces every occurrence of needle in *text by "…". */
static void scrub_one(char **text, const char *needle)
{
    size_t n = needle ? strlen(needle) : 0;
    if (!*text || n < SECRET_PART_MIN)
        return;
    char *hit;
    while ((hit = strstr(*text, needle)) != NULL) {
        char *shorter = util_format("%.*s\xe2\x80\xa6%s", (int)(hit - *text), *text, hit + n);
        if (!shorter) {
            /* No memory for a copy: blank the secret in place. */
            memset(hit, '*', n);
            continue;
        }
        free(*text);
        *text = shorter;
    }
}

/* Removes from text (malloc'd, replaced) everything of url beyond scheme
 * and host: the whole URL, user, password, path, query, and each path
 * segment and query field. libcurl's messages and a receiver's answer (a
 * 404 page echoing the path) could otherwise carry the token. */
static void scrub_url(char **text, const char *url)
{
    scrub_one(text, url);
    CURLU *h = curl_url();
    if (!h || curl_url_set(h, CURLUPART_URL, url, 0) != CURLUE_OK) {
        curl_url_cleanup(h);
        return;
    }
    static const CURLUPart parts[] = { CURLUPART_USER, CURLUPART_PASSWORD, CURLUPART_PATH,
                                       CURLUPART_QUERY, CURLUPART_FRAGMENT };
    for (size_t i = 0; i < 2 * (sizeof parts / sizeof parts[0]); i++) {
        /* As written in the URL, then decoded (an answer may echo either). */
        char *part = url_part(h, parts[i / 2], i % 2 ? CURLU_URLDECODE : 0);
        if (!part)
            continue;
        scrub_one(text, part);
        char *rest = NULL;
        for (char *piece = strtok_r(part, "/&=;", &rest); piece;
             piece = strtok_r(NULL, "/&=;", &rest))
            scrub_one(text, piece);
        free(part);
    }
    curl_url_cleanup(h);
}

int webhook_target_init(webhook_target *t, const char *url, const char *secret, char **err)
{
    memset(t, 0, sizeof *t);
    t->url = url;
    t->secret = secret && *secret ? secret : NULL;
    t->connect_timeout_s = WEBHOOK_CONNECT_TIMEOUT_S;
    t->total_timeout_s = WEBHOOK_TOTAL_TIMEOUT_S;
    t->max_attempts = WEBHOOK_MAX_ATTEMPTS;
    t->backoff_s = WEBHOOK_BACKOFF_S;
    t->retry_after_max_s = WEBHOOK_RETRY_AFTER_MAX_S;

    static const char *const knobs[] = { "RUNNER_WEBHOOK_TIMEOUT_S", "RUNNER_WEBHOOK_BACKOFF_S" };
    double *fields[] = { &t->total_timeout_s, &t->backoff_s };
    for (size_t i = 0; i < sizeof knobs / sizeof knobs[0]; i++) {
        const char *text = getenv(knobs[i]);
        if (!text || !*text)
            continue;
        char *end;
        errno = 0;
        double v = strtod(text, &end);
        /* The backoff may be 0 (retry at once); a timeout may not. */
        if (errno || *end || !isfinite(v) || v < 0 || v > 3600 || (i == 0 && v == 0))
            return util_fail(err, "%s=%s: expected a number of seconds %s", knobs[i], text,
                             i == 0 ? "above 0, at most 3600" : "from 0 to 3600");
        *fields[i] = v;
    }
    if (t->connect_timeout_s > t->total_timeout_s)
        t->connect_timeout_s = t->total_timeout_s;
    if (curl_lazy_load(err) != 0)
        return -1;

    CURLU *h = curl_url();
    char *scheme = NULL, *host = NULL;
    int ok = h && url && curl_url_set(h, CURLUPART_URL, url, 0) == CURLUE_OK &&
             (scheme = url_part(h, CURLUPART_SCHEME, 0)) &&
             (host = url_part(h, CURLUPART_HOST, 0)) && *host &&
             (strcmp(scheme, "http") == 0 || strcmp(scheme, "https") == 0);
    free(scheme);
    free(host);
    curl_url_cleanup(h);
    if (!ok)
        return util_fail(err, "the webhook URL must be http:// or https:// with a host "
                              "(it is not repeated here: it may hold a token)");
    return 0;
}

/* --- signing --------------------------------------------------------------- */

int webhook_signature(const char *key, const void *body, size_t len,
                      char out[WEBHOOK_SIGNATURE_SIZE])
{
    unsigned char mac[32];
    unsigned int mac_len = sizeof mac;
    if (digest_hmac_sha256(key, strlen(key), body, len, mac) != 0)
        return -1;
    static const char digits[] = "0123456789abcdef";
    memcpy(out, "sha256=", 7);
    for (unsigned int i = 0; i < mac_len; i++) {
        out[7 + 2 * i] = digits[mac[i] >> 4];
        out[7 + 2 * i + 1] = digits[mac[i] & 15];
    }
    out[7 + 2 * mac_len] = '\0';
    return 0;
}

/* --- one attempt ------------------------------------------------------------ */

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_code = CURLE_FAILED_INIT;

static void init_curl(void) { curl_init_code = curl_global_init(CURL_GLOBAL_DEFAULT); }

typedef struct attempt {
    long http_status; /* 0: no HTTP answer */
    int retryable;
    double retry_after_s; /* the receiver's Retry-After; 0: none */
    char *error;          /* malloc'd, scrubbed; NULL when delivered */
} attempt;

typedef struct answer {
    char text[ANSWER_SNIPPET_MAX + 1];
    size_t len;
} answer;

/* Keeps the start of the receiver's answer; the rest is read and dropped. */
static size_t on_answer(char *data, size_t size, size_t count, void *user)
{
    answer *a = user;
    size_t n = size * count;
    size_t room = ANSWER_SNIPPET_MAX - a->len;
    size_t take = n < room ? n : room;
    memcpy(a->text + a->len, data, take);
    a->len += take;
    a->text[a->len] = '\0';
    return n;
}

typedef struct stop_watch {
    const volatile sig_atomic_t *stop;
    sig_atomic_t initial; /* a stop already requested does not abort */
} stop_watch;

static int stopped(const stop_watch *w) { return w->stop && *w->stop && !w->initial; }

static int on_progress(void *user, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
                       curl_off_t ulnow)
{
    (void)dltotal, (void)dlnow, (void)ultotal, (void)ulnow;
    return stopped(user);
}

/* One line of printable ASCII: control characters and other bytes become
 * spaces and '?'. */
static void one_line(char *text)
{
    for (unsigned char *p = (unsigned char *)text; *p; p++) {
        if (*p < 0x20 || *p == 0x7f)
            *p = ' ';
        else if (*p >= 0x80)
            *p = '?';
    }
}

/* TLS and URL problems are configuration: the same request will fail again. */
static int curl_code_retryable(CURLcode code)
{
    switch (code) {
    case CURLE_UNSUPPORTED_PROTOCOL:
    case CURLE_URL_MALFORMAT:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_OUT_OF_MEMORY:
    case CURLE_ABORTED_BY_CALLBACK: return 0;
    default: return 1;
    }
}

static void post_once(CURL *curl, const webhook_target *t, const store_outbox_row *row,
                      struct curl_slist *headers, stop_watch *watch, attempt *out)
{
    memset(out, 0, sizeof *out);
    char curl_error[CURL_ERROR_SIZE] = "";
    answer reply = { .len = 0 };
    curl_easy_reset(curl);
    curl_easy_setopt(curl, CURLOPT_URL, t->url);
#if LIBCURL_VERSION_NUM >= 0x075500
    curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
#else
    curl_easy_setopt(curl, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
    curl_easy_setopt(curl, CURLOPT_POST, 1L);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, row->body);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(row->body));
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(curl, CURLOPT_USERAGENT, "runner/" RUNNER_VERSION);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, (long)(t->connect_timeout_s * 1000 + 0.5));
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, (long)(t->total_timeout_s * 1000 + 0.5));
    curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 1L);
    curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 2L);
    /* A redirect would re-send (or drop) the body elsewhere: report it instead. */
    curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, curl_error);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_answer);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &reply);
    if (watch->stop) {
        curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
        curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, on_progress);
        curl_easy_setopt(curl, CURLOPT_XFERINFODATA, watch);
    }

    CURLcode code = curl_easy_perform(curl);
    /* Only what came from outside (libcurl's words, the receiver's answer)
     * can echo the URL: scrub those, never runner's own words, which a path
     * segment such as "redirect" would otherwise cut up. */
    one_line(curl_error);
    one_line(reply.text);
    char *said = util_strdup(curl_error), *replied = util_strdup(reply.text);
    scrub_url(&said, t->url);
    scrub_url(&replied, t->url);
    if (code != CURLE_OK) {
        out->retryable = curl_code_retryable(code);
        if (code == CURLE_ABORTED_BY_CALLBACK)
            out->error = util_strdup("interrupted");
        else if (code == CURLE_OPERATION_TIMEDOUT)
            out->error = util_format("no answer within %g s (%s)", t->total_timeout_s,
                                     said && *said ? said : curl_easy_strerror(code));
        else
            out->error = util_strdup(said && *said ? said : curl_easy_strerror(code));
    } else {
        curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &out->http_status);
        curl_off_t wait = 0;
        if (curl_easy_getinfo(curl, CURLINFO_RETRY_AFTER, &wait) == CURLE_OK && wait > 0)
            out->retry_after_s = (double)wait;
        long status = out->http_status;
        out->retryable = status >= 500 || status == 429;
        if (status >= 300 && status < 400)
            out->error = util_format("HTTP %ld: the receiver redirects to another URL, and "
                                     "runner does not follow redirects; use that URL",
                                     status);
        else if (status < 200 || status >= 300)
            out->error =
                util_format("HTTP %ld%s%s", status, reply.len ? ": " : "", replied ? replied : "");
    }
    free(said);
    free(replied);
    if (!out->error && (code != CURLE_OK || out->http_status < 200 || out->http_status >= 300))
        out->error = util_strdup("out of memory");
}

/* Sleeps up to s seconds; returns 1 early when a stop is requested. */
static int wait_or_stop(double s, const stop_watch *watch)
{
    double until = util_monotonic() + s;
    for (;;) {
        if (stopped(watch))
            return 1;
        double left = until - util_monotonic();
        if (left <= 0)
            return 0;
        util_nap_s(left < 0.05 ? left : 0.05);
    }
}

/* --- delivering a row ------------------------------------------------------- */

webhook_outcome webhook_deliver(store *s, int64_t id, const webhook_target *t, char **message)
{
    *message = NULL;
    store_outbox_row row;
    char *err = NULL;
    struct curl_slist *headers = NULL;
    CURL *curl = NULL;
    attempt last = { 0 };
    webhook_outcome outcome = WEBHOOK_ERROR;

    if (curl_lazy_load(message) != 0)
        return WEBHOOK_ERROR;
    if (store_outbox_read(s, id, &row, &err) != 0) {
        *message = err;
        return WEBHOOK_ERROR;
    }
    if (!row.id) {
        *message = util_format("%s: no outbox row %lld", store_path(s), (long long)id);
        goto done;
    }
    if (row.delivered_at) {
        outcome = WEBHOOK_DELIVERED;
        goto done;
    }
    if (!row.due) {
        *message = util_format("the receiver asked to wait until %s", row.next_attempt_at);
        outcome = WEBHOOK_NOT_DUE;
        goto done;
    }

    pthread_once(&curl_once, init_curl);
    char key_header[160], signature[WEBHOOK_SIGNATURE_SIZE], signature_header[128];
    snprintf(key_header, sizeof key_header, "Idempotency-Key: %s", row.idempotency_key);
    int signed_ok =
        !t->secret || webhook_signature(t->secret, row.body, strlen(row.body), signature) == 0;
    if (t->secret && signed_ok)
        snprintf(signature_header, sizeof signature_header, "X-Runner-Signature-256: %s",
                 signature);
    struct curl_slist *list = NULL;
    /* "Expect:" off: no 100-continue round trip before larger bodies. */
    const char *lines[] = { "Content-Type: application/json", "Expect:", key_header,
                            t->secret ? signature_header : NULL };
    for (size_t i = 0; i < sizeof lines / sizeof lines[0] && lines[i]; i++) {
        struct curl_slist *longer = curl_slist_append(list, lines[i]);
        if (!longer) { /* the list so far is still ours to free */
            curl_slist_free_all(list);
            list = NULL;
            break;
        }
        list = longer;
    }
    headers = list;
    if (curl_init_code != CURLE_OK || !signed_ok || !headers || !(curl = curl_easy_init())) {
        *message = util_format("cannot prepare the request (%s)",
                               !signed_ok                   ? "HMAC-SHA256 signing failed"
                               : curl_init_code != CURLE_OK ? curl_easy_strerror(curl_init_code)
                                                            : "out of memory");
        goto done;
    }

    stop_watch watch = { .stop = t->stop, .initial = t->stop ? *t->stop : 0 };
    /* After Ctrl-C ended the sweep, one attempt: the user is waiting to leave. */
    int max_attempts = watch.initial ? 1 : (t->max_attempts > 0 ? t->max_attempts : 1);
    for (int n = 1;; n++) {
        free(last.error);
        post_once(curl, t, &row, headers, &watch, &last);
        int delivered = last.http_status >= 200 && last.http_status < 300;
        double not_before = last.retry_after_s > 0 ? util_now() + last.retry_after_s : 0;
        if (store_outbox_attempt(s, id, (int)last.http_status, delivered ? NULL : last.error,
                                 delivered, delivered ? 0 : not_before, &err) != 0) {
            /* Not recorded: a later notify sends it again, and the receiver
             * drops the duplicate by its Idempotency-Key. */
            *message = util_format("%s%s", delivered ? "delivered, but " : "", err);
            free(err);
            err = NULL;
            outcome = delivered ? WEBHOOK_DELIVERED : WEBHOOK_PENDING;
            goto done;
        }
        if (delivered) {
            outcome = WEBHOOK_DELIVERED;
            goto done;
        }
        if (!last.retryable) {
            outcome = stopped(&watch) ? WEBHOOK_PENDING : WEBHOOK_REJECTED;
            *message = util_format("%s (not retried)", last.error ? last.error : "failed");
            goto done;
        }
        double wait =
            last.retry_after_s > 0 ? last.retry_after_s : t->backoff_s * pow(2.0, (double)(n - 1));
        if (n >= max_attempts || last.retry_after_s > t->retry_after_max_s ||
            wait_or_stop(wait, &watch)) {
            outcome = WEBHOOK_PENDING;
            if (last.retry_after_s > t->retry_after_max_s)
                *message = util_format("%s, asking to wait %.0f s (attempt %d)", last.error,
                                       last.retry_after_s, n);
            else
                *message = util_format("%s (attempt %d of %d%s)", last.error, n, max_attempts,
                                       stopped(&watch) ? ", interrupted" : "");
            goto done;
        }
    }
done:
    free(last.error);
    curl_easy_cleanup(curl);
    curl_slist_free_all(headers);
    store_outbox_row_clear(&row);
    return outcome;
}

webhook_outcome webhook_send_summary(store *s, int64_t id, int64_t sweep_id, const char *db_path,
                                     const webhook_target *t)
{
    char where[300], *message = NULL;
    webhook_url_display(t->url, where, sizeof where);
    webhook_outcome outcome = webhook_deliver(s, id, t, &message);
    if (outcome == WEBHOOK_DELIVERED && !message)
        log_print(LOG_LEVEL_INFO, "runner: summary of sweep %lld delivered to %s\n",
                  (long long)sweep_id, where);
    else if (outcome == WEBHOOK_DELIVERED)
        log_print(LOG_LEVEL_WARN, "runner: warning: summary of sweep %lld delivered to %s: %s\n",
                  (long long)sweep_id, where, message);
    else
        log_print(LOG_LEVEL_WARN,
                  "runner: warning: summary of sweep %lld not delivered to %s: %s; it "
                  "stays in the outbox of %s for 'runner notify'\n",
                  (long long)sweep_id, where, message ? message : "failed", db_path);
    free(message);
    return outcome;
}

const char *webhook_libcurl_headers_version(void) { return LIBCURL_VERSION; }
