/* cli_slurm: `runner slurm SCRIPT --shards N`: writes the two sbatch
 * scripts of docs/slurm.md's recipe, a job array whose task I runs
 * `runner sweep SCRIPT --shard I/N` into its own database, and a merge job
 * that runs `runner merge` once the whole array has succeeded (afterok);
 * with --submit, submits both. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "base/exit_status.h"
#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/strbuf.h"
#include "base/util.h"

/* Appends text single-quoted for sh. */
static void add_quoted(strbuf *b, const char *text)
{
    strbuf_add(b, "'", 1);
    for (const char *p = text; *p; p++) {
        if (*p == '\'')
            strbuf_str(b, "'\\''");
        else
            strbuf_add(b, p, 1);
    }
    strbuf_add(b, "'", 1);
}

/* An absolute path for path (which must exist), malloc'd; NULL with errno. */
static char *absolute(const char *path)
{
    char resolved[PATH_MAX];
    return realpath(path, resolved) ? util_strdup(resolved) : NULL;
}

/* The job's name: the script's file name without .lua. */
static void job_name(const char *script, char *out, size_t size)
{
    const char *base = strrchr(script, '/');
    base = base ? base + 1 : script;
    size_t len = strcspn(base, ".");
    snprintf(out, size, "%.*s", (int)(len ? len : strlen(base)), base);
}

/* The #SBATCH lines both jobs share. */
static void add_header(strbuf *b, const options_parsed *a, const char *name)
{
    strbuf_str(b, "#!/bin/sh\n");
    strbuf_printf(b, "#SBATCH --job-name=%s\n", name);
    if (a->values[OPTION_SLURM_TIME].given)
        strbuf_printf(b, "#SBATCH --time=%s\n", a->values[OPTION_SLURM_TIME].text);
    if (a->values[OPTION_PARTITION].given)
        strbuf_printf(b, "#SBATCH --partition=%s\n", a->values[OPTION_PARTITION].text);
}

/* The array job: task I runs shard I of N into DIR/shard-I.db, resuming
 * it when the task runs again (a requeue, or a resubmitted array). Failed
 * points (exit 1) still make a complete shard, so the task succeeds. */
static void array_script(strbuf *b, const options_parsed *a, const char *runner, const char *script,
                         const char *dir, const char *name)
{
    uint64_t shards = a->values[OPTION_SHARDS].integer;
    add_header(b, a, name);
    strbuf_printf(b, "#SBATCH --array=1-%llu\n", (unsigned long long)shards);
    strbuf_printf(b, "#SBATCH --output=%s/shard-%%a.log\n", dir);
    strbuf_str(b, "# One shard of the sweep per task (runner slurm wrote this; docs/slurm.md).\n");
    strbuf_str(b, "db=");
    add_quoted(b, dir);
    strbuf_str(b, "/shard-$SLURM_ARRAY_TASK_ID.db\n");
    /* Resume only a sweep that was begun: a task killed before that left
     * at most an empty file. */
    strbuf_str(b, "resume=\n");
    add_quoted(b, runner);
    strbuf_str(b, " sweeps --db \"$db\" --format csv 2>/dev/null | tail -n +2 | grep -q . &&\n"
                  "    resume=--resume\n");
    add_quoted(b, runner);
    strbuf_str(b, " sweep ");
    add_quoted(b, script);
    strbuf_printf(b, " --shard \"$SLURM_ARRAY_TASK_ID/%llu\" --db \"$db\" --quiet $resume",
                  (unsigned long long)shards);
    if (a->values[OPTION_SEED].given)
        strbuf_printf(b, " --seed %llu", (unsigned long long)a->values[OPTION_SEED].integer);
    if (a->values[OPTION_JOBS].given)
        strbuf_printf(b, " --jobs %llu", (unsigned long long)a->values[OPTION_JOBS].integer);
    for (size_t i = 0; i < a->values[OPTION_SET].count; i++) {
        strbuf_str(b, " --set ");
        add_quoted(b, a->values[OPTION_SET].list[i]);
    }
    for (size_t i = 0; i < a->values[OPTION_PLUGIN_DIR].count; i++) {
        strbuf_str(b, " --plugin-dir ");
        add_quoted(b, a->values[OPTION_PLUGIN_DIR].list[i]);
    }
    strbuf_str(b, "\nstatus=$?\n[ $status -eq 1 ] && exit 0  # some points failed: still a "
                  "complete shard\nexit $status\n");
}

/* The merge job, submitted with --dependency=afterok:ARRAY_JOB_ID. */
static void merge_script(strbuf *b, const options_parsed *a, const char *runner, const char *out,
                         const char *dir, const char *name)
{
    add_header(b, a, name);
    strbuf_printf(b, "#SBATCH --output=%s/merge.log\n", dir);
    strbuf_str(b, "# Merges the array's shards once all succeeded (afterok; docs/slurm.md).\n");
    strbuf_str(b, "exec ");
    add_quoted(b, runner);
    strbuf_str(b, " merge ");
    add_quoted(b, out);
    for (uint64_t i = 1; i <= a->values[OPTION_SHARDS].integer; i++) {
        strbuf_str(b, " ");
        add_quoted(b, dir);
        strbuf_printf(b, "/shard-%llu.db", (unsigned long long)i);
    }
    strbuf_str(b, "\n");
}

