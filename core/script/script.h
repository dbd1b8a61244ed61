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

/* A script to run: what is the script's own (its text, limits and --set
 * values), and how its sweep runs (sweep_options.h, handed to the
 * lifecycle by pointer). Strings are borrowed. */
typedef struct script_config {
    const char *script_path;
    const char *script_text;        /* run this text instead of reading the file */
    const char *const *plugin_dirs; /* NULL-terminated; may be NULL */
    const char *const *overrides;   /* "NAME=VALUE" from --set */
    size_t override_count;
    uint64_t max_points;       /* per section (under --shard, per shard); 0: no limit */
    int dry_run;               /* build every section's grid, run and store nothing
                                * (runner slurm's check) */
    size_t memory_limit_bytes; /* the script's own Lua heap */
    double time_limit_s;       /* the script's own run time, points excluded */
    /* The watchdog ends the process when a script is stuck where no hook
     * runs (one long library call, a __gc finalizer): after printing its
     * line it calls this, then _exit(status). NULL for runner itself; a
     * fuzzing harness records the input here, since _exit skips its own
     * handlers. Called on the watchdog thread; must not return to Lua. */
    void (*on_watchdog_exit)(int status);
    sweep_options sweep;
} script_config;

/* The Lua release runner is compiled against ("Lua 5.4.6"), for the
 * machine facts: Lua has no version text at run time. */
const char *script_lua_version(void);

/* Runs the script. Returns the process exit status (exit_status.h): 0, 1 when some
 * points failed, 2 on bad input or a failure that stopped the run, 130 when
 * interrupted; 3 (webhook_strict) when it would be 0 but the webhook summary
 * was not delivered. Errors are printed on stderr as one line. */
int script_run(const script_config *config);

#endif
