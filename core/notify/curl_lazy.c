/* curl_lazy: the table of libcurl functions webhook.c calls, filled by
 * dlopen on the first webhook (curl_lazy.h says why). */
#define CURL_LAZY_NO_MACROS
#include "curl_lazy.h"

#include <stddef.h>

#include "base/lazylib.h"

curl_lazy_api curl_lazy;

#define CURL_LAZY_SYMBOL(entry, name) { #name, offsetof(curl_lazy_api, entry) },
static const lazylib_symbol curl_symbols[] = { CURL_LAZY_FUNCTIONS(CURL_LAZY_SYMBOL) };
#undef CURL_LAZY_SYMBOL

static lazylib_state state = LAZYLIB_STATE_INIT;

int curl_lazy_load(char **err)
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
    return lazylib_load(&state, &spec, &curl_lazy, err);
}
