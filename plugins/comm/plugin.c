/* comm plugin: ABI glue around comm_model.c (runner_models). One point =
 * one row per scheme: by default the walk-through's two (parameter server,
 * ring all-reduce), with schemes = "all" four all-reduce algorithms more, so
 * a sweep over workers or sizes puts every curve in one table. Byte counts
 * are stored exactly as integers; MiB and GiB columns are binary (2^20, 2^30
 * bytes) and only for reading; times are alpha-beta predictions in seconds.
 * With measure = true the point also times a real allreduce across the ranks
 * runner runs on (mpirun), beside the prediction: the plugin is collective
 * for that. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <runner/plugin.h>

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "comm_model.h"

enum {
    PARAM_MODEL_PARAMS,
    PARAM_BYTES_PER_PARAM,
    PARAM_WORKERS,
    PARAM_LATENCY_S,
    PARAM_BANDWIDTH,
    PARAM_REDUCE,
    PARAM_SERVERS,
    PARAM_SCHEMES,
    PARAM_MEASURE,
    PARAM_COUNT
};

static const char *const comm_scheme_sets[] = { "walkthrough", "all", NULL };

static const runner_param comm_params[] = {
    [PARAM_MODEL_PARAMS] = RUNNER_PARAM_INTEGER("model_params", "params",
                                                "number of model parameters P", 1000000, 1, 1e15),
    [PARAM_BYTES_PER_PARAM] =
        RUNNER_PARAM_INTEGER("bytes_per_param", "bytes",
                             "bytes per parameter (4 = float32, 2 = float16/bfloat16)", 4, 1, 64),
    [PARAM_WORKERS] = RUNNER_PARAM_INTEGER(
        "workers", "workers", "number of workers k exchanging gradients each round", 8, 1, 1e7),
    [PARAM_LATENCY_S] =
        RUNNER_PARAM_REAL("latency_s", "s", "alpha: start-up time of one message", 5e-6, 0, 1e3),
    [PARAM_BANDWIDTH] = RUNNER_PARAM_REAL(
        "bandwidth_bytes_per_s", "bytes/s",
        "1/beta: bytes per second of every link, each direction (12.5e9 = 100 Gb/s)", 12.5e9, 1,
        1e15),
    [PARAM_REDUCE] = RUNNER_PARAM_REAL(
        "reduce_bytes_per_s", "bytes/s",
        "1/gamma: bytes per second one node reduces (adds) into its buffer", 1e11, 1, 1e15),
    [PARAM_SERVERS] = RUNNER_PARAM_INTEGER(
        "servers", "servers",
        "parameter-server shards s, each holding 1/s of the weights (ps only)", 1, 1, 1e7),
    [PARAM_SCHEMES] =
        RUNNER_PARAM_TEXT("schemes",
                          "walkthrough: ps, ring; all: also recursive_doubling, halving_doubling, "
                          "binary_tree, double_binary_tree",
                          "walkthrough", comm_scheme_sets),
    [PARAM_MEASURE] = RUNNER_PARAM_BOOLEAN(
        "measure",
        "also time a real allreduce of model_params doubles across the ranks (mpirun -np N)", 0),
};
_Static_assert(RUNNER_COUNT(comm_params) == PARAM_COUNT, "one entry per PARAM_*");

enum {
    COL_SCHEME,
    COL_BYTES_PER_ROUND,
    COL_COUNTED_AT,
    COL_COPY_BYTES,
    COL_COPIES_PER_ROUND,
    COL_MIB_PER_ROUND,
    COL_GIB_PER_ROUND,
    COL_CLUSTER_BYTES_PER_ROUND,
    COL_BUSIEST_LINK_BYTES,
    COL_ROUNDING_BYTES,
    COL_TIME_S,
    COL_LATENCY_TERM_S,
    COL_BANDWIDTH_TERM_S,
    COL_REDUCTION_TERM_S,
    COL_LATENCY_STEPS,
    COL_ALGBW,
    COL_BUSBW,
    COL_RING_CROSSOVER,
    COL_FASTEST_FROM,
    COL_FASTEST_TO,
    COL_FASTEST,
    COL_MEASURED_RANKS,
    COL_MEASURED_BYTES,
    COL_MEASURED_TIME_S,
    COL_MEASURED_ALGBW,
    COL_MEASURED_BUSBW,
    COL_COUNT
};

static const runner_column comm_columns[] = {
    [COL_SCHEME] =
        RUNNER_COLUMN("scheme", RUNNER_TEXT, "",
                      "exchange scheme: ps (parameter server), ring; with schemes = all also "
                      "recursive_doubling, halving_doubling, binary_tree, double_binary_tree"),
    [COL_BYTES_PER_ROUND] = RUNNER_COLUMN(
        "bytes_per_round", RUNNER_INTEGER, "bytes",
        "bytes per round where counted_at says, as the bandwidth term charges them: ps "
        "2 W k / servers, ring 2 (k-1) W / k, ...; nearest integer if not exact "
        "(see rounding_bytes)"),
    [COL_COUNTED_AT] =
        RUNNER_COLUMN("counted_at", RUNNER_TEXT, "",
                      "where bytes_per_round is counted: server (ps; worker if servers > workers), "
                      "worker, or root (binary_tree)"),
    [COL_COPY_BYTES] = RUNNER_COLUMN("copy_bytes", RUNNER_INTEGER, "bytes",
                                     "one copy of the weights, W = model_params * bytes_per_param"),
    [COL_COPIES_PER_ROUND] = RUNNER_COLUMN(
        "copies_per_round", RUNNER_REAL, "copies",
        "bytes per round in copies of the weights: ps 2 k / servers, ring 2 (k-1) / k, "
        "recursive_doubling ceil(lg k), binary_tree 2 ceil(lg k), double_binary_tree 2"),
    [COL_MIB_PER_ROUND] =
        RUNNER_COLUMN("mib_per_round", RUNNER_REAL, "MiB", "exact bytes per round / 2^20"),
    [COL_GIB_PER_ROUND] =
        RUNNER_COLUMN("gib_per_round", RUNNER_REAL, "GiB", "exact bytes per round / 2^30"),
    [COL_CLUSTER_BYTES_PER_ROUND] =
        RUNNER_COLUMN("cluster_bytes_per_round", RUNNER_INTEGER, "bytes",
                      "bytes sent by all nodes together per round: ps 2 W k, ring 2 (k-1) W"),
    [COL_BUSIEST_LINK_BYTES] = RUNNER_COLUMN(
        "busiest_link_bytes", RUNNER_INTEGER, "bytes",
        "bytes one direction of the busiest link carries per round (nearest integer): "
        "ps k W / servers, ring as bytes_per_round (each worker)"),
    [COL_ROUNDING_BYTES] = RUNNER_COLUMN(
        "rounding_bytes", RUNNER_REAL, "bytes",
        "exact minus stored bytes_per_round (and ring busiest_link_bytes), in [-0.5, 0.5); "
        "0 when exact"),
    [COL_TIME_S] = RUNNER_COLUMN(
        "time_s", RUNNER_REAL, "s",
        "alpha-beta time of the round, latency + bandwidth + reduction terms, n = copy_bytes"),
    [COL_LATENCY_TERM_S] =
        RUNNER_COLUMN("latency_term_s", RUNNER_REAL, "s", "latency_steps * latency_s"),
    [COL_BANDWIDTH_TERM_S] = RUNNER_COLUMN(
        "bandwidth_term_s", RUNNER_REAL, "s",
        "bytes on the busiest path / bandwidth_bytes_per_s = exact bytes_per_round * beta"),
    [COL_REDUCTION_TERM_S] =
        RUNNER_COLUMN("reduction_term_s", RUNNER_REAL, "s",
                      "bytes reduced on the critical path / reduce_bytes_per_s"),
    [COL_LATENCY_STEPS] = RUNNER_COLUMN(
        "latency_steps", RUNNER_INTEGER, "messages",
        "messages on the critical path: ps k + s, ring 2 (k - 1), recursive_doubling "
        "ceil(lg k), halving_doubling and binary_tree 2 ceil(lg k), double_binary_tree "
        "2 floor(lg k)"),
    [COL_ALGBW] =
        RUNNER_COLUMN("algbw_bytes_per_s", RUNNER_REAL, "bytes/s",
                      "algorithm bandwidth copy_bytes / time_s (nccl-tests); inf when time_s is 0"),
    [COL_BUSBW] = RUNNER_COLUMN(
        "busbw_bytes_per_s", RUNNER_REAL, "bytes/s",
        "bus bandwidth algbw * 2 (k - 1) / k (nccl-tests, all-reduce); 0 at one worker"),
    [COL_RING_CROSSOVER] = RUNNER_COLUMN(
        "ring_crossover_bytes", RUNNER_REAL, "bytes",
        "message size at which this scheme and ring take equal time; NaN if none > 0"),
    [COL_FASTEST_FROM] = RUNNER_COLUMN(
        "fastest_from_bytes", RUNNER_REAL, "bytes",
        "smallest message size from which this scheme is the fastest of the point's rows; "
        "NaN if never"),
    [COL_FASTEST_TO] = RUNNER_COLUMN(
        "fastest_to_bytes", RUNNER_REAL, "bytes",
        "largest message size up to which it stays the fastest (inf: every larger size); "
        "NaN if never"),
    [COL_FASTEST] = RUNNER_COLUMN(
        "fastest", RUNNER_BOOLEAN, "",
        "1 if this scheme has the smallest time_s of the point's rows (the first on a tie)"),
    /* measure = true only; NULL otherwise. One measurement per point, on
     * every row of it: MPI picks its own algorithm, not the row's scheme. */
    [COL_MEASURED_RANKS] =
        RUNNER_COLUMN("measured_ranks", RUNNER_INTEGER, "processes",
                      "ranks the measured allreduce ran across (the mpirun -np; 1 in one process)"),
    [COL_MEASURED_BYTES] = RUNNER_COLUMN(
        "measured_bytes", RUNNER_INTEGER, "bytes",
        "bytes each rank contributed to the measured allreduce: model_params * 8 (doubles)"),
    [COL_MEASURED_TIME_S] =
        RUNNER_COLUMN("measured_time_s", RUNNER_REAL, "s",
                      "median of 5 timed allreduces (after 1 warm-up), each the mean over ranks"),
    [COL_MEASURED_ALGBW] =
        RUNNER_COLUMN("measured_algbw_bytes_per_s", RUNNER_REAL, "bytes/s",
                      "measured algorithm bandwidth measured_bytes / measured_time_s (nccl-tests)"),
    [COL_MEASURED_BUSBW] = RUNNER_COLUMN(
        "measured_busbw_bytes_per_s", RUNNER_REAL, "bytes/s",
        "measured bus bandwidth algbw * 2 (n - 1) / n, n = measured_ranks (nccl-tests); "
        "0 on one rank"),
};
_Static_assert(RUNNER_COUNT(comm_columns) == COL_COUNT, "one entry per COL_*");

