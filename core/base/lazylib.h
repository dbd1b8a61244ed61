/* lazylib: a shared library opened with dlopen when a command first needs
 * it, its functions resolved into a table of pointers. runner links libcurl,
 * libmicrohttpd and libcrypto this way (notify/curl_lazy.c,
 * serve/serve_mhd.c, base/digest.c) so
 * that the commands that use neither start without mapping them
 * (docs/performance.md, start-up). */
#ifndef RUNNER_LAZYLIB_H
#define RUNNER_LAZYLIB_H

#include <pthread.h>
#include <stddef.h>

/* One function to resolve: its name, and where its pointer goes in the
 * table (offsetof). */
typedef struct lazylib_symbol {
    const char *name;
    size_t offset;
} lazylib_symbol;

/* What to open and what to tell the user when it cannot be. */
typedef struct lazylib_spec {
    const char *soname;       /* "libcurl.so.4" */
    const char *override_env; /* names another file to open instead (tests); may be NULL */
    const char *library;      /* "libcurl", for the message */
    const char *package;      /* the Debian package that ships it */
    const char *needed_by;    /* "--webhook", "runner serve": who needs it */
    const lazylib_symbol *symbols;
    size_t symbol_count;
} lazylib_spec;

/* Opens the library (RTLD_NOW | RTLD_LOCAL: its symbols stay out of the
 * plugins' way) and stores each symbol's address at table + offset. The
 * library stays open for the life of the process. Not thread-safe: callers
 * go through lazylib_load. Returns 0, or -1 with *err (malloc'd, the
 * caller frees), one line: "--webhook needs libcurl (libcurl.so.4): <why>;
 * install it with apt-get install libcurl4", or that a function is missing
 * from the file; table is then untouched. */
int lazylib_open(const lazylib_spec *spec, void *table, char **err);

/* Whether a library was opened, for lazylib_load: the first call opens it,
 * every later one repeats the answer (the message too). Static storage,
 * LAZYLIB_STATE_INIT. */
typedef struct lazylib_state {
    pthread_mutex_t lock;
    int tried;
    int status;  /* lazylib_open's */
    char *error; /* its message, kept for the life of the process */
} lazylib_state;
#define LAZYLIB_STATE_INIT                                                                         \
    {                                                                                              \
        PTHREAD_MUTEX_INITIALIZER, 0, -1, NULL                                                     \
    }

/* lazylib_open once per state, from any thread. Returns 0, or -1 with *err
 * (malloc'd, the caller frees). */
int lazylib_load(lazylib_state *state, const lazylib_spec *spec, void *table, char **err);

#endif
