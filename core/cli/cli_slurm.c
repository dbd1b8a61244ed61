/* cli_slurm: `runner slurm SCRIPT --shards N`: writes the sbatch scripts
 * of docs/slurm.md's recipe, a job array whose task I runs `runner sweep
 * SCRIPT --shard I/N` into its own database, and a merge job that runs
 * `runner merge` once every task has ended, however (afterany: when a
 * shard is missing it merges the complete ones and prints the command
 * that runs the rest, `runner slurm ... --resubmit`); with --merge-fanout
 * F, between them an array of partial merges of F shards each, so no job
 * reads every shard. With --submit, submits them; with --resubmit, only
 * the shards not complete and a new merge. Before writing anything it
 * runs the script as a dry run (its --set values and every grid checked)
 * and asks the cluster how large an array may be. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "base/exit_status.h"
#include "cli.h"
#include "cli_slurm_int.h"

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
#include "store/store.h"

#define SCONTROL_WAIT_MS 5000 /* a cluster that does not answer by then is not asked */
/* The merge job's memory, asked when --mem is: its own is a connection per
 * input it holds open (schema, statements, page cache; at most
 * STORE_MERGE_OPEN_MAX, more go in parts) over a fixed base, which covers
 * the 64 MB of shards' pages it holds (docs/performance.md, "Merge rate and
 * memory"). */
#define MERGE_BASE_MB 128
#define MERGE_PER_INPUT_KB 512

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
    static const struct {
        int id;
        const char *option;
    } texts[] = { { OPTION_ACCOUNT, "account" },
                  { OPTION_QOS, "qos" },
                  { OPTION_CONSTRAINT, "constraint" },
                  { OPTION_MAIL_TYPE, "mail-type" },
                  { OPTION_MAIL_USER, "mail-user" } };
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++)
        if (a->values[texts[i].id].given)
            add_directive(b, texts[i].option, a->values[texts[i].id].text, NULL);
    /* --sbatch-arg --NAME=VALUE: the name as it is (checked: letters,
     * digits, -), the value quoted like every other */
    for (size_t i = 0; i < a->values[OPTION_SBATCH_ARG].count; i++) {
        const char *arg = a->values[OPTION_SBATCH_ARG].list[i];
        const char *eq = strchr(arg, '=');
        if (!eq) {
            strbuf_printf(b, "#SBATCH %s\n", arg);
            continue;
        }
        strbuf_printf(b, "#SBATCH %.*s=", (int)(eq - arg), arg);
        if (quote_sbatch_value(b, eq + 1, 0) != 0)
            b->oom = 1; /* cannot happen after check_text */
        strbuf_str(b, "\n");
    }
}

/* The array job: task I runs shard I of N into DIR/shard-I.db, resuming
 * it when the task runs again (a requeue, or a resubmitted array). Failed
 * points (exit 1) still make a complete shard, so the task succeeds. With
 * --requeue-before S, Slurm signals the batch shell S s before the time
 * limit (B:USR1); the shell asks runner to stop (SIGTERM: the running
 * points finish and are stored, exit 130) and requeues the task, whose
 * next run resumes the shard. */
