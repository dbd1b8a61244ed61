/* lazylib: dlopen and dlsym into a table, with one message for the user
 * when the library is missing or too old. */
#include "lazylib.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* POSIX has dlsym's void * hold a function's address. */
_Static_assert(sizeof(void *) == sizeof(void (*)(void)), "function pointers are not void *");

int lazylib_open(const lazylib_spec *spec, void *table, char **err)
{
    const char *file = spec->override_env ? getenv(spec->override_env) : NULL;
    if (!file || !*file)
        file = spec->soname;
    void *handle = dlopen(file, RTLD_NOW | RTLD_LOCAL);
    if (!handle)
        return util_fail(err, "%s needs %s (%s): %s; install it with apt-get install %s",
                         spec->needed_by, spec->library, file, dlerror(), spec->package);
    /* Resolved into a copy first, so a missing symbol leaves table as it was. */
    void **found = calloc(spec->symbol_count ? spec->symbol_count : 1, sizeof *found);
    if (!found) {
        dlclose(handle);
        return util_fail(err, "out of memory");
    }
    for (size_t i = 0; i < spec->symbol_count; i++) {
        found[i] = dlsym(handle, spec->symbols[i].name);
        if (!found[i]) { /* dlerror would name the file by its full path: the name is enough */
            util_fail(err, "%s needs %s (%s) with %s, which that file lacks; apt-get install %s",
                      spec->needed_by, spec->library, file, spec->symbols[i].name, spec->package);
            free(found);
            dlclose(handle);
            return -1;
        }
    }
    for (size_t i = 0; i < spec->symbol_count; i++)
        memcpy((char *)table + spec->symbols[i].offset, &found[i], sizeof found[i]);
    free(found);
    return 0;
}

int lazylib_load(lazylib_state *state, const lazylib_spec *spec, void *table, char **err)
{
    pthread_mutex_lock(&state->lock);
    if (!state->tried) {
        state->status = lazylib_open(spec, table, &state->error);
        state->tried = 1;
    }
    int status = state->status;
    pthread_mutex_unlock(&state->lock);
    if (status == 0)
        return 0;
    return util_fail(err, "%s", state->error ? state->error : "out of memory");
}
