/* cli: command-line parsing and the commands (sweep, plugins, sweeps, show).
 * Exit statuses are a documented contract (exit_status.h, docs/cli.md). */
#include "cli.h"
#include "exit_status.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "mpi_pool.h"
#include "output.h"
#include "param.h"
#include "plot.h"
#include "plugin_loader.h"
#include "provenance.h"
#include "report.h"
#include "script.h"
#include "store.h"
#include "summary.h"
#include "sweep.h"
#include "table.h"
#include "util.h"
#include "webhook.h"

static volatile sig_atomic_t stop_requested = 0;

static int open_existing(const char *path, store **s, int for_writing);

/* First Ctrl-C: finish the running point, commit, exit 130. Second: leave
 * at once; SQLite's journal keeps the database consistent. */
static void on_signal(int signo)
{
    (void)signo;
    if (stop_requested)
        _exit(EXIT_INTERRUPTED);
    stop_requested = 1;
}

static const char usage_text[] =
    "usage: runner COMMAND [OPTIONS]\n"
    "\n"
    "runner runs the parameter sweeps that Lua scripts describe, with experiments\n"
    "loaded as plugins, and stores every result row in SQLite.\n"
    "\n"
    "commands:\n"
    "  runner sweep SCRIPT [--db FILE] [--set NAME=VALUE]... [--plugin-dir DIR]...\n"
    "               [--max-points N] [--seed N] [--jobs N] [--resume] [--fail-fast]\n"
    "               [--isolate] [--point-timeout S] [--quiet]\n"
    "               [--script-timeout S] [--script-memory MIB]\n"
    "               [--webhook URL] [--webhook-format generic|slack] [--webhook-strict]\n"
    "                                  run a sweep script and store its rows\n"
    "  runner resume SWEEP [--db FILE] [--plugin-dir DIR]... [--jobs N] [--quiet]\n"
    "               [--webhook URL] [--webhook-format generic|slack] [--webhook-strict]\n"
    "                                  finish an interrupted sweep: run only the points\n"
    "                                  it has not stored, with its own script and seed\n"
    "  runner plugins [NAME] [--plugin-dir DIR]...\n"
    "                                  list plugins, or one plugin's parameters and columns\n"
    "  runner sweeps [--db FILE] [--format table|csv|json]\n"
    "                                  list the sweeps the database holds\n"
    "  runner show SWEEP [--db FILE] [--format table|csv|json]\n"
    "                                  print a stored sweep's rows ('last' = newest)\n"
    "  runner plot SWEEP --x COL --y COL [--by COL] [--section N] [--logx] [--logy]\n"
    "              [--title TEXT] [--db FILE] -o FILE.svg|FILE.png\n"
    "                                  draw a section's columns with gnuplot\n"
    "  runner report SWEEP -o FILE.html [--db FILE]\n"
    "                                  one self-contained HTML page: provenance, tables, plots\n"
    "  runner notify [--db FILE] [--webhook URL]\n"
    "                                  deliver the webhook summaries still in the outbox\n"
    "  runner --help | --version\n"
    "\n"
    "The database is ./results.db unless --db or RUNNER_DB says otherwise.\n"
    "Plugins are searched in --plugin-dir, then RUNNER_PLUGIN_PATH (colon-separated),\n"
    "then runner's build and install directories.\n"
    "The webhook URL comes from --webhook or RUNNER_WEBHOOK_URL and is never stored;\n"
    "RUNNER_WEBHOOK_SECRET signs each summary (docs/webhooks.md).\n"
    "\n"
    "exit status: 0 ok, 1 some points failed, 2 bad input or usage (or a failure\n"
    "that stopped the run), 3 webhook summary not delivered (--webhook-strict,\n"
    "notify), 130 interrupted.\n";

typedef struct cli_options {
    const char *positional;
    const char *db_path;
    const char **plugin_dirs;   /* NULL-terminated */
    size_t plugin_dir_count;
    const char **overrides;
    size_t override_count;
    uint64_t max_points;
    uint64_t seed;
    int quiet;
    int resume;
    int fail_fast;
    int isolate;
    double point_timeout_s;
    int jobs;                   /* 0: one per core */
    double script_timeout_s;
    size_t script_memory_bytes;
    output_format format;
    const char *webhook_url;    /* a secret: never stored or printed in full */
    summary_format webhook_format;
    int webhook_format_given;
    int webhook_strict;
} cli_options;

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "runner: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "; see 'runner --help'\n");
    return EXIT_USAGE;
}

