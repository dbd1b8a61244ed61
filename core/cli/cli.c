/* cli: the commands, `runner --help`, and what the commands share. Exit
 * statuses are a documented contract (exit_status.h, docs/cli.md); the
 * options come from options.def. */
#include "base/exit_status.h"
#include "cli.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "base/log.h"
#include "base/quote.h"
#include "base/stop_signals.h"
#include "base/table.h"
#include "mpi/mpi_pool.h"
#include "selector.h"

volatile sig_atomic_t cli_stop_requested = 0;

/* The commands in the order help lists them. */
static const options_command cli_commands[] = {
    { "sweep", CMD_SWEEP, "SCRIPT", "run a sweep script and store its rows", cli_run_sweep },
    { "resume", CMD_RESUME, "SWEEP",
      "finish an interrupted sweep: run only the points it has not stored, with its own "
      "script, --set values and seed",
      cli_run_resume },
    { "plugins", CMD_PLUGINS, "[NAME]", "list plugins, or one plugin's parameters and columns",
      cli_show_plugins },
    { "sweeps", CMD_SWEEPS, NULL, "list the sweeps the database holds", cli_show_sweeps },
    { "show", CMD_SHOW, "SWEEP", "print a stored sweep's rows ('last' = newest)", cli_show_rows },
    { "plot", CMD_PLOT, "SWEEP", "draw a section's columns with gnuplot (docs/plots.md)",
      cli_show_plot },
    { "report", CMD_REPORT, "SWEEP",
      "write one self-contained HTML page: provenance, tables, plots (docs/plots.md)",
      cli_show_report },
    { "notify", CMD_NOTIFY, NULL,
      "deliver the webhook summaries still in the outbox (docs/webhooks.md)", cli_run_notify },
    { "migrate", CMD_MIGRATE, NULL,
      "upgrade a database an older runner wrote (reading commands never do)", cli_run_migrate },
    { "merge", CMD_MERGE, "OUT.db SHARD.db...",
      "merge the databases of a sweep's shards (--shard) into one sweep (docs/slurm.md)",
      cli_merge },
    { "slurm", CMD_SLURM, "SCRIPT",
      "write (or --submit) a Slurm job array running the script's shards, and its merge job",
      cli_slurm },
    { "diff", CMD_DIFF, "A B",
      "compare two sweeps' rows, point by point (matched by parameters); exit 1 when they "
      "differ",
      cli_diff },
    { "verify", CMD_VERIFY, "SWEEP",
      "run a stored sweep's points again and check its rows bit for bit; exit 1 when not "
      "reproduced",
      cli_verify },
    { "artifacts", CMD_ARTIFACTS, "SWEEP",
      "list or extract the files a command sweep kept (docs/command-experiments.md)",
      cli_artifacts },
    { "serve", CMD_SERVE, NULL,
      "a live dashboard of the database in the browser, read-only (docs/serve.md)", cli_serve },
    { "tag", CMD_TAG, "SWEEP +TAG|-TAG...",
      "add (+TAG) and remove (-TAG) tags of a sweep; with none, print its tags", cli_manage_tag },
    { "note", CMD_NOTE, "SWEEP TEXT", "set a sweep's note ('' clears it)", cli_manage_note },
    { "rename", CMD_RENAME, "SWEEP NAME|''", "name a sweep ('' removes its name)",
      cli_manage_rename },
    { "rm", CMD_RM, "[SWEEP...]",
      "remove sweeps and every row of them in one transaction: the SWEEPs given, or every "
      "sweep the filters match (as 'runner sweeps' lists them)",
      cli_manage_rm },
    { "vacuum", CMD_VACUUM, NULL, "give the space of removed sweeps back to the file system",
      cli_manage_vacuum },
    { "export", CMD_EXPORT, "SWEEP",
      "write a sweep's sections to files, one per section, each headed by sweep, section, "
      "plugin and units",
      cli_export_sweep },
    { "fit", CMD_FIT, "SWEEP",
      "fit a model (Amdahl, USL, the walk-through's round, ...) to a section's rows, with "
      "95% intervals; stored as rows (docs/analysis.md)",
      cli_fit },
    { "pareto", CMD_PARETO, "SWEEP",
      "the rows no other row beats on every objective (--min, --max; docs/analysis.md)",
      cli_pareto },
    { "sensitivity", CMD_SENSITIVITY, "SWEEP",
      "which parameters drive an output: Sobol indices with 95% intervals of a section made "
      "by design.saltelli (docs/analysis.md)",
      cli_sensitivity },
    { "history", CMD_HISTORY, NULL,
      "one column across the matching sweeps in commit order, with the change points and "
      "their intervals; exit 1 on a regression past --tolerance (docs/analysis.md)",
      cli_history },
    { "machine", CMD_MACHINE, NULL,
      "what would make timings noisy on this machine (governor, turbo, load, --jobs), each "
      "with what to do; exit 1 when it is not fit to measure on",
      cli_machine },
};
#define CLI_COMMAND_COUNT (sizeof cli_commands / sizeof cli_commands[0])

