/* install_layout: runner's own directories, relative to its executable. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "install_layout.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

/* The directory of the running executable, symlinks resolved, or NULL. */
static char *executable_dir(void)
{
    char *exe = realpath("/proc/self/exe", NULL);
    if (!exe)
        return NULL;
    char *slash = strrchr(exe, '/');
    if (slash == exe)
        slash[1] = '\0'; /* an executable in / */
    else if (slash)
        *slash = '\0';
    return exe;
}

/* 1 when dir is the directory CMake built runner into. Compared after
 * resolving symlinks, so a build directory reached through a link counts. */
static int is_build_dir(const char *dir)
{
    char *build = realpath(RUNNER_BUILD_EXE_DIR, NULL);
    int same = build && strcmp(build, dir) == 0;
    free(build);
    return same;
}

/* base joined with a relative path, its "." and ".." resolved by name: base
 * has no symlinks left (realpath), so that is what the kernel would do. */
static char *join_relative(const char *base, const char *relative)
{
    size_t cap = strlen(base) + strlen(relative) + 2;
    char *out = malloc(cap);
    if (!out)
        return NULL;
    strcpy(out, base);
    size_t len = strlen(out);
    const char *part = relative;
    while (*part) {
        size_t n = strcspn(part, "/");
        if (n == 2 && strncmp(part, "..", 2) == 0) {
            while (len > 1 && out[len - 1] != '/')
                len--;
            if (len > 1)
                len--; /* the slash, unless it is the root's */
        } else if (n > 0 && !(n == 1 && part[0] == '.')) {
            if (len > 1 || out[0] != '/')
                out[len++] = '/';
            memcpy(out + len, part, n);
            len += n;
        }
        out[len] = '\0';
        part += n;
        part += *part == '/';
    }
    return out;
}

/* build_dir when this is the build tree's runner, else bindir/relative;
 * installed when the executable's path is unknown. */
static char *layout_dir(const char *build_dir, const char *relative, const char *installed)
{
    char *exe_dir = executable_dir();
    if (!exe_dir)
        return util_strdup(installed);
    char *dir = is_build_dir(exe_dir) ? util_strdup(build_dir) : join_relative(exe_dir, relative);
    free(exe_dir);
    return dir;
}

char *install_layout_plugin_dir(void)
{
    return layout_dir(RUNNER_BUILD_PLUGIN_DIR, RUNNER_BIN_TO_PLUGIN_DIR, RUNNER_INSTALL_PLUGIN_DIR);
}

char *install_layout_script_lib_dir(void)
{
    return layout_dir(RUNNER_SOURCE_SCRIPT_LIB_DIR, RUNNER_BIN_TO_SCRIPT_LIB_DIR,
                      RUNNER_INSTALL_SCRIPT_LIB_DIR);
}

char *install_layout_libexec_dir(void)
{
    return layout_dir(RUNNER_BUILD_LIBEXEC_DIR, RUNNER_BIN_TO_LIBEXEC_DIR,
                      RUNNER_INSTALL_LIBEXEC_DIR);
}
