/* memory plugin: ABI glue around model.c, written against <runner/plugin.h>
 * alone. One point is one model on N_d GPUs; it emits one row per ZeRO stage
 * (ddp, zero1, zero2, zero3), or one row when `stages` names a single stage,
 * so `WHERE stage = 'zero3'` picks a curve. Byte counts are exact integers;
 * the GiB and GB columns are for reading only. */
#include <runner/plugin.h>

#include <string.h>

#include "model.h"

/* Parameter indices: the enum and the array below stay in step, checked by
 * the _Static_assert. Declaration order is also the sweep's crossing order
 * (first varies slowest) and the column order of the result table. */
enum {
    PARAM_MODEL_PARAMS,
    PARAM_WORKERS,
    PARAM_STAGES,
    PARAM_WEIGHT_BYTES,
    PARAM_GRAD_BYTES,
    PARAM_OPTIMIZER_BYTES_PER_PARAM,
    PARAM_GPU_MEMORY_BYTES,
    PARAM_ACTIVATION_BYTES,
    PARAM_COUNT
};

/* "all" first: it is the default and gives one row per stage. The others are
 * memory_stage_name()'s names, in memory_stage order. */
static const char *const stage_choices[] = { "all", "ddp", "zero1", "zero2", "zero3", NULL };

/* The bounds keep every legal point inside int64: at most 192 bytes per
 * parameter times 1e15 parameters, and the largest-model search up to
 * gpu_memory_bytes * workers <= 1e12 * 1e6. weight_bytes >= 1 makes that
 * search finite (some state grows with every parameter). */
static const runner_param memory_params[] = {
    [PARAM_MODEL_PARAMS] = RUNNER_PARAM_INTEGER("model_params", "params",
                                                "number of model parameters Psi", 7.5e9, 1, 1e15),
    [PARAM_WORKERS] = RUNNER_PARAM_INTEGER(
        "workers", "GPUs", "data-parallel degree N_d: GPUs the model states are partitioned over",
        64, 1, 1e6),
    [PARAM_STAGES] = RUNNER_PARAM_TEXT(
        "stages", "which stage to emit: ddp, zero1, zero2, zero3, or all (one row each)", "all",
        stage_choices),
    [PARAM_WEIGHT_BYTES] =
        RUNNER_PARAM_INTEGER("weight_bytes", "bytes/param",
                             "bytes per parameter of the working weights (2 = fp16)", 2, 1, 64),
    [PARAM_GRAD_BYTES] = RUNNER_PARAM_INTEGER(
        "grad_bytes", "bytes/param", "bytes per parameter of the gradients (2 = fp16)", 2, 0, 64),
    [PARAM_OPTIMIZER_BYTES_PER_PARAM] =
        RUNNER_PARAM_INTEGER("optimizer_bytes_per_param", "bytes/param",
                             "K: optimizer state per parameter (12 = Adam's fp32 master weights, "
                             "momentum, variance)",
                             12, 0, 64),
    [PARAM_GPU_MEMORY_BYTES] =
        RUNNER_PARAM_INTEGER("gpu_memory_bytes", "bytes",
                             "memory of one GPU (80e9 = an 80 GB card, decimal)", 80e9, 1, 1e12),
    [PARAM_ACTIVATION_BYTES] = RUNNER_PARAM_INTEGER(
        "activation_bytes", "bytes",
        "activations and anything else per GPU, added to every stage unpartitioned", 0, 0, 1e12),
};
_Static_assert(RUNNER_COUNT(memory_params) == PARAM_COUNT, "one entry per PARAM_*");

enum {
    COL_STAGE,
    COL_SHARD_PARAMS,
    COL_WEIGHTS_BYTES,
    COL_GRADIENTS_BYTES,
    COL_OPTIMIZER_BYTES,
    COL_TOTAL_BYTES,
    COL_TOTAL_GIB,
    COL_TOTAL_GB,
    COL_FITS,
    COL_REDUCTION_VS_DDP,
    COL_MAX_PARAMS_THAT_FIT,
    COL_COMM_BYTES_PER_STEP,
    COL_COMM_VS_DDP,
    COL_COUNT
};