static void array_script(strbuf *b, const options_parsed *a, const char *runner, const char *script,
                         const char *dir, const char *name)
{
    uint64_t shards = a->values[OPTION_SHARDS].integer;
    add_header(b, a, name);
    strbuf_printf(b, "#SBATCH --array=1-%llu", (unsigned long long)shards);
    if (a->values[OPTION_ARRAY_THROTTLE].given)
        strbuf_printf(b, "%%%llu", (unsigned long long)a->values[OPTION_ARRAY_THROTTLE].integer);
    strbuf_str(b, "\n");
    if (a->values[OPTION_SLURM_MEM].given)
        add_directive(b, "mem", a->values[OPTION_SLURM_MEM].text, NULL);
    int requeue = a->values[OPTION_REQUEUE_BEFORE].given;
    if (requeue)
        strbuf_printf(b,
                      "#SBATCH --signal=B:USR1@%llu\n#SBATCH --requeue\n"
                      "#SBATCH --open-mode=append\n", /* the log of every allocation */
                      (unsigned long long)a->values[OPTION_REQUEUE_BEFORE].integer);
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
    if (requeue)
        strbuf_printf(
            b,
            "# %llu s before the time limit (the job's end by squeue, to the second;\n"
            "# else Slurm's --signal, up to a minute early) runner is asked to stop\n"
            "# after its running points, and the task is requeued to finish the "
            "shard.\n"
            "requeue=\n"
            "trap '[ -n \"$requeue\" ] || { requeue=1; kill -TERM $pid 2>/dev/null; }' "
            "USR1\n"
            "end=$(date -d \"$(squeue -h -j \"$SLURM_JOB_ID\" -o %%e 2>/dev/null)\" +%%s "
            "2>/dev/null)\n"
            "left=$(( ${end:-0} - %llu - $(date +%%s) ))\n"
            "if [ -z \"$end\" ] || [ $left -le 0 ]; then\n"
            "    echo \"runner: slurm: shard $SLURM_ARRAY_TASK_ID: squeue gives no end "
            "time to stop before; Slurm's --signal will (up to a minute early)\" >&2\n"
            "else\n"
            "    echo \"runner: slurm: shard $SLURM_ARRAY_TASK_ID stops in $left s, before "
            "its time limit\" >&2\n"
            "fi\n"
            "[ $left -gt 0 ] && { sleep $left && kill -USR1 $$ 2>/dev/null; } &\n"
            "timer=$!\n",
            (unsigned long long)a->values[OPTION_REQUEUE_BEFORE].integer,
            (unsigned long long)a->values[OPTION_REQUEUE_BEFORE].integer);
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
    if (requeue)
        strbuf_str(b, " &\npid=$!\n"
                      "# wait returns early when the trap runs: wait again until runner ends\n"
                      "while :; do\n"
                      "    wait $pid\n"
                      "    status=$?\n"
                      "    kill -0 $pid 2>/dev/null || break\n"
                      "done\n"
                      "kill $timer 2>/dev/null\n"
                      "if [ -n \"$requeue\" ] && [ $status -eq 130 ]; then\n"
                      "    echo \"runner: slurm: shard $SLURM_ARRAY_TASK_ID stopped before its "
                      "time limit; requeued to finish in the next allocation\" >&2\n"
                      "    scontrol requeue \"${SLURM_ARRAY_JOB_ID}_$SLURM_ARRAY_TASK_ID\" && "
                      "exit 0\n"
                      "fi\n");
    else
        strbuf_str(b, "\nstatus=$?\n");
    strbuf_str(b, "[ $status -eq 1 ] && exit 0  # some points failed: still a complete shard\n"
                  "exit $status\n");
}

/* The partial merges of --merge-fanout F: an array whose task J merges
 * shards (J-1)F+1 to JF into DIR/partial-J.db, submitted afterany the
 * shards' array (a task whose shards are not all complete fails; the
 * final merge then names them). */
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

/* The merge job, submitted with --dependency=afterany on the job before:
 * of every shard, or (partials > 0) of the partial merges. When the merge
 * refuses (2: a shard missing or not finished), rerun --merge-complete
 * merges the complete shards and names the others with the command that
 * runs them (rerun --resubmit). */
