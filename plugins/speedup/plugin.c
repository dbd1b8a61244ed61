/* speedup plugin: ABI glue around model.c. One point = one row: the speedup
 * of k workers over one, with exact or Monte Carlo straggler waits and, in
 * the combined model, a ring all-reduce of the gradient every round. */
#include <runner/plugin.h>

#include <string.h>

#include "model.h"

enum {
    PARAM_BASE,
    PARAM_JITTER,
    PARAM_WORKERS,
    PARAM_TRIALS,
    PARAM_MODEL,
    PARAM_SCALING,
    PARAM_MODEL_PARAMS,
    PARAM_BYTES_PER_PARAM,
    PARAM_LATENCY_S,
    PARAM_BANDWIDTH,
    PARAM_REDUCE,
    PARAM_COUNT
};

static const char *const speedup_models[] = { "walkthrough", "combined", NULL };
static const char *const speedup_scalings[] = { "strong", "weak", NULL };

static const runner_param speedup_params[] = {
    [PARAM_BASE] = RUNNER_PARAM_REAL(
        "base", "s", "seconds one worker needs for the whole round's work alone", 30, 0, 1e9),
    [PARAM_JITTER] = RUNNER_PARAM_REAL(
        "jitter", "s", "largest extra delay of one worker per round (Uniform(0, jitter))", 2, 0,
        1e9),
    [PARAM_WORKERS] = RUNNER_PARAM_INTEGER("workers", "workers",
                                           "number of workers k sharing the round", 1, 1, 1e7),
    [PARAM_TRIALS] = RUNNER_PARAM_INTEGER(
        "trials", "rounds", "0: exact waits J k/(k+1); n > 0: Monte Carlo waits over n rounds each",
        0, 0, 1e10),
    [PARAM_MODEL] = RUNNER_PARAM_TEXT(
        "model", "walkthrough: round = compute + wait; combined: compute + ring all-reduce + wait",
        "walkthrough", speedup_models),
    [PARAM_SCALING] = RUNNER_PARAM_TEXT(
        "scaling",
        "strong: each worker computes base / k, S = T1/T_k; weak: each keeps base, "
        "S = k T1/T_k",
        "strong", speedup_scalings),
    [PARAM_MODEL_PARAMS] = RUNNER_PARAM_INTEGER(
        "model_params", "params",
        "parameters whose gradient is all-reduced each round (combined; ResNet-101 44.5e6)",
        44500000, 1, 1e15),
    [PARAM_BYTES_PER_PARAM] = RUNNER_PARAM_INTEGER(
        "bytes_per_param", "bytes", "bytes per gradient entry (combined; 4 = float32)", 4, 1, 64),
    [PARAM_LATENCY_S] = RUNNER_PARAM_REAL(
        "latency_s", "s", "alpha: start-up time of one message (combined)", 5e-6, 0, 1e3),
    [PARAM_BANDWIDTH] = RUNNER_PARAM_REAL(
        "bandwidth_bytes_per_s", "bytes/s",
        "1/beta: link bytes per second, each direction (combined; 3.125e9 = 25 Gb/s)", 3.125e9, 1,
        1e15),
    [PARAM_REDUCE] =
        RUNNER_PARAM_REAL("reduce_bytes_per_s", "bytes/s",
                          "1/gamma: bytes per second one worker reduces (combined)", 1e11, 1, 1e15),
};
_Static_assert(RUNNER_COUNT(speedup_params) == PARAM_COUNT, "one entry per PARAM_*");

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
    COL_COMM_S,
    COL_COMM_SHARE,
    COL_COUNT
};

static const runner_column speedup_columns[] = {
    [COL_WAIT_S] =
        RUNNER_COLUMN("wait_s", RUNNER_REAL, "s", "W(k), mean wait for the slowest of k workers"),
    [COL_ROUND_S] = RUNNER_COLUMN("round_s", RUNNER_REAL, "s", "T_k = compute_s + comm_s + W(k)"),
    [COL_SPEEDUP] = RUNNER_COLUMN("speedup", RUNNER_REAL, "",
                                  "T1 / T_k, or k T1 / T_k under weak scaling (NaN if T_k is 0)"),
    [COL_EFFICIENCY] = RUNNER_COLUMN("efficiency", RUNNER_REAL, "fraction", "speedup / workers"),
    [COL_CEILING] = RUNNER_COLUMN(
        "ceiling", RUNNER_REAL, "",
        "exact limit of the speedup as k -> inf: walk-through (base + jitter/2) / jitter, "
        "inf if jitter is 0; see docs for combined and weak"),
    [COL_CEILING_AMDAHL] =
        RUNNER_COLUMN("ceiling_amdahl", RUNNER_REAL, "",
                      "Amdahl approximation of the ceiling, base / jitter; inf if jitter is 0; "
                      "NaN unless walkthrough and strong"),
    [COL_KARP_FLATT] =
        RUNNER_COLUMN("karp_flatt", RUNNER_REAL, "fraction",
                      "Karp-Flatt serial fraction (1/S - 1/k) / (1 - 1/k); NaN at one worker"),
    [COL_T1_S] = RUNNER_COLUMN("t1_s", RUNNER_REAL, "s",
                               "T1 = base + W(1), the one-worker round (it communicates nothing)"),
    [COL_COMPUTE_S] =
        RUNNER_COLUMN("compute_s", RUNNER_REAL, "s",
                      "compute time per worker, base / workers (strong) or base (weak)"),
    [COL_GUSTAFSON] = RUNNER_COLUMN(
        "gustafson", RUNNER_REAL, "",
        "Gustafson scaled speedup k - (k - 1) s, serial fraction s = (W(k) + comm_s) / T_k"),
    [COL_COMM_S] = RUNNER_COLUMN(
        "comm_s", RUNNER_REAL, "s",
        "ring all-reduce of model_params * bytes_per_param bytes (combined); 0 in walkthrough"),
    [COL_COMM_SHARE] = RUNNER_COLUMN("comm_share", RUNNER_REAL, "fraction",
                                     "comm_s / round_s (NaN if round_s is 0)"),
};
_Static_assert(RUNNER_COUNT(speedup_columns) == COL_COUNT, "one entry per COL_*");

