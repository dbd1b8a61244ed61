/* serve_mhd: the table of libmicrohttpd functions the serve files call,
 * filled by dlopen when runner serve starts (serve_mhd.h says why). */
#define SERVE_MHD_NO_MACROS
#include "serve_mhd.h"

#include <stddef.h>

#include "base/lazylib.h"

serve_mhd_api serve_mhd;

#define SERVE_MHD_SYMBOL(entry, name) { #name, offsetof(serve_mhd_api, entry) },
static const lazylib_symbol mhd_symbols[] = { SERVE_MHD_FUNCTIONS(SERVE_MHD_SYMBOL) };
#undef SERVE_MHD_SYMBOL

static lazylib_state state = LAZYLIB_STATE_INIT;

int serve_mhd_load(char **err)
{
    static const lazylib_spec spec = {
        .soname = SERVE_MHD_SONAME,
        .override_env = "RUNNER_LIBMICROHTTPD",
        .library = "libmicrohttpd",
        .package = "libmicrohttpd12",
        .needed_by = "serve",
        .symbols = mhd_symbols,
        .symbol_count = sizeof mhd_symbols / sizeof mhd_symbols[0],
    };
    return lazylib_load(&state, &spec, &serve_mhd, err);
}
