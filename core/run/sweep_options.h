/* sweep_options: how one sweep runs, as the user asked (runner sweep's and
 * runner resume's options), declared once. The CLI fills it (cli_run.c:
 * options.def names the member each option fills), the script binding
 * keeps it in its script_config, and the lifecycle and the point loop read
 * it through one pointer; nobody copies its fields into structs of their
 * own. Adding an option the point loop reads: a line in options.def, a
 * member here, and the code that reads it (docs/cli.md). */
#ifndef RUNNER_SWEEP_OPTIONS_H
#define RUNNER_SWEEP_OPTIONS_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "shard.h"

struct webhook_target;

/* Strings and pointers are borrowed: they must outlive the sweep. A member
 * options.def fills has the type of its option's kind (options.h): int for
 * a flag (1: given), uint64_t for an integer, double for seconds (0: not
 * given, unless it has a default), const char * for text (NULL: not given,
 * unless it has a default). */
typedef struct sweep_options {
    /* where, and which sweep */
    const char *db_path;
    const char *command_line;          /* recorded with the sweep; may be NULL */
    uint64_t seed;                     /* the sweep seed of a new sweep */
    int seed_given;                    /* --seed given: a resume with another seed is refused */
    int resume;                        /* continue an earlier sweep (--resume) */
    int64_t resume_sweep_id;           /* which one; 0: the newest of the script */
    int force;                         /* resume a sweep whose runner may live (--force) */
    double lease_period_s;             /* the lease's renewal period (RUNNER_LEASE_SECONDS,
                                        * checked by the CLI); 0: LEASE_PERIOD_DEFAULT_S */
    const volatile sig_atomic_t *stop; /* set by SIGINT/SIGTERM; may be NULL */
    /* which points, and how they run */
    shard_spec shard;         /* --shard I/N: this shard's points only; count 0: all */
    int reuse;                /* copy points stored ok before (--reuse) */
    int jobs;                 /* threads running points (1: inline) */
    int isolate;              /* each point in a child process (--isolate) */
    double point_timeout_s;   /* with isolate: kill a point after this; 0: never */
    int fail_fast;            /* the first failed point stops the sweep (--fail-fast) */
    uint64_t max_failures;    /* this many failed points stop it (--max-failures); 0: none */
    int quiet;                /* no progress line */
    double sample_interval_s; /* --sample-interval: a command's process tree every S; 0: off */
    /* the summary when it ends (docs/webhooks.md) */
    const struct webhook_target *webhook; /* NULL: no webhook summary */
    int webhook_format;                   /* summary_format: SUMMARY_GENERIC or SUMMARY_SLACK */
    int webhook_strict;                   /* exit EXIT_NOT_DELIVERED when not delivered */
    /* what people call a new sweep (--name, --tag, --note), already
     * checked (selector.h); a resumed sweep keeps its own */
    const char *sweep_name;        /* NULL: unnamed */
    const char *sweep_note;        /* NULL: none */
    const char *const *sweep_tags; /* sweep_tag_count tags */
    size_t sweep_tag_count;
} sweep_options;

#endif
