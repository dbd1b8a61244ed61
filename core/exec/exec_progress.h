/* exec_progress: a command's progress lines, taken out of its stdout as it
 * runs. A line beginning with EXEC_PROGRESS_PREFIX carries a JSON object
 * with a numeric "step" and one or more numeric values:
 *     RUNNER_SERIES {"step": 3, "loss": 0.25, "accuracy": 0.91}
 * Each value becomes one series value of the point (host_series_add); the
 * line is not part of the output the result rows are parsed from. A line
 * that does not parse is counted and said once when the point ends
 * (docs/command-experiments.md, "Series during a point"). */
#ifndef RUNNER_EXEC_PROGRESS_H
#define RUNNER_EXEC_PROGRESS_H

#include <stddef.h>

#include "plugin/plugin.h"

#define EXEC_PROGRESS_PREFIX "RUNNER_SERIES "
#define EXEC_PROGRESS_PREFIX_LEN (sizeof EXEC_PROGRESS_PREFIX - 1)
#define EXEC_PROGRESS_LINE_MAX 4096 /* longer progress lines are refused */

typedef struct exec_progress {
    runner_point *point; /* borrowed: where the values go */
    int mode;            /* where in a line the filter is */
    size_t held;         /* bytes of the prefix seen at the line's start */
    char line[EXEC_PROGRESS_LINE_MAX + 1];
    size_t line_len;
    unsigned long long line_no; /* stdout's line, 1-based, for messages */
} exec_progress;

/* Starts a run's stdout (the point's values accumulate over its runs). */
void exec_progress_begin(exec_progress *pr, runner_point *point);
/* Copies in[0 .. n) to out without the progress lines, handling them;
 * returns the bytes written, at most n + EXEC_PROGRESS_PREFIX_LEN. */
size_t exec_progress_filter(exec_progress *pr, const char *in, size_t n, char *out);
/* At end of file: a last progress line without its newline is handled, a
 * held partial prefix written to out (returns its length). */
size_t exec_progress_finish(exec_progress *pr, char *out);

#endif
