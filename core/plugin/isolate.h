/* isolate: runs one point in a child process (--isolate), so a plugin that
 * crashes or hangs costs only that point. The child runs the plugin through
 * the host as usual and sends its outcome and rows back over a pipe; the
 * parent enforces the per-point timeout. */
#ifndef RUNNER_ISOLATE_H
#define RUNNER_ISOLATE_H

#include "host.h"

typedef enum isolate_status {
    ISOLATE_OK = 0,  /* the plugin succeeded: rows are in the point */
    ISOLATE_FAILED,  /* the plugin reported an error: point->error */
    ISOLATE_CRASHED, /* the child died by a signal or exited early */
    ISOLATE_TIMEOUT  /* the child ran past the timeout and was killed */
} isolate_status;

/* Runs the point (already reset with its params and seed) in a child. On
 * return the point holds the rows (ISOLATE_OK) or point->error says what
 * happened (every other status). timeout_s <= 0: no limit. */
isolate_status isolate_run_point(runner_point *point, double timeout_s);

#endif
