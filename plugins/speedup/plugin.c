/* speedup plugin: ABI glue around model.c. One point = one row: the speedup
 * of k workers over one, with exact or Monte Carlo straggler waits. */
#include "runner/plugin.h"

#include "model.h"

enum {
    PARAM_BASE,
    PARAM_JITTER,
    PARAM_WORKERS,
    PARAM_TRIALS,
    PARAM_COUNT
};

static const runner_param speedup_params[] = {
    [PARAM_BASE] = RUNNER_PARAM_REAL("base", "s",
        "seconds one worker needs for the whole round's work alone", 30, 0, 1e9),
    [PARAM_JITTER] = RUNNER_PARAM_REAL("jitter", "s",
        "largest extra delay of one worker per round (Uniform(0, jitter))", 2, 0, 1e9),
    [PARAM_WORKERS] = RUNNER_PARAM_INTEGER("workers", "workers",
        "number of workers k sharing the round", 1, 1, 1e7),
    [PARAM_TRIALS] = RUNNER_PARAM_INTEGER("trials", "rounds",
        "0: exact waits J k/(k+1); n > 0: Monte Carlo waits over n rounds each", 0, 0, 1e10),
};

enum {
    COL_WAIT_S,
    COL_ROUND_S,
    COL_SPEEDUP,
    COL_EFFICIENCY,
    COL_CEILING,
    COL_CEILING_AMDAHL,
    COL_KARP_FLATT,
    COL_T1_S,
    COL_COMPUTE_S,
    COL_GUSTAFSON,
    COL_COUNT
};

static const runner_column speedup_columns[] = {
    [COL_WAIT_S] = RUNNER_COLUMN("wait_s", RUNNER_REAL, "s",
        "W(k), mean wait for the slowest of k workers"),
    [COL_ROUND_S] = RUNNER_COLUMN("round_s", RUNNER_REAL, "s",
        "T_k = base / k + W(k)"),
    [COL_SPEEDUP] = RUNNER_COLUMN("speedup", RUNNER_REAL, "",
        "T1 / T_k (NaN if T_k is 0)"),
    [COL_EFFICIENCY] = RUNNER_COLUMN("efficiency", RUNNER_REAL, "fraction",
        "speedup / workers"),
    [COL_CEILING] = RUNNER_COLUMN("ceiling", RUNNER_REAL, "",
        "exact limit of the speedup as k -> inf, (base + jitter/2) / jitter; inf if jitter is 0"),
    [COL_CEILING_AMDAHL] = RUNNER_COLUMN("ceiling_amdahl", RUNNER_REAL, "",
        "Amdahl approximation of the ceiling, base / jitter; inf if jitter is 0"),
    [COL_KARP_FLATT] = RUNNER_COLUMN("karp_flatt", RUNNER_REAL, "fraction",
        "Karp-Flatt serial fraction (1/S - 1/k) / (1 - 1/k); NaN at one worker"),
    [COL_T1_S] = RUNNER_COLUMN("t1_s", RUNNER_REAL, "s",
        "T1 = base + W(1), the one-worker round"),
    [COL_COMPUTE_S] = RUNNER_COLUMN("compute_s", RUNNER_REAL, "s",
        "compute time per worker, base / workers"),
    [COL_GUSTAFSON] = RUNNER_COLUMN("gustafson", RUNNER_REAL, "",
        "Gustafson scaled speedup k - (k - 1) s, serial fraction s = W(k) / T_k"),
};

_Static_assert(RUNNER_COUNT(speedup_params) == PARAM_COUNT, "one entry per PARAM_*");
_Static_assert(RUNNER_COUNT(speedup_columns) == COL_COUNT, "one entry per COL_*");

typedef struct stop_context {
    const runner_host *host;
    runner_point *point;
} stop_context;

static int stop_requested(void *context)
{
    const stop_context *stop = context;
    return stop->host->should_stop(stop->point);
}

static int speedup_run(const runner_host *host, runner_point *point)
{
    double base = host->param_real(point, PARAM_BASE);
    double jitter = host->param_real(point, PARAM_JITTER);
    int64_t workers = host->param_integer(point, PARAM_WORKERS);
    int64_t trials = host->param_integer(point, PARAM_TRIALS);

    double wait_1, wait_k;
    if (trials == 0) {
        wait_1 = straggler_max_delay_exact(jitter, 1);
        wait_k = straggler_max_delay_exact(jitter, workers);
    } else {
        /* One stream from the host's seed: W(1) first, then W(k). */
        runner_rng rng;
        runner_rng_seed(&rng, host->seed(point));
        stop_context stop = { host, point };
        if (straggler_max_delay_mc(&rng, jitter, 1, trials, stop_requested, &stop, &wait_1) != 0)
            return host->fail(point, "interrupted");
        /* One worker is the T1 experiment itself: reusing its estimate keeps
         * S(1) = 1 exactly instead of the ratio of two noisy draws. */
        if (workers == 1)
            wait_k = wait_1;
        else if (straggler_max_delay_mc(&rng, jitter, workers, trials, stop_requested, &stop,
                                        &wait_k) != 0)
            return host->fail(point, "interrupted");
    }

    speedup_row row;
    speedup_row_fill(&row, base, jitter, workers, wait_1, wait_k);
    if (host->set_real(point, COL_WAIT_S, row.wait_s) != RUNNER_OK
        || host->set_real(point, COL_ROUND_S, row.round_s) != RUNNER_OK
        || host->set_real(point, COL_SPEEDUP, row.speedup) != RUNNER_OK
        || host->set_real(point, COL_EFFICIENCY, row.efficiency) != RUNNER_OK
        || host->set_real(point, COL_CEILING, row.ceiling) != RUNNER_OK
        || host->set_real(point, COL_CEILING_AMDAHL, row.ceiling_amdahl) != RUNNER_OK
        || host->set_real(point, COL_KARP_FLATT, row.karp_flatt) != RUNNER_OK
        || host->set_real(point, COL_T1_S, row.t1_s) != RUNNER_OK
        || host->set_real(point, COL_COMPUTE_S, row.compute_s) != RUNNER_OK
        || host->set_real(point, COL_GUSTAFSON, row.gustafson) != RUNNER_OK)
        return RUNNER_ERROR; /* the host has already failed the point */
    return host->emit_row(point);
}

static const runner_plugin speedup_plugin = {
    .abi_version = RUNNER_PLUGIN_ABI,
    .struct_size = sizeof(runner_plugin),
    .name = "speedup",
    .version = "1.0.0",
    .summary = "speedup and its ceiling when every round waits for the slowest worker",
    .params = speedup_params,
    .param_count = RUNNER_COUNT(speedup_params),
    .columns = speedup_columns,
    .column_count = RUNNER_COUNT(speedup_columns),
    .run = speedup_run,
};

RUNNER_PLUGIN_DEFINE(speedup_plugin)