static const runner_column memory_columns[] = {
    [COL_STAGE] = RUNNER_COLUMN(
        "stage", RUNNER_TEXT, "",
        "ddp (nothing partitioned), zero1 (P_os), zero2 (P_os+g) or zero3 (P_os+g+p)"),
    [COL_SHARD_PARAMS] =
        RUNNER_COLUMN("shard_params", RUNNER_INTEGER, "params",
                      "parameters in one GPU's shard of a partitioned state: ceil(Psi / N_d)"),
    [COL_WEIGHTS_BYTES] =
        RUNNER_COLUMN("weights_bytes", RUNNER_INTEGER, "bytes",
                      "working weights per GPU: weight_bytes * (zero3 ? shard_params : Psi)"),
    [COL_GRADIENTS_BYTES] =
        RUNNER_COLUMN("gradients_bytes", RUNNER_INTEGER, "bytes",
                      "gradients per GPU: grad_bytes * (zero2, zero3 ? shard_params : Psi)"),
    [COL_OPTIMIZER_BYTES] =
        RUNNER_COLUMN("optimizer_bytes", RUNNER_INTEGER, "bytes",
                      "optimizer state per GPU: K * (ddp ? Psi : shard_params)"),
    [COL_TOTAL_BYTES] =
        RUNNER_COLUMN("total_bytes", RUNNER_INTEGER, "bytes",
                      "weights + gradients + optimizer + activation_bytes, per GPU"),
    [COL_TOTAL_GIB] = RUNNER_COLUMN("total_gib", RUNNER_REAL, "GiB", "total_bytes / 2^30 (binary)"),
    [COL_TOTAL_GB] = RUNNER_COLUMN("total_gb", RUNNER_REAL, "GB",
                                   "total_bytes / 1e9 (decimal, the paper's unit)"),
    [COL_FITS] = RUNNER_COLUMN("fits", RUNNER_BOOLEAN, "", "total_bytes <= gpu_memory_bytes"),
    [COL_REDUCTION_VS_DDP] =
        RUNNER_COLUMN("reduction_vs_ddp", RUNNER_REAL, "x",
                      "ddp's total_bytes / this stage's total_bytes (1 for ddp)"),
    [COL_MAX_PARAMS_THAT_FIT] = RUNNER_COLUMN(
        "max_params_that_fit", RUNNER_INTEGER, "params",
        "largest Psi whose total_bytes fits in gpu_memory_bytes at this stage and N_d; "
        "0 if none"),
    [COL_COMM_BYTES_PER_STEP] =
        RUNNER_COLUMN("comm_bytes_per_step", RUNNER_INTEGER, "bytes",
                      "sent per GPU per step by ring collectives: (N_d-1) shard_params times "
                      "ddp 2 g, zero1/zero2 g + w, zero3 g + 2 w"),
    [COL_COMM_VS_DDP] = RUNNER_COLUMN(
        "comm_vs_ddp", RUNNER_REAL, "x",
        "comm_bytes_per_step / ddp's (1, 1, 1, 1.5 when g = w); NaN when ddp sends nothing"),
};
_Static_assert(RUNNER_COUNT(memory_columns) == COL_COUNT, "one entry per COL_*");

/* One stage's figures, computed in full before any row is emitted. */
typedef struct stage_row {
    memory_stage stage;
    memory_usage usage;
    int64_t max_params;
} stage_row;

/* Sets one row's columns and emits it. Each host call returns RUNNER_OK (0)
 * or RUNNER_ERROR (-1), so OR-ing them keeps any failure; the host has then
 * already failed the point with a message naming the column. */
static int memory_emit(const runner_host *host, runner_point *point, const stage_row *row,
                       const memory_usage *ddp, int64_t gpu_memory_bytes)
{
    const memory_usage *u = &row->usage;
    double comm_vs_ddp =
        ddp->comm_bytes_per_step == 0
            ? NAN /* one GPU, or no gradients: DDP sends nothing, the ratio is undefined */
            : (double)u->comm_bytes_per_step / (double)ddp->comm_bytes_per_step;
    int rc = RUNNER_OK;

    rc |= host->set_text(point, COL_STAGE, memory_stage_name(row->stage));
    rc |= host->set_integer(point, COL_SHARD_PARAMS, u->shard_params);
    rc |= host->set_integer(point, COL_WEIGHTS_BYTES, u->weights_bytes);
    rc |= host->set_integer(point, COL_GRADIENTS_BYTES, u->gradients_bytes);
    rc |= host->set_integer(point, COL_OPTIMIZER_BYTES, u->optimizer_bytes);
    rc |= host->set_integer(point, COL_TOTAL_BYTES, u->total_bytes);
    rc |= host->set_real(point, COL_TOTAL_GIB, (double)u->total_bytes / 1073741824.0);
    rc |= host->set_real(point, COL_TOTAL_GB, (double)u->total_bytes / 1e9);
    rc |= host->set_boolean(point, COL_FITS, u->total_bytes <= gpu_memory_bytes);
    /* total_bytes >= 1: model_params >= 1 and weight_bytes >= 1. */
    rc |= host->set_real(point, COL_REDUCTION_VS_DDP,
                         (double)ddp->total_bytes / (double)u->total_bytes);
    rc |= host->set_integer(point, COL_MAX_PARAMS_THAT_FIT, row->max_params);
    rc |= host->set_integer(point, COL_COMM_BYTES_PER_STEP, u->comm_bytes_per_step);
    rc |= host->set_real(point, COL_COMM_VS_DDP, comm_vs_ddp);
    if (rc != RUNNER_OK)
        return RUNNER_ERROR;
    return host->emit_row(point);
}

