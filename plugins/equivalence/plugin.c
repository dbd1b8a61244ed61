/* equivalence plugin: ABI glue around model.c. One point = two rows over
 * the same data and shards: shard gradients combined by weighted average
 * (exact up to rounding) and by plain average (wrong when shards differ).
 * A collective plugin: under mpirun every rank builds the same data, takes
 * its round-robin share of the shards, and a real allreduce combines them. */
#include <runner/plugin.h>

#include <float.h>
#include <stdio.h>
#include <stddef.h>
#include <string.h>

#include "model.h"

enum {
    PARAM_SAMPLES,
    PARAM_FEATURES,
    PARAM_SHARDS,
    PARAM_SPLIT,
    PARAM_SEED,
    PARAM_COUNT
};

static const char *const split_choices[] = { "uneven", "even", NULL };

static const runner_param equivalence_params[] = {
    [PARAM_SAMPLES] = RUNNER_PARAM_INTEGER("samples", "samples",
                                           "number of samples N in the full batch", 10000, 2, 1e8),
    [PARAM_FEATURES] = RUNNER_PARAM_INTEGER(
        "features", "features", "number of features D (X has D + 1 columns with the bias)", 20, 1,
        10000),
    [PARAM_SHARDS] = RUNNER_PARAM_INTEGER(
        "shards", "shards", "number of shards S the samples are split into (at most samples)", 8, 1,
        4096),
    [PARAM_SPLIT] = RUNNER_PARAM_TEXT(
        "split",
        "shard sizes: uneven (in proportion 1 : 2 : ... : S) or even (differ by at most 1)",
        "uneven", split_choices),
    /* The host's seed already mixes every parameter, this one included, so
     * changing it only selects another data set. */
    [PARAM_SEED] = RUNNER_PARAM_INTEGER("seed", "", "replicate index, mixed into the point's seed",
                                        42, 0, 9007199254740992.0),
};
_Static_assert(RUNNER_COUNT(equivalence_params) == PARAM_COUNT, "one entry per PARAM_*");

enum {
    COL_WEIGHTING,
    COL_MAX_ABS_DIFF,
    COL_GRAD_MAX_ABS,
    COL_REL_DIFF,
    COL_REL_DIFF_EPS,
    COL_SHARD_MIN,
    COL_SHARD_MAX,
    COL_RANKS,
    COL_COUNT
};

static const runner_column equivalence_columns[] = {
    [COL_WEIGHTING] =
        RUNNER_COLUMN("weighting", RUNNER_TEXT, "",
                      "how shard gradients are combined: weighted (n_i / N) or plain (1 / S)"),
    [COL_MAX_ABS_DIFF] =
        RUNNER_COLUMN("max_abs_diff", RUNNER_REAL, "",
                      "max_j |combined_j - g_j| against the full-batch gradient g"),
    [COL_GRAD_MAX_ABS] = RUNNER_COLUMN("grad_max_abs", RUNNER_REAL, "",
                                       "max_j |g_j|, the scale of the full-batch gradient"),
    [COL_REL_DIFF] = RUNNER_COLUMN("rel_diff", RUNNER_REAL, "", "max_abs_diff / grad_max_abs"),
    [COL_REL_DIFF_EPS] =
        RUNNER_COLUMN("rel_diff_eps", RUNNER_REAL, "eps",
                      "rel_diff in units of double epsilon 2^-52: a few means rounding"),
    [COL_SHARD_MIN] = RUNNER_COLUMN("shard_min", RUNNER_INTEGER, "samples", "smallest shard size"),
    [COL_SHARD_MAX] = RUNNER_COLUMN("shard_max", RUNNER_INTEGER, "samples", "largest shard size"),
    [COL_RANKS] = RUNNER_COLUMN(
        "ranks", RUNNER_INTEGER, "processes",
        "processes (MPI ranks) the shards were spread over and reduced across; 1 in one process"),
};
_Static_assert(RUNNER_COUNT(equivalence_columns) == COL_COUNT, "one entry per COL_*");

/* The host's rank(), size() and allreduce_sum() were appended to ABI 1:
 * an older runner's table ends before them, and then this is one rank. */
static int host_has_ranks(const runner_host *host)
{
    return host->struct_size >= offsetof(runner_host, allreduce_sum) + sizeof host->allreduce_sum;
}

typedef struct reduce_context {
    const runner_host *host;
    runner_point *point;
} reduce_context;

static int reduce_sum(void *context, double *values, size_t count)
{
    const reduce_context *reduce = context;
    return reduce->host->allreduce_sum(reduce->point, values, count) != RUNNER_OK;
}

/* Sets one row's columns and emits it. Each host call returns RUNNER_OK (0)
 * or RUNNER_ERROR (-1), so OR-ing them keeps any failure; the host has then
 * already failed the point with a message naming the column. */
