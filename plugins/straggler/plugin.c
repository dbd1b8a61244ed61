/* straggler plugin: ABI glue around straggler_model.c (runner_models). One
 * point = one row: the Monte Carlo and exact waits of a round of k workers
 * under one delay law, synchronous (optionally with backup workers) or with
 * bounded staleness. */
#include <runner/plugin.h>

#include "straggler_model.h"

enum {
    PARAM_BASE,
    PARAM_JITTER,
    PARAM_WORKERS,
    PARAM_TRIALS,
    PARAM_SEED,
    PARAM_LAW,
    PARAM_MEAN_DELAY_S,
    PARAM_LOGNORMAL_SIGMA,
    PARAM_PARETO_ALPHA,
    PARAM_PARETO_SCALE_S,
    PARAM_BACKUPS,
    PARAM_STALENESS,
    PARAM_COUNT
};

/* In straggler_law order. */
static const char *const law_choices[] = { "uniform", "exponential", "lognormal", "pareto", NULL };

/* Every default keeps the original model (uniform, synchronous, no
 * backups); the other laws' defaults all have a mean delay of 1 s, the mean
 * of the default Uniform(0, 2). */
static const runner_param straggler_params[] = {
    [PARAM_BASE] = RUNNER_PARAM_REAL(
        "base", "s", "seconds one worker needs for the whole round's work alone", 30, 0, 1e9),
    [PARAM_JITTER] = RUNNER_PARAM_REAL(
        "jitter", "s",
        "law uniform: largest extra delay of one worker per round, Uniform(0, jitter)", 2, 0, 1e9),
    [PARAM_WORKERS] = RUNNER_PARAM_INTEGER("workers", "workers",
                                           "number of workers k sharing the round", 1, 1, 1e7),
    [PARAM_TRIALS] = RUNNER_PARAM_INTEGER("trials", "rounds", "Monte Carlo rounds", 4000, 1, 1e10),
    /* The host's seed already mixes every parameter, this one included, so
     * changing it only selects another replicate. */
    [PARAM_SEED] = RUNNER_PARAM_INTEGER("seed", "", "replicate index, mixed into the point's seed",
                                        1, 0, 9007199254740992.0),
    [PARAM_LAW] = RUNNER_PARAM_TEXT(
        "law",
        "delay law: uniform (0, jitter), exponential or lognormal (mean mean_delay_s), "
        "pareto (pareto_scale_s, pareto_alpha)",
        "uniform", law_choices),
    [PARAM_MEAN_DELAY_S] = RUNNER_PARAM_REAL(
        "mean_delay_s", "s", "mean delay of one worker for the exponential and lognormal laws", 1,
        0, 1e9),
    [PARAM_LOGNORMAL_SIGMA] = RUNNER_PARAM_REAL(
        "lognormal_sigma", "",
        "lognormal: standard deviation of ln(delay); median = mean_delay_s exp(-sigma^2/2)", 1, 0,
        10),
    [PARAM_PARETO_ALPHA] = RUNNER_PARAM_REAL(
        "pareto_alpha", "",
        "Pareto tail index alpha: P(delay > x) = (x_m / x)^alpha; infinite mean for alpha <= 1",
        2.5, 0.1, 1000),
    [PARAM_PARETO_SCALE_S] = RUNNER_PARAM_REAL(
        "pareto_scale_s", "s",
        "Pareto scale x_m, the smallest delay (mean alpha x_m / (alpha - 1))", 0.6, 0, 1e9),
    [PARAM_BACKUPS] = RUNNER_PARAM_INTEGER(
        "backups", "workers",
        "backup workers b: k + b run, the round waits for the fastest k (Chen et al. 2016)", 0, 0,
        1e7),
    [PARAM_STALENESS] = RUNNER_PARAM_INTEGER(
        "staleness", "rounds",
        "SSP bound s: a worker waits only when more than s rounds ahead of the slowest "
        "(Ho et al. 2013); 0 = synchronous",
        0, 0, 1e6),
};
_Static_assert(RUNNER_COUNT(straggler_params) == PARAM_COUNT, "one entry per PARAM_*");

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
    COL_DELAY_MEAN_S,
    COL_MAX_DELAY_SAMPLE_STDERR_S,
    COL_ORDER_STAT_S,
    COL_ORDER_STAT_EXACT_S,
    COL_ORDER_STAT_STDERR_S,
    COL_ORDER_STAT_SAMPLE_STDERR_S,
    COL_WAIT_S,
    COL_MEAN_STALENESS_ROUNDS,
    COL_COUNT
};

