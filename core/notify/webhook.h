/* webhook: delivers the sweep summaries waiting in the outbox (store.h) to
 * an HTTP receiver with libcurl: bounded timeouts, TLS verification always
 * on, a bounded number of retries with exponential backoff, an
 * Idempotency-Key, and an HMAC-SHA256 signature when a secret is set
 * (docs/webhooks.md). The URL is a secret (chat webhook URLs embed tokens):
 * it is never stored, and shown at most as scheme and host. */
#ifndef RUNNER_WEBHOOK_H
#define RUNNER_WEBHOOK_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include "store/store.h"

#define WEBHOOK_CONNECT_TIMEOUT_S 5.0
#define WEBHOOK_TOTAL_TIMEOUT_S 20.0 /* one attempt, connecting included */
#define WEBHOOK_MAX_ATTEMPTS 4
#define WEBHOOK_BACKOFF_S 1.0 /* the first wait; then 2, 4 s */
/* A receiver asking to wait longer than this (Retry-After) is not waited
 * for: the summary stays in the outbox until then, for `runner notify`. */
#define WEBHOOK_RETRY_AFTER_MAX_S 60.0
/* Room for "sha256=" and 64 hex digits. */
#define WEBHOOK_SIGNATURE_SIZE 72

/* Where and how to deliver. Strings are borrowed. */
typedef struct webhook_target {
    const char *url;    /* a secret: never stored or printed in full */
    const char *secret; /* HMAC-SHA256 key; NULL: bodies are not signed */
    double connect_timeout_s;
    double total_timeout_s;
    int max_attempts;
    double backoff_s; /* wait before the second attempt; doubles after */
    double retry_after_max_s;
    const volatile sig_atomic_t *stop; /* Ctrl-C: stop retrying; may be NULL */
} webhook_target;

/* The libcurl version webhooks are compiled against (its headers: libcurl
 * itself is opened only when a webhook is sent), for the machine facts. */
const char *webhook_libcurl_headers_version(void);

/* Fills t with url, secret (NULL or "" for none) and the defaults above,
 * then applies RUNNER_WEBHOOK_TIMEOUT_S (seconds per attempt; the connect
 * timeout is the smaller of it and 5 s) and RUNNER_WEBHOOK_BACKOFF_S (the
 * first wait) when set. Opens libcurl (curl_lazy.h: the first call loads it)
 * and checks that url is http:// or https:// with a host. Returns 0, or -1
 * with *err (malloc'd; it never contains the URL). */
int webhook_target_init(webhook_target *t, const char *url, const char *secret, char **err);

/* All of the URL that may be shown: "https://hooks.slack.com/…";
 * "(a webhook URL)" when libcurl cannot be loaded. */
void webhook_url_display(const char *url, char *buf, size_t size);

/* "sha256=<hex>": HMAC-SHA256 of len bytes of body under key, GitHub's
 * X-Hub-Signature-256 layout. Returns 0 or -1. */
int webhook_signature(const char *key, const void *body, size_t len,
                      char out[WEBHOOK_SIGNATURE_SIZE]);

typedef enum webhook_outcome {
    WEBHOOK_DELIVERED, /* a 2xx answer (now or before) */
    WEBHOOK_PENDING,   /* network errors, timeouts, 5xx or 429 until the attempts ran out */
    WEBHOOK_REJECTED,  /* another 4xx, a redirect, a TLS failure: not retried */
    WEBHOOK_NOT_DUE,   /* the receiver asked to wait (Retry-After) and the time has not come */
    WEBHOOK_ERROR      /* the outbox could not be read, or libcurl could not be loaded */
} webhook_outcome;

/* Delivers outbox row id to t->url and records every attempt in the row.
 * *message is NULL, or one malloc'd line (the caller frees) saying what went
 * wrong, with the URL at most as scheme and host. A delivered summary whose
 * record could not be written comes back WEBHOOK_DELIVERED with a message. */
webhook_outcome webhook_deliver(store *s, int64_t id, const webhook_target *t, char **message);

/* webhook_deliver, then one line on stderr saying how it went: delivered,
 * or a warning that the summary of sweep_id stays in the outbox of db_path. */
webhook_outcome webhook_send_summary(store *s, int64_t id, int64_t sweep_id, const char *db_path,
                                     const webhook_target *t);

#endif