static int memory_run(const runner_host *host, runner_point *point)
{
    memory_config config = {
        .model_params = host->param_integer(point, PARAM_MODEL_PARAMS),
        .workers = host->param_integer(point, PARAM_WORKERS),
        .weight_bytes = host->param_integer(point, PARAM_WEIGHT_BYTES),
        .grad_bytes = host->param_integer(point, PARAM_GRAD_BYTES),
        .optimizer_bytes = host->param_integer(point, PARAM_OPTIMIZER_BYTES_PER_PARAM),
        .activation_bytes = host->param_integer(point, PARAM_ACTIVATION_BYTES),
    };
    int64_t gpu_memory_bytes = host->param_integer(point, PARAM_GPU_MEMORY_BYTES);
    const char *stages = host->param_text(point, PARAM_STAGES);
    stage_row rows[MEMORY_STAGE_COUNT];
    memory_usage ddp;
    int row_count = 0;

    /* The host has checked `stages` against stage_choices before run(): it is
     * "all" or the name of exactly one stage, so at least one row follows. */
    int all = strcmp(stages, "all") == 0;
    for (int s = 0; s < MEMORY_STAGE_COUNT; s++)
        if (all || strcmp(stages, memory_stage_name((memory_stage)s)) == 0)
            rows[row_count++].stage = (memory_stage)s;

    /* Compute everything before emitting anything: a point is all its rows
     * or none. DDP is the reference of the two ratio columns. The bounds
     * declared above make these failures unreachable for legal values; they
     * stay as the one honest answer if a bound is ever widened. */
    if (memory_usage_of(MEMORY_DDP, &config, &ddp) != 0)
        return host->fail(point,
                          "%lld parameters at %lld + %lld + %lld bytes each "
                          "exceed int64 bytes; lower model_params",
                          (long long)config.model_params, (long long)config.weight_bytes,
                          (long long)config.grad_bytes, (long long)config.optimizer_bytes);
    for (int i = 0; i < row_count; i++) {
        const char *name = memory_stage_name(rows[i].stage);
        if (memory_usage_of(rows[i].stage, &config, &rows[i].usage) != 0)
            return host->fail(point,
                              "%s bytes per GPU exceed int64; lower "
                              "model_params",
                              name);
        if (memory_max_params(rows[i].stage, &config, gpu_memory_bytes, &rows[i].max_params) != 0)
            return host->fail(point,
                              "%s: the largest model on %lld GPUs of %lld "
                              "bytes may exceed int64 parameters; lower gpu_memory_bytes "
                              "or workers",
                              name, (long long)config.workers, (long long)gpu_memory_bytes);
    }
    for (int i = 0; i < row_count; i++)
        if (memory_emit(host, point, &rows[i], &ddp, gpu_memory_bytes) != RUNNER_OK)
            return RUNNER_ERROR;
    return RUNNER_OK;
}

static const runner_plugin memory_plugin = {
    .abi_version = RUNNER_PLUGIN_ABI,
    .struct_size = sizeof(runner_plugin),
    .name = "memory",
    .version = "1.0.0",
    .summary = "per-GPU bytes of weights, gradients and optimizer state: DDP vs ZeRO-1/2/3",
    .params = memory_params,
    .param_count = RUNNER_COUNT(memory_params),
    .columns = memory_columns,
    .column_count = RUNNER_COUNT(memory_columns),
    .run = memory_run,
};

RUNNER_PLUGIN_DEFINE(memory_plugin)