static int parse_u64(const char *text, uint64_t *out)
{
    char *end = NULL;
    errno = 0;
    if (!text || !*text || *text == '-')
        return -1;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno || *end)
        return -1;
    *out = v;
    return 0;
}

/* Takes the value of an option given as "--name VALUE" or "--name=VALUE". */
static const char *option_value(int argc, char **argv, int *i, const char *name)
{
    size_t n = strlen(name);
    if (argv[*i][n] == '=')
        return argv[*i] + n + 1;
    if (*i + 1 >= argc)
        return NULL;
    return argv[++*i];
}

static int matches(const char *arg, const char *name)
{
    size_t n = strlen(name);
    return strncmp(arg, name, n) == 0 && (arg[n] == '\0' || arg[n] == '=');
}

/* Parses the options a command allows (a string of flags it accepts). */
static int parse_options(int argc, char **argv, const char *command, const char *allowed,
                         cli_options *o)
{
    o->plugin_dirs = calloc((size_t)argc + 1, sizeof *o->plugin_dirs);
    o->overrides = calloc((size_t)argc + 1, sizeof *o->overrides);
    if (!o->plugin_dirs || !o->overrides)
        return usage_error("%s", "out of memory");
    for (int i = 2; i < argc; i++) {
        const char *arg = argv[i];
        const char *v;
        char flag[64];
        size_t flag_len = strcspn(arg, "=");
        snprintf(flag, sizeof flag, "%.*s", (int)flag_len, arg);
        if (arg[0] != '-' || strcmp(arg, "-") == 0) {
            if (o->positional) {
                fprintf(stderr, "runner: %s: unexpected argument '%s'; see 'runner --help'\n",
                        command, arg);
                return EXIT_USAGE;
            }
            o->positional = arg;
            continue;
        }
        char needle[70];
        snprintf(needle, sizeof needle, " %s ", flag);
        if (!strstr(allowed, needle)) {
            fprintf(stderr, "runner: %s: unknown option '%s'; see 'runner --help'\n", command,
                    flag);
            return EXIT_USAGE;
        }
        if (matches(arg, "--quiet") || matches(arg, "--resume") || matches(arg, "--fail-fast") ||
            matches(arg, "--isolate") || matches(arg, "--webhook-strict")) {
            if (strchr(arg, '=')) {
                fprintf(stderr, "runner: %s: option '%s' takes no value; see 'runner --help'\n",
                        command, flag);
                return EXIT_USAGE;
            }
            if (strcmp(flag, "--quiet") == 0)
                o->quiet = 1;
            else if (strcmp(flag, "--resume") == 0)
                o->resume = 1;
            else if (strcmp(flag, "--isolate") == 0)
                o->isolate = 1;
            else if (strcmp(flag, "--webhook-strict") == 0)
                o->webhook_strict = 1;
            else
                o->fail_fast = 1;
            continue;
        }
        v = option_value(argc, argv, &i, flag);
        if (!v) {
            fprintf(stderr, "runner: %s: option '%s' needs a value; see 'runner --help'\n",
                    command, flag);
            return EXIT_USAGE;
        }
        if (strcmp(flag, "--db") == 0) {
            o->db_path = v;
        } else if (strcmp(flag, "--plugin-dir") == 0) {
            o->plugin_dirs[o->plugin_dir_count++] = v;
        } else if (strcmp(flag, "--set") == 0) {
            o->overrides[o->override_count++] = v;
        } else if (strcmp(flag, "--max-points") == 0) {
            if (parse_u64(v, &o->max_points) != 0 || o->max_points == 0)
                return usage_error("--max-points %s: expected a positive integer", v);
        } else if (strcmp(flag, "--jobs") == 0) {
            uint64_t jobs;
            if (parse_u64(v, &jobs) != 0 || jobs == 0 || jobs > 1024)
                return usage_error("--jobs %s: expected a number of threads between 1 and 1024", v);
            o->jobs = (int)jobs;
        } else if (strcmp(flag, "--seed") == 0) {
            if (parse_u64(v, &o->seed) != 0)
                return usage_error("--seed %s: expected a non-negative integer", v);
        } else if (strcmp(flag, "--script-timeout") == 0) {
            char *end;
            o->script_timeout_s = strtod(v, &end);
            if (*end || !(o->script_timeout_s > 0))
                return usage_error("--script-timeout %s: expected a positive number of seconds", v);
        } else if (strcmp(flag, "--point-timeout") == 0) {
            char *end;
            o->point_timeout_s = strtod(v, &end);
            if (*end || !(o->point_timeout_s > 0) || o->point_timeout_s > 1e9)
                return usage_error("--point-timeout %s: expected a positive number of seconds", v);
            o->isolate = 1; /* a timeout needs a process to kill */
        } else if (strcmp(flag, "--script-memory") == 0) {
            uint64_t mib;
            if (parse_u64(v, &mib) != 0 || mib == 0 || mib > 1u << 20)
                return usage_error("--script-memory %s: expected MiB between 1 and 1048576", v);
            o->script_memory_bytes = (size_t)mib << 20;
        } else if (strcmp(flag, "--format") == 0) {
            if (output_parse_format(v, &o->format) != 0)
                return usage_error("--format %s: expected table, csv or json", v);
        } else if (strcmp(flag, "--webhook") == 0) {
            o->webhook_url = v;
        } else if (strcmp(flag, "--webhook-format") == 0) {
            if (summary_parse_format(v, &o->webhook_format) != 0)
                return usage_error("--webhook-format %s: expected generic or slack", v);
            o->webhook_format_given = 1;
        }
    }
    if (!o->db_path) {
        const char *env = getenv("RUNNER_DB");
        o->db_path = env && *env ? env : "results.db";
    }
    if (!*o->db_path)
        return usage_error("%s", "--db needs a file name");
    if (strcmp(o->db_path, ":memory:") == 0 || strncmp(o->db_path, "file:", 5) == 0)
        return usage_error("--db %s: give a file name; results in memory would be lost at exit",
                           o->db_path);
    return EXIT_OK;
}