/* --- measure = true: a real allreduce through the host --- */

#define COMM_MEASURE_WARMUPS 1
#define COMM_MEASURE_REPETITIONS 5
#define COMM_MEASURE_MAX_DOUBLES ((int64_t)1 << 27) /* 1 GiB per rank */

typedef struct comm_measured {
    int64_t ranks, bytes;
    double time_s, algbw_bytes_per_s, busbw_bytes_per_s;
} comm_measured;

static double comm_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Times host->allreduce_sum of `count` doubles: warm-up, then repetitions
 * each started together (a one-value allreduce lines the ranks up); each
 * repetition's time is averaged over the ranks (one more allreduce), and
 * the median repetition is kept. Every rank makes the same calls whatever
 * happens, and ends with the same figures, so every rank's row is the
 * same. Returns RUNNER_OK, or RUNNER_ERROR after failing the point. */
static int comm_measure(const runner_host *host, runner_point *point, int64_t count,
                        comm_measured *out)
{
    if (host->struct_size < offsetof(runner_host, allreduce_sum) + sizeof host->allreduce_sum)
        return host->fail(point, "measure = true needs a runner whose host has "
                                 "allreduce_sum; upgrade runner");
    if (count > COMM_MEASURE_MAX_DOUBLES)
        return host->fail(point,
                          "measure = true allreduces model_params doubles; %lld "
                          "is more than the %lld (1 GiB) it measures; lower model_params",
                          (long long)count, (long long)COMM_MEASURE_MAX_DOUBLES);
    int ranks = host->size(point);
    double *buffer = malloc((size_t)count * sizeof *buffer);
    double missing = buffer ? 0.0 : 1.0, times[COMM_MEASURE_REPETITIONS];
    if (host->allreduce_sum(point, &missing, 1) != RUNNER_OK) {
        free(buffer);
        return RUNNER_ERROR;
    }
    if (missing > 0.0) {
        free(buffer);
        return host->fail(point,
                          "%.0f of %d ranks could not allocate %lld bytes to "
                          "measure; lower model_params",
                          missing, ranks, (long long)count * (long long)sizeof(double));
    }
    if (ranks == 1)
        host->log(point, RUNNER_LOG_WARNING,
                  "measure = true on one rank: the allreduce has "
                  "nothing to exchange; run under mpirun -np N (docs/mpi.md)");
    for (int64_t i = 0; i < count; i++)
        buffer[i] = 1.0;
    int rc = RUNNER_OK;
    for (int i = 0; i < COMM_MEASURE_WARMUPS && rc == RUNNER_OK; i++)
        rc = host->allreduce_sum(point, buffer, (size_t)count);
    for (int i = 0; i < COMM_MEASURE_REPETITIONS && rc == RUNNER_OK; i++) {
        double line_up = 0.0;
        rc = host->allreduce_sum(point, &line_up, 1);
        double t0 = comm_now();
        if (rc == RUNNER_OK)
            rc = host->allreduce_sum(point, buffer, (size_t)count);
        times[i] = comm_now() - t0;
    }
    free(buffer);
    if (rc == RUNNER_OK)
        rc = host->allreduce_sum(point, times, COMM_MEASURE_REPETITIONS);
    if (rc != RUNNER_OK)
        return RUNNER_ERROR; /* the host has failed the point */
    for (int i = 0; i < COMM_MEASURE_REPETITIONS; i++)
        times[i] /= ranks;
    qsort(times, COMM_MEASURE_REPETITIONS, sizeof times[0], compare_doubles);
    out->ranks = ranks;
    out->bytes = count * (int64_t)sizeof(double);
    out->time_s = times[COMM_MEASURE_REPETITIONS / 2];
    out->algbw_bytes_per_s = (double)out->bytes / out->time_s;
    out->busbw_bytes_per_s = out->algbw_bytes_per_s * comm_busbw_factor(ranks);
    return RUNNER_OK;
}