static const char usage_intro[] =
    "usage: runner COMMAND [OPTIONS]\n"
    "\n"
    "runner runs the parameter sweeps that Lua scripts describe, with experiments\n"
    "loaded as plugins, and stores every result row in SQLite.\n"
    "\n"
    "commands:\n";

static const char usage_outro[] =
    "  runner --help | --version\n"
    "  runner COMMAND --help\n"
    "      each option of COMMAND with its meaning and default\n"
    "\n"
    "The database is ./results.db unless --db or RUNNER_DB says otherwise.\n"
    "Plugins are searched in --plugin-dir, then RUNNER_PLUGIN_PATH (colon-separated),\n"
    "then runner's own plugin directory: build/plugins for the build tree's runner,\n"
    "<prefix>/lib/runner/plugins for an installed one (found from its own path).\n"
    "The webhook URL comes from --webhook or RUNNER_WEBHOOK_URL and is never stored;\n"
    "RUNNER_WEBHOOK_SECRET signs each summary (docs/webhooks.md).\n"
    "\n"
    "exit status: 0 ok, 1 some points failed, 2 bad input or usage (or a failure\n"
    "that stopped the run), 3 webhook summary not delivered (--webhook-strict,\n"
    "notify), 4 a plugin called exit() inside runner (--isolate runs untrusted\n"
    "plugins apart), 130 interrupted.\n";

static void print_usage(FILE *out)
{
    fputs(usage_intro, out);
    options_print_commands(out, cli_commands, CLI_COMMAND_COUNT);
    fputs(usage_outro, out);
}

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
    va_list ap, again;
    va_start(ap, fmt);
    va_copy(again, ap);
    int len = vsnprintf(NULL, 0, fmt, ap);
    char *message = len >= 0 ? malloc((size_t)len + 1) : NULL;
    if (message)
        vsnprintf(message, (size_t)len + 1, fmt, again);
    va_end(again);
    va_end(ap);
    char *shown = message ? quote_terminal(message) : NULL;
    fprintf(stderr, "runner: %s\n", shown ? shown : "out of memory");
    free(shown);
    free(message);
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

static const options_command *find_command(const char *name)
{
    for (size_t i = 0; i < CLI_COMMAND_COUNT; i++)
        if (strcmp(cli_commands[i].name, name) == 0)
            return &cli_commands[i];
    return NULL;
}

/* runner --help [COMMAND], also -h and help. */
static int command_help(int argc, char **argv)
{
    if (argc > 3) {
        char *shown = quote_terminal(argv[3]);
        cli_error("%s: unexpected argument '%s'; see 'runner --help'", argv[1],
                  shown ? shown : "?");
        free(shown);
        return EXIT_USAGE;
    }
    if (argc == 2) {
        print_usage(stdout);
        return EXIT_OK;
    }
    const options_command *command = find_command(argv[2]);
    if (!command)
        return options_usage_error("unknown command '%s'", argv[2]);
    options_print_command_help(stdout, command);
    return EXIT_OK;
}

static int command_version(int argc, char **argv)
{
    if (argc > 2) {
        char *shown = quote_terminal(argv[2]);
        cli_error("--version: unexpected argument '%s'; see 'runner --help'", shown ? shown : "?");
        free(shown);
        return EXIT_USAGE;
    }
    printf("runner %s (plugin ABI %d, schema %d)\n", RUNNER_VERSION, RUNNER_PLUGIN_ABI,
           store_schema_version());
    return EXIT_OK;
}

/* What the layers below print on stderr (base/log.h): RUNNER_LOG's level,
 * or debug with --verbose. A bad RUNNER_LOG is refused before anything runs. */
static int setup_log(const options_parsed *a)
{
    const char *env = getenv("RUNNER_LOG");
    log_level lowest = LOG_LEVEL_INFO;
    if (env && *env && log_parse_level(env, &lowest) != 0) {
        cli_error("RUNNER_LOG=%s: expected debug, info or warn", env);
        return EXIT_USAGE;
    }
    if (a->values[OPTION_VERBOSE].given)
        lowest = LOG_LEVEL_DEBUG;
    log_set_threshold(lowest);
    return EXIT_OK;
}

int cli_main(int argc, char **argv)
{
    numeric_init(); /* before any analysis: GSL's default handler aborts */
    if (argc < 2) {
        print_usage(stderr);
        return EXIT_USAGE;
    }
    const char *word = argv[1];
    if (strcmp(word, "--help") == 0 || strcmp(word, "-h") == 0 || strcmp(word, "help") == 0)
        return command_help(argc, argv);
    if (strcmp(word, "--version") == 0)
        return command_version(argc, argv);
    const options_command *command = find_command(word);
    if (!command)
        return options_usage_error("unknown command '%s'", word);
    options_parsed args;
    int status = options_parse(command, argc, argv, &args);
    if (status == EXIT_OK && args.help)
        options_print_command_help(stdout, command);
    else if (status == EXIT_OK && (status = setup_log(&args)) == EXIT_OK)
        status = command->run(&args);
    options_free(&args);
    mpi_pool_finish(status);
    return status;
}