static void free_options(cli_options *o)
{
    free(o->plugin_dirs);
    free(o->overrides);
}

static void install_signal_handlers(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

static int default_jobs(void)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    return cores > 0 ? (int)(cores < 1024 ? cores : 1024) : 1;
}

/* The webhook: --webhook, else RUNNER_WEBHOOK_URL, signed with
 * RUNNER_WEBHOOK_SECRET. *has is 0 (and target untouched) without a URL. */
static int webhook_from_options(const cli_options *o, webhook_target *target, int *has)
{
    const char *url = o->webhook_url;
    const char *env = getenv("RUNNER_WEBHOOK_URL");
    if (!url && env && *env)
        url = env;
    *has = url != NULL;
    if (!url) {
        if (o->webhook_strict || o->webhook_format_given)
            return usage_error("%s needs a webhook URL (--webhook URL or RUNNER_WEBHOOK_URL)",
                               o->webhook_strict ? "--webhook-strict" : "--webhook-format");
        return EXIT_OK;
    }
    char *err = NULL;
    if (webhook_target_init(target, url, getenv("RUNNER_WEBHOOK_SECRET"), &err) != 0) {
        fprintf(stderr, "runner: %s\n", err);
        free(err);
        return EXIT_USAGE;
    }
    target->stop = &stop_requested;
    return EXIT_OK;
}

/* The command line as the sweep records it, with a --webhook URL (a secret)
 * cut to its scheme and host. malloc'd. */
static char *recorded_command_line(int argc, char **argv)
{
    char **shown = calloc((size_t)argc + 1, sizeof *shown);
    char **made = calloc((size_t)argc + 1, sizeof *made);
    char *line = NULL, where[300];
    if (!shown || !made)
        goto done;
    for (int i = 0; i < argc; i++) {
        shown[i] = argv[i];
        if (strncmp(argv[i], "--webhook=", 10) == 0) {
            webhook_url_display(argv[i] + 10, where, sizeof where);
            shown[i] = made[i] = util_format("--webhook=%s", where);
        } else if (strcmp(argv[i], "--webhook") == 0 && i + 1 < argc) {
            webhook_url_display(argv[i + 1], where, sizeof where);
            shown[i + 1] = made[i + 1] = util_strdup(where);
            i++;
        }
        if (!shown[i])
            goto done;
    }
    line = provenance_command_line(argc, shown);
done:
    for (int i = 0; made && i < argc; i++)
        free(made[i]);
    free(made);
    free(shown);
    return line;
}

