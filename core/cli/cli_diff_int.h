/* cli_diff_int: what cli_diff.c (which sweeps, which columns, the plain
 * comparison) and cli_diff_stat.c (--stat: repeats against their noise)
 * share. Not a header of the cli face. */
#ifndef RUNNER_CLI_DIFF_INT_H
#define RUNNER_CLI_DIFF_INT_H

#include <stddef.h>
#include <stdint.h>

#include "cli.h"
#include "render/render.h"

/* The plugins the two sweeps ran, each with the output columns compared. */
typedef struct diff_job {
    int64_t a, b;
    size_t plugin_count;
    char **plugins;
    table **columns; /* per plugin: the outputs to compare (names, types): --columns' */
    table **outputs; /* per plugin: every output, whatever --columns says (--stat looks
                      * up a command's wall_sd_s and wall_runs here) */
    diff_plugin *results;
} diff_job;

/* 1 when name is in the comma-separated list (NULL: every name is).
 * (cli_diff_stat.c, below cli_diff.c, which calls into it) */
int diff_listed(const char *list, const char *name);

/* runner diff --stat A B over the sections job holds: reads through s,
 * stores the comparison through writer; prints the table. An exit status
 * (EXIT_OK, EXIT_DIFFERENT past the tolerance, or a failure's). */
int diff_run_stat(const options_parsed *a, diff_job *job, store *s, store *writer);

#endif
