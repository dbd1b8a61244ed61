/* curl_lazy: the table of libcurl functions webhook.c calls, filled by
 * dlopen on the first webhook (curl_lazy.h says why). */
#define CURL_LAZY_NO_MACROS
#include "curl_lazy.h"

#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>

#include "base/lazylib.h"
#include "base/util.h"

curl_lazy_api curl_lazy;

#define CURL_LAZY_SYMBOL(entry, name) { #name, offsetof(curl_lazy_api, entry) },
static const lazylib_symbol curl_symbols[] = { CURL_LAZY_FUNCTIONS(CURL_LAZY_SYMBOL) };
#undef CURL_LAZY_SYMBOL

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char *load_error; /* malloc'd once, kept: every later call repeats it */
static int load_status = -1;

static void load(void)
{
    static const lazylib_spec spec = {
        .soname = CURL_LAZY_SONAME,
        .override_env = "RUNNER_LIBCURL",
        .library = "libcurl",
        .package = "libcurl4",
        .needed_by = "--webhook",
        .symbols = curl_symbols,
        .symbol_count = sizeof curl_symbols / sizeof curl_symbols[0],
    };
    load_status = lazylib_open(&spec, &curl_lazy, &load_error);
}

int curl_lazy_load(char **err)
{
    pthread_once(&load_once, load);
    if (load_status == 0)
        return 0;
    return util_fail(err, "%s", load_error ? load_error : "out of memory");
}
