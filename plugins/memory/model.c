/* memory model: exact per-GPU byte counts of model states under DDP and
 * ZeRO-1/2/3. Every product and sum is overflow-checked, so a caller can
 * trust a 0 return and the largest-model search can probe huge Psi. */
#include "model.h"

/* Which states a stage partitions, and what its collectives move per step,
 * in units of (N_d - 1) shards of gradients and of weights. */
typedef struct stage_shape {
    const char *name;
    int weights_sharded, gradients_sharded, optimizer_sharded;
    int gradient_passes; /* 2: all-reduce; 1: reduce-scatter */
    int weight_gathers;  /* all-gathers of the weights */
} stage_shape;

static const stage_shape stage_shapes[MEMORY_STAGE_COUNT] = {
    [MEMORY_DDP] = { "ddp", 0, 0, 0, 2, 0 },
    [MEMORY_ZERO1] = { "zero1", 0, 0, 1, 1, 1 },
    [MEMORY_ZERO2] = { "zero2", 0, 1, 1, 1, 1 },
    [MEMORY_ZERO3] = { "zero3", 1, 1, 1, 1, 2 },
};

/* bytes_per_param * (sharded ? shard_params : model_params), checked. */
static int state_bytes(int64_t bytes_per_param, int sharded, int64_t shard_params,
                       int64_t model_params, int64_t *bytes)
{
    return __builtin_mul_overflow(bytes_per_param, sharded ? shard_params : model_params, bytes)
               ? -1
               : 0;
}

int memory_usage_of(memory_stage stage, const memory_config *config, memory_usage *out)
{
    const stage_shape *shape = &stage_shapes[stage];
    int64_t psi = config->model_params, workers = config->workers;
    /* ceil(Psi / N_d) without forming Psi + N_d - 1, which could overflow. */
    int64_t shard = psi / workers + (psi % workers != 0);
    int64_t total, chunks, per_chunk_bytes, gradient_part, weight_part;

    out->shard_params = shard;
    if (state_bytes(config->weight_bytes, shape->weights_sharded, shard, psi,
                    &out->weights_bytes) != 0 ||
        state_bytes(config->grad_bytes, shape->gradients_sharded, shard, psi,
                    &out->gradients_bytes) != 0 ||
        state_bytes(config->optimizer_bytes, shape->optimizer_sharded, shard, psi,
                    &out->optimizer_bytes) != 0)
        return -1;
    if (__builtin_add_overflow(out->weights_bytes, out->gradients_bytes, &total) ||
        __builtin_add_overflow(total, out->optimizer_bytes, &total) ||
        __builtin_add_overflow(total, config->activation_bytes, &total))
        return -1;
    out->total_bytes = total;

    /* (N_d - 1) S (passes g + gathers w): a ring collective sends N_d - 1
     * of the N_d shards from every GPU. */
    if (__builtin_mul_overflow(workers - 1, shard, &chunks) ||
        __builtin_mul_overflow(config->grad_bytes, (int64_t)shape->gradient_passes,
                               &gradient_part) ||
        __builtin_mul_overflow(config->weight_bytes, (int64_t)shape->weight_gathers,
                               &weight_part) ||
        __builtin_add_overflow(gradient_part, weight_part, &per_chunk_bytes) ||
        __builtin_mul_overflow(chunks, per_chunk_bytes, &out->comm_bytes_per_step))
        return -1;
    return 0;
}

/* 1 if Psi = psi fits in gpu_memory_bytes; a total beyond int64 does not. */
static int fits(memory_stage stage, memory_config config, int64_t psi, int64_t gpu_memory_bytes)
{
    memory_usage usage;
    config.model_params = psi;
    return memory_usage_of(stage, &config, &usage) == 0 && usage.total_bytes <= gpu_memory_bytes;
}

/* Bisection on the monotone predicate fits(). The upper end needs no probe:
 * with at least one byte per parameter, every stage holds at least one shard
 * of ceil(Psi / N_d) bytes, so Psi = M N_d + 1 needs more than M bytes. */
int memory_max_params(memory_stage stage, const memory_config *config, int64_t gpu_memory_bytes,
                      int64_t *max_params)
{
    int64_t lo = 1, hi; /* invariant: lo fits, hi does not */

    if (__builtin_mul_overflow(gpu_memory_bytes, config->workers, &hi) ||
        __builtin_add_overflow(hi, 1, &hi))
        return -1;
    if (!fits(stage, *config, lo, gpu_memory_bytes)) {
        *max_params = 0;
        return 0;
    }
    while (hi - lo > 1) {
        int64_t mid = lo + (hi - lo) / 2;
        if (fits(stage, *config, mid, gpu_memory_bytes))
            lo = mid;
        else
            hi = mid;
    }
    *max_params = lo;
    return 0;
}

const char *memory_stage_name(memory_stage stage) { return stage_shapes[stage].name; }
