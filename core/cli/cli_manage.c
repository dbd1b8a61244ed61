/* cli_manage: the commands that name, tag and remove stored sweeps — `runner
 * tag`, `note`, `rename`, `rm`, `vacuum` — and the filters `runner sweeps`
 * and `runner rm` share. Which sweep a SWEEP argument means is selector.c's;
 * the SQL is store_manage.c's. */
#include "base/exit_status.h"
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/lease.h"
#include "base/process_identity.h"
#include "base/scheduler.h"
#include "base/table.h"
#include "base/name_check.h"
#include "base/util.h"
#include "selector.h"

/* --- one sweep, for writing ------------------------------------------------- */

/* Opens the database for writing and finds the sweep `arg` selects, which
 * must exist; on success *row is its line of `runner sweeps` (free it). */
static int open_sweep_for_writing(const options_parsed *a, const char *arg, store **s,
                                  int64_t *sweep_id, table **row)
{
    char *err = NULL;
    int64_t id;
    int last;
    *s = NULL;
    *row = NULL;
    int status = options_resolve_sweep(a->command, arg, 1, &id, &last);
    if (status != EXIT_OK || (status = cli_open_existing(a->db_path, s, 1)) != EXIT_OK)
        return status;
    if ((status = cli_resolve_sweep(*s, arg, sweep_id)) != EXIT_OK)
        goto fail;
    store_sweep_filter only = { .id = *sweep_id };
    if (store_list_sweeps_matching(*s, &only, row, &err) != 0) {
        status = cli_fail(err);
        goto fail;
    }
    if ((*row)->row_count == 1)
        return EXIT_OK;
    cli_error("%s: no sweep %s; 'runner sweeps' lists them", a->db_path, arg);
    status = EXIT_USAGE;
fail:
    table_free(*row);
    *row = NULL;
    store_close(*s);
    *s = NULL;
    return status;
}

/* The text of column `column` of a one-row listing, "" for NULL. */
static const char *listed_text(const table *row, const char *column)
{
    long c = table_find_column(row, column);
    const value *v = c >= 0 ? table_cell(row, 0, (size_t)c) : NULL;
    return v && v->type == RUNNER_TEXT ? v->as.text : "";
}

/* runner tag SWEEP +T -T ...: +T (or T) adds, -T removes; prints the tags. */
int cli_manage_tag(const options_parsed *a)
{
    size_t n = a->positional_count;
    const char **add = calloc(n + 1, sizeof *add), **drop = calloc(n + 1, sizeof *drop);
    size_t add_count = 0, drop_count = 0;
    char *err = NULL;
    int status = add && drop ? EXIT_OK : cli_fail(NULL);
    for (size_t i = 1; status == EXIT_OK && i < n; i++) {
        const char *word = a->positionals[i];
        const char *tag = word[0] == '+' || word[0] == '-' ? word + 1 : word;
        if (selector_check_tag("tag", tag, &err) != 0)
            status = cli_fail(err);
        else if (word[0] == '-')
            drop[drop_count++] = tag;
        else
            add[add_count++] = tag;
    }
    store *s = NULL;
    table *row = NULL;
    int64_t id = 0;
    if (status == EXIT_OK &&
        (status = open_sweep_for_writing(a, a->positional, &s, &id, &row)) == EXIT_OK && n > 1) {
        table_free(row);
        row = NULL;
        store_sweep_filter only = { .id = id };
        if (store_sweep_retag(s, id, add, add_count, drop, drop_count, &err) != 0 ||
            store_list_sweeps_matching(s, &only, &row, &err) != 0)
            status = cli_fail(err);
    }
    if (status == EXIT_OK)
        printf("sweep %lld: tags %s\n", (long long)id,
               *listed_text(row, "tags") ? listed_text(row, "tags") : "(none)");
    table_free(row);
    store_close(s);
    free(add);
    free(drop);
    return status;
}