static int equivalence_emit(const runner_host *host, runner_point *point, const char *weighting,
                            double max_abs_diff, const equivalence_result *result, int ranks)
{
    double rel_diff = max_abs_diff / result->grad_max_abs; /* NaN only if g == 0 */
    int rc = RUNNER_OK;
    rc |= host->set_text(point, COL_WEIGHTING, weighting);
    rc |= host->set_real(point, COL_MAX_ABS_DIFF, max_abs_diff);
    rc |= host->set_real(point, COL_GRAD_MAX_ABS, result->grad_max_abs);
    rc |= host->set_real(point, COL_REL_DIFF, rel_diff);
    rc |= host->set_real(point, COL_REL_DIFF_EPS, rel_diff / DBL_EPSILON);
    rc |= host->set_integer(point, COL_SHARD_MIN, result->shard_min);
    rc |= host->set_integer(point, COL_SHARD_MAX, result->shard_max);
    rc |= host->set_integer(point, COL_RANKS, ranks);
    if (rc != RUNNER_OK)
        return RUNNER_ERROR;
    return host->emit_row(point);
}

static int equivalence_run(const runner_host *host, runner_point *point)
{
    int64_t samples = host->param_integer(point, PARAM_SAMPLES);
    int64_t features = host->param_integer(point, PARAM_FEATURES);
    int64_t shards = host->param_integer(point, PARAM_SHARDS);
    equivalence_split split = strcmp(host->param_text(point, PARAM_SPLIT), "even") == 0
                                  ? EQUIVALENCE_SPLIT_EVEN
                                  : EQUIVALENCE_SPLIT_UNEVEN;
    runner_stop_context stop = { host, point };
    reduce_context reduce = { host, point };
    int rank = host_has_ranks(host) ? host->rank(point) : 0;
    int ranks = host_has_ranks(host) ? host->size(point) : 1;
    equivalence_data *data = NULL;
    equivalence_result result;
    char err[256];
    int rc;

    /* The same on every rank (same parameters), so all fail together. */
    if (shards > samples)
        return host->fail(point,
                          "shards (%lld) exceeds samples (%lld): every "
                          "shard needs at least one sample; lower shards or raise samples",
                          (long long)shards, (long long)samples);

    /* Data from the host's seed only, never from time: same point, same rows
     * (bit-identical on the same machine and BLAS build), and every rank
     * draws the same data set. */
    rc = equivalence_data_new(samples, features, host->seed(point), runner_stop_requested, &stop,
                              &data, err, sizeof err);
    if (ranks > 1) {
        /* Every rank must reach the same reduces: agree first on whether
         * all have their data ([0] out of memory, [1] asked to stop). */
        double trouble[2] = { rc == -1, rc == -2 };
        if (host->allreduce_sum(point, trouble, 2) != RUNNER_OK) {
            equivalence_data_free(data);
            return RUNNER_ERROR; /* the host has failed the point */
        }
        if (rc == 0 && trouble[0] > 0.0)
            snprintf(err, sizeof err, "%.0f of %d ranks could not build the data set", trouble[0],
                     ranks);
        if (trouble[0] > 0.0)
            rc = -1;
        else if (trouble[1] > 0.0)
            rc = -2;
    }
    if (rc == 0)
        rc = equivalence_compare_ranks(data, shards, split, rank, ranks,
                                       ranks > 1 ? reduce_sum : NULL, &reduce,
                                       runner_stop_requested, &stop, &result, err, sizeof err);
    equivalence_data_free(data);
    if (rc == -2)
        return host->fail(point, "interrupted");
    if (rc != 0)
        return host->fail(point, "%s; lower samples or features", err);

    if (equivalence_emit(host, point, "weighted", result.weighted_max_abs_diff, &result, ranks) !=
            RUNNER_OK ||
        equivalence_emit(host, point, "plain", result.plain_max_abs_diff, &result, ranks) !=
            RUNNER_OK)
        return RUNNER_ERROR;
    return RUNNER_OK;
}

static const runner_plugin equivalence_plugin = {
    .abi_version = RUNNER_PLUGIN_ABI,
    .struct_size = sizeof(runner_plugin),
    .name = "equivalence",
    .version = "1.1.0",
    .summary = "full-batch gradient vs shard gradients combined weighted and plain",
    .params = equivalence_params,
    .param_count = RUNNER_COUNT(equivalence_params),
    .columns = equivalence_columns,
    .column_count = RUNNER_COUNT(equivalence_columns),
    .run = equivalence_run,
    .flags = RUNNER_PLUGIN_COLLECTIVE,
};

RUNNER_PLUGIN_DEFINE(equivalence_plugin)