/* Under mpirun or srun (docs/mpi.md), sweep and resume start MPI; rank 0
 * goes on with the command and every other rank serves its points. Returns
 * 1 with *status when this process is done (a worker, or MPI failed). */
static int serve_if_worker(cli_options *o, int *status)
{
    char *err = NULL;
    if (mpi_pool_start(&err) != 0) {
        fprintf(stderr, "runner: %s\n", err);
        free(err);
        mpi_pool_abandon();
        *status = EXIT_USAGE;
        return 1;
    }
    if (mpi_pool_rank() == 0)
        return 0;
    install_signal_handlers();
    *status = sweep_serve(o->plugin_dirs, &stop_requested);
    return 1;
}

static int command_sweep(int argc, char **argv, cli_options *o)
{
    if (!o->positional)
        return usage_error("%s", "sweep needs a SCRIPT (e.g. runner sweep scripts/jitter.lua)");
    webhook_target webhook;
    int has_webhook = 0;
    int status = webhook_from_options(o, &webhook, &has_webhook);
    if (status != EXIT_OK)
        return status;
    install_signal_handlers();
    char *command_line = recorded_command_line(argc, argv);
    script_config config = {
        .script_path = o->positional,
        .db_path = o->db_path,
        .plugin_dirs = o->plugin_dirs,
        .overrides = o->overrides,
        .override_count = o->override_count,
        .max_points = o->max_points ? o->max_points : 1000000,
        .seed = o->seed,
        .quiet = o->quiet,
        .memory_limit_bytes = o->script_memory_bytes ? o->script_memory_bytes : (size_t)1 << 30,
        .time_limit_s = o->script_timeout_s > 0 ? o->script_timeout_s : 600,
        .command_line = command_line,
        .stop = &stop_requested,
        .jobs = o->jobs ? o->jobs : default_jobs(),
        .fail_fast = o->fail_fast,
        .resume = o->resume,
        .isolate = o->isolate,
        .point_timeout_s = o->point_timeout_s,
        .webhook = has_webhook ? &webhook : NULL,
        .webhook_format = o->webhook_format,
        .webhook_strict = o->webhook_strict,
    };
    status = script_run(&config);
    free(command_line);
    return status;
}

/* runner resume SWEEP: the stored script text, --set values and seed, so the
 * finished sweep holds exactly the rows an uninterrupted run would have. */
static int command_resume(int argc, char **argv, cli_options *o)
{
    uint64_t id = 0;
    if (!o->positional || parse_u64(o->positional, &id) != 0 || id == 0)
        return usage_error("%s", "resume needs a SWEEP id (see 'runner sweeps')");
    store *s = NULL;
    char *err = NULL;
    store_sweep_record record;
    webhook_target webhook;
    int has_webhook = 0;
    int status = webhook_from_options(o, &webhook, &has_webhook);
    if (status != EXIT_OK)
        return status;
    status = open_existing(o->db_path, &s, 0);
    if (status != EXIT_OK)
        return status;
    if (store_find_sweep(s, (int64_t)id, NULL, &record, &err) != 0) {
        fprintf(stderr, "runner: %s\n", err);
        free(err);
        store_close(s);
        return EXIT_USAGE;
    }
    store_close(s);
    if (record.id == 0) {
        fprintf(stderr, "runner: %s: no sweep %s; 'runner sweeps' lists them\n", o->db_path,
                o->positional);
        return EXIT_USAGE;
    }
    /* The --set values the sweep ran with, from its overrides_json. */
    json_t *overrides = json_loads(record.overrides_json ? record.overrides_json : "{}", 0, NULL);
    size_t n = overrides ? json_object_size(overrides) : 0;
    char **sets = calloc(n + 1, sizeof *sets);
    size_t count = 0;
    const char *key;
    json_t *value;
    json_object_foreach(overrides, key, value) {
        if (json_is_string(value) && sets)
            sets[count++] = util_format("%s=%s", key, json_string_value(value));
    }
    install_signal_handlers();
    char *command_line = recorded_command_line(argc, argv);
    script_config config = {
        .script_path = record.script_path,
        .script_text = record.script_text,
        .db_path = o->db_path,
        .plugin_dirs = o->plugin_dirs,
        .overrides = (const char *const *)sets,
        .override_count = count,
        .max_points = 0,
        .seed = record.seed,
        .quiet = o->quiet,
        .memory_limit_bytes = (size_t)1 << 30,
        .time_limit_s = 600,
        .command_line = command_line,
        .stop = &stop_requested,
        .jobs = o->jobs ? o->jobs : default_jobs(),
        .resume = 1,
        .resume_sweep_id = record.id,
        .isolate = o->isolate,
        .point_timeout_s = o->point_timeout_s,
        .webhook = has_webhook ? &webhook : NULL,
        .webhook_format = o->webhook_format,
        .webhook_strict = o->webhook_strict,
    };
    status = script_run(&config);
    free(command_line);
    for (size_t i = 0; i < count; i++)
        free(sets[i]);
    free(sets);
    json_decref(overrides);
    store_sweep_record_clear(&record);
    return status;
}