static const runner_column straggler_columns[] = {
    [COL_COMPUTE_S] =
        RUNNER_COLUMN("compute_s", RUNNER_REAL, "s", "compute time per worker, base / workers"),
    [COL_MAX_DELAY_S] =
        RUNNER_COLUMN("max_delay_s", RUNNER_REAL, "s",
                      "Monte Carlo mean of the slowest of the k workers' delays (backups aside)"),
    [COL_MAX_DELAY_EXACT_S] = RUNNER_COLUMN(
        "max_delay_exact_s", RUNNER_REAL, "s",
        "exact mean of the slowest of k delays (uniform jitter k/(k+1)); NaN for lognormal, "
        "+inf for Pareto alpha <= 1"),
    [COL_MAX_DELAY_STDERR_S] = RUNNER_COLUMN(
        "max_delay_stderr_s", RUNNER_REAL, "s",
        "standard error of max_delay_s from the law's exact sd / sqrt(trials); NaN for "
        "lognormal, +inf for Pareto alpha <= 2"),
    [COL_ROUND_S] = RUNNER_COLUMN(
        "round_s", RUNNER_REAL, "s",
        "round time, compute_s + wait_s (staleness > 0: time for all to finish / trials)"),
    [COL_ROUND_EXACT_S] = RUNNER_COLUMN("round_exact_s", RUNNER_REAL, "s",
                                        "compute_s + order_stat_exact_s; NaN when staleness > 0"),
    [COL_WAIT_SHARE] =
        RUNNER_COLUMN("wait_share", RUNNER_REAL, "fraction",
                      "share of the round spent waiting, wait_s / round_s (NaN if round_s is 0)"),
    [COL_WAIT_SHARE_EXACT] = RUNNER_COLUMN(
        "wait_share_exact", RUNNER_REAL, "fraction",
        "order_stat_exact_s / round_exact_s (NaN if undefined, 1 if the wait is infinite)"),
    [COL_SAMPLES] = RUNNER_COLUMN("samples", RUNNER_INTEGER, "samples",
                                  "delays drawn, (workers + backups) * trials"),
    [COL_DELAY_MEAN_S] = RUNNER_COLUMN(
        "delay_mean_s", RUNNER_REAL, "s",
        "exact mean of one worker's delay under the law (+inf for Pareto alpha <= 1)"),
    [COL_MAX_DELAY_SAMPLE_STDERR_S] = RUNNER_COLUMN(
        "max_delay_sample_stderr_s", RUNNER_REAL, "s",
        "standard error of max_delay_s from the sample sd / sqrt(trials); NaN for one trial"),
    [COL_ORDER_STAT_S] = RUNNER_COLUMN(
        "order_stat_s", RUNNER_REAL, "s",
        "Monte Carlo mean of the k-th fastest of k + backups delays (= max_delay_s if none)"),
    [COL_ORDER_STAT_EXACT_S] = RUNNER_COLUMN(
        "order_stat_exact_s", RUNNER_REAL, "s",
        "exact mean of the k-th fastest of k + backups delays; NaN for lognormal, +inf for "
        "Pareto alpha (backups + 1) <= 1"),
    [COL_ORDER_STAT_STDERR_S] = RUNNER_COLUMN(
        "order_stat_stderr_s", RUNNER_REAL, "s",
        "standard error of order_stat_s from the exact sd / sqrt(trials); NaN for lognormal, "
        "+inf for Pareto alpha (backups + 1) <= 2"),
    [COL_ORDER_STAT_SAMPLE_STDERR_S] =
        RUNNER_COLUMN("order_stat_sample_stderr_s", RUNNER_REAL, "s",
                      "standard error of order_stat_s from the sample sd / sqrt(trials)"),
    [COL_WAIT_S] =
        RUNNER_COLUMN("wait_s", RUNNER_REAL, "s",
                      "mean wait per round: order_stat_s; with staleness > 0, round_s - compute_s"),
    [COL_MEAN_STALENESS_ROUNDS] = RUNNER_COLUMN(
        "mean_staleness_rounds", RUNNER_REAL, "rounds",
        "mean over worker-rounds of the rounds still unfinished by some worker when a "
        "worker starts one (0 to staleness; 0 when synchronous)"),
};
_Static_assert(RUNNER_COUNT(straggler_columns) == COL_COUNT, "one entry per COL_*");

/* Sets the row's columns and emits it. Each host call returns RUNNER_OK (0)
 * or RUNNER_ERROR (-1), so OR-ing them keeps any failure; the host has then
 * already failed the point with a message naming the column. */
