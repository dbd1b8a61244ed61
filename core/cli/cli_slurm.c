/* cli_slurm: `runner slurm SCRIPT --shards N`: writes the sbatch scripts
 * of docs/slurm.md's recipe, a job array whose task I runs `runner sweep
 * SCRIPT --shard I/N` into its own database, and a merge job that runs
 * `runner merge` once the whole array has succeeded (afterok); with
 * --merge-fanout F, between them an array of partial merges of F shards
 * each, so no job reads every shard. With --submit, submits them. Before
 * writing anything it runs the script as a dry run (its --set values and
 * every grid checked) and asks the cluster how large an array may be. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "base/exit_status.h"
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/outfile.h"
#include "base/quote.h"
#include "base/strbuf.h"
#include "base/util.h"
#include "script/script.h"

#define SCONTROL_WAIT_MS 5000 /* a cluster that does not answer by then is not asked */

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

/* One `#SBATCH --option=VALUE` line, the value quoted for sbatch (checked
 * beforehand by check_text, so it always can be). With a file_pattern the
 * value is a directory, and the pattern (Slurm's %a kept) follows it
 * unquoted: sbatch, like sh, joins "DIR"/shard-%a.log into one word. */
static void add_directive(strbuf *b, const char *option, const char *value,
                          const char *file_pattern)
{
    strbuf_printf(b, "#SBATCH --%s=", option);
    if (quote_sbatch_value(b, value, file_pattern != NULL) != 0)
        b->oom = 1; /* cannot happen after check_text; fail rather than write it */
    strbuf_printf(b, "%s\n", file_pattern ? file_pattern : "");
}

/* The #SBATCH lines both jobs share. */
static void add_header(strbuf *b, const options_parsed *a, const char *name)
{
    strbuf_str(b, "#!/bin/sh\n");
    add_directive(b, "job-name", name, NULL);
    if (a->values[OPTION_SLURM_TIME].given)
        add_directive(b, "time", a->values[OPTION_SLURM_TIME].text, NULL);
    if (a->values[OPTION_PARTITION].given)
        add_directive(b, "partition", a->values[OPTION_PARTITION].text, NULL);
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
    if (a->values[OPTION_JOBS].given) /* the threads --jobs starts need their cores */
        strbuf_printf(b, "#SBATCH --cpus-per-task=%llu\n",
                      (unsigned long long)a->values[OPTION_JOBS].integer);
    add_directive(b, "output", dir, "/shard-%a.log");
    strbuf_str(b, "# One shard of the sweep per task (runner slurm wrote this; docs/slurm.md).\n");
    strbuf_str(b, "db=");
    quote_shell_word(b, dir);
    strbuf_str(b, "/shard-$SLURM_ARRAY_TASK_ID.db\n");
    /* Resume only a sweep that was begun: a task killed before that left
     * at most an empty file. */
    strbuf_str(b, "resume=\n");
    quote_shell_word(b, runner);
    strbuf_str(b, " sweeps --db \"$db\" --format csv 2>/dev/null | tail -n +2 | grep -q . &&\n"
                  "    resume=--resume\n");
    quote_shell_word(b, runner);
    strbuf_str(b, " sweep ");
    quote_shell_word(b, script);
    strbuf_printf(b, " --shard \"$SLURM_ARRAY_TASK_ID/%llu\" --db \"$db\" --quiet $resume",
                  (unsigned long long)shards);
    if (a->values[OPTION_SEED].given)
        strbuf_printf(b, " --seed %llu", (unsigned long long)a->values[OPTION_SEED].integer);
    if (a->values[OPTION_JOBS].given)
        strbuf_printf(b, " --jobs %llu", (unsigned long long)a->values[OPTION_JOBS].integer);
    if (a->values[OPTION_MAX_POINTS].given)
        strbuf_printf(b, " --max-points %llu",
                      (unsigned long long)a->values[OPTION_MAX_POINTS].integer);
    if (a->values[OPTION_ISOLATE].given)
        strbuf_str(b, " --isolate");
    if (a->values[OPTION_POINT_TIMEOUT].given)
        strbuf_printf(b, " --point-timeout %.17g", a->values[OPTION_POINT_TIMEOUT].seconds);
    if (a->values[OPTION_REUSE].given)
        strbuf_str(b, " --reuse");
    for (size_t i = 0; i < a->values[OPTION_SET].count; i++) {
        strbuf_str(b, " --set ");
        quote_shell_word(b, a->values[OPTION_SET].list[i]);
    }
    for (size_t i = 0; i < a->values[OPTION_PLUGIN_DIR].count; i++) {
        strbuf_str(b, " --plugin-dir ");
        quote_shell_word(b, a->values[OPTION_PLUGIN_DIR].list[i]);
    }
    strbuf_str(b, "\nstatus=$?\n[ $status -eq 1 ] && exit 0  # some points failed: still a "
                  "complete shard\nexit $status\n");
}