static const char *type_label(runner_type t)
{
    return value_type_name(t);
}

static int describe_plugin(const loaded_plugin *lp)
{
    const runner_plugin *p = lp->desc;
    printf("%s %s: %s\n  file: %s\n  sha256: %s\n", p->name, p->version, p->summary, lp->path,
           lp->sha256);
    if (plugin_flags(p) & RUNNER_PLUGIN_COLLECTIVE)
        printf("  collective: under MPI every rank runs each point together (docs/mpi.md)\n");
    printf("\n");
    int width = 8;
    for (uint32_t i = 0; i < p->param_count; i++)
        if ((int)strlen(p->params[i].name) > width)
            width = (int)strlen(p->params[i].name);
    for (uint32_t i = 0; i < p->column_count; i++)
        if ((int)strlen(p->columns[i].name) > width)
            width = (int)strlen(p->columns[i].name);
    printf("parameters:\n");
    for (uint32_t i = 0; i < p->param_count; i++) {
        const runner_param *q = &p->params[i];
        char def[128], range[128] = "";
        value d = param_default(q);
        value_format(&d, 15, def, sizeof def);
        value_clear(&d);
        if (q->type == RUNNER_INTEGER || q->type == RUNNER_REAL) {
            param_describe_range(q, range, sizeof range);
        } else if (q->type == RUNNER_TEXT && q->choices) {
            size_t used = 0;
            for (const char *const *c = q->choices; *c && used < sizeof range - 2; c++) {
                int n = snprintf(range + used, sizeof range - used, "%s%s", used ? "|" : "", *c);
                if (n > 0)
                    used += (size_t)n;
            }
        }
        printf("  %-*s  %-8s %-12s default %-10s %-22s %s\n", width, q->name,
               type_label(q->type), *q->unit ? q->unit : "-", def, range, q->doc);
    }
    printf("\ncolumns:\n");
    for (uint32_t i = 0; i < p->column_count; i++) {
        const runner_column *c = &p->columns[i];
        printf("  %-*s  %-8s %-12s %s\n", width, c->name, type_label(c->type),
               *c->unit ? c->unit : "-", c->doc);
    }
    return EXIT_OK;
}

static int command_plugins(cli_options *o)
{
    plugin_registry *reg = NULL;
    char *err = NULL;
    if (plugin_registry_open(o->plugin_dirs, &reg, &err) != 0) {
        fprintf(stderr, "runner: %s\n", err);
        free(err);
        return EXIT_USAGE;
    }
    int status = EXIT_OK;
    if (o->positional) {
        const loaded_plugin *lp = plugin_registry_get(reg, o->positional, &err);
        if (!lp) {
            fprintf(stderr, "runner: %s\n", err);
            free(err);
            status = EXIT_USAGE;
        } else {
            status = describe_plugin(lp);
        }
    } else {
        for (size_t i = 0; i < plugin_registry_count(reg); i++) {
            const loaded_plugin *lp = plugin_registry_at(reg, i);
            printf("%-14s %-8s %s\n%-14s file: %s\n", lp->desc->name, lp->desc->version,
                   lp->desc->summary, "", lp->path);
        }
        for (size_t i = 0; i < plugin_registry_error_count(reg); i++)
            fprintf(stderr, "runner: %s\n", plugin_registry_error(reg, i));
        if (plugin_registry_error_count(reg) > 0)
            status = EXIT_USAGE;
        else if (plugin_registry_count(reg) == 0) {
            fprintf(stderr, "runner: no plugins found; searched %s\n",
                    plugin_registry_search_path(reg));
            status = EXIT_USAGE;
        }
    }
    plugin_registry_free(reg);
    return status;
}

