/* verify: runs stored points again, in this process and in memory, and
 * compares what comes out with what the sweep stored, bit for bit. Nothing
 * is written: the database is opened read-only. */
#ifndef RUNNER_VERIFY_H
#define RUNNER_VERIFY_H

#include <stdint.h>
#include <stdio.h>

#include "plugin/plugin.h"
#include "store/store.h"

/* Which points run again: every one, or exactly `want` of `total` drawn
 * by a seeded stream (Knuth's selection sampling: the same seed and sweep
 * give the same points, in stored order). */
typedef struct verify_sample {
    uint64_t total; /* points not yet seen */
    uint64_t want;  /* points still to draw; UINT64_MAX: all */
    uint64_t state; /* splitmix64 */
} verify_sample;
void verify_sample_init(verify_sample *s, uint64_t total, uint64_t want, uint64_t seed);

/* What a verification found, added up over plugins. */
typedef struct verify_report {
    FILE *out;        /* differing points are described here */
    uint64_t checked; /* points run again */
    uint64_t reproduced;
    uint64_t not_rerun; /* crashed or timed out: not run in this process */
    uint64_t differing; /* points whose rows, status or seed differ */
    unsigned printed;   /* differing points described so far */
    char *columns;      /* "plugin.column, ..." that differed (malloc'd) */
} verify_report;
void verify_report_clear(verify_report *r);

/* Runs again the sampled points of the sweep's sections of lp's plugin,
 * with their stored parameters and seeds, and compares. sweep_seed checks
 * that each stored seed is the one the parameters give. 0, or -1 with *err
 * (storage, memory; a difference is no error). */
int verify_plugin(store *s, int64_t sweep_id, uint64_t sweep_seed, const loaded_plugin *lp,
                  verify_sample *sample, verify_report *report, char **err);

#endif
