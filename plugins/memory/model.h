/* memory model: per-GPU bytes of weights, gradients and optimizer state
 * under plain data parallelism (DDP) and ZeRO stages 1-3 (Rajbhandari et al.
 * 2020). Pure integer arithmetic, no plugin ABI, so the unit test checks it
 * directly. */
#ifndef MEMORY_MODEL_H
#define MEMORY_MODEL_H

#include <stdint.h>

/* In the paper's order: each stage partitions one more kind of model state
 * across the N_d data-parallel GPUs. */
typedef enum memory_stage {
    MEMORY_DDP,   /* nothing partitioned: every GPU holds everything */
    MEMORY_ZERO1, /* P_os: optimizer states partitioned */
    MEMORY_ZERO2, /* P_os+g: optimizer states and gradients */
    MEMORY_ZERO3, /* P_os+g+p: optimizer states, gradients and weights */
    MEMORY_STAGE_COUNT
} memory_stage;

/* What one GPU has to hold. Byte widths are per parameter: the paper's
 * mixed-precision Adam is 2 (fp16 weights), 2 (fp16 gradients) and K = 12
 * (fp32 master weights, momentum, variance). */
typedef struct memory_config {
    int64_t model_params;     /* Psi >= 0 */
    int64_t workers;          /* N_d >= 1 */
    int64_t weight_bytes;     /* bytes per parameter of the working weights, >= 0 */
    int64_t grad_bytes;       /* bytes per parameter of the gradients, >= 0 */
    int64_t optimizer_bytes;  /* K, bytes per parameter of optimizer state, >= 0 */
    int64_t activation_bytes; /* per GPU, added unpartitioned (ZeRO-DP leaves them), >= 0 */
} memory_config;

/* One stage on one GPU. A partitioned state is held as a shard of
 * shard_params = ceil(Psi / N_d) whole parameters: the busiest GPU's share
 * when N_d does not divide Psi (DeepSpeed pads its flat buffers the same
 * way), so a sharded state takes bytes_per_param * shard_params, never a
 * fractional byte. Unpartitioned states take bytes_per_param * Psi. */
typedef struct memory_usage {
    int64_t shard_params; /* ceil(Psi / N_d) */
    int64_t weights_bytes;
    int64_t gradients_bytes;
    int64_t optimizer_bytes;
    int64_t total_bytes; /* the three above + activation_bytes */
    /* Bytes each GPU sends per training step in ring collectives over
     * N_d - 1 chunks of shard_params parameters (it receives as much):
     *   DDP      all-reduce of gradients          2 (N_d - 1) S g
     *   ZeRO-1/2 reduce-scatter of gradients,
     *            all-gather of updated weights    (N_d - 1) S (g + w)
     *   ZeRO-3   reduce-scatter of gradients,
     *            all-gather of weights in the
     *            forward and again in the backward (N_d - 1) S (g + 2 w)
     * The paper's 2 Psi (DDP, ZeRO-1/2) and 3 Psi (ZeRO-3) elements are the
     * limit N_d -> infinity; the ratio ZeRO-3 / DDP is 1.5 at every N_d when
     * g = w. 0 on one GPU. */
    int64_t comm_bytes_per_step;
} memory_usage;

/* Fills *out with `stage` under *config. Returns 0, or -1 if a byte count
 * does not fit in int64 (then *out is unspecified). */
int memory_usage_of(memory_stage stage, const memory_config *config, memory_usage *out);

/* Stores in *max_params the largest Psi whose total_bytes under `stage` is at
 * most gpu_memory_bytes, with the other fields of *config as they are
 * (config->model_params is ignored); 0 when not even one parameter fits.
 * total_bytes grows with Psi, so the answer P satisfies: Psi = P fits,
 * Psi = P + 1 does not. Needs weight_bytes + grad_bytes + optimizer_bytes
 * >= 1 (otherwise any Psi fits) and gpu_memory_bytes >= 0. Returns 0, or -1
 * if the search range, gpu_memory_bytes * N_d, does not fit in int64 (then
 * *max_params is unchanged). */
int memory_max_params(memory_stage stage, const memory_config *config, int64_t gpu_memory_bytes,
                      int64_t *max_params);

/* "ddp", "zero1", "zero2", "zero3": static strings. */
const char *memory_stage_name(memory_stage stage);

#endif