static int write_script(const char *path, const strbuf *b)
{
    char *err = NULL;
    if (b->oom)
        return cli_fail(util_strdup("out of memory"));
    if (util_replace_file(path, b->data, b->len, &err) != 0)
        return cli_fail(err);
    chmod(path, 0755);
    return EXIT_OK;
}

/* Runs sbatch with args, returning its stdout's first line (the job id
 * with --parsable), malloc'd; NULL after printing why. */
static char *sbatch(const char *const *args)
{
    int pipefd[2];
    if (pipe(pipefd) != 0)
        return NULL;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(pipefd[1], 1);
        close(pipefd[0]);
        close(pipefd[1]);
        execvp("sbatch", (char *const *)args);
        fprintf(stderr, "runner: slurm: cannot run sbatch: %s\n", strerror(errno));
        _exit(127);
    }
    close(pipefd[1]);
    char line[256] = "";
    size_t len = 0;
    ssize_t got;
    while (pid > 0 && len + 1 < sizeof line &&
           (got = read(pipefd[0], line + len, sizeof line - 1 - len)) > 0)
        len += (size_t)got;
    close(pipefd[0]);
    line[len] = '\0';
    line[strcspn(line, ";\n")] = '\0'; /* --parsable: "id" or "id;cluster" */
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
        !*line) {
        fprintf(stderr, "runner: slurm: sbatch %s failed\n", args[2]);
        return NULL;
    }
    return util_strdup(line);
}

/* Submits the array, then the merge job depending on it. */
static int submit(const char *array_path, const char *merge_path)
{
    const char *array_args[] = { "sbatch", "--parsable", array_path, NULL };
    char *array_id = sbatch(array_args);
    if (!array_id)
        return EXIT_USAGE;
    char *dependency = util_format("--dependency=afterok:%s", array_id);
    const char *merge_args[] = { "sbatch", "--parsable", dependency, merge_path, NULL };
    char *merge_id = dependency ? sbatch(merge_args) : NULL;
    if (merge_id)
        printf("array job %s, merge job %s\n", array_id, merge_id);
    free(array_id);
    free(dependency);
    int ok = merge_id != NULL;
    free(merge_id);
    return ok ? EXIT_OK : EXIT_USAGE;
}

int cli_slurm(const options_parsed *a)
{
    if (!a->positional)
        return options_usage_error("%s", "slurm needs a SCRIPT (e.g. runner slurm "
                                         "scripts/jitter.lua --shards 4)");
    if (!a->values[OPTION_SHARDS].given)
        return options_usage_error("%s", "slurm needs --shards N");
    const char *dir_given = a->values[OPTION_DB_DIR].text;
    if (mkdir(dir_given, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "runner: slurm: cannot make %s: %s\n", dir_given, strerror(errno));
        return EXIT_USAGE;
    }
    char *runner = absolute("/proc/self/exe"), *script = absolute(a->positional);
    char *dir = absolute(dir_given);
    /* The merged database is --db, made absolute: jobs start elsewhere. */
    char cwd[PATH_MAX];
    char *out = a->db_path[0] == '/'      ? util_strdup(a->db_path)
                : getcwd(cwd, sizeof cwd) ? util_format("%s/%s", cwd, a->db_path)
                                          : NULL;
    int status = EXIT_USAGE;
    if (!script)
        fprintf(stderr, "runner: slurm: %s: %s\n", a->positional, strerror(errno));
    if (!runner || !script || !dir || !out)
        goto done;
    char name[128], merge_name[160];
    job_name(script, name, sizeof name);
    snprintf(merge_name, sizeof merge_name, "%s-merge", name);
    char *array_path = util_format("%s/%s.array.sbatch", dir, name);
    char *merge_path = util_format("%s/%s.merge.sbatch", dir, name);
    strbuf array = { 0 }, merge = { 0 };
    array_script(&array, a, runner, script, dir, name);
    merge_script(&merge, a, runner, out, dir, merge_name);
    if (array_path && merge_path && (status = write_script(array_path, &array)) == EXIT_OK &&
        (status = write_script(merge_path, &merge)) == EXIT_OK) {
        if (a->values[OPTION_SUBMIT].given)
            status = submit(array_path, merge_path);
        else
            printf("wrote %s and %s; submit them with\n"
                   "  jid=$(sbatch --parsable %s) && sbatch --dependency=afterok:$jid %s\n",
                   array_path, merge_path, array_path, merge_path);
    }
    strbuf_free(&array);
    strbuf_free(&merge);
    free(array_path);
    free(merge_path);
done:
    free(runner);
    free(script);
    free(dir);
    free(out);
    return status;
}