static int straggler_emit(const runner_host *host, runner_point *point, const straggler_result *row)
{
    int rc = RUNNER_OK;
    rc |= host->set_real(point, COL_COMPUTE_S, row->compute_s);
    rc |= host->set_real(point, COL_MAX_DELAY_S, row->max_delay_s);
    rc |= host->set_real(point, COL_MAX_DELAY_EXACT_S, row->max_delay_exact_s);
    rc |= host->set_real(point, COL_MAX_DELAY_STDERR_S, row->max_delay_stderr_s);
    rc |= host->set_real(point, COL_ROUND_S, row->round_s);
    rc |= host->set_real(point, COL_ROUND_EXACT_S, row->round_exact_s);
    rc |= host->set_real(point, COL_WAIT_SHARE, row->wait_share);
    rc |= host->set_real(point, COL_WAIT_SHARE_EXACT, row->wait_share_exact);
    rc |= host->set_integer(point, COL_SAMPLES, row->samples);
    rc |= host->set_real(point, COL_DELAY_MEAN_S, row->delay_mean_s);
    rc |= host->set_real(point, COL_MAX_DELAY_SAMPLE_STDERR_S, row->max_delay_sample_stderr_s);
    rc |= host->set_real(point, COL_ORDER_STAT_S, row->order_stat_s);
    rc |= host->set_real(point, COL_ORDER_STAT_EXACT_S, row->order_stat_exact_s);
    rc |= host->set_real(point, COL_ORDER_STAT_STDERR_S, row->order_stat_stderr_s);
    rc |= host->set_real(point, COL_ORDER_STAT_SAMPLE_STDERR_S, row->order_stat_sample_stderr_s);
    rc |= host->set_real(point, COL_WAIT_S, row->wait_s);
    rc |= host->set_real(point, COL_MEAN_STALENESS_ROUNDS, row->mean_staleness_rounds);
    if (rc != RUNNER_OK)
        return RUNNER_ERROR;
    return host->emit_row(point);
}

static int straggler_run(const runner_host *host, runner_point *point)
{
    double base = host->param_real(point, PARAM_BASE);
    int64_t workers = host->param_integer(point, PARAM_WORKERS);
    int64_t trials = host->param_integer(point, PARAM_TRIALS);
    int64_t backups = host->param_integer(point, PARAM_BACKUPS);
    int64_t staleness = host->param_integer(point, PARAM_STALENESS);
    int law = straggler_law_parse(host->param_text(point, PARAM_LAW));

    straggler_delay delay = { .law = (straggler_law)law };
    switch (law) {
    case STRAGGLER_UNIFORM: delay.scale = host->param_real(point, PARAM_JITTER); break;
    case STRAGGLER_EXPONENTIAL: delay.scale = host->param_real(point, PARAM_MEAN_DELAY_S); break;
    case STRAGGLER_LOGNORMAL:
        delay.scale = host->param_real(point, PARAM_MEAN_DELAY_S);
        delay.shape = host->param_real(point, PARAM_LOGNORMAL_SIGMA);
        break;
    case STRAGGLER_PARETO:
        delay.scale = host->param_real(point, PARAM_PARETO_SCALE_S);
        delay.shape = host->param_real(point, PARAM_PARETO_ALPHA);
        break;
    default: /* the host checked the choices: a new one without a case here */
        return host->fail(point, "law '%s' is not implemented", host->param_text(point, PARAM_LAW));
    }
    if (backups > 0 && staleness > 0)
        return host->fail(point,
                          "backups (%lld) and staleness (%lld) cannot be combined: backup "
                          "workers keep rounds synchronous; set one of them to 0",
                          (long long)backups, (long long)staleness);

    /* Seeded only from the host, never from time: same point, same row. */
    runner_rng rng;
    runner_rng_seed(&rng, host->seed(point));
    runner_stop_context stop = { host, point };
    straggler_mc mc;
    int status = staleness > 0
                     ? straggler_ssp_mc(&rng, &delay, base / (double)workers, workers, staleness,
                                        trials, runner_stop_requested, &stop, &mc)
                     : straggler_sync_mc(&rng, &delay, workers, backups, trials,
                                         runner_stop_requested, &stop, &mc);
    if (status == STRAGGLER_STOPPED)
        return host->fail(point, "interrupted");
    if (status != 0)
        return host->fail(point, "out of memory for %lld workers, %lld backups, staleness %lld",
                          (long long)workers, (long long)backups, (long long)staleness);

    straggler_result row;
    straggler_result_fill(&row, &delay, base, workers, backups, staleness, trials, &mc);
    return straggler_emit(host, point, &row);
}

static const runner_plugin straggler_plugin = {
    .abi_version = RUNNER_PLUGIN_ABI,
    .struct_size = sizeof(runner_plugin),
    .name = "straggler",
    .version = "1.1.0",
    .summary = "a round waits for the slowest of k delayed workers: four delay laws, backups, "
               "bounded staleness",
    .params = straggler_params,
    .param_count = RUNNER_COUNT(straggler_params),
    .columns = straggler_columns,
    .column_count = RUNNER_COUNT(straggler_columns),
    .run = straggler_run,
};

RUNNER_PLUGIN_DEFINE(straggler_plugin)
