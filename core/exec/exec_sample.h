/* exec_sample: a command point's process tree, sampled from /proc while it
 * runs (every --sample-interval): CPU cores in use, resident memory, bytes
 * read and written, threads; and each NVIDIA GPU's utilisation and memory
 * when libnvidia-ml.so.1 can be opened (exec_gpu.c). Samples become the
 * point's sys.* and gpu.N.* series; their peaks and the runs' totals its
 * point_system row (docs/command-experiments.md). */
#ifndef RUNNER_EXEC_SAMPLE_H
#define RUNNER_EXEC_SAMPLE_H

#include <stdint.h>
#include <sys/types.h>

#include "plugin/plugin.h"

typedef struct exec_sampler {
    runner_point *point; /* borrowed: where the samples go */
    double interval_s;   /* > 0 */
    /* this run */
    double last_at, last_cpu_s; /* the previous sample (or the run's start) */
    /* the point so far */
    uint64_t samples;
    double cores_peak;
    int64_t rss_peak_bytes;
    double wall_s, cpu_s;
    int64_t read_bytes, written_bytes;
} exec_sampler;

void exec_sample_begin(exec_sampler *s, runner_point *point, double interval_s);
/* A run starts at started (monotonic s): its tree's CPU time is 0 there. */
void exec_sample_run_begin(exec_sampler *s, double started);
/* Samples the tree of root (its descendants and its process group). */
void exec_sample_tick(exec_sampler *s, pid_t root, double now);
/* A run ended: what the kernel counted for it (wait4), all descendants
 * the tree reaped included. */
void exec_sample_run_end(exec_sampler *s, double wall_s, double cpu_s, long max_rss_kib,
                         int64_t read_bytes, int64_t written_bytes);
/* Hands the point's figures to the point (point->system). */
void exec_sample_end(exec_sampler *s);

/* --- exec_gpu.c --- */

/* Samples every GPU NVML sees into gpu.N.util_pct and gpu.N.memory_bytes
 * at step; nothing (and no error) when the library cannot be opened.
 * RUNNER_TEST_NVML_LIBRARY names another file to open (tests only). */
void exec_gpu_sample(runner_point *point, double step);

#endif