/* Sets the measured columns of the current row (emitted by comm_emit). */
static int comm_set_measured(const runner_host *host, runner_point *point, const comm_measured *m)
{
    int rc = RUNNER_OK;
    rc |= host->set_integer(point, COL_MEASURED_RANKS, m->ranks);
    rc |= host->set_integer(point, COL_MEASURED_BYTES, m->bytes);
    rc |= host->set_real(point, COL_MEASURED_TIME_S, m->time_s);
    rc |= host->set_real(point, COL_MEASURED_ALGBW, m->algbw_bytes_per_s);
    rc |= host->set_real(point, COL_MEASURED_BUSBW, m->busbw_bytes_per_s);
    return rc == RUNNER_OK ? RUNNER_OK : RUNNER_ERROR;
}

/* One row: a scheme's bytes, its time at n = copy_bytes, and where it sits
 * among the point's other schemes. */
typedef struct comm_row {
    comm_scheme scheme;
    comm_round round;
    comm_time time;
    double ring_crossover_bytes;
    double fastest_from_bytes, fastest_to_bytes;
    int fastest;
} comm_row;

/* Sets one row's columns and emits it. Each host call returns RUNNER_OK (0)
 * or RUNNER_ERROR (-1), so OR-ing them keeps any failure; the host has then
 * already failed the point with a message naming the column. */