static void merge_script(strbuf *b, const options_parsed *a, const char *runner, const char *out,
                         const char *dir, const char *name, uint64_t partials, const char *rerun)
{
    add_header(b, a, name);
    if (a->values[OPTION_SLURM_MEM].given) {
        uint64_t inputs = partials ? partials : a->values[OPTION_SHARDS].integer;
        if (inputs > STORE_MERGE_OPEN_MAX)
            inputs = STORE_MERGE_OPEN_MAX; /* read at once at most */
        strbuf_printf(
            b, "#SBATCH --mem=%lluM\n",
            (unsigned long long)(MERGE_BASE_MB + (inputs * MERGE_PER_INPUT_KB + 1023) / 1024));
    }
    add_directive(b, "output", dir, "/merge.log");
    strbuf_str(b, partials ? "# Merges the partial merges once every task has ended (afterany; "
                             "docs/slurm.md);\n"
                           : "# Merges the array's shards once every task has ended (afterany; "
                             "docs/slurm.md);\n");
    strbuf_str(b, "# when one is not complete, merges those that are into complete.db and "
                  "names\n# the others with the command that runs them.\n");
    quote_shell_word(b, runner);
    strbuf_str(b, " merge ");
    quote_shell_word(b, out);
    uint64_t inputs = partials ? partials : a->values[OPTION_SHARDS].integer;
    for (uint64_t i = 1; i <= inputs; i++) {
        strbuf_str(b, " ");
        quote_shell_word(b, dir);
        strbuf_printf(b, partials ? "/partial-%llu.db" : "/shard-%llu.db", (unsigned long long)i);
    }
    strbuf_printf(b, "\nstatus=$?\n[ $status -ne 2 ] && exit $status\n%s --merge-complete\n",
                  rerun);
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
    cli_error("slurm: %s '%s' holds %s, which an #SBATCH line cannot carry; choose another", what,
              text,
              quote_has_control(text) ? "a control character (a newline, a tab)" : "a backslash");
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
        cli_error("slurm: cannot run sbatch: %s", strerror(errno));
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
        size_t last = 0;
        while (args[last + 1])
            last++;
        cli_error("slurm: sbatch %s failed", args[last]);
        return NULL;
    }
    return util_strdup(line);
}

/* Submits path afterany the job after_id (NULL: none), with array (NULL:
 * the script's own --array) as its tasks; its id, malloc'd. */
static char *submit_after(const char *path, const char *after_id, const char *array)
{
    char *dependency = after_id ? util_format("--dependency=afterany:%s", after_id) : NULL;
    char *tasks = array ? util_format("--array=%s", array) : NULL;
    if ((after_id && !dependency) || (array && !tasks)) {
        free(dependency);
        free(tasks);
        return NULL;
    }
    const char *args[6] = { "sbatch", "--parsable" };
    size_t n = 2;
    if (dependency)
        args[n++] = dependency;
    if (tasks)
        args[n++] = tasks;
    args[n] = path;
    char *id = sbatch(args);
    free(dependency);
    free(tasks);
    return id;
}

/* Submits the array (shards: its tasks, NULL all, "" none), then
 * (partial_path) the partial merges depending on it (partials: their
 * tasks, likewise), then the merge job depending on the last job
 * submitted; prints their ids on one line after prefix. */
static int submit(const char *prefix, const char *array_path, const char *shards,
                  const char *partial_path, const char *partials, const char *merge_path)
{
    char *array_id = NULL, *partial_id = NULL, *merge_id = NULL;
    int ok = 1;
    if (!shards || *shards)
        ok = (array_id = submit_after(array_path, NULL, shards)) != NULL;
    if (ok && partial_path && (!partials || *partials))
        ok = (partial_id = submit_after(partial_path, array_id, partials)) != NULL;
    if (ok)
        ok =
            (merge_id = submit_after(merge_path, partial_id ? partial_id : array_id, NULL)) != NULL;
    if (ok) {
        printf("%s", prefix);
        if (array_id)
            printf("array job %s, ", array_id);
        if (partial_id)
            printf("partial merges job %s, ", partial_id);
        printf("merge job %s\n", merge_id);
    }
    free(array_id);
    free(partial_id);
    free(merge_id);
    return ok ? EXIT_OK : EXIT_USAGE;
}

/* --resubmit: the shards of dir not complete, the partial merges (of F
 * shards each) holding one of them or not complete themselves, then a new
 * merge job. */
