/* cli_slurm_shards: which of a `runner slurm` array's shards are complete,
 * for `--resubmit` (submit only the others) and `--merge-complete` (the
 * merge job, run afterany the array, when a shard is missing: merge what
 * is there, name the rest and the one command that runs them). A shard is
 * complete when its database's newest sweep finished, ok or with failed
 * points (a failed point is a result); anything else (no file, a sweep
 * interrupted, killed, timed out) is run again. docs/slurm.md. */
#include "cli_slurm_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/exit_status.h"
#include "base/quote.h"
#include "base/table.h"
#include "base/util.h"
#include "store/store.h"

/* The text of row 0's column name in t, or "?". */
static const char *cell_text(const table *t, const char *name)
{
    long column = table_find_column(t, name);
    value *v = column >= 0 && t->row_count ? table_cell(t, 0, (size_t)column) : NULL;
    return v && v->type == RUNNER_TEXT && v->as.text ? v->as.text : "?";
}

int slurm_file_complete(const char *path, char **why)
{
    *why = NULL;
    struct stat st;
    if (stat(path, &st) != 0) {
        *why = util_strdup("no database (the task never began its sweep)");
        return 0;
    }
    store *s = NULL;
    char *err = NULL;
    if (store_open_read(path, &s, &err) != 0) {
        *why = util_format("cannot be read: %s", err ? err : "out of memory");
        free(err);
        return 0;
    }
    int64_t *ids = NULL;
    size_t count = 0;
    store_sweep_record record = { 0 };
    table *listed = NULL;
    int complete = 0;
    if (store_sweeps_matching(s, NULL, &ids, &count, &err) != 0) {
        *why = util_format("cannot be read: %s", err ? err : "out of memory");
    } else if (count == 0) {
        *why = util_strdup("no sweep (the task stopped before its first point)");
    } else {
        /* the status a reader shows: a process proved gone is interrupted */
        store_sweep_filter f = { .id = ids[0] };
        if (store_find_sweep(s, ids[0], NULL, &record, &err) != 0 ||
            store_list_sweeps_matching(s, &f, &listed, &err) != 0) {
            *why = util_format("cannot be read: %s", err ? err : "out of memory");
        } else {
            const char *status = cell_text(listed, "status");
            complete = strcmp(status, "ok") == 0 || strcmp(status, "failed") == 0;
            if (!complete)
                *why = record.pid
                           ? util_format("%s (sweep %" PRId64 ", host %s, pid %" PRId64 ")", status,
                                         ids[0], record.host ? record.host : "?", record.pid)
                           : util_format("%s (sweep %" PRId64 ")", status, ids[0]);
        }
    }
    free(err);
    free(ids);
    table_free(listed);
    store_sweep_record_clear(&record);
    store_close(s);
    return complete;
}

/* Appends first, or first-last, to an --array list. */
static void add_range(strbuf *list, uint64_t first, uint64_t last)
{
    strbuf_printf(list, list->len ? ",%llu" : "%llu", (unsigned long long)first);
    if (last > first)
        strbuf_printf(list, "-%llu", (unsigned long long)last);
}

int slurm_missing_shards(const char *dir, uint64_t count, strbuf *list, uint64_t *missing)
{
    *missing = 0;
    uint64_t first = 0; /* the open range's first shard; 0: none open */
    for (uint64_t i = 1; i <= count; i++) {
        char *path = util_format("%s/shard-%llu.db", dir, (unsigned long long)i), *why = NULL;
        if (!path)
            return -1;
        int complete = slurm_file_complete(path, &why);
        free(path);
        free(why);
        if (!complete) {
            (*missing)++;
            if (!first)
                first = i;
        } else if (first) {
            add_range(list, first, i - 1);
            first = 0;
        }
    }
    if (first)
        add_range(list, first, count);
    return list->oom ? -1 : 0;
}

int slurm_merge_complete(const char *dir, uint64_t count, const char *rerun)
{
    const char **complete = calloc(count ? count : 1, sizeof *complete);
    strbuf lines = { 0 };
    size_t done = 0;
    uint64_t missing = 0;
    for (uint64_t i = 1; complete && i <= count; i++) {
        char *path = util_format("%s/shard-%llu.db", dir, (unsigned long long)i), *why = NULL;
        if (path && slurm_file_complete(path, &why)) {
            complete[done++] = path;
            continue;
        }
        missing++;
        strbuf_printf(&lines, "\n  shard %llu/%llu: %s; its log: %s/shard-%llu.log",
                      (unsigned long long)i, (unsigned long long)count, why ? why : "out of memory",
                      dir, (unsigned long long)i);
        free(why);
        free(path);
    }
    int status = EXIT_USAGE;
    if (!complete || lines.oom) {
        cli_error("slurm: out of memory");
    } else if (!missing) {
        /* a partial merge missing (--merge-fanout), or inputs that do not
         * belong together: --resubmit redoes the partial merges that are
         * not complete, and the merge */
        cli_error("slurm: every shard of %s is complete: the merge refused for the reason above; "
                  "to redo the merges not complete and merge again:",
                  dir);
        cli_error_lines("  %s --resubmit", rerun);
    } else {
        char *out = util_format("%s/complete.db", dir), *err = NULL;
        store *s = NULL;
        store_merge_result result = { 0 };
        int merged =
            done && out && store_open(out, &s, &err) == 0 &&
            store_merge(s, complete, done, 1, "runner slurm --merge-complete", &result, &err) == 0;
        store_close(s);
        if (done && !merged) {
            cli_error("slurm: merging the complete shards failed: %s", err ? err : "out of memory");
        }
        free(err);
        if (merged)
            cli_error("slurm: %llu of %llu shards not complete; the %zu complete ones are merged "
                      "into %s (%lld points, %lld rows) to look at:",
                      (unsigned long long)missing, (unsigned long long)count, done, out,
                      (long long)result.points, (long long)result.rows);
        else
            cli_error("slurm: %llu of %llu shards not complete:", (unsigned long long)missing,
                      (unsigned long long)count);
        cli_error_lines("%s\nrun them and merge again with:\n  %s --resubmit", lines.data + 1,
                        rerun);
        free(out);
    }
    for (size_t i = 0; i < done; i++)
        free((char *)complete[i]);
    free(complete);
    strbuf_free(&lines);
    return status;
}
