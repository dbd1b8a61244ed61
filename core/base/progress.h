/* progress: one self-rewriting status line on stderr (done/total, points/s,
 * ETA), only when stderr is a terminal and not --quiet. */
#ifndef RUNNER_PROGRESS_H
#define RUNNER_PROGRESS_H

#include <stdint.h>

typedef struct progress {
    const char *label;
    uint64_t total;
    int enabled;
    int drawn; /* a line is on screen */
    double started, last_drawn;
} progress;

void progress_begin(progress *p, const char *label, uint64_t total, int quiet);
void progress_update(progress *p, uint64_t done);
void progress_clear(progress *p); /* erases the line before other output */
void progress_end(progress *p);

#endif
