/* straggler plugin: ABI glue around model.c. One point = one row: the
 * Monte Carlo and exact waits of a synchronous round of k workers. */
#include "runner/plugin.h"

#include "model.h"

enum {
    PARAM_BASE,
    PARAM_JITTER,
    PARAM_WORKERS,
    PARAM_TRIALS,
    PARAM_SEED,
    PARAM_COUNT
};

static const runner_param straggler_params[] = {
    [PARAM_BASE] = RUNNER_PARAM_REAL("base", "s",
        "seconds one worker needs for the whole round's work alone", 30, 0, 1e9),
    [PARAM_JITTER] = RUNNER_PARAM_REAL("jitter", "s",
        "largest extra delay of one worker per round (Uniform(0, jitter))", 2, 0, 1e9),
    [PARAM_WORKERS] = RUNNER_PARAM_INTEGER("workers", "workers",
        "number of workers k sharing the round", 1, 1, 1e7),
    [PARAM_TRIALS] = RUNNER_PARAM_INTEGER("trials", "rounds",
        "Monte Carlo rounds", 4000, 1, 1e10),
    /* The host's seed already mixes every parameter, this one included, so
     * changing it only selects another replicate. */
    [PARAM_SEED] = RUNNER_PARAM_INTEGER("seed", "",
        "replicate index, mixed into the point's seed", 1, 0, 9007199254740992.0),
};

enum {
    COL_COMPUTE_S,
    COL_MAX_DELAY_S,
    COL_MAX_DELAY_EXACT_S,
    COL_MAX_DELAY_STDERR_S,
    COL_ROUND_S,
    COL_ROUND_EXACT_S,
    COL_WAIT_SHARE,
    COL_WAIT_SHARE_EXACT,
    COL_SAMPLES,
    COL_COUNT
};

static const runner_column straggler_columns[] = {
    [COL_COMPUTE_S] = RUNNER_COLUMN("compute_s", RUNNER_REAL, "s",
        "compute time per worker, base / workers"),
    [COL_MAX_DELAY_S] = RUNNER_COLUMN("max_delay_s", RUNNER_REAL, "s",
        "Monte Carlo mean of the slowest worker's delay"),
    [COL_MAX_DELAY_EXACT_S] = RUNNER_COLUMN("max_delay_exact_s", RUNNER_REAL, "s",
        "exact mean of the slowest delay, jitter * k / (k + 1)"),
    [COL_MAX_DELAY_STDERR_S] = RUNNER_COLUMN("max_delay_stderr_s", RUNNER_REAL, "s",
        "standard error of max_delay_s (exact sd / sqrt(trials))"),
    [COL_ROUND_S] = RUNNER_COLUMN("round_s", RUNNER_REAL, "s",
        "round time, compute_s + max_delay_s"),
    [COL_ROUND_EXACT_S] = RUNNER_COLUMN("round_exact_s", RUNNER_REAL, "s",
        "round time with the exact delay, compute_s + max_delay_exact_s"),
    [COL_WAIT_SHARE] = RUNNER_COLUMN("wait_share", RUNNER_REAL, "fraction",
        "share of the round spent waiting, max_delay_s / round_s (NaN if round_s is 0)"),
    [COL_WAIT_SHARE_EXACT] = RUNNER_COLUMN("wait_share_exact", RUNNER_REAL, "fraction",
        "max_delay_exact_s / round_exact_s (NaN if round_exact_s is 0)"),
    [COL_SAMPLES] = RUNNER_COLUMN("samples", RUNNER_INTEGER, "samples",
        "delays drawn, workers * trials"),
};

_Static_assert(RUNNER_COUNT(straggler_params) == PARAM_COUNT, "one entry per PARAM_*");
_Static_assert(RUNNER_COUNT(straggler_columns) == COL_COUNT, "one entry per COL_*");

typedef struct stop_context {
    const runner_host *host;
    runner_point *point;
} stop_context;

static int stop_requested(void *context)
{
    const stop_context *stop = context;
    return stop->host->should_stop(stop->point);
}

static int straggler_run(const runner_host *host, runner_point *point)
{
    double base = host->param_real(point, PARAM_BASE);
    double jitter = host->param_real(point, PARAM_JITTER);
    int64_t workers = host->param_integer(point, PARAM_WORKERS);
    int64_t trials = host->param_integer(point, PARAM_TRIALS);

    /* Seeded only from the host, never from time: same point, same row. */
    runner_rng rng;
    runner_rng_seed(&rng, host->seed(point));
    stop_context stop = { host, point };
    double max_delay;
    if (straggler_max_delay_mc(&rng, jitter, workers, trials, stop_requested, &stop,
                               &max_delay) != 0)
        return host->fail(point, "interrupted");

    straggler_row row;
    straggler_row_fill(&row, base, jitter, workers, trials, max_delay);
    if (host->set_real(point, COL_COMPUTE_S, row.compute_s) != RUNNER_OK
        || host->set_real(point, COL_MAX_DELAY_S, row.max_delay_s) != RUNNER_OK
        || host->set_real(point, COL_MAX_DELAY_EXACT_S, row.max_delay_exact_s) != RUNNER_OK
        || host->set_real(point, COL_MAX_DELAY_STDERR_S, row.max_delay_stderr_s) != RUNNER_OK
        || host->set_real(point, COL_ROUND_S, row.round_s) != RUNNER_OK
        || host->set_real(point, COL_ROUND_EXACT_S, row.round_exact_s) != RUNNER_OK
        || host->set_real(point, COL_WAIT_SHARE, row.wait_share) != RUNNER_OK
        || host->set_real(point, COL_WAIT_SHARE_EXACT, row.wait_share_exact) != RUNNER_OK
        || host->set_integer(point, COL_SAMPLES, row.samples) != RUNNER_OK)
        return RUNNER_ERROR; /* the host has already failed the point */
    return host->emit_row(point);
}

static const runner_plugin straggler_plugin = {
    .abi_version = RUNNER_PLUGIN_ABI,
    .struct_size = sizeof(runner_plugin),
    .name = "straggler",
    .version = "1.0.0",
    .summary = "a synchronous round waits for the slowest of k uniformly delayed workers",
    .params = straggler_params,
    .param_count = RUNNER_COUNT(straggler_params),
    .columns = straggler_columns,
    .column_count = RUNNER_COUNT(straggler_columns),
    .run = straggler_run,
};

RUNNER_PLUGIN_DEFINE(straggler_plugin)