/* The partial merges of --merge-fanout F: an array whose task J merges
 * shards (J-1)F+1 to JF into DIR/partial-J.db, submitted afterok the
 * shards' array. */
static void partial_script(strbuf *b, const options_parsed *a, const char *runner, const char *dir,
                           const char *name, uint64_t partials)
{
    uint64_t shards = a->values[OPTION_SHARDS].integer;
    uint64_t fanout = a->values[OPTION_MERGE_FANOUT].integer;
    add_header(b, a, name);
    strbuf_printf(b, "#SBATCH --array=1-%llu\n", (unsigned long long)partials);
    add_directive(b, "output", dir, "/partial-%a.log");
    strbuf_printf(b,
                  "# Task J merges shards (J-1)*%llu+1 to J*%llu of %llu into partial-J.db "
                  "(docs/slurm.md).\n",
                  (unsigned long long)fanout, (unsigned long long)fanout,
                  (unsigned long long)shards);
    strbuf_str(b, "dir=");
    quote_shell_word(b, dir);
    strbuf_printf(b,
                  "\nfirst=$(( (SLURM_ARRAY_TASK_ID - 1) * %llu + 1 ))\n"
                  "last=$(( SLURM_ARRAY_TASK_ID * %llu ))\n"
                  "[ $last -gt %llu ] && last=%llu\n"
                  "set --\n"
                  "i=$first\n"
                  "while [ $i -le $last ]; do set -- \"$@\" \"$dir/shard-$i.db\"; i=$((i + 1)); "
                  "done\n",
                  (unsigned long long)fanout, (unsigned long long)fanout,
                  (unsigned long long)shards, (unsigned long long)shards);
    strbuf_str(b, "exec ");
    quote_shell_word(b, runner);
    strbuf_str(b, " merge --partial \"$dir/partial-$SLURM_ARRAY_TASK_ID.db\" \"$@\"\n");
}

/* The merge job, submitted with --dependency=afterok on the job before:
 * of every shard, or (partials > 0) of the partial merges. */
static void merge_script(strbuf *b, const options_parsed *a, const char *runner, const char *out,
                         const char *dir, const char *name, uint64_t partials)
{
    add_header(b, a, name);
    add_directive(b, "output", dir, "/merge.log");
    strbuf_str(b, partials ? "# Merges the partial merges once all succeeded (afterok; "
                             "docs/slurm.md).\n"
                           : "# Merges the array's shards once all succeeded (afterok; "
                             "docs/slurm.md).\n");
    strbuf_str(b, "exec ");
    quote_shell_word(b, runner);
    strbuf_str(b, " merge ");
    quote_shell_word(b, out);
    uint64_t inputs = partials ? partials : a->values[OPTION_SHARDS].integer;
    for (uint64_t i = 1; i <= inputs; i++) {
        strbuf_str(b, " ");
        quote_shell_word(b, dir);
        strbuf_printf(b, partials ? "/partial-%llu.db" : "/shard-%llu.db", (unsigned long long)i);
    }
    strbuf_str(b, "\n");
}

/* Writes a generated script as the new file name in dirfd (outfile.h),
 * executable. */
