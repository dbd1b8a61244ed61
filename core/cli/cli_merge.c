/* cli_merge: `runner merge OUT.db SHARD.db...`: the shards of a sweep run
 * with --shard (or merged files of some of them), merged into one sweep of
 * OUT.db (store_merge.c; docs/slurm.md). */
#include "base/exit_status.h"
#include "cli.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "base/provenance.h"
#include "store/store.h"

/* 1 when the two paths name the same file. */
static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

/* Every shard there must be a runner database of this version:
 * store_open_read says why not, before anything is written. A shard not
 * there is named by store_merge, with every other one missing. */
static int check_shards(const char *out, const char *const *shards, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        struct stat st;
        if (stat(shards[i], &st) != 0)
            continue;
        if (same_file(out, shards[i])) {
            cli_error("merge: %s is a shard: write the merge to another file", out);
            return EXIT_USAGE;
        }
        store *s = NULL;
        char *err = NULL;
        if (store_open_read(shards[i], &s, &err) != 0) {
            cli_error("merge: %s", err ? err : "out of memory");
            free(err);
            return EXIT_USAGE;
        }
        store_close(s);
    }
    return EXIT_OK;
}

/* A merge reads many files at once (one descriptor each): the soft limit
 * goes up to the hard one, which is all an unprivileged process may do. */
static void raise_descriptor_limit(void)
{
    struct rlimit limit;
    if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
        limit.rlim_cur = limit.rlim_max;
        setrlimit(RLIMIT_NOFILE, &limit);
    }
}

int cli_merge(const options_parsed *a)
{
    if (a->positional_count < 2)
        return options_usage_error("%s", "merge needs OUT.db and the shards' databases (e.g. "
                                         "runner merge results.db shard-*.db)");
    const char *out = a->positionals[0];
    const char *const *shards = a->positionals + 1;
    size_t count = a->positional_count - 1;
    int status = check_shards(out, shards, count);
    if (status != EXIT_OK)
        return status;
    raise_descriptor_limit();
    store *s = NULL;
    char *err = NULL;
    if (store_open(out, &s, &err) != 0)
        return cli_fail(err);
    char *command_line = provenance_command_line(a->argc, a->argv);
    store_merge_result result;
    int rc = store_merge(s, shards, count, a->values[OPTION_PARTIAL].given,
                         command_line ? command_line : "runner merge", &result, &err);
    free(command_line);
    store_close(s);
    if (rc != 0)
        return cli_fail(err);
    char parts[96] = "";
    if (result.parts && result.parts_for_memory)
        snprintf(parts, sizeof parts, " (in parts of at most %d shards, which bounds its memory)",
                 STORE_MERGE_OPEN_MAX);
    else if (result.parts)
        snprintf(parts, sizeof parts, " (in parts: more shards than open files allow)");
    if (result.already)
        cli_error("merge: sweep %lld in %s already holds these %zu shards; "
                  "nothing to do",
                  (long long)result.sweep_id, out, count);
    else
        cli_error("merged %zu %s into sweep %lld in %s: %lld points, %lld "
                  "rows%s",
                  count, a->values[OPTION_PARTIAL].given ? "inputs (a partial merge)" : "shards",
                  (long long)result.sweep_id, out, (long long)result.points, (long long)result.rows,
                  parts);
    return result.failed ? EXIT_POINTS_FAILED : EXIT_OK;
}
