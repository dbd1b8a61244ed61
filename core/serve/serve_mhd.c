/* serve_mhd: the table of libmicrohttpd functions the serve files call,
 * filled by dlopen when runner serve starts (serve_mhd.h says why). */
#define SERVE_MHD_NO_MACROS
#include "serve_mhd.h"

#include <pthread.h>
#include <stddef.h>

#include "base/lazylib.h"
#include "base/util.h"

serve_mhd_api serve_mhd;

#define SERVE_MHD_SYMBOL(entry, name) { #name, offsetof(serve_mhd_api, entry) },
static const lazylib_symbol mhd_symbols[] = { SERVE_MHD_FUNCTIONS(SERVE_MHD_SYMBOL) };
#undef SERVE_MHD_SYMBOL

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char *load_error; /* malloc'd once, kept: every later call repeats it */
static int load_status = -1;

static void load(void)
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
    load_status = lazylib_open(&spec, &serve_mhd, &load_error);
}

int serve_mhd_load(char **err)
{
    pthread_once(&load_once, load);
    if (load_status == 0)
        return 0;
    return util_fail(err, "%s", load_error ? load_error : "out of memory");
}