static int write_script(int dirfd, const char *name, const char *path, const strbuf *b)
{
    char *err = NULL;
    if (b->oom)
        return cli_fail(util_strdup("out of memory"));
    outfile *f = outfile_begin(dirfd, name, path, 0777, &err);
    if (!f)
        return cli_fail(err);
    if (b->len && fwrite(b->data, 1, b->len, outfile_stream(f)) != b->len) {
        outfile_discard(f);
        return cli_fail(util_format("%s: cannot write: %s", path, strerror(errno)));
    }
    return outfile_commit(f, &err) == 0 ? EXIT_OK : cli_fail(err);
}

/* Text that goes into an #SBATCH line or a file name must be one line:
 * 0, or 2 after saying which (what) and why. file_path: also no backslash,
 * which would stop Slurm expanding %a in the --output path. */
static int check_text(const char *what, const char *text, int file_path)
{
    if (!quote_has_control(text) && !(file_path && strchr(text, '\\')))
        return 0;
    char *shown = quote_terminal(text);
    fprintf(stderr,
            "runner: slurm: %s '%s' holds %s, which an #SBATCH line cannot carry; "
            "choose another\n",
            what, shown ? shown : "?",
            quote_has_control(text) ? "a control character (a newline, a tab)" : "a backslash");
    free(shown);
    return EXIT_USAGE;
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

/* Submits path afterok the job after_id (NULL: none); its id, malloc'd. */
static char *submit_after(const char *path, const char *after_id)
{
    char *dependency = after_id ? util_format("--dependency=afterok:%s", after_id) : NULL;
    if (after_id && !dependency)
        return NULL;
    const char *args[] = { "sbatch", "--parsable", dependency ? dependency : path,
                           dependency ? path : NULL, NULL };
    char *id = sbatch(args);
    free(dependency);
    return id;
}

/* Submits the array, then (partial_path) the partial merges depending on
 * it, then the merge job depending on the job before. */
static int submit(const char *array_path, const char *partial_path, const char *merge_path)
{
    char *array_id = submit_after(array_path, NULL);
    char *partial_id = array_id && partial_path ? submit_after(partial_path, array_id) : NULL;
    char *merge_id = array_id && (partial_id || !partial_path)
                         ? submit_after(merge_path, partial_id ? partial_id : array_id)
                         : NULL;
    if (merge_id && partial_id)
        printf("array job %s, partial merges job %s, merge job %s\n", array_id, partial_id,
               merge_id);
    else if (merge_id)
        printf("array job %s, merge job %s\n", array_id, merge_id);
    int ok = merge_id != NULL;
    free(array_id);
    free(partial_id);
    free(merge_id);
    return ok ? EXIT_OK : EXIT_USAGE;
}

/* The cluster's MaxArraySize from `scontrol show config`, waiting at most
 * SCONTROL_WAIT_MS; 0 when there is no scontrol, it fails or is slow
 * (then sbatch alone judges). */
static uint64_t max_array_size(void)
{
    int pipefd[2];
    if (pipe(pipefd) != 0)
        return 0;
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_RDWR);
        dup2(pipefd[1], 1);
        if (null >= 0)
            dup2(null, 2);
        close(pipefd[0]);
        close(pipefd[1]);
        execlp("scontrol", "scontrol", "show", "config", (char *)NULL);
        _exit(127);
    }
    close(pipefd[1]);
    strbuf text = { 0 };
    char chunk[4096];
    double deadline = util_now() + SCONTROL_WAIT_MS / 1000.0;
    int open_pipe = pid > 0;
    while (open_pipe) {
        double left_ms = (deadline - util_now()) * 1000;
        struct pollfd p = { .fd = pipefd[0], .events = POLLIN };
        if (left_ms <= 0 || poll(&p, 1, (int)left_ms) <= 0)
            break;
        ssize_t got = read(pipefd[0], chunk, sizeof chunk);
        if (got <= 0)
            open_pipe = 0;
        else
            strbuf_add(&text, chunk, (size_t)got);
    }
    close(pipefd[0]);
    int status = 0;
    if (pid > 0 && open_pipe)
        kill(pid, SIGKILL); /* slow: the cluster does not answer */
    if (pid > 0)
        waitpid(pid, &status, 0);
    uint64_t size = 0;
    const char *line = text.data && !open_pipe && WIFEXITED(status) && WEXITSTATUS(status) == 0
                           ? strstr(text.data, "MaxArraySize")
                           : NULL;
    const char *eq = line ? strchr(line, '=') : NULL;
    if (eq && (!strchr(line, '\n') || eq < strchr(line, '\n')))
        size = strtoull(eq + 1, NULL, 10);
    strbuf_free(&text);
    return size;
}

