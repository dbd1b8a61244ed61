/* install_layout: where runner's own files are (its plugins and its Lua
 * library), found from the running executable so that an install works at
 * any prefix without reconfiguring. The runner the build tree holds uses the
 * build tree's plugins and the checkout's scripts/lib; every other copy
 * (an installed one, or one copied with its prefix) uses the directories
 * beside it, <bindir>/../lib/runner/plugins and ../share/runner/scripts/lib,
 * the same ones `pkg-config --variable=plugindir runner` names. */
#ifndef RUNNER_INSTALL_LAYOUT_H
#define RUNNER_INSTALL_LAYOUT_H

/* Both return a malloc'd absolute path (the caller frees), or NULL when out
 * of memory. When the executable's path cannot be read (no /proc), they
 * fall back to the install prefix CMake was configured with. */
char *install_layout_plugin_dir(void);
char *install_layout_script_lib_dir(void);
/* Programs runner ships for command experiments (exec.c looks a bare
 * argv[0] up here first): build/libexec, or <prefix>/libexec/runner. */
char *install_layout_libexec_dir(void);

#endif
