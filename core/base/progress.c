/* progress: a terminal-only progress line, redrawn at most 10 times/s. */
#include "progress.h"

#include <stdio.h>
#include <unistd.h>

#include "util.h"

void progress_begin(progress *p, const char *label, uint64_t total, int quiet)
{
    p->label = label;
    p->total = total;
    p->enabled = !quiet && isatty(STDERR_FILENO);
    p->drawn = 0;
    p->started = p->last_drawn = util_monotonic();
}

void progress_update(progress *p, uint64_t done)
{
    if (!p->enabled)
        return;
    double now = util_monotonic();
    if (now - p->last_drawn < 0.1 && done < p->total)
        return;
    p->last_drawn = now;
    double elapsed = now - p->started;
    double rate = elapsed > 0 ? done / elapsed : 0;
    double eta = rate > 0 ? (p->total - done) / rate : 0;
    fprintf(stderr, "\r%s: %llu/%llu points, %.0f points/s, ETA %.0f s\033[K", p->label,
            (unsigned long long)done, (unsigned long long)p->total, rate, eta);
    fflush(stderr);
    p->drawn = 1;
}

void progress_clear(progress *p)
{
    if (p->enabled && p->drawn) {
        fprintf(stderr, "\r\033[K");
        p->drawn = 0;
    }
}

void progress_end(progress *p) { progress_clear(p); }
