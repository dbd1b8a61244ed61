/* script: runs a sweep script — Lua 5.4 in a sandbox — with runner's API
 * (sweep, options, axis helpers; docs/lua-api.md). The sweep the script
 * drives is lifecycle.c's: it touches the database only when the first valid
 * section is about to run, so a script rejected up front leaves it untouched. */
#ifndef RUNNER_SCRIPT_H
#define RUNNER_SCRIPT_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "run/run.h"

typedef struct script_config {
    const char *script_path;
    const char *db_path;
    const char *const *plugin_dirs; /* NULL-terminated; may be NULL */
    const char *const *overrides;   /* "NAME=VALUE" from --set */
    size_t override_count;
    uint64_t max_points;       /* per section; 0: no limit */
    uint64_t seed;             /* the sweep seed */
    int quiet;                 /* no progress line */
    size_t memory_limit_bytes; /* the script's own Lua heap */
    double time_limit_s;       /* the script's own run time, points excluded */
    const char *command_line;
    const volatile sig_atomic_t *stop;
    int jobs;                             /* threads running points */
    int fail_fast;                        /* stop the script at the first failed point */
    int isolate;                          /* run each point in a child process */
    double point_timeout_s;               /* with isolate: per-point time limit; 0: none */
    int resume;                           /* continue an earlier sweep (--resume) */
    int64_t resume_sweep_id;              /* which one; 0: the newest of script_path */
    int force;                            /* resume a sweep whose runner may live (--force) */
    shard_spec shard;                     /* --shard I/N; count 0: every point */
    int reuse;                            /* copy points stored ok before (--reuse) */
    const char *script_text;              /* run this text instead of reading the file */
    const struct webhook_target *webhook; /* NULL: no webhook summary (docs/webhooks.md) */
    int webhook_format;                   /* summary_format: SUMMARY_GENERIC or SUMMARY_SLACK */
    int webhook_strict;                   /* exit EXIT_NOT_DELIVERED when it is not delivered */
    /* What people call the sweep (runner sweep --name, --tag, --note): set
     * on a new sweep only, already checked (selector.h). */
    const char *sweep_name;        /* NULL: unnamed */
    const char *sweep_note;        /* NULL: none */
    const char *const *sweep_tags; /* sweep_tag_count tags */
    size_t sweep_tag_count;
} script_config;

/* Runs the script. Returns the process exit status (exit_status.h): 0, 1 when some
 * points failed, 2 on bad input or a failure that stopped the run, 130 when
 * interrupted; 3 (webhook_strict) when it would be 0 but the webhook summary
 * was not delivered. Errors are printed on stderr as one line. */
int script_run(const script_config *config);

#endif
