/* exec_gpu: each NVIDIA GPU's utilisation and memory in use, through NVML
 * (libnvidia-ml.so.1, shipped with the driver), opened with dlopen the
 * first time a point is sampled (lazylib.h). A machine without it records
 * nothing and says nothing: most have no GPU. NVML's counters are the
 * whole device's, not the point's: with several points on one GPU they
 * overlap (docs/command-experiments.md). */
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/lazylib.h"
#include "exec_sample.h"

#define GPU_MAX 16

/* The few NVML types and calls used, as nvml.h declares them. */
typedef struct nvml_device_st *nvml_device;
typedef struct nvml_utilization {
    unsigned int gpu, memory; /* percent of the last sample period */
} nvml_utilization;
typedef struct nvml_memory {
    unsigned long long total, free, used; /* bytes */
} nvml_memory;

typedef struct nvml_api {
    int (*nvmlInit_v2)(void);
    int (*nvmlDeviceGetCount_v2)(unsigned int *count);
    int (*nvmlDeviceGetHandleByIndex_v2)(unsigned int index, nvml_device *device);
    int (*nvmlDeviceGetUtilizationRates)(nvml_device device, nvml_utilization *utilization);
    int (*nvmlDeviceGetMemoryInfo)(nvml_device device, nvml_memory *memory);
} nvml_api;

#define NVML_SYMBOL(name)                                                                          \
    {                                                                                              \
#name, offsetof(nvml_api, name)                                                            \
    }
static const lazylib_symbol nvml_symbols[] = {
    NVML_SYMBOL(nvmlInit_v2),
    NVML_SYMBOL(nvmlDeviceGetCount_v2),
    NVML_SYMBOL(nvmlDeviceGetHandleByIndex_v2),
    NVML_SYMBOL(nvmlDeviceGetUtilizationRates),
    NVML_SYMBOL(nvmlDeviceGetMemoryInfo),
};
#undef NVML_SYMBOL

static nvml_api nvml;
static lazylib_state nvml_state = LAZYLIB_STATE_INIT;
static pthread_once_t nvml_once = PTHREAD_ONCE_INIT;
static atomic_int nvml_gpus; /* -1: no NVML; else the devices it sees */

static void nvml_start(void)
{
    static const lazylib_spec spec = {
        .soname = "libnvidia-ml.so.1",
        .override_env = "RUNNER_TEST_NVML_LIBRARY",
        .library = "NVML",
        .package = "libnvidia-ml1",
        .needed_by = "GPU samples",
        .symbols = nvml_symbols,
        .symbol_count = sizeof nvml_symbols / sizeof nvml_symbols[0],
    };
    char *err = NULL;
    unsigned int count = 0;
    int ok = lazylib_load(&nvml_state, &spec, &nvml, &err) == 0 && nvml.nvmlInit_v2() == 0 &&
             nvml.nvmlDeviceGetCount_v2(&count) == 0;
    free(err); /* no NVML is the usual case, not a problem */
    atomic_store(&nvml_gpus, ok ? (int)(count > GPU_MAX ? GPU_MAX : count) : -1);
}

void exec_gpu_sample(runner_point *point, double step)
{
    pthread_once(&nvml_once, nvml_start);
    int gpus = atomic_load(&nvml_gpus);
    for (int i = 0; i < gpus; i++) {
        nvml_device device;
        nvml_utilization use;
        nvml_memory memory;
        if (nvml.nvmlDeviceGetHandleByIndex_v2((unsigned)i, &device) != 0)
            continue;
        char name[32];
        if (nvml.nvmlDeviceGetUtilizationRates(device, &use) == 0) {
            snprintf(name, sizeof name, "gpu.%d.util_pct", i);
            host_series_add(point, name, step, use.gpu, 1);
        }
        if (nvml.nvmlDeviceGetMemoryInfo(device, &memory) == 0) {
            snprintf(name, sizeof name, "gpu.%d.memory_bytes", i);
            host_series_add(point, name, step, (double)memory.used, 1);
        }
    }
}
