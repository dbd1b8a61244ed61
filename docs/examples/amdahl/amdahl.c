/* amdahl: an out-of-tree runner plugin, built against the installed
 * <runner/plugin.h> only (docs/plugin-abi.md walks through it).
 * Amdahl's law: speedup on k workers when a fraction s of the work is serial. */
#include <runner/plugin.h>

enum { P_SERIAL_FRACTION, P_WORKERS };
static const runner_param params[] = {
    RUNNER_PARAM_REAL("serial_fraction", "fraction", "share of the work that cannot be split",
                      0.05, 0, 1),
    RUNNER_PARAM_INTEGER("workers", "workers", "number of workers", 1, 1, 1e7),
};

enum { C_SPEEDUP, C_EFFICIENCY, C_CEILING };
static const runner_column columns[] = {
    RUNNER_COLUMN("speedup", RUNNER_REAL, "", "1 / (s + (1 - s) / k)"),
    RUNNER_COLUMN("efficiency", RUNNER_REAL, "fraction", "speedup / k"),
    RUNNER_COLUMN("ceiling", RUNNER_REAL, "", "1 / s, the speedup as k grows without bound"),
};

static int run(const runner_host *host, runner_point *point)
{
    double s = host->param_real(point, P_SERIAL_FRACTION);
    double k = (double)host->param_integer(point, P_WORKERS);
    double speedup = 1.0 / (s + (1.0 - s) / k);
    host->set_real(point, C_SPEEDUP, speedup);
    host->set_real(point, C_EFFICIENCY, speedup / k);
    host->set_real(point, C_CEILING, s > 0 ? 1.0 / s : HUGE_VAL);
    return host->emit_row(point);
}

static const runner_plugin amdahl = {
    .abi_version = RUNNER_PLUGIN_ABI,
    .struct_size = sizeof(runner_plugin),
    .name = "amdahl",
    .version = "1.0.0",
    .summary = "Amdahl's law: speedup with a serial fraction",
    .params = params,
    .param_count = RUNNER_COUNT(params),
    .columns = columns,
    .column_count = RUNNER_COUNT(columns),
    .run = run,
};

RUNNER_PLUGIN_DEFINE(amdahl)