/* runner note SWEEP TEXT: '' clears the note. */
int cli_manage_note(const options_parsed *a)
{
    if (a->positional_count != 2)
        return options_usage_error("%s", "note needs a SWEEP and one TEXT (quote it; '' clears "
                                         "the note)");
    store *s = NULL;
    table *row = NULL;
    int64_t id = 0;
    char *err = NULL;
    const char *note = a->positionals[1];
    if (name_check("note", note, strlen(note), NAME_CHECK_TEXT_MAX, &err) != 0)
        return cli_fail(err);
    int status = open_sweep_for_writing(a, a->positional, &s, &id, &row);
    if (status == EXIT_OK && store_sweep_set_note(s, id, *note ? note : NULL, &err) != 0)
        status = cli_fail(err);
    if (status == EXIT_OK)
        printf("sweep %lld: %s\n", (long long)id, *note ? "note set" : "note cleared");
    table_free(row);
    store_close(s);
    return status;
}

/* runner rename SWEEP NAME: '' removes the name. */
int cli_manage_rename(const options_parsed *a)
{
    if (a->positional_count != 2)
        return options_usage_error("%s", "rename needs a SWEEP and a NAME ('' removes the name)");
    const char *name = a->positionals[1];
    char *err = NULL;
    if (*name && selector_check_name("rename", name, &err) != 0)
        return cli_fail(err);
    store *s = NULL;
    table *row = NULL;
    int64_t id = 0;
    int status = open_sweep_for_writing(a, a->positional, &s, &id, &row);
    if (status == EXIT_OK && store_sweep_set_name(s, id, *name ? name : NULL, &err) != 0)
        status = cli_fail(err);
    if (status == EXIT_OK && *name)
        printf("sweep %lld: named %s\n", (long long)id, name);
    else if (status == EXIT_OK)
        printf("sweep %lld: unnamed\n", (long long)id);
    table_free(row);
    store_close(s);
    return status;
}

/* --- rm and vacuum ------------------------------------------------------------ */

static scheduler_answer ask_scheduler(const char *job_id, void *ctx)
{
    (void)ctx;
    return scheduler_job_state(job_id, SCHEDULER_TIMEOUT_S);
}

/* Why sweep id must not be removed now, or NULL: its status is running and
 * the process recorded as running it is not known to be gone (lease.h). */
static char *alive_refusal(store *s, const char *db, int64_t id, const char *status, char **err)
{
    if (strcmp(status, "running") != 0)
        return NULL;
    process_identity recorded, self;
    sweep_lease lease;
    process_identity_self(&self);
    if (store_sweep_process(s, id, &recorded, &lease, err) != 0)
        return NULL;
    long long sweep = (long long)id, pid = (long long)recorded.pid;
    switch (lease_judge(&recorded, &lease, &self, util_now(), ask_scheduler, NULL)) {
    case SWEEP_GONE: return NULL;
    case SWEEP_ALIVE_HERE:
        return util_format("%s: sweep %lld is still running (pid %lld on this host); stop it "
                           "first, or 'runner rm %lld --force'",
                           db, sweep, pid, sweep);
    case SWEEP_LEASED:
    case SWEEP_SUSPENDED:
    case SWEEP_OTHER_HOST:
        return util_format("%s: sweep %lld may still be running on host %s (pid %lld); if it "
                           "is not, 'runner rm %lld --force'",
                           db, sweep, recorded.host, pid, sweep);
    case SWEEP_UNSURE: break;
    }
    return util_format("%s: sweep %lld may still be running (pid %lld on this host is alive); "
                       "if it is not, 'runner rm %lld --force'",
                       db, sweep, pid, sweep);
}

/* The sweeps rm was given: each SWEEP's one sweep, or every sweep the
 * filters match. *list holds their `runner sweeps` lines (free it). */
