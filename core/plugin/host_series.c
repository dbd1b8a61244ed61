/* host_series: values recorded during a point (host->series, a command's
 * progress lines, runner's samples), checked and capped here and handed
 * to the store's series writer; and what the point says about them when
 * it ends. */
#include "host.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/log.h"
#include "base/util.h"
#include "host_int.h"

/* 1 when name is 1 to STORE_SERIES_NAME_MAX bytes of [A-Za-z0-9_.-]. */
static int name_ok(const char *name)
{
    size_t n = 0;
    for (; name[n]; n++) {
        char c = name[n];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.' || c == '-'))
            return 0;
    }
    return n > 0 && n <= STORE_SERIES_NAME_MAX;
}

static int reserved(const char *name)
{
    return strncmp(name, "sys.", 4) == 0 || strncmp(name, "gpu.", 4) == 0;
}

void host_series_refuse(runner_point *p, const char *why)
{
    if (p->series_bad++ == 0)
        snprintf(p->series_bad_first, sizeof p->series_bad_first, "%s", why);
}

int host_series_add(runner_point *p, const char *name, double step, double value, int sample)
{
    if (!p->series)
        return RUNNER_ERROR;
    char why[160];
    if (!name || !name_ok(name) || (!sample && reserved(name))) {
        char shown[40];
        snprintf(shown, sizeof shown, "%s", name ? name : "(null)");
        snprintf(why, sizeof why,
                 !name || !name_ok(name)
                     ? "series name \"%s%s\" is not 1 to 63 letters, digits, '_', '.' or '-'"
                     : "series name \"%s%s\" begins with sys. or gpu., which are runner's",
                 shown, name && strlen(name) >= sizeof shown ? "..." : "");
        host_series_refuse(p, why);
        return RUNNER_ERROR;
    }
    if (!isfinite(step)) {
        snprintf(why, sizeof why, "series \"%s\": step is not a finite number", name);
        host_series_refuse(p, why);
        return RUNNER_ERROR;
    }
    uint64_t *kept = sample ? &p->samples_kept : &p->series_kept;
    if (*kept >= HOST_SERIES_MAX_PER_POINT) {
        p->series_dropped++;
        return RUNNER_ERROR;
    }
    if (store_series_add(p->series, &p->series_key, name, step, value,
                         util_monotonic() - p->began) != 0)
        return RUNNER_ERROR;
    (*kept)++;
    return RUNNER_OK;
}

int host_series(runner_point *p, const char *name, double step, double value)
{
    return host_series_add(p, name, step, value, 0);
}

void host_series_point_end(runner_point *p, double wall_s, double thread_cpu_s)
{
    if (!p->series)
        return;
    const char *who = p->plugin->name;
    if (p->series_dropped)
        log_print(LOG_LEVEL_WARN,
                  "runner: %s: warning: point %llu: %llu series values dropped: a point keeps at "
                  "most %d values, and as many samples\n",
                  who, (unsigned long long)p->index, (unsigned long long)p->series_dropped,
                  HOST_SERIES_MAX_PER_POINT);
    if (p->series_bad)
        fprintf(
            stderr,
            "runner: %s: warning: point %llu: %llu progress values or lines ignored (first: %s)\n",
            who, (unsigned long long)p->index, (unsigned long long)p->series_bad,
            p->series_bad_first);
    if (p->sample_interval_s <= 0)
        return;
    store_point_system row = p->system;
    if (!p->system_measured) {
        /* A plugin's point: its thread. A very short one says nothing and
         * would make the table as long as the sweep. */
        if (wall_s < 0.01)
            return;
        row = (store_point_system){ .wall_s = wall_s,
                                    .cpu_s = thread_cpu_s,
                                    .rss_peak_bytes = -1,
                                    .read_bytes = -1,
                                    .written_bytes = -1 };
    }
    store_series_system(p->series, &p->series_key, &row);
}
