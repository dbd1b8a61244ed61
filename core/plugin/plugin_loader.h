/* plugin_loader: finds plugin shared objects, dlopens them, checks the ABI
 * version and metadata, and keeps them in a registry for the whole run.
 *
 * Search order: each --plugin-dir, then each RUNNER_PLUGIN_PATH entry, then
 * runner's own plugin directory (install_layout.h: the build tree's for the
 * runner built there, the one beside the executable otherwise). A plugin name
 * found in an earlier directory shadows the same name later; two files in one
 * directory declaring the same name is an error. Files that fail to load are
 * remembered with their one-line error, reported when the plugin is asked
 * for, and listed as warnings by `runner plugins`. */
#ifndef RUNNER_PLUGIN_LOADER_H
#define RUNNER_PLUGIN_LOADER_H

#include <stddef.h>
#include "runner/plugin.h"

typedef struct loaded_plugin {
    const runner_plugin *desc; /* static storage inside the shared object */
    char *path;                /* the .so, absolute (against the working directory; links kept) */
    char *file_stem;           /* file name without directory and ".so" */
    char sha256[65];           /* of the .so file, hex */
    void *handle;              /* dlopen handle, closed by plugin_registry_free */
} loaded_plugin;

typedef struct plugin_registry plugin_registry;

/* Scans the directories (in order; NULL-terminated list of extra dirs first,
 * then RUNNER_PLUGIN_PATH, then runner's own). A directory given explicitly
 * that does not exist is an error; the others are skipped.
 * Returns 0 or -1 with *err (caller frees). */
int plugin_registry_open(const char *const *extra_dirs, plugin_registry **out, char **err);
void plugin_registry_free(plugin_registry *reg); /* accepts NULL; dlcloses */

/* The plugin called name, or NULL with *err: the load error of the file that
 * would have provided it, or "unknown plugin 'x' (did you mean 'y'?)". */
const loaded_plugin *plugin_registry_get(const plugin_registry *reg, const char *name, char **err);
size_t plugin_registry_count(const plugin_registry *reg);
const loaded_plugin *plugin_registry_at(const plugin_registry *reg, size_t index);
/* Load failures seen while scanning, one line each. */
size_t plugin_registry_error_count(const plugin_registry *reg);
const char *plugin_registry_error(const plugin_registry *reg, size_t index);
/* The directories searched, joined with ':' (for messages). */
const char *plugin_registry_search_path(const plugin_registry *reg);

/* Loads exactly one file (used by the scan, and by tests). Returns 0 or -1
 * with *err naming the file and what to do. */
int plugin_load_file(const char *path, loaded_plugin *out, char **err);
void plugin_unload(loaded_plugin *lp);
/* runner_plugin.flags as the plugin declared them: 0 for a plugin built
 * with the ABI-1 struct that ends at run (struct_size says so). */
uint32_t plugin_flags(const runner_plugin *plugin);
/* Checks the descriptor's metadata; on failure writes the reason. */
int plugin_validate(const runner_plugin *plugin, char *msg, size_t msg_size);

#endif
