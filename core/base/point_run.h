/* point_run: the measured runs of one command point (repeats, warmup),
 * each kept as a row (schema: command_run): held from the point's end until
 * the writer stores them beside the point, in the same transaction. */
#ifndef RUNNER_POINT_RUN_H
#define RUNNER_POINT_RUN_H

#include <stddef.h>
#include <stdint.h>

typedef struct point_run {
    int warmup;      /* 1: a warm-up run, not in the point's summary */
    int exit_status; /* the run's exit status (a run that did not exit 0 ended the point) */
    double wall_s, user_s, sys_s;
    int64_t max_rss_kib;
    int64_t voluntary_switches, involuntary_switches; /* context switches (getrusage) */
    char *values_json; /* the declared columns of the one row this run printed, as a JSON
                        * object; NULL when it printed none or several. Owned. */
} point_run;

typedef struct point_runs {
    size_t count, capacity;
    point_run *runs; /* count entries in the order they ran, owned */
} point_runs;

/* Appends a copy of *run (taking run->values_json). Returns 0, or -1 when
 * memory runs out (values_json then freed). */
int point_runs_append(point_runs *list, point_run *run);
/* Frees the list and what it holds. Accepts NULL. */
void point_runs_free(point_runs *list);

#endif
