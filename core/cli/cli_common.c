/* cli_common: what every command shares, below the table of commands in
 * cli.c: the one-line error (cli_error, cli_fail), the stop signals
 * (cli_install_signal_handlers, cli_stop_requested) and opening a stored
 * sweep (cli_open_*, cli_resolve_sweep). cli.c and each cli_*.c call down
 * into it; it calls none of them. */
#include "base/exit_status.h"
#include "cli.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/quote.h"
#include "base/stop_signals.h"
#include "base/util.h"
#include "selector.h"

volatile sig_atomic_t cli_stop_requested = 0;

/* How many stop signals arrived. A process-directed signal goes to any
 * thread that does not block it, so two signals sent together can run the
 * handler on two threads at once: a check of cli_stop_requested then a set
 * let both see "first" (SIGTERM on the main thread, SIGINT on the lease
 * thread, 0.1 ms apart: test_isolate hung under ASan). One atomic
 * increment decides which is first; lock-free, so async-signal-safe. */
static atomic_uint stop_signals_seen;
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "the stop-signal counter must be lock-free");

/* First Ctrl-C: finish the running point, commit, exit 130. Second: leave
 * at once; SQLite's journal keeps the database consistent. The line says
 * so, since the first one's line may never come (write(2): the only output
 * a handler may do). */
static void on_signal(int signo)
{
    (void)signo;
    if (atomic_fetch_add(&stop_signals_seen, 1) > 0) {
        static const char line[] =
            "runner: interrupted twice; stopped at once, keeping what was committed\n";
        ssize_t written = write(STDERR_FILENO, line, sizeof line - 1);
        (void)written;
        _exit(EXIT_INTERRUPTED);
    }
    cli_stop_requested = 1;
}

void cli_install_signal_handlers(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    /* On one thread, each blocks the others while it runs (the counter
     * above orders handlers on different threads). SIGHUP, Slurm's SIGUSR1
     * and SIGXCPU are the same request (base/stop_signals.h). */
    stop_signals_fill(&sa.sa_mask);
    for (int i = 0; i < STOP_SIGNALS_COUNT; i++)
        sigaction(stop_signals_list[i], &sa, NULL);
}

void cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *message = util_vformat(fmt, ap);
    va_end(ap);
    char *shown = message ? quote_terminal(message) : NULL;
    fprintf(stderr, "runner: %s\n", shown ? shown : "out of memory");
    free(shown);
    free(message);
}

void cli_error_lines(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *text = util_vformat(fmt, ap);
    va_end(ap);
    for (char *line = text; line;) {
        char *end = strchr(line, '\n');
        if (end)
            *end = '\0';
        char *shown = quote_terminal(line);
        fprintf(stderr, "%s\n", shown ? shown : "out of memory");
        free(shown);
        line = end ? end + 1 : NULL;
    }
    if (!text)
        fprintf(stderr, "runner: out of memory\n");
    free(text);
}

int cli_fail(char *err)
{
    /* names, selectors and values inside it reach a terminal: escaped */
    char *shown = err ? quote_terminal(err) : NULL;
    fprintf(stderr, "runner: %s\n", shown ? shown : "out of memory");
    free(shown);
    free(err);
    return EXIT_USAGE;
}

int cli_open_existing(const char *path, store **s, int for_writing)
{
    struct stat st;
    char *err = NULL;
    if (stat(path, &st) != 0) {
        cli_error("%s: no such database (run 'runner sweep' first, or pass --db)", path);
        return EXIT_USAGE;
    }
    if ((for_writing ? store_open(path, s, &err) : store_open_read(path, s, &err)) != 0)
        return cli_fail(err);
    return EXIT_OK;
}

int cli_resolve_sweep(store *s, const char *arg, int64_t *sweep_id)
{
    sweep_selector sel;
    char *err = NULL;
    int rc = selector_parse(arg, &sel, &err);
    if (rc == 0)
        rc = selector_resolve(s, &sel, arg, sweep_id, &err);
    selector_clear(&sel);
    return rc == 0 ? EXIT_OK : cli_fail(err);
}

int cli_open_sweep(const options_parsed *args, store **s, int64_t *sweep_id, int64_t **ids,
                   size_t *count)
{
    return cli_open_sweep_as(args, 0, s, sweep_id, ids, count);
}

/* An answer (fit, pareto, sensitivity) on a sweep still running covers the
 * points stored so far: one line says so, the sweep's status judged as
 * every reader judges it (lease_judge, through the store's digest). */
static int note_running(store *s, const char *command, int64_t sweep_id, char **err)
{
    store_sweep_digest d = { 0 };
    if (store_sweep_digest_read(s, sweep_id, &d, err) != 0)
        return -1;
    if (d.status && strcmp(d.status, "running") == 0)
        cli_error("%s: note: sweep %" PRId64 " is still running; this answer covers the %" PRId64
                  " point%s stored so far",
                  command, sweep_id, d.points_ok, d.points_ok == 1 ? "" : "s");
    store_sweep_digest_clear(&d);
    return 0;
}

int cli_open_sweep_as(const options_parsed *args, int for_writing, store **s, int64_t *sweep_id,
                      int64_t **ids, size_t *count)
{
    char *err = NULL;
    int last = 0;
    *s = NULL;
    *ids = NULL;
    *count = 0;
    int status = options_resolve_sweep(args->command, args->positional, 1, sweep_id, &last);
    if (status != EXIT_OK || (status = cli_open_existing(args->db_path, s, for_writing)) != EXIT_OK)
        return status;
    if ((status = cli_resolve_sweep(*s, args->positional, sweep_id)) != EXIT_OK)
        goto done;
    if (store_sweep_sections(*s, *sweep_id, ids, count, &err) != 0)
        goto fail;
    if (*count > 0 && for_writing && note_running(*s, args->command, *sweep_id, &err) != 0)
        goto fail;
    if (*count > 0)
        return EXIT_OK;
    cli_error("%s: no sweep %s with stored sections; 'runner sweeps' lists them", args->db_path,
              args->positional);
    status = EXIT_USAGE;
    goto done;
fail:
    status = cli_fail(err);
done:
    free(*ids);
    *ids = NULL;
    store_close(*s);
    *s = NULL;
    return status;
}
