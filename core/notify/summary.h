/* summary: what a webhook receives when a sweep ends, built with jansson from
 * what the database holds (docs/webhooks.md): a JSON document ("generic") or
 * the {"text": ...} body Slack and Mattermost incoming webhooks accept
 * ("slack"). */
#ifndef RUNNER_SUMMARY_H
#define RUNNER_SUMMARY_H

#include <stddef.h>
#include <stdint.h>
#include "store/store.h"

typedef enum summary_format {
    SUMMARY_GENERIC,
    SUMMARY_SLACK
} summary_format;

/* A generic body holds at most this many rows per section, and is at most
 * this many bytes: rows are left out (and counted) to stay under it. */
#define SUMMARY_MAX_ROWS 100
#define SUMMARY_MAX_BYTES (256 * 1024)
/* A slack body's table stops near this many characters (Slack shows about
 * 4000 before folding a message). */
#define SUMMARY_SLACK_MAX_CHARS 3500

/* Parses "generic" or "slack"; returns 0 or -1. */
int summary_parse_format(const char *name, summary_format *format);
const char *summary_format_name(summary_format format);

typedef struct summary_options {
    summary_format format;
    const char *db_path; /* the database, as the body names it */
    size_t max_rows;     /* 0: SUMMARY_MAX_ROWS */
    size_t max_bytes;    /* 0: SUMMARY_MAX_BYTES (generic) or SUMMARY_SLACK_MAX_CHARS */
} summary_options;

/* A store_outbox_build_fn: ctx is a const summary_options *. Reads sweep
 * sweep_id back through s and sets *body to a new malloc'd UTF-8 JSON text
 * (the caller frees it). Returns 0, or -1 with *err (malloc'd). */
int summary_build(store *s, int64_t sweep_id, void *ctx, char **body, char **err);

#endif