static int comm_emit(const runner_host *host, runner_point *point, int64_t copy_bytes,
                     const comm_row *row)
{
    const comm_round *round = &row->round;
    const comm_time *time = &row->time;
    int rc = RUNNER_OK;
    rc |= host->set_text(point, COL_SCHEME, comm_scheme_name(row->scheme));
    rc |= host->set_integer(point, COL_BYTES_PER_ROUND, round->bytes_per_round);
    rc |= host->set_text(point, COL_COUNTED_AT, round->counted_at);
    rc |= host->set_integer(point, COL_COPY_BYTES, copy_bytes);
    rc |= host->set_real(point, COL_COPIES_PER_ROUND, round->copies_per_round);
    rc |= host->set_real(point, COL_MIB_PER_ROUND, round->bytes_exact / 1048576.0);
    rc |= host->set_real(point, COL_GIB_PER_ROUND, round->bytes_exact / 1073741824.0);
    rc |= host->set_integer(point, COL_CLUSTER_BYTES_PER_ROUND, round->cluster_bytes_per_round);
    rc |= host->set_integer(point, COL_BUSIEST_LINK_BYTES, round->busiest_link_bytes);
    rc |= host->set_real(point, COL_ROUNDING_BYTES, round->rounding_bytes);
    rc |= host->set_real(point, COL_TIME_S, time->time_s);
    rc |= host->set_real(point, COL_LATENCY_TERM_S, time->latency_term_s);
    rc |= host->set_real(point, COL_BANDWIDTH_TERM_S, time->bandwidth_term_s);
    rc |= host->set_real(point, COL_REDUCTION_TERM_S, time->reduction_term_s);
    rc |= host->set_integer(point, COL_LATENCY_STEPS, time->latency_steps);
    rc |= host->set_real(point, COL_ALGBW, time->algbw_bytes_per_s);
    rc |= host->set_real(point, COL_BUSBW, time->busbw_bytes_per_s);
    rc |= host->set_real(point, COL_RING_CROSSOVER, row->ring_crossover_bytes);
    rc |= host->set_real(point, COL_FASTEST_FROM, row->fastest_from_bytes);
    rc |= host->set_real(point, COL_FASTEST_TO, row->fastest_to_bytes);
    rc |= host->set_boolean(point, COL_FASTEST, row->fastest);
    if (rc != RUNNER_OK)
        return RUNNER_ERROR;
    return host->emit_row(point);
}

