/* demo_plugin.h: "demo", the plugin that exists only in the unit tests of
 * runner's core (grid, param, plugin_loader, store, summary, host). Each
 * test declares the parameters and columns it exercises; DEMO_PLUGIN fills
 * in the rest of the descriptor, so no test copies the boilerplate and
 * every demo has the same name, summary and ABI fields. Header-only. */
#ifndef RUNNER_DEMO_PLUGIN_H
#define RUNNER_DEMO_PLUGIN_H

#include "runner/plugin.h"

/* A descriptor initialiser over two static arrays (counted with
 * RUNNER_COUNT, so pass the arrays themselves, not pointers). */
#define DEMO_PLUGIN_NAMED(name_, version_, params_, columns_, run_)                                \
    {                                                                                              \
        .abi_version = RUNNER_PLUGIN_ABI, .struct_size = sizeof(runner_plugin), .name = (name_),   \
        .version = (version_), .summary = "a plugin that exists only in this test",                \
        .params = (params_), .param_count = RUNNER_COUNT(params_), .columns = (columns_),          \
        .column_count = RUNNER_COUNT(columns_), .run = (run_),                                     \
    }
#define DEMO_PLUGIN(version_, params_, columns_, run_)                                             \
    DEMO_PLUGIN_NAMED("demo", version_, params_, columns_, run_)

/* run() of a demo the test never runs: any point would fail. */
static inline int demo_never_run(const runner_host *host, runner_point *point)
{
    (void)host;
    (void)point;
    return RUNNER_ERROR;
}

#endif
