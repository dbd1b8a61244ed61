/* cli_run: the commands that run sweeps and deliver their summaries —
 * `runner sweep`, `runner resume` and `runner notify` — turning parsed
 * options (options.def) into a script_config or a webhook round. */
#include "base/exit_status.h"
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "base/lease.h"
#include "base/provenance.h"
#include "base/util.h"
#include "mpi/mpi_pool.h"
#include "notify/notify.h"
#include "run/run.h"
#include "script/script.h"
#include "selector.h"

static int default_jobs(void)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    return cores > 0 ? (int)(cores < 1024 ? cores : 1024) : 1;
}

/* The webhook: --webhook, else RUNNER_WEBHOOK_URL, signed with
 * RUNNER_WEBHOOK_SECRET. *has is 0 (and target untouched) without a URL. */
static int webhook_from_options(const options_parsed *a, webhook_target *target, int *has)
{
    const char *url = a->values[OPTION_WEBHOOK].text;
    const char *env = getenv("RUNNER_WEBHOOK_URL");
    int strict = a->values[OPTION_WEBHOOK_STRICT].given;
    if (url && !*url)
        return options_usage_error("%s", "--webhook '': the URL is empty; give an http:// or "
                                         "https:// URL, or leave --webhook out");
    if (!url && env && *env)
        url = env;
    *has = url != NULL;
    if (!url) {
        if (strict || a->values[OPTION_WEBHOOK_FORMAT].given)
            return options_usage_error("%s needs a webhook URL (--webhook URL or "
                                       "RUNNER_WEBHOOK_URL)",
                                       strict ? "--webhook-strict" : "--webhook-format");
        return EXIT_OK;
    }
    char *err = NULL;
    if (webhook_target_init(target, url, getenv("RUNNER_WEBHOOK_SECRET"), &err) != 0)
        return cli_fail(err);
    target->stop = &cli_stop_requested;
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
static int serve_if_worker(const options_parsed *a, int *status)
{
    char *err = NULL;
    if (mpi_pool_start(&cli_stop_requested, &err) != 0) {
        cli_fail(err);
        mpi_pool_abandon();
        *status = EXIT_USAGE;
        return 1;
    }
    if (mpi_build_check(&err) != 0) {
        /* Every rank knows: rank 0 says why (a differing worker has no
         * err), and MPI still ends cleanly. */
        if (err)
            cli_fail(err);
        *status = EXIT_USAGE;
        return 1;
    }
    if (mpi_pool_rank() == 0)
        return 0;
    cli_install_signal_handlers();
    *status = sweep_serve(a->values[OPTION_PLUGIN_DIR].list, &cli_stop_requested);
    return 1;
}

/* RUNNER_LEASE_SECONDS, checked before anything runs (base/lease.h). */
static int lease_from_env(double *period_s)
{
    char *err = NULL;
    return lease_period_from_env(period_s, &err) == 0 ? EXIT_OK : cli_fail(err);
}

/* What sweep and resume configure alike, from the options and their
 * defaults: every sweep_options member options.def names (OPTION_SWEEP),
 * then the few the command works out. The caller sets the script and its
 * --set values. */
static void config_from_options(const options_parsed *a, const webhook_target *webhook,
                                script_config *config)
{
    const option_value *v = a->values;
    *config = (script_config){
        .plugin_dirs = v[OPTION_PLUGIN_DIR].list,
        .max_points = v[OPTION_MAX_POINTS].integer,
        .memory_limit_bytes = (size_t)v[OPTION_SCRIPT_MEMORY].integer << 20,
        .time_limit_s = v[OPTION_SCRIPT_TIMEOUT].seconds,
    };
    sweep_options *o = &config->sweep;
    options_fill_sweep(a, o);
    o->db_path = a->db_path;
    o->stop = &cli_stop_requested;
    o->seed_given = v[OPTION_SEED].given;
    o->jobs = v[OPTION_JOBS].given ? (int)v[OPTION_JOBS].integer : default_jobs();
    if (o->point_timeout_s > 0)
        o->isolate = 1; /* a timeout needs a process to kill */
    summary_format webhook_format = SUMMARY_GENERIC;
    summary_parse_format(v[OPTION_WEBHOOK_FORMAT].text, &webhook_format);
    o->webhook = webhook;
    o->webhook_format = webhook_format;
    o->sweep_tags = v[OPTION_SWEEP_TAG].list;
    o->sweep_tag_count = v[OPTION_SWEEP_TAG].count;
}

/* --name, --tag and --note: checked before anything runs; they label a
 * new sweep, so --resume (which continues a stored one) refuses them. */
static int check_labels(const options_parsed *a)
{
    const option_value *v = a->values;
    char *err = NULL;
    int given =
        v[OPTION_SWEEP_NAME].given || v[OPTION_SWEEP_TAG].count > 0 || v[OPTION_SWEEP_NOTE].given;
    if (given && v[OPTION_RESUME].given)
        return options_usage_error("%s", "--name, --tag and --note label a new sweep, not one "
                                         "--resume continues: use 'runner rename', 'runner tag' or "
                                         "'runner note' on it");
    if (v[OPTION_SWEEP_NAME].given &&
        selector_check_name("--name", v[OPTION_SWEEP_NAME].text, &err) != 0)
        return cli_fail(err);
    for (size_t i = 0; i < v[OPTION_SWEEP_TAG].count; i++)
        if (selector_check_tag("--tag", v[OPTION_SWEEP_TAG].list[i], &err) != 0)
            return cli_fail(err);
    return EXIT_OK;
}

int cli_run_sweep(const options_parsed *a)
{
    int status;
    if (serve_if_worker(a, &status))
        return status;
    if (!a->positional)
        return options_usage_error("%s", "sweep needs a SCRIPT (e.g. runner sweep "
                                         "scripts/jitter.lua)");
    if ((status = check_labels(a)) != EXIT_OK)
        return status;
    double lease_period_s;
    if ((status = lease_from_env(&lease_period_s)) != EXIT_OK)
        return status;
    webhook_target webhook;
    int has_webhook = 0;
    if ((status = webhook_from_options(a, &webhook, &has_webhook)) != EXIT_OK)
        return status;
    cli_install_signal_handlers();
    script_config config;
    config_from_options(a, has_webhook ? &webhook : NULL, &config);
    config.sweep.lease_period_s = lease_period_s;
    config.script_path = a->positional;
    config.overrides = a->values[OPTION_SET].list;
    config.override_count = a->values[OPTION_SET].count;
    if (a->values[OPTION_SHARD].given) {
        char *err = NULL;
        if (shard_parse(a->values[OPTION_SHARD].text, &config.sweep.shard, &err) != 0) {
            cli_error("%s; see 'runner --help'", err);
            free(err);
            return EXIT_USAGE;
        }
    }
    char *command_line = recorded_command_line(a->argc, a->argv);
    config.sweep.command_line = command_line;
    status = script_run(&config);
    free(command_line);
    return status;
}

/* The --set values a sweep ran with, from its overrides_json, as
 * "NAME=VALUE" strings (a NULL-terminated malloc'd array of malloc'd
 * strings; *count of them). */
static char **stored_overrides(const char *overrides_json, size_t *count)
{
    json_t *overrides = json_loads(overrides_json ? overrides_json : "{}", 0, NULL);
    size_t n = overrides ? json_object_size(overrides) : 0;
    char **sets = calloc(n + 1, sizeof *sets);
    const char *key;
    json_t *value;
    *count = 0;
    json_object_foreach(overrides, key, value)
    {
        if (json_is_string(value) && sets)
            sets[(*count)++] = util_format("%s=%s", key, json_string_value(value));
    }
    json_decref(overrides);
    return sets;
}

/* Reads the record of the sweep a->positional selects, opening the
 * database for writing; prints the error and returns EXIT_USAGE. */
static int find_sweep(const options_parsed *a, store_sweep_record *record)
{
    store *s = NULL;
    char *err = NULL;
    int64_t id = 0;
    memset(record, 0, sizeof *record);
    /* Resume writes: it may upgrade an older schema here, never later. */
    int status = cli_open_existing(a->db_path, &s, 1);
    if (status != EXIT_OK)
        return status;
    if ((status = cli_resolve_sweep(s, a->positional, &id)) != EXIT_OK) {
        store_close(s);
        return status;
    }
    if (store_find_sweep(s, id, NULL, record, &err) != 0) {
        store_close(s);
        return cli_fail(err);
    }
    store_close(s);
    if (record->id == 0) {
        cli_error("%s: no sweep %s; 'runner sweeps' lists them", a->db_path, a->positional);
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

/* runner resume SWEEP: the stored script text, --set values and seed, so the
 * finished sweep holds exactly the rows an uninterrupted run would have. */
int cli_run_resume(const options_parsed *a)
{
    int status;
    if (serve_if_worker(a, &status))
        return status;
    int64_t id;
    int last;
    if ((status = options_resolve_sweep(a->command, a->positional, 0, &id, &last)) != EXIT_OK)
        return status;
    double lease_period_s;
    if ((status = lease_from_env(&lease_period_s)) != EXIT_OK)
        return status;
    webhook_target webhook;
    int has_webhook = 0;
    if ((status = webhook_from_options(a, &webhook, &has_webhook)) != EXIT_OK)
        return status;
    store_sweep_record record;
    if ((status = find_sweep(a, &record)) != EXIT_OK)
        return status;
    size_t count = 0;
    char **sets = stored_overrides(record.overrides_json, &count);
    cli_install_signal_handlers();
    script_config config;
    config_from_options(a, has_webhook ? &webhook : NULL, &config);
    config.sweep.lease_period_s = lease_period_s;
    config.script_path = record.script_path;
    config.script_text = record.script_text;
    config.overrides = (const char *const *)sets;
    config.override_count = count;
    config.max_points = 0;
    config.sweep.seed = record.seed;
    config.sweep.resume = 1;
    config.sweep.resume_sweep_id = record.id;
    config.sweep.shard = (shard_spec){ record.shard_index, record.shard_count };
    char *command_line = recorded_command_line(a->argc, a->argv);
    config.sweep.command_line = command_line;
    status = script_run(&config);
    free(command_line);
    for (size_t i = 0; i < count; i++)
        free(sets[i]);
    free(sets);
    store_sweep_record_clear(&record);
    return status;
}

/* Delivers the outbox's pending summaries, oldest first. A receiver that
 * cannot be reached stops the round (the rest would wait for the same
 * timeouts); a rejected summary does not. */
static int deliver_outbox(store *s, const char *db_path, const webhook_target *webhook)
{
    char *err = NULL;
    int64_t *ids = NULL;
    size_t count = 0, delivered = 0, i = 0;
    if (store_outbox_pending(s, &ids, &count, &err) != 0)
        return cli_fail(err);
    for (; i < count; i++) {
        store_outbox_row row;
        if (store_outbox_read(s, ids[i], &row, &err) != 0) {
            cli_fail(err);
            err = NULL;
            continue;
        }
        int64_t sweep_id = row.sweep_id;
        store_outbox_row_clear(&row);
        webhook_outcome outcome = webhook_send_summary(s, ids[i], sweep_id, db_path, webhook);
        if (outcome == WEBHOOK_DELIVERED)
            delivered++;
        else if (outcome == WEBHOOK_PENDING) {
            i++;
            break;
        }
    }
    if (count == 0)
        cli_error("%s: no webhook summary waits for delivery", db_path);
    else if (delivered < count)
        cli_error("%s: %zu of %zu webhook summaries delivered; %zu still in the "
                  "outbox%s",
                  db_path, delivered, count, count - delivered,
                  i < count ? " (the receiver did not answer, so the rest was not tried)" : "");
    free(ids);
    return delivered == count ? EXIT_OK : EXIT_NOT_DELIVERED;
}

int cli_run_notify(const options_parsed *a)
{
    webhook_target webhook;
    int has_webhook = 0;
    int status = webhook_from_options(a, &webhook, &has_webhook);
    if (status != EXIT_OK)
        return status;
    if (!has_webhook)
        return options_usage_error("%s", "notify needs the webhook URL (--webhook URL or "
                                         "RUNNER_WEBHOOK_URL): it is never stored");
    store *s = NULL;
    if ((status = cli_open_existing(a->db_path, &s, 1)) != EXIT_OK)
        return status;
    status = deliver_outbox(s, a->db_path, &webhook);
    store_close(s);
    return status;
}

/* runner migrate: the one command that only upgrades the schema (reading
 * commands refuse an older one rather than write it; docs/schema.md). */
int cli_run_migrate(const options_parsed *a)
{
    store *s = NULL;
    char *err = NULL;
    const char *done = "upgraded to";
    if (access(a->db_path, F_OK) == 0 && store_open_read(a->db_path, &s, &err) == 0)
        done = "already at";
    free(err);
    store_close(s);
    s = NULL;
    int status = cli_open_existing(a->db_path, &s, 1);
    if (status != EXIT_OK)
        return status;
    store_close(s);
    printf("%s: %s schema version %d\n", a->db_path, done, store_schema_version());
    return EXIT_OK;
}
