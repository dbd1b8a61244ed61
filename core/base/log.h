/* log: the one way runner's layers below the CLI say something on stderr
 * that is not a command's answer: errors, warnings, notes and debugging
 * lines, each with a level. What is shown is set once by the CLI (--verbose,
 * RUNNER_LOG); errors and warnings always are. HACKING.md, "Errors". */
#ifndef RUNNER_BASE_LOG_H
#define RUNNER_BASE_LOG_H

#include "util.h"

typedef enum log_level {
    LOG_LEVEL_DEBUG = 0, /* what runner decides, for debugging a run */
    LOG_LEVEL_INFO,      /* a note: a summary delivered, a cache missing */
    LOG_LEVEL_WARN,      /* something is off, the command goes on */
    LOG_LEVEL_ERROR      /* the command fails; always shown */
} log_level;

/* The lowest level shown (LOG_LEVEL_INFO unless set). */
void log_set_threshold(log_level lowest);
/* "debug", "info" or "warn" as a threshold: 0 with *out, or -1. */
int log_parse_level(const char *name, log_level *out);
/* 1 when a line of this level is shown. */
int log_enabled(log_level level);
/* Prints fmt's text to stderr, as given (the caller writes "runner: ..."
 * and the "\n"), when level is shown; debug lines get "runner: debug: " in
 * front. One write per line, so threads' lines do not interleave. */
void log_print(log_level level, const char *fmt, ...) RUNNER_PRINTF(2, 3);

#endif