/* Refuses arrays larger than the cluster takes: task indexes run from 1
 * to N, and Slurm takes indexes below MaxArraySize (the partial merges'
 * array is smaller than the shards'). 0 or 2. */
static int check_array_sizes(const options_parsed *a)
{
    uint64_t shards = a->values[OPTION_SHARDS].integer;
    uint64_t max = max_array_size();
    if (!max)
        return 0;
    if (shards >= max) {
        fprintf(stderr,
                "runner: slurm: --shards %llu is more than this cluster's job arrays take "
                "(MaxArraySize %llu, scontrol show config: task indexes up to %llu); use "
                "--shards %llu or fewer (each shard then runs more points), or ask the admins "
                "to raise MaxArraySize\n",
                (unsigned long long)shards, (unsigned long long)max, (unsigned long long)(max - 1),
                (unsigned long long)(max - 1));
        return EXIT_USAGE;
    }
    return 0;
}

/* Runs the script as shard 1 of N would, as a dry run: its --set values
 * and every section's grid (--max-points per shard) checked, nothing run
 * or stored. The script's own output is not shown; its errors are. */
static int check_script(const options_parsed *a, const char *script)
{
    const option_value *v = a->values;
    script_config config = {
        .script_path = script,
        .plugin_dirs = v[OPTION_PLUGIN_DIR].list,
        .overrides = v[OPTION_SET].list,
        .override_count = v[OPTION_SET].count,
        .max_points = v[OPTION_MAX_POINTS].integer,
        .memory_limit_bytes = (size_t)1024 << 20,
        .time_limit_s = 600,
        .dry_run = 1,
    };
    config.sweep.db_path = a->db_path;
    config.sweep.quiet = 1;
    config.sweep.jobs = 1;
    config.sweep.seed = v[OPTION_SEED].integer;
    config.sweep.shard = (shard_spec){ 1, (uint32_t)v[OPTION_SHARDS].integer };
    fflush(stdout);
    int saved = dup(1), null = open("/dev/null", O_WRONLY);
    if (saved >= 0 && null >= 0)
        dup2(null, 1);
    int status = script_run(&config);
    fflush(stdout);
    if (saved >= 0 && null >= 0)
        dup2(saved, 1);
    if (saved >= 0)
        close(saved);
    if (null >= 0)
        close(null);
    if (status == EXIT_OK)
        return EXIT_OK;
    fprintf(stderr, "runner: slurm: %s fails as a shard (above); nothing was written\n", script);
    return EXIT_USAGE;
}