static int resubmit(const options_parsed *a, const char *dir, const char *array_path,
                    const char *partial_path, uint64_t partials, const char *merge_path)
{
    uint64_t shards = a->values[OPTION_SHARDS].integer, missing = 0;
    uint64_t fanout = a->values[OPTION_MERGE_FANOUT].integer;
    strbuf list = { 0 }, tasks = { 0 }, prefix = { 0 };
    int status = EXIT_USAGE;
    if (slurm_missing_shards(dir, shards, &list, &missing) != 0)
        goto done;
    if (list.len && a->values[OPTION_ARRAY_THROTTLE].given)
        strbuf_printf(&list, "%%%llu",
                      (unsigned long long)a->values[OPTION_ARRAY_THROTTLE].integer);
    for (uint64_t j = 1; j <= partials; j++) {
        int redo = 0;
        for (uint64_t i = (j - 1) * fanout + 1; i <= j * fanout && i <= shards && !redo; i++) {
            char *path = util_format("%s/shard-%llu.db", dir, (unsigned long long)i), *why = NULL;
            redo = !path || !slurm_file_complete(path, &why);
            free(path);
            free(why);
        }
        char *path = util_format("%s/partial-%llu.db", dir, (unsigned long long)j), *why = NULL;
        redo = redo || !path || !slurm_file_complete(path, &why);
        free(path);
        free(why);
        if (redo)
            strbuf_printf(&tasks, tasks.len ? ",%llu" : "%llu", (unsigned long long)j);
    }
    if (missing)
        strbuf_printf(&prefix,
                      "resubmitted %llu of %llu shards (%s): ", (unsigned long long)missing,
                      (unsigned long long)shards, list.data);
    else
        strbuf_printf(&prefix, "every shard of %s is complete: ", dir);
    if (list.oom || tasks.oom || prefix.oom) {
        cli_error("slurm: out of memory");
        goto done;
    }
    status = submit(prefix.data, array_path, list.len ? list.data : "",
                    partials ? partial_path : NULL, tasks.data ? tasks.data : "", merge_path);
done:
    strbuf_free(&list);
    strbuf_free(&tasks);
    strbuf_free(&prefix);
    return status;
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
        cli_error("slurm: --shards %llu is more than this cluster's job arrays take "
                  "(MaxArraySize %llu, scontrol show config: task indexes up to %llu); use "
                  "--shards %llu or fewer (each shard then runs more points), or ask the admins "
                  "to raise MaxArraySize",
                  (unsigned long long)shards, (unsigned long long)max,
                  (unsigned long long)(max - 1), (unsigned long long)(max - 1));
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
    cli_error("slurm: %s fails as a shard (above); nothing was written", script);
    return EXIT_USAGE;
}

/* --mem as sbatch takes it: digits, then K, M, G or T (megabytes without). */
static int check_mem(const char *text)
{
    size_t digits = strspn(text, "0123456789");
    if (digits && (!text[digits] || (strchr("KMGTkmgt", text[digits]) && !text[digits + 1])))
        return 0;
    cli_error("slurm: --mem '%s': expected a size as sbatch takes it, a whole number with K, M, "
              "G or T after it (e.g. 4G; megabytes without)",
              text);
    return EXIT_USAGE;
}

/* --mail-type: Slurm's mail types, comma-separated. */
static int check_mail_type(const char *text)
{
    static const char *const types[] = { "NONE",           "BEGIN",         "END",
                                         "FAIL",           "REQUEUE",       "ALL",
                                         "INVALID_DEPEND", "STAGE_OUT",     "TIME_LIMIT",
                                         "TIME_LIMIT_90",  "TIME_LIMIT_80", "TIME_LIMIT_50",
                                         "ARRAY_TASKS" };
    const char *p = text;
    for (;;) {
        size_t len = strcspn(p, ",");
        int known = 0;
        for (size_t i = 0; i < sizeof types / sizeof *types && !known; i++)
            known = len == strlen(types[i]) && strncmp(p, types[i], len) == 0;
        if (!known) {
            cli_error("slurm: --mail-type '%s': expected Slurm's mail types, comma-separated "
                      "(NONE, BEGIN, END, FAIL, REQUEUE, ALL, INVALID_DEPEND, STAGE_OUT, "
                      "TIME_LIMIT, TIME_LIMIT_90, TIME_LIMIT_80, TIME_LIMIT_50, ARRAY_TASKS)",
                      text);
            return EXIT_USAGE;
        }
        if (!p[len])
            return 0;
        p += len + 1;
    }
}

