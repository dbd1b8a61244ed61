/* cli_serve: `runner serve`: the options to a serve_config, then the server
 * until Ctrl-C (serve.c; docs/serve.md). */
#include "base/exit_status.h"
#include "cli.h"
#include "serve/serve.h"

int cli_serve(const options_parsed *args)
{
    store *s = NULL;
    /* The same refusal as the other reading commands for a missing file. */
    int status = cli_open_existing(args->db_path, &s, 0);
    if (status != EXIT_OK)
        return status;
    store_close(s);
    serve_config config = {
        .db_path = args->db_path,
        .listen = args->values[OPTION_LISTEN].text,
        .allow_remote = args->values[OPTION_ALLOW_REMOTE].given,
        .allow_hosts = args->values[OPTION_ALLOW_HOST].list,
        .allow_host_count = args->values[OPTION_ALLOW_HOST].count,
        .rate_per_s = (unsigned)args->values[OPTION_RATE].integer,
        .max_connections = (unsigned)args->values[OPTION_MAX_CONNECTIONS].integer,
    };
    char *err = NULL;
    if (serve_run(&config, stdout, &err) != 0)
        return cli_fail(err);
    return EXIT_OK;
}