static int comm_run(const runner_host *host, runner_point *point)
{
    int64_t model_params = host->param_integer(point, PARAM_MODEL_PARAMS);
    int64_t bytes_per_param = host->param_integer(point, PARAM_BYTES_PER_PARAM);
    int64_t workers = host->param_integer(point, PARAM_WORKERS);
    comm_net net = {
        .latency_s = host->param_real(point, PARAM_LATENCY_S),
        .bandwidth_bytes_per_s = host->param_real(point, PARAM_BANDWIDTH),
        .reduce_bytes_per_s = host->param_real(point, PARAM_REDUCE),
        .servers = host->param_integer(point, PARAM_SERVERS),
    };
    /* The walk-through's pair first, in its order, so its rows never move. */
    static const comm_scheme all[] = {
        COMM_SCHEME_PS,
        COMM_SCHEME_RING,
        COMM_SCHEME_RECURSIVE_DOUBLING,
        COMM_SCHEME_HALVING_DOUBLING,
        COMM_SCHEME_BINARY_TREE,
        COMM_SCHEME_DOUBLE_BINARY_TREE,
    };
    size_t count =
        strcmp(host->param_text(point, PARAM_SCHEMES), "all") == 0 ? RUNNER_COUNT(all) : 2;
    comm_row rows[RUNNER_COUNT(all)];
    comm_line lines[RUNNER_COUNT(all)];
    int64_t copy_bytes;

    if (comm_copy_bytes(model_params, bytes_per_param, &copy_bytes) != 0)
        return host->fail(point,
                          "one copy of %lld x %lld bytes does not fit in "
                          "int64 bytes; lower model_params or bytes_per_param",
                          (long long)model_params, (long long)bytes_per_param);
    /* Compute every row before emitting any: a point is all rows or none. */
    for (size_t i = 0; i < count; i++) {
        rows[i].scheme = all[i];
        if (comm_round_bytes_sharded(all[i], copy_bytes, workers, net.servers, &rows[i].round) != 0)
            return host->fail(point,
                              "%s bytes per round for %lld-byte copies on "
                              "%lld workers exceed int64 (9.2e18 bytes); lower "
                              "model_params or workers",
                              comm_scheme_name(all[i]), (long long)copy_bytes, (long long)workers);
        comm_round_time(all[i], (double)copy_bytes, workers, &net, &rows[i].time);
        comm_time_line(all[i], workers, &net, &lines[i]);
    }
    size_t fastest = 0;
    for (size_t i = 1; i < count; i++)
        if (rows[i].time.time_s < rows[fastest].time.time_s)
            fastest = i;
    for (size_t i = 0; i < count; i++) {
        /* all[1] is the ring in both sets. */
        rows[i].ring_crossover_bytes = comm_crossover_bytes(&lines[i], &lines[1]);
        comm_fastest_range(lines, count, i, &rows[i].fastest_from_bytes, &rows[i].fastest_to_bytes);
        rows[i].fastest = i == fastest;
    }
    /* Every check above depends only on the parameters, so all ranks got
     * here together: the measurement's collectives cannot leave one behind. */
    int measure = host->param_boolean(point, PARAM_MEASURE);
    comm_measured measured;
    if (measure && comm_measure(host, point, model_params, &measured) != RUNNER_OK)
        return RUNNER_ERROR;
    for (size_t i = 0; i < count; i++)
        if ((measure && comm_set_measured(host, point, &measured) != RUNNER_OK) ||
            comm_emit(host, point, copy_bytes, &rows[i]) != RUNNER_OK)
            return RUNNER_ERROR;
    return RUNNER_OK;
}

static const runner_plugin comm_plugin = {
    .abi_version = RUNNER_PLUGIN_ABI,
    .struct_size = sizeof(runner_plugin),
    .name = "comm",
    .version = "1.2.0",
    .summary = "bytes and alpha-beta time of one round of gradient exchange: parameter server "
               "vs all-reduce algorithms",
    .params = comm_params,
    .param_count = RUNNER_COUNT(comm_params),
    .columns = comm_columns,
    .column_count = RUNNER_COUNT(comm_columns),
    .run = comm_run,
    /* For measure = true. Under mpirun every rank then runs every comm
     * point; without measure that is a few microseconds of arithmetic,
     * the same on each rank, and only rank 0's row is stored. */
    .flags = RUNNER_PLUGIN_COLLECTIVE,
};

RUNNER_PLUGIN_DEFINE(comm_plugin)
