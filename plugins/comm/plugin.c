/* comm plugin: ABI glue around model.c. One point = two rows, one per
 * scheme (parameter server, ring all-reduce), so a sweep over workers puts
 * both curves in one table. Byte counts are stored exactly as integers;
 * MiB and GiB columns are binary (2^20, 2^30 bytes) and only for reading. */
#include "runner/plugin.h"

#include "model.h"

enum {
    PARAM_MODEL_PARAMS,
    PARAM_BYTES_PER_PARAM,
    PARAM_WORKERS,
    PARAM_COUNT
};

static const runner_param comm_params[] = {
    [PARAM_MODEL_PARAMS] = RUNNER_PARAM_INTEGER("model_params", "params",
        "number of model parameters P", 1000000, 1, 1e15),
    [PARAM_BYTES_PER_PARAM] = RUNNER_PARAM_INTEGER("bytes_per_param", "bytes",
        "bytes per parameter (4 = float32, 2 = float16/bfloat16)", 4, 1, 64),
    [PARAM_WORKERS] = RUNNER_PARAM_INTEGER("workers", "workers",
        "number of workers k exchanging gradients each round", 8, 1, 1e7),
};
_Static_assert(RUNNER_COUNT(comm_params) == PARAM_COUNT, "comm_params out of step with enum");

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
    COL_COUNT
};

static const runner_column comm_columns[] = {
    [COL_SCHEME] = RUNNER_COLUMN("scheme", RUNNER_TEXT, "",
        "exchange scheme: ps (one parameter server) or ring (ring all-reduce)"),
    [COL_BYTES_PER_ROUND] = RUNNER_COLUMN("bytes_per_round", RUNNER_INTEGER, "bytes",
        "bytes per round where counted_at says: ps 2 W k, ring 2 (k-1) W / k "
        "rounded to nearest if not an integer (see rounding_bytes)"),
    [COL_COUNTED_AT] = RUNNER_COLUMN("counted_at", RUNNER_TEXT, "",
        "where bytes_per_round is counted: server (ps) or each worker (ring)"),
    [COL_COPY_BYTES] = RUNNER_COLUMN("copy_bytes", RUNNER_INTEGER, "bytes",
        "one copy of the weights, W = model_params * bytes_per_param"),
    [COL_COPIES_PER_ROUND] = RUNNER_COLUMN("copies_per_round", RUNNER_REAL, "copies",
        "bytes per round in copies of the weights: ps 2 k, ring 2 (k-1) / k"),
    [COL_MIB_PER_ROUND] = RUNNER_COLUMN("mib_per_round", RUNNER_REAL, "MiB",
        "exact bytes per round / 2^20"),
    [COL_GIB_PER_ROUND] = RUNNER_COLUMN("gib_per_round", RUNNER_REAL, "GiB",
        "exact bytes per round / 2^30"),
    [COL_CLUSTER_BYTES_PER_ROUND] = RUNNER_COLUMN("cluster_bytes_per_round", RUNNER_INTEGER,
        "bytes", "bytes sent by all nodes together per round: ps 2 W k, ring 2 (k-1) W"),
    [COL_BUSIEST_LINK_BYTES] = RUNNER_COLUMN("busiest_link_bytes", RUNNER_INTEGER, "bytes",
        "bytes one direction of the busiest link carries per round: ps k W (server), "
        "ring as bytes_per_round (each worker)"),
    [COL_ROUNDING_BYTES] = RUNNER_COLUMN("rounding_bytes", RUNNER_REAL, "bytes",
        "exact minus stored bytes_per_round (and ring busiest_link_bytes), in [-0.5, 0.5); "
        "0 when exact"),
};
_Static_assert(RUNNER_COUNT(comm_columns) == COL_COUNT, "comm_columns out of step with enum");

/* Sets one row's columns and emits it. Each host call returns RUNNER_OK (0)
 * or RUNNER_ERROR (-1), so OR-ing them keeps any failure; the host has then
 * already failed the point with a message naming the column. */
static int comm_emit(const runner_host *host, runner_point *point, comm_scheme scheme,
                     int64_t copy_bytes, const comm_round *round)
{
    int rc = RUNNER_OK;
    rc |= host->set_text(point, COL_SCHEME, comm_scheme_name(scheme));
    rc |= host->set_integer(point, COL_BYTES_PER_ROUND, round->bytes_per_round);
    rc |= host->set_text(point, COL_COUNTED_AT, comm_counted_at(scheme));
    rc |= host->set_integer(point, COL_COPY_BYTES, copy_bytes);
    rc |= host->set_real(point, COL_COPIES_PER_ROUND, round->copies_per_round);
    rc |= host->set_real(point, COL_MIB_PER_ROUND, round->bytes_exact / 1048576.0);
    rc |= host->set_real(point, COL_GIB_PER_ROUND, round->bytes_exact / 1073741824.0);
    rc |= host->set_integer(point, COL_CLUSTER_BYTES_PER_ROUND, round->cluster_bytes_per_round);
    rc |= host->set_integer(point, COL_BUSIEST_LINK_BYTES, round->busiest_link_bytes);
    rc |= host->set_real(point, COL_ROUNDING_BYTES, round->rounding_bytes);
    if (rc != RUNNER_OK)
        return RUNNER_ERROR;
    return host->emit_row(point);
}

static int comm_run(const runner_host *host, runner_point *point)
{
    int64_t model_params = host->param_integer(point, PARAM_MODEL_PARAMS);
    int64_t bytes_per_param = host->param_integer(point, PARAM_BYTES_PER_PARAM);
    int64_t workers = host->param_integer(point, PARAM_WORKERS);
    static const comm_scheme schemes[] = { COMM_SCHEME_PS, COMM_SCHEME_RING };
    comm_round rounds[2];
    int64_t copy_bytes;

    if (comm_copy_bytes(model_params, bytes_per_param, &copy_bytes) != 0)
        return host->fail(point, "comm: one copy of %lld x %lld bytes does not fit in "
                          "int64 bytes; lower model_params or bytes_per_param",
                          (long long)model_params, (long long)bytes_per_param);
    /* Compute both before emitting either: a point is all rows or none. */
    for (int i = 0; i < 2; i++)
        if (comm_round_bytes(schemes[i], copy_bytes, workers, &rounds[i]) != 0)
            return host->fail(point, "comm: %s bytes per round for %lld-byte copies on "
                              "%lld workers exceed int64 (9.2e18 bytes); lower "
                              "model_params or workers", comm_scheme_name(schemes[i]),
                              (long long)copy_bytes, (long long)workers);
    for (int i = 0; i < 2; i++)
        if (comm_emit(host, point, schemes[i], copy_bytes, &rounds[i]) != RUNNER_OK)
            return RUNNER_ERROR;
    return RUNNER_OK;
}

static const runner_plugin comm_plugin = {
    .abi_version = RUNNER_PLUGIN_ABI,
    .struct_size = sizeof(runner_plugin),
    .name = "comm",
    .version = "1.0.0",
    .summary = "bytes one round of gradient exchange moves: parameter server vs ring all-reduce",
    .params = comm_params,
    .param_count = RUNNER_COUNT(comm_params),
    .columns = comm_columns,
    .column_count = RUNNER_COUNT(comm_columns),
    .run = comm_run,
};

RUNNER_PLUGIN_DEFINE(comm_plugin)