static int rm_targets(const options_parsed *a, store *s, table **list)
{
    store_sweep_filter f;
    char since[32], until[32], *err = NULL;
    int status = cli_sweep_filter(a, &f, since, until);
    if (status != EXIT_OK)
        return status;
    int filtered = cli_sweep_filter_given(&f);
    if (filtered == (a->positional_count > 0))
        return options_usage_error(
            "%s", filtered ? "rm takes SWEEPs or filters, not both"
                           : "rm needs a SWEEP or a filter (--script, --name, --tag, "
                             "--status, --plugin, --since, --until)");
    if (filtered)
        return store_list_sweeps_matching(s, &f, list, &err) == 0 ? EXIT_OK : cli_fail(err);
    if (!(*list = table_new("sweeps")))
        return cli_fail(NULL);
    for (size_t i = 0; i < a->positional_count; i++) {
        int64_t id;
        int last;
        table *row = NULL;
        const char *arg = a->positionals[i];
        if ((status = options_resolve_sweep(a->command, arg, 1, &id, &last)) != EXIT_OK ||
            (status = cli_resolve_sweep(s, arg, &id)) != EXIT_OK)
            return status;
        store_sweep_filter only = { .id = id };
        if (store_list_sweeps_matching(s, &only, &row, &err) != 0)
            return cli_fail(err);
        if (row->row_count == 0) {
            table_free(row);
            cli_error("%s: no sweep %s; 'runner sweeps' lists them", a->db_path, arg);
            return EXIT_USAGE;
        }
        int fresh = 1; /* the same sweep named twice is removed once */
        for (size_t k = 0; k < (*list)->row_count; k++)
            fresh = fresh && table_cell(*list, k, 0)->as.integer != id;
        if ((*list)->column_count == 0)
            for (size_t c = 0; c < row->column_count; c++)
                table_add_column(*list, row->columns[c].name, row->columns[c].unit,
                                 row->columns[c].type, 0);
        if (fresh && table_append_row(*list, row->cells) != 0) { /* moves the cells */
            table_free(row);
            return cli_fail(NULL);
        }
        table_free(row);
    }
    return EXIT_OK;
}

/* runner rm SWEEP... | --tag T ...: all of them in one transaction
 * (--answer KIND:ID removes stored answers instead: cli_answers.c). */
int cli_manage_rm(const options_parsed *a)
{
    store *s = NULL;
    table *list = NULL;
    int64_t *ids = NULL;
    char *err = NULL;
    if (a->values[OPTION_RM_ANSWER].given)
        return cli_answers_rm(a);
    int status = cli_open_existing(a->db_path, &s, 1);
    if (status != EXIT_OK)
        return status;
    if ((status = rm_targets(a, s, &list)) != EXIT_OK)
        goto done;
    size_t count = list->row_count;
    if (count == 0) {
        cli_error("%s: no sweep matches the filters; nothing removed", a->db_path);
        status = EXIT_USAGE;
        goto done;
    }
    long status_column = table_find_column(list, "status");
    if (!(ids = calloc(count, sizeof *ids))) {
        status = cli_fail(NULL);
        goto done;
    }
    for (size_t i = 0; i < count; i++) {
        ids[i] = table_cell(list, i, 0)->as.integer;
        if (a->values[OPTION_RM_FORCE].given)
            continue;
        const char *sweep_status = table_cell(list, i, (size_t)status_column)->as.text;
        char *refusal = alive_refusal(s, a->db_path, ids[i], sweep_status, &err);
        if (err || refusal) {
            status = cli_fail(err ? err : refusal);
            free(err ? refusal : NULL);
            goto done;
        }
    }
    if (store_sweeps_remove(s, ids, count, &err) != 0) {
        status = cli_fail(err);
        goto done;
    }
    for (size_t i = 0; i < count; i++)
        printf("removed sweep %lld (%s)\n", (long long)ids[i], table_cell(list, i, 2)->as.text);
    printf("'runner vacuum' gives their space back to the file system\n");
done:
    free(ids);
    table_free(list);
    store_close(s);
    return status;
}

/* "12.3 MB", "512 kB", "100 B". */
static void format_bytes(int64_t bytes, char out[32])
{
    if (bytes >= 1000000)
        snprintf(out, 32, "%.1f MB", (double)bytes / 1e6);
    else if (bytes >= 1000)
        snprintf(out, 32, "%.1f kB", (double)bytes / 1e3);
    else
        snprintf(out, 32, "%lld B", (long long)bytes);
}

int cli_manage_vacuum(const options_parsed *a)
{
    store *s = NULL;
    char *err = NULL;
    int64_t before = 0, after = 0;
    int status = cli_open_existing(a->db_path, &s, 1);
    if (status != EXIT_OK)
        return status;
    if (store_vacuum(s, &before, &after, &err) != 0)
        status = cli_fail(err);
    store_close(s);
    if (status == EXIT_OK) {
        char was[32], now[32], freed[32];
        format_bytes(before, was);
        format_bytes(after, now);
        format_bytes(before > after ? before - after : 0, freed);
        printf("%s: %s before, %s after: %s given back\n", a->db_path, was, now, freed);
    }
    return status;
}