/* --sbatch-arg: --NAME or --NAME=VALUE, NAME of lowercase letters, digits
 * and -, and none of those runner slurm writes itself. */
static int check_sbatch_arg(const char *arg)
{
    static const char *const own[] = { "array",    "output",     "error",
                                       "job-name", "dependency", "signal" };
    size_t name =
        strspn(arg + (strncmp(arg, "--", 2) == 0 ? 2 : 0), "abcdefghijklmnopqrstuvwxyz0123456789-");
    int status = 0;
    if (strncmp(arg, "--", 2) != 0 || !name || (arg[2 + name] && arg[2 + name] != '=')) {
        cli_error("slurm: --sbatch-arg '%s': expected --NAME or --NAME=VALUE, an sbatch option "
                  "(e.g. --sbatch-arg --gres=gpu:1)",
                  arg);
        status = EXIT_USAGE;
    }
    for (size_t i = 0; !status && i < sizeof own / sizeof *own; i++)
        if (name == strlen(own[i]) && strncmp(arg + 2, own[i], name) == 0) {
            cli_error("slurm: --sbatch-arg '%s': runner slurm writes --%s itself (docs/slurm.md)",
                      arg, own[i]);
            status = EXIT_USAGE;
        }
    return status ? status : check_text("--sbatch-arg", arg, 0);
}

/* Every value bound for an #SBATCH line, checked: 0, or 2 after saying
 * which and why. */
static int check_values(const options_parsed *a)
{
    static const struct {
        int id;
        const char *what;
    } texts[] = { { OPTION_SLURM_TIME, "--time" },       { OPTION_PARTITION, "--partition" },
                  { OPTION_ACCOUNT, "--account" },       { OPTION_QOS, "--qos" },
                  { OPTION_CONSTRAINT, "--constraint" }, { OPTION_MAIL_TYPE, "--mail-type" },
                  { OPTION_MAIL_USER, "--mail-user" },   { OPTION_SLURM_MEM, "--mem" } };
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++)
        if (a->values[texts[i].id].given &&
            check_text(texts[i].what, a->values[texts[i].id].text, 0))
            return EXIT_USAGE;
    if ((a->values[OPTION_SLURM_MEM].given && check_mem(a->values[OPTION_SLURM_MEM].text)) ||
        (a->values[OPTION_MAIL_TYPE].given && check_mail_type(a->values[OPTION_MAIL_TYPE].text)))
        return EXIT_USAGE;
    for (size_t i = 0; i < a->values[OPTION_SBATCH_ARG].count; i++)
        if (check_sbatch_arg(a->values[OPTION_SBATCH_ARG].list[i]))
            return EXIT_USAGE;
    if (a->values[OPTION_REQUEUE_BEFORE].given && !a->values[OPTION_SLURM_TIME].given)
        return options_usage_error("%s", "slurm --requeue-before needs --time (the limit it "
                                         "counts back from)");
    if (a->values[OPTION_RESUBMIT].given + a->values[OPTION_MERGE_COMPLETE].given +
            a->values[OPTION_SUBMIT].given >
        1)
        return options_usage_error("%s", "slurm takes one of --submit, --resubmit and "
                                         "--merge-complete");
    return 0;
}

/* The command that runs this one again (the caller adds --resubmit or
 * --merge-complete): cd to this directory (the arguments' relative
 * paths), then this command line with runner's absolute path, without
 * --submit, --resubmit and --merge-complete; each word quoted for a shell
 * where it needs it. malloc'd; NULL without memory. */
