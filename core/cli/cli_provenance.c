/* cli_provenance: `runner show SWEEP --provenance`, where and how a sweep
 * ran: its record (script, commit, host, command line, seed, options), its
 * plugins and the machine (sweep_machine; docs/cli.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/exit_status.h"
#include "base/util.h"
#include "cli.h"
#include "store/store_query.h"

/* The sweep row's columns shown, in this order, when the file has them and
 * they are not NULL (the script's text is `runner report`'s to show). */
static const char *const record_columns[] = {
    "id",
    "name",
    "note",
    "status",
    "script_path",
    "script_sha256",
    "runner_version",
    "git_commit",
    "host",
    "command_line",
    "seed",
    "started_at",
    "ended_at",
    "options_json",
    "overrides_json",
    "shard_index",
    "shard_count",
    "slurm_job_id",
    "slurm_array_job_id",
    "slurm_array_task_id",
};

/* Appends (part, field, value) to t; value is copied. 0 or -1. */
static int add_row(table *t, const char *part, const char *field, const value *v)
{
    value row[3] = { value_text(part), value_text(field), VALUE_NULL };
    if (!row[0].type || !row[1].type || value_copy(&row[2], v) != 0 ||
        table_append_row(t, row) != 0) {
        for (size_t i = 0; i < 3; i++)
            value_clear(&row[i]);
        return -1;
    }
    return 0;
}

static int add_text(table *t, const char *part, const char *field, const char *text)
{
    value v = value_text(text);
    int rc = v.type ? add_row(t, part, field, &v) : -1;
    value_clear(&v);
    return rc;
}

/* Every row the provenance shows: part (sweep, plugin, machine), field,
 * value. */
static int gather(store *s, int64_t sweep_id, table *out, char **err)
{
    table *record = NULL, *plugins = NULL;
    machine_facts m = { 0 };
    int rc = store_sweep_row(s, sweep_id, &record, err);
    for (size_t i = 0; rc == 0 && i < sizeof record_columns / sizeof *record_columns; i++) {
        long c = record->row_count ? table_find_column(record, record_columns[i]) : -1;
        const value *v = c >= 0 ? table_cell(record, 0, (size_t)c) : NULL;
        if (v && v->type && add_row(out, "sweep", record_columns[i], v) != 0)
            rc = util_fail(err, "out of memory");
    }
    if (rc == 0)
        rc = store_sweep_plugin_list(s, sweep_id, &plugins, err);
    for (size_t r = 0; rc == 0 && r < plugins->row_count; r++) {
        char version[64], path[4096], sha[80];
        value_format(table_cell(plugins, r, 1), 17, version, sizeof version);
        value_format(table_cell(plugins, r, 2), 17, path, sizeof path);
        value_format(table_cell(plugins, r, 3), 17, sha, sizeof sha);
        char *text = util_format("%s %s sha256 %s", version, path, sha);
        char name[256];
        value_format(table_cell(plugins, r, 0), 17, name, sizeof name);
        if (!text || add_text(out, "plugin", name, text) != 0)
            rc = util_fail(err, "out of memory");
        free(text);
    }
    if (rc == 0)
        rc = store_sweep_machine(s, sweep_id, &m, err);
    for (size_t i = 0; rc == 0 && i < m.count; i++)
        if (add_text(out, "machine", m.fields[i].name, m.fields[i].value) != 0)
            rc = util_fail(err, "out of memory");
    if (rc == 0 && m.count == 0 &&
        add_text(out, "machine", "(none)", "not recorded: a runner before schema 17 ran it") != 0)
        rc = util_fail(err, "out of memory");
    machine_facts_clear(&m);
    table_free(record);
    table_free(plugins);
    return rc;
}

/* The rows of one part as a two-column table titled title, for
 * record_print. NULL when out of memory. */
static table *part_table(const table *all, const char *part, const char *title)
{
    table *t = table_new(title);
    if (!t || table_add_column(t, "field", NULL, RUNNER_TEXT, 0) != 0 ||
        table_add_column(t, "value", NULL, RUNNER_TEXT, 0) != 0)
        goto fail;
    for (size_t r = 0; r < all->row_count; r++) {
        if (strcmp(table_cell(all, r, 0)->as.text, part) != 0)
            continue;
        value row[2] = { VALUE_NULL, VALUE_NULL };
        if (value_copy(&row[0], table_cell(all, r, 1)) != 0 ||
            value_copy(&row[1], table_cell(all, r, 2)) != 0 || table_append_row(t, row) != 0) {
            value_clear(&row[0]);
            value_clear(&row[1]);
            goto fail;
        }
    }
    return t;
fail:
    table_free(t);
    return NULL;
}

int cli_show_provenance(store *s, int64_t sweep_id, output_format format, size_t width)
{
    char *err = NULL;
    char *title = util_format("sweep %lld: provenance", (long long)sweep_id);
    table *all = title ? table_new(title) : NULL;
    free(title);
    if (!all || table_add_column(all, "part", NULL, RUNNER_TEXT, 0) != 0 ||
        table_add_column(all, "field", NULL, RUNNER_TEXT, 0) != 0 ||
        table_add_column(all, "value", NULL, RUNNER_TEXT, 0) != 0) {
        table_free(all);
        return cli_fail(NULL);
    }
    if (gather(s, sweep_id, all, &err) != 0) {
        table_free(all);
        return cli_fail(err);
    }
    int status = EXIT_OK;
    if (format != OUTPUT_TABLE) {
        if (output_table(stdout, all, format) != 0)
            status = cli_fail(util_strdup("cannot write the provenance"));
        table_free(all);
        return status;
    }
    static const char *const parts[][2] = { { "sweep", NULL },
                                            { "plugin", "plugins" },
                                            { "machine", "machine" } };
    for (size_t i = 0; i < 3 && status == EXIT_OK; i++) {
        char *head =
            parts[i][1] ? util_strdup(parts[i][1]) : util_format("sweep %lld", (long long)sweep_id);
        table *t = head ? part_table(all, parts[i][0], head) : NULL;
        free(head);
        if (!t) {
            status = cli_fail(NULL);
            break;
        }
        if (t->row_count)
            record_print(stdout, t, width);
        table_free(t);
    }
    table_free(all);
    return status;
}