/* Opens an existing database; never creates one. Reading commands open it
 * read-only (a read-only file works) and only write to upgrade an older
 * schema, once (store_open_read). */
static int open_existing(const char *path, store **s, int for_writing)
{
    struct stat st;
    char *err = NULL;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "runner: %s: no such database (run 'runner sweep' first, or pass --db)\n",
                path);
        return EXIT_USAGE;
    }
    if ((for_writing ? store_open(path, s, &err) : store_open_read(path, s, &err)) != 0) {
        fprintf(stderr, "runner: %s\n", err);
        free(err);
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

static int command_sweeps(cli_options *o)
{
    store *s = NULL;
    table *t = NULL;
    char *err = NULL;
    int status = open_existing(o->db_path, &s, 0);
    if (status != EXIT_OK)
        return status;
    if (store_list_sweeps(s, &t, &err) != 0) {
        fprintf(stderr, "runner: %s\n", err);
        free(err);
        status = EXIT_USAGE;
    } else {
        output_table(stdout, t, o->format);
    }
    table_free(t);
    store_close(s);
    return status;
}

static int command_show(cli_options *o)
{
    if (!o->positional)
        return usage_error("%s", "show needs a SWEEP id (see 'runner sweeps') or 'last'");
    store *s = NULL;
    char *err = NULL;
    int64_t *ids = NULL;
    size_t count = 0;
    int64_t sweep_id = 0;
    int status = open_existing(o->db_path, &s, 0);
    if (status != EXIT_OK)
        return status;
    if (strcmp(o->positional, "last") == 0) {
        table *list = NULL;
        if (store_list_sweeps(s, &list, &err) == 0 && list->row_count > 0)
            sweep_id = table_cell(list, list->row_count - 1, 0)->as.integer;
        table_free(list);
    } else {
        uint64_t id;
        if (parse_u64(o->positional, &id) != 0) {
            store_close(s);
            return usage_error("show %s: expected a sweep id or 'last'", o->positional);
        }
        sweep_id = (int64_t)id;
    }
    if (err || store_sweep_sections(s, sweep_id, &ids, &count, &err) != 0) {
        fprintf(stderr, "runner: %s\n", err);
        free(err);
        store_close(s);
        return EXIT_USAGE;
    }
    if (count == 0) {
        fprintf(stderr, "runner: %s: no sweep %s with stored sections; 'runner sweeps' lists "
                "them\n", o->db_path, o->positional);
        status = EXIT_USAGE;
    }
    if (o->format == OUTPUT_JSON && count > 0)
        printf("[\n");
    for (size_t i = 0; i < count && status == EXIT_OK; i++) {
        table *t = NULL;
        if (store_section_table(s, ids[i], &t, &err) != 0) {
            fprintf(stderr, "runner: %s\n", err);
            free(err);
            status = EXIT_USAGE;
            break;
        }
        if (o->format == OUTPUT_JSON && i > 0)
            printf(",\n");
        output_table(stdout, t, o->format);
        if (o->format == OUTPUT_TABLE && i + 1 < count)
            printf("\n");
        table_free(t);
    }
    if (o->format == OUTPUT_JSON && count > 0)
        printf("]\n");
    free(ids);
    store_close(s);
    return status;
}

/* runner notify: delivers the outbox's pending summaries, oldest first. A
 * receiver that cannot be reached stops the round (the rest would wait for
 * the same timeouts); a rejected summary does not. */
static int command_notify(cli_options *o)
{
    webhook_target webhook;
    int has_webhook = 0;
    if (o->positional)
        return usage_error("notify: unexpected argument '%s'", o->positional);
    int status = webhook_from_options(o, &webhook, &has_webhook);
    if (status != EXIT_OK)
        return status;
    if (!has_webhook)
        return usage_error("%s", "notify needs the webhook URL (--webhook URL or "
                           "RUNNER_WEBHOOK_URL): it is never stored");
    store *s = NULL;
    char *err = NULL;
    int64_t *ids = NULL;
    size_t count = 0, delivered = 0, i = 0;
    if ((status = open_existing(o->db_path, &s, 1)) != EXIT_OK)
        return status;
    if (store_outbox_pending(s, &ids, &count, &err) != 0) {
        fprintf(stderr, "runner: %s\n", err);
        free(err);
        store_close(s);
        return EXIT_USAGE;
    }
    for (; i < count; i++) {
        store_outbox_row row;
        if (store_outbox_read(s, ids[i], &row, &err) != 0) {
            fprintf(stderr, "runner: %s\n", err);
            free(err);
            err = NULL;
            continue;
        }
        int64_t sweep_id = row.sweep_id;
        store_outbox_row_clear(&row);
        webhook_outcome outcome = webhook_send_summary(s, ids[i], sweep_id, o->db_path, &webhook);
        if (outcome == WEBHOOK_DELIVERED)
            delivered++;
        else if (outcome == WEBHOOK_PENDING) {
            i++;
            break;
        }
    }
    if (count == 0)
        fprintf(stderr, "runner: %s: no webhook summary waits for delivery\n", o->db_path);
    else if (delivered < count)
        fprintf(stderr, "runner: %s: %zu of %zu webhook summaries delivered; %zu still in the "
                "outbox%s\n", o->db_path, delivered, count, count - delivered,
                i < count ? " (the receiver did not answer, so the rest was not tried)" : "");
    free(ids);
    store_close(s);
    return delivered == count ? EXIT_OK : EXIT_NOT_DELIVERED;
}

int cli_main(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage_text, stderr);
        return EXIT_USAGE;
    }
    const char *command = argv[1];
    if (strcmp(command, "--help") == 0 || strcmp(command, "-h") == 0 ||
        strcmp(command, "help") == 0) {
        fputs(usage_text, stdout);
        return EXIT_OK;
    }
    if (strcmp(command, "--version") == 0) {
        printf("runner %s (plugin ABI %d, schema %d)\n", RUNNER_VERSION, RUNNER_PLUGIN_ABI,
               store_schema_version());
        return EXIT_OK;
    }
    cli_options o = { .format = OUTPUT_TABLE };
    int status;
    if (strcmp(command, "sweep") == 0) {
        status = parse_options(argc, argv, command,
                               " --db --set --plugin-dir --max-points --seed --quiet "
                               "--script-timeout --script-memory --jobs --resume --fail-fast --isolate "
                               "--point-timeout --webhook --webhook-format --webhook-strict ",
                               &o);
        if (status == EXIT_OK && !serve_if_worker(&o, &status))
            status = command_sweep(argc, argv, &o);
    } else if (strcmp(command, "resume") == 0) {
        status = parse_options(argc, argv, command,
                               " --db --plugin-dir --jobs --quiet --isolate --point-timeout "
                               "--webhook --webhook-format --webhook-strict ", &o);
        if (status == EXIT_OK && !serve_if_worker(&o, &status))
            status = command_resume(argc, argv, &o);
    } else if (strcmp(command, "plugins") == 0) {
        status = parse_options(argc, argv, command, " --plugin-dir ", &o);
        if (status == EXIT_OK)
            status = command_plugins(&o);
    } else if (strcmp(command, "sweeps") == 0) {
        status = parse_options(argc, argv, command, " --db --format ", &o);
        if (status == EXIT_OK)
            status = command_sweeps(&o);
    } else if (strcmp(command, "show") == 0) {
        status = parse_options(argc, argv, command, " --db --format ", &o);
        if (status == EXIT_OK)
            status = command_show(&o);
    } else if (strcmp(command, "notify") == 0) {
        status = parse_options(argc, argv, command, " --db --webhook ", &o);
        if (status == EXIT_OK)
            status = command_notify(&o);
    } else if (strcmp(command, "plot") == 0) {
        status = plot_command(argc, argv);
    } else if (strcmp(command, "report") == 0) {
        status = report_command(argc, argv);
    } else {
        status = usage_error("unknown command '%s'", command);
    }
    free_options(&o);
    mpi_pool_finish();
    return status;
}