static char *rerun_command(const options_parsed *a, const char *runner)
{
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd))
        return NULL;
    strbuf b = { 0 };
    strbuf_str(&b, "cd ");
    quote_shell_word_readable(&b, cwd);
    strbuf_str(&b, " && ");
    quote_shell_word_readable(&b, runner);
    strbuf_str(&b, " slurm");
    for (int i = 2; i < a->argc; i++) {
        const char *word = a->argv[i];
        if (strcmp(word, "--submit") == 0 || strcmp(word, "--resubmit") == 0 ||
            strcmp(word, "--merge-complete") == 0)
            continue;
        strbuf_str(&b, " ");
        quote_shell_word_readable(&b, word);
    }
    if (b.oom) {
        strbuf_free(&b);
        return NULL;
    }
    return b.data;
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
        check_values(a) != 0)
        return EXIT_USAGE;
    if (a->values[OPTION_MERGE_COMPLETE].given) {
        /* the merge job's second step: the scripts stay as they were */
        char *runner = absolute("/proc/self/exe"), *dir = absolute(dir_given);
        char *rerun = runner ? rerun_command(a, runner) : NULL;
        int status = EXIT_USAGE;
        if (!dir)
            cli_error("slurm: %s: %s", dir_given, strerror(errno));
        else if (!rerun)
            cli_error("slurm: out of memory");
        else
            status = slurm_merge_complete(dir, shards, rerun); /* it adds --resubmit */
        free(runner);
        free(dir);
        free(rerun);
        return status;
    }
    if (check_array_sizes(a) != 0 || check_script(a, a->positional) != 0)
        return EXIT_USAGE;
    char *err = NULL;
    int dirfd = outfile_open_dir(dir_given, 1, &err);
    if (dirfd < 0) {
        cli_error("slurm: %s", err ? err : "out of memory");
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
        cli_error("slurm: %s: %s", a->positional, strerror(errno));
    char *rerun = runner ? rerun_command(a, runner) : NULL;
    if (!runner || !script || !dir || !out || !rerun ||
        (status = check_text("--db-dir", dir, 1)) != 0)
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
    merge_script(&merge, a, runner, out, dir, merge_name, partials, rerun);
    if (array_file && partial_file && merge_file && array_path && partial_path && merge_path &&
        (status = write_script(dirfd, array_file, array_path, &array)) == EXIT_OK &&
        (!partials ||
         (status = write_script(dirfd, partial_file, partial_path, &partial)) == EXIT_OK) &&
        (status = write_script(dirfd, merge_file, merge_path, &merge)) == EXIT_OK) {
        if (a->values[OPTION_RESUBMIT].given) {
            status = resubmit(a, dir, array_path, partial_path, partials, merge_path);
        } else if (a->values[OPTION_SUBMIT].given) {
            status = submit("", array_path, NULL, partials ? partial_path : NULL, NULL, merge_path);
        } else if (partials) {
            /* lines to paste into a shell: each path one quoted word */
            strbuf_str(&line, "  jid=$(sbatch --parsable ");
            quote_shell_word(&line, array_path);
            strbuf_str(&line, ") &&\n  pid=$(sbatch --parsable --dependency=afterany:$jid ");
            quote_shell_word(&line, partial_path);
            strbuf_str(&line, ") &&\n  sbatch --dependency=afterany:$pid ");
            quote_shell_word(&line, merge_path);
            printf("wrote %s, %s (%llu partial merges of %llu shards) and %s; submit them "
                   "with\n%s\n",
                   array_path, partial_path, (unsigned long long)partials,
                   (unsigned long long)fanout, merge_path, line.oom ? "" : line.data);
        } else {
            /* a line to paste into a shell: each path one quoted word */
            strbuf_str(&line, "  jid=$(sbatch --parsable ");
            quote_shell_word(&line, array_path);
            strbuf_str(&line, ") && sbatch --dependency=afterany:$jid ");
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
    free(rerun);
    return status;
}
