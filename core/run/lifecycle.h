/* lifecycle: the life of one sweep, whatever drives it. Opens the database
 * and begins the sweep row (or, with --resume, reopens an earlier one) only
 * when the first valid section is about to run; runs and prints each section
 * through sweep.c; closes the sweep with its status, queues the webhook
 * summary in the same transaction, delivers it, and prints the line saying
 * what was stored. The Lua binding (script.c) calls it; it knows no Lua. */
#ifndef RUNNER_LIFECYCLE_H
#define RUNNER_LIFECYCLE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include "base/table.h"
#include "plugin/plugin.h"
#include "sweep_options.h"

/* A section prints at most this many rows; all are stored. */
#define LIFECYCLE_PRINTED_ROWS_MAX 200

/* What a sweep is; how to run it is options (sweep_options.h). Strings
 * and pointers are borrowed and must outlive the lifecycle. */
typedef struct lifecycle_config {
    const char *script_path;
    const char *script_text;      /* stored with the sweep */
    size_t script_text_len;       /* its sha256 tells --resume the text is the same */
    const sweep_options *options; /* never NULL */
    const char *lua_version;      /* for the machine facts (script_lua_version); may be NULL */
} lifecycle_config;

/* How the driver (the script) came to an end; lifecycle_end turns it into
 * the sweep's stored status and the process exit status. */
typedef enum lifecycle_ending {
    LIFECYCLE_FINISHED,    /* ran to its end: "ok", or "failed" if points failed */
    LIFECYCLE_FAILED_FAST, /* failed points stopped it (--fail-fast): "failed" */
    LIFECYCLE_INTERRUPTED, /* Ctrl-C or SIGTERM: "interrupted" */
    LIFECYCLE_INPUT_ERROR, /* a bad script or input stopped it: "error" */
    LIFECYCLE_STORE_FAILED /* storing failed: "error", and the counts are not printed */
} lifecycle_ending;

/* One section: a plugin's grid, and what to print of its rows. */
typedef struct lifecycle_section {
    const loaded_plugin *plugin;
    const grid *grid;         /* finished (grid_finish) */
    const char *title;        /* may be NULL: the plugin's name */
    int script_line;          /* 0 when unknown */
    int print_rows;           /* print the rows on stdout */
    const char *const *shown; /* print only these columns, in order; may be NULL */
    size_t shown_count;       /* 0: every column */
} lifecycle_section;

/* What a section left for its caller. */
typedef struct lifecycle_section_result {
    uint64_t points_failed; /* in this section */
    int interrupted;        /* a stop request cut it short; nothing was printed */
    /* Why failed points stopped the sweep (sweep_options.fail_fast): a
     * message for the driver to raise, valid until the next section; NULL
     * when they did not. */
    const char *failures_stopped;
    int section_ordinal; /* 1, 2, ... in the sweep: store_section_find finds
                                        * its stored rows */
} lifecycle_section_result;

typedef struct lifecycle lifecycle;

/* A sweep not begun yet: nothing is opened. NULL when out of memory. Free
 * with lifecycle_free. */
lifecycle *lifecycle_new(const lifecycle_config *config);
/* Closes the database if it was opened. Accepts NULL. */
void lifecycle_free(lifecycle *lc);

/* Opens the database and begins the sweep row, recording options_json and
 * overrides_json (the option values in effect and what --set gave; NULL:
 * "{}"); with options->resume, reopens the sweep to resume instead, with its
 * own seed, after checking that it exists, is not running elsewhere on this
 * host and ran the same script text. Does nothing once begun. Returns 0, or
 * -1 with *err (malloc'd; the caller frees): nothing was begun. */
int lifecycle_begin(lifecycle *lc, const char *options_json, const char *overrides_json,
                    char **err);
int lifecycle_begun(const lifecycle *lc);
/* Once lifecycle_end ran, the sweep is closed for good: begin and run_section
 * refuse, and nothing more is written. Returns 0 while it is open, or -1
 * with *err (malloc'd: "sweep 3 is closed") for the driver to raise. */
int lifecycle_check_open(const lifecycle *lc, char **err);
int64_t lifecycle_sweep_id(const lifecycle *lc); /* 0 until begun */

/* Runs a section of the begun sweep (points an earlier run stored are
 * skipped when resuming), then prints its rows on stdout unless it was
 * interrupted. When rows is not NULL, *rows is a new table of the section's
 * rows (the caller frees it), or NULL when interrupted. Failed points are
 * counted in *result and reported on stderr, not returned as errors. Returns
 * 0, or -1 with *err (malloc'd) when storing failed: the sweep cannot go on. */
int lifecycle_run_section(lifecycle *lc, const lifecycle_section *section, table **rows,
                          lifecycle_section_result *result, char **err);

/* What the script printed (its findings, "=> ceiling T1/J = ..."):
 * lifecycle_end keeps its lines with a begun sweep (store_sweep_printed_set),
 * replacing an earlier run's. The text is copied; 0, or -1 out of memory. */
int lifecycle_keep_printed(lifecycle *lc, const char *text);

/* Ends the sweep, begun or not (lifecycle_check_open refuses from now on).
 * If it was begun: stores its status and end time, in the
 * same transaction queues the webhook summary (options->webhook), prints the
 * summary line on stderr, then delivers the summary. Returns the process exit
 * status (exit_status.h): EXIT_OK, EXIT_POINTS_FAILED, EXIT_USAGE (also when
 * the sweep could not be closed), EXIT_INTERRUPTED, or EXIT_NOT_DELIVERED
 * (webhook_strict, when it would be EXIT_OK). Call it once. */
int lifecycle_end(lifecycle *lc, lifecycle_ending ending);

/* The line lifecycle_end prints, without "\n": what the sweep stored where,
 * or that it stopped after a storage error, or (under MPI) because a rank
 * could not run a section's plugin. malloc'd (the caller frees);
 * NULL when the sweep was not begun, or out of memory. */
char *lifecycle_summary_line(const lifecycle *lc);

#endif
