/* host_int.h: what host.c shares with host_series.c and exit_guard.c and
 * no other folder calls. Private to plugin/; plugin/host.h is the rest. */
#ifndef RUNNER_HOST_INT_H
#define RUNNER_HOST_INT_H

#include "host.h"

/* host->series, from the thread running p. */
int host_series(runner_point *p, const char *name, double step, double value);

/* At the end of p: its warnings (cap reached, values refused) on stderr,
 * its point_system row when sampling is on. */
void host_series_point_end(runner_point *p, double wall_s, double thread_cpu_s);

/* For exit_guard, which runs inside exit() in whatever thread called it:
 * the point this thread is running (NULL outside run()), how many points
 * this process is running now, and the plugin that entered run() last. */
const runner_point *host_running_point(void);
int host_points_running(void);
const char *host_last_plugin_name(void);

#endif