int cli_slurm(const options_parsed *a)
{
    if (!a->positional)
        return options_usage_error("%s", "slurm needs a SCRIPT (e.g. runner slurm "
                                         "scripts/jitter.lua --shards 4)");
    if (!a->values[OPTION_SHARDS].given)
        return options_usage_error("%s", "slurm needs --shards N");
    uint64_t shards = a->values[OPTION_SHARDS].integer;
    uint64_t fanout =
        a->values[OPTION_MERGE_FANOUT].given ? a->values[OPTION_MERGE_FANOUT].integer : 0;
    /* With fewer shards than F, one merge reads them all anyway. */
    uint64_t partials = fanout && shards > fanout ? (shards + fanout - 1) / fanout : 0;
    const char *dir_given = a->values[OPTION_DB_DIR].text;
    char name[128], merge_name[160], partial_name[160];
    job_name(a->positional, name, sizeof name);
    if (check_text("the script's name", name, 0) || check_text("--db-dir", dir_given, 1) ||
        (a->values[OPTION_SLURM_TIME].given &&
         check_text("--time", a->values[OPTION_SLURM_TIME].text, 0)) ||
        (a->values[OPTION_PARTITION].given &&
         check_text("--partition", a->values[OPTION_PARTITION].text, 0)))
        return EXIT_USAGE;
    if (check_array_sizes(a) != 0 || check_script(a, a->positional) != 0)
        return EXIT_USAGE;
    char *err = NULL;
    int dirfd = outfile_open_dir(dir_given, 1, &err);
    if (dirfd < 0) {
        fprintf(stderr, "runner: slurm: %s\n", err ? err : "out of memory");
        free(err);
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
    if (!runner || !script || !dir || !out || (status = check_text("--db-dir", dir, 1)) != 0)
        goto done;
    status = EXIT_USAGE;
    snprintf(merge_name, sizeof merge_name, "%s-merge", name);
    snprintf(partial_name, sizeof partial_name, "%s-partial", name);
    char *array_file = util_format("%s.array.sbatch", name);
    char *partial_file = util_format("%s.partial.sbatch", name);
    char *merge_file = util_format("%s.merge.sbatch", name);
    char *array_path = util_format("%s/%s.array.sbatch", dir, name);
    char *partial_path = util_format("%s/%s.partial.sbatch", dir, name);
    char *merge_path = util_format("%s/%s.merge.sbatch", dir, name);
    strbuf array = { 0 }, partial = { 0 }, merge = { 0 }, line = { 0 };
    array_script(&array, a, runner, script, dir, name);
    if (partials)
        partial_script(&partial, a, runner, dir, partial_name, partials);
    merge_script(&merge, a, runner, out, dir, merge_name, partials);
    if (array_file && partial_file && merge_file && array_path && partial_path && merge_path &&
        (status = write_script(dirfd, array_file, array_path, &array)) == EXIT_OK &&
        (!partials ||
         (status = write_script(dirfd, partial_file, partial_path, &partial)) == EXIT_OK) &&
        (status = write_script(dirfd, merge_file, merge_path, &merge)) == EXIT_OK) {
        if (a->values[OPTION_SUBMIT].given) {
            status = submit(array_path, partials ? partial_path : NULL, merge_path);
        } else if (partials) {
            /* lines to paste into a shell: each path one quoted word */
            strbuf_str(&line, "  jid=$(sbatch --parsable ");
            quote_shell_word(&line, array_path);
            strbuf_str(&line, ") &&\n  pid=$(sbatch --parsable --dependency=afterok:$jid ");
            quote_shell_word(&line, partial_path);
            strbuf_str(&line, ") &&\n  sbatch --dependency=afterok:$pid ");
            quote_shell_word(&line, merge_path);
            printf("wrote %s, %s (%llu partial merges of %llu shards) and %s; submit them "
                   "with\n%s\n",
                   array_path, partial_path, (unsigned long long)partials,
                   (unsigned long long)fanout, merge_path, line.oom ? "" : line.data);
        } else {
            /* a line to paste into a shell: each path one quoted word */
            strbuf_str(&line, "  jid=$(sbatch --parsable ");
            quote_shell_word(&line, array_path);
            strbuf_str(&line, ") && sbatch --dependency=afterok:$jid ");
            quote_shell_word(&line, merge_path);
            printf("wrote %s and %s; submit them with\n%s\n", array_path, merge_path,
                   line.oom ? "" : line.data);
        }
    }
    strbuf_free(&array);
    strbuf_free(&partial);
    strbuf_free(&merge);
    strbuf_free(&line);
    free(array_file);
    free(partial_file);
    free(merge_file);
    free(array_path);
    free(partial_path);
    free(merge_path);
done:
    close(dirfd);
    free(runner);
    free(script);
    free(dir);
    free(out);
    return status;
}
