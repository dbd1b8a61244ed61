/* amdahl: an out-of-tree runner plugin, built against the installed
 * <runner/plugin.h> only (docs/plugin-abi.md walks through it).
 * Amdahl's law: speedup on k workers when a fraction s of the work is serial. */
#include <runner/plugin.h>

enum {
    PARAM_SERIAL_FRACTION,
    PARAM_WORKERS,
    PARAM_COUNT
};
static const runner_param amdahl_params[] = {
    [PARAM_SERIAL_FRACTION] = RUNNER_PARAM_REAL(
        "serial_fraction", "fraction", "share of the work that cannot be split", 0.05, 0, 1),
    [PARAM_WORKERS] = RUNNER_PARAM_INTEGER("workers", "workers", "number of workers", 1, 1, 1e7),
};
_Static_assert(RUNNER_COUNT(amdahl_params) == PARAM_COUNT, "one entry per PARAM_*");

enum {
    COL_SPEEDUP,
    COL_EFFICIENCY,
    COL_CEILING,
    COL_COUNT
};
static const runner_column amdahl_columns[] = {
    [COL_SPEEDUP] = RUNNER_COLUMN("speedup", RUNNER_REAL, "", "1 / (s + (1 - s) / k)"),
    [COL_EFFICIENCY] = RUNNER_COLUMN("efficiency", RUNNER_REAL, "fraction", "speedup / k"),
    [COL_CEILING] =
        RUNNER_COLUMN("ceiling", RUNNER_REAL, "", "1 / s, the speedup as k grows without bound"),
};
_Static_assert(RUNNER_COUNT(amdahl_columns) == COL_COUNT, "one entry per COL_*");

static int amdahl_run(const runner_host *host, runner_point *point)
{
    double s = host->param_real(point, PARAM_SERIAL_FRACTION);
    double k = (double)host->param_integer(point, PARAM_WORKERS);
    double speedup = 1.0 / (s + (1.0 - s) / k);
    int rc = RUNNER_OK;
    rc |= host->set_real(point, COL_SPEEDUP, speedup);
    rc |= host->set_real(point, COL_EFFICIENCY, speedup / k);
    rc |= host->set_real(point, COL_CEILING, s > 0 ? 1.0 / s : HUGE_VAL);
    if (rc != RUNNER_OK)
        return RUNNER_ERROR; /* the host has failed the point, naming the column */
    return host->emit_row(point);
}

static const runner_plugin amdahl_plugin = {
    .abi_version = RUNNER_PLUGIN_ABI,
    .struct_size = sizeof(runner_plugin),
    .name = "amdahl",
    .version = "1.0.0",
    .summary = "Amdahl's law: speedup with a serial fraction",
    .params = amdahl_params,
    .param_count = RUNNER_COUNT(amdahl_params),
    .columns = amdahl_columns,
    .column_count = RUNNER_COUNT(amdahl_columns),
    .run = amdahl_run,
};

RUNNER_PLUGIN_DEFINE(amdahl_plugin)