/* Sets the row's columns and emits it. Each host call returns RUNNER_OK (0)
 * or RUNNER_ERROR (-1), so OR-ing them keeps any failure; the host has then
 * already failed the point with a message naming the column. */
static int speedup_emit(const runner_host *host, runner_point *point, const speedup_row *row)
{
    int rc = RUNNER_OK;
    rc |= host->set_real(point, COL_WAIT_S, row->wait_s);
    rc |= host->set_real(point, COL_ROUND_S, row->round_s);
    rc |= host->set_real(point, COL_SPEEDUP, row->speedup);
    rc |= host->set_real(point, COL_EFFICIENCY, row->efficiency);
    rc |= host->set_real(point, COL_CEILING, row->ceiling);
    rc |= host->set_real(point, COL_CEILING_AMDAHL, row->ceiling_amdahl);
    rc |= host->set_real(point, COL_KARP_FLATT, row->karp_flatt);
    rc |= host->set_real(point, COL_T1_S, row->t1_s);
    rc |= host->set_real(point, COL_COMPUTE_S, row->compute_s);
    rc |= host->set_real(point, COL_GUSTAFSON, row->gustafson);
    rc |= host->set_real(point, COL_COMM_S, row->comm_s);
    rc |= host->set_real(point, COL_COMM_SHARE, row->comm_share);
    if (rc != RUNNER_OK)
        return RUNNER_ERROR;
    return host->emit_row(point);
}

static int speedup_run(const runner_host *host, runner_point *point)
{
    double base = host->param_real(point, PARAM_BASE);
    double jitter = host->param_real(point, PARAM_JITTER);
    int64_t workers = host->param_integer(point, PARAM_WORKERS);
    int64_t trials = host->param_integer(point, PARAM_TRIALS);
    speedup_setup setup = {
        .model = strcmp(host->param_text(point, PARAM_MODEL), "combined") == 0
                     ? SPEEDUP_MODEL_COMBINED : SPEEDUP_MODEL_WALKTHROUGH,
        .scaling = strcmp(host->param_text(point, PARAM_SCALING), "weak") == 0
                       ? SPEEDUP_SCALING_WEAK : SPEEDUP_SCALING_STRONG,
        .base = base,
        .jitter = jitter,
        .workers = workers,
        .net = {
            .latency_s = host->param_real(point, PARAM_LATENCY_S),
            .bandwidth_bytes_per_s = host->param_real(point, PARAM_BANDWIDTH),
            .reduce_bytes_per_s = host->param_real(point, PARAM_REDUCE),
            .servers = 1,
        },
    };
    int64_t copy_bytes;
    /* At most 1e15 x 64 bytes: always fits, but say so if that ever changes. */
    if (comm_copy_bytes(host->param_integer(point, PARAM_MODEL_PARAMS),
                        host->param_integer(point, PARAM_BYTES_PER_PARAM), &copy_bytes) != 0)
        return host->fail(point, "model_params x bytes_per_param exceeds int64 bytes");
    setup.copy_bytes = (double)copy_bytes;

    double wait_1, wait_k;
    if (trials == 0) {
        wait_1 = straggler_max_delay_exact(jitter, 1);
        wait_k = straggler_max_delay_exact(jitter, workers);
    } else {
        /* One stream from the host's seed: W(1) first, then W(k). */
        runner_rng rng;
        runner_rng_seed(&rng, host->seed(point));
        runner_stop_context stop = { host, point };
        if (straggler_max_delay_mc(&rng, jitter, 1, trials, runner_stop_requested, &stop,
                                   &wait_1) != 0)
            return host->fail(point, "interrupted");
        /* One worker is the T1 experiment itself: reusing its estimate keeps
         * S(1) = 1 exactly instead of the ratio of two noisy draws. */
        if (workers == 1)
            wait_k = wait_1;
        else if (straggler_max_delay_mc(&rng, jitter, workers, trials, runner_stop_requested, &stop,
                                        &wait_k) != 0)
            return host->fail(point, "interrupted");
    }

    speedup_row row;
    speedup_row_fill_setup(&row, &setup, wait_1, wait_k);
    return speedup_emit(host, point, &row);
}

static const runner_plugin speedup_plugin = {
    .abi_version = RUNNER_PLUGIN_ABI,
    .struct_size = sizeof(runner_plugin),
    .name = "speedup",
    .version = "1.1.0",
    .summary = "speedup and its ceiling when every round waits for the slowest worker "
               "(and, combined, all-reduces the gradient)",
    .params = speedup_params,
    .param_count = RUNNER_COUNT(speedup_params),
    .columns = speedup_columns,
    .column_count = RUNNER_COUNT(speedup_columns),
    .run = speedup_run,
};

RUNNER_PLUGIN_DEFINE(speedup_plugin)
