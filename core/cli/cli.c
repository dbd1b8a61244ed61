/* cli: the commands and `runner --help` (what the commands share, errors,
 * stop signals and opening a sweep: cli_common.c). Exit
 * statuses are a documented contract (exit_status.h, docs/cli.md); the
 * options come from options.def. */
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

#include "analysis/analysis.h"
#include "base/log.h"
#include "base/quote.h"
#include "base/stop_signals.h"
#include "base/table.h"
#include "mpi/mpi_pool.h"
#include "selector.h"

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
    { "answers", CMD_ANSWERS, "SWEEP",
      "the answers a sweep has stored (fit, pareto, sensitivity, diff --stat), each with its "
      "question and whether its rows changed since (docs/analysis.md)",
      cli_answers },
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
