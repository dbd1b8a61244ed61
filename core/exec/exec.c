/* exec: a command declaration as a runtime plugin (see exec.h and
 * docs/command-experiments.md). The descriptor is the first member of
 * exec_command, so run() finds its command from point->plugin. */
#define _GNU_SOURCE /* sigabbrev_np, realpath */
#include "exec.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/digest.h"
#include "base/install_layout.h"
#include "base/util.h"
#include "exec_int.h"
#include "exec_shell.h"
#include "plugin/plugin.h"

#define MEASURED_COLUMNS 5 /* wall_s .. exit_status */
#define SPREAD_COLUMNS 5   /* wall_sd_s .. wall_runs, with repeats > 1 */

exec_command *exec_command_new(const char *name)
{
    exec_command *c = calloc(1, sizeof *c);
    if (!c || !(c->name = util_strdup(name))) {
        free(c);
        return NULL;
    }
    c->settings = (exec_settings){
        .output = EXEC_OUTPUT_JSONL,
        .repeats = 1,
        .output_max_bytes = EXEC_OUTPUT_MAX_BYTES,
        .artifact_point_max_bytes = EXEC_ARTIFACT_POINT_MAX_BYTES,
        .artifact_sweep_max_bytes = EXEC_ARTIFACT_SWEEP_MAX_BYTES,
    };
    atomic_init(&c->sweep_artifact_bytes, 0);
    atomic_init(&c->next_dir, 0);
    pthread_mutex_init(&c->spare_lock, NULL);
    c->owner_pid = getpid();
    return c;
}

exec_settings *exec_command_settings(exec_command *c) { return &c->settings; }

static void free_list(char **list, size_t count)
{
    for (size_t i = 0; i < count; i++)
        free(list[i]);
    free(list);
}

void exec_command_free(exec_command *c)
{
    if (!c)
        return;
    if (c->work_root) {
        execi_remove_tree(c->work_root); /* with the spare directories */
        free(c->work_root);
    }
    for (size_t i = 0; i < c->spare_count; i++)
        free(c->spare[i]);
    pthread_mutex_destroy(&c->spare_lock);
    for (size_t i = 0; i < c->param_count; i++) {
        runner_param *p = &c->params[i];
        free((char *)p->name), free((char *)p->unit), free((char *)p->doc);
        free((char *)p->default_text);
        for (size_t k = 0; p->choices && p->choices[k]; k++)
            free((char *)p->choices[k]);
        free((void *)p->choices);
    }
    free(c->params);
    for (size_t i = 0; i < c->declared_columns; i++) {
        free((char *)c->columns[i].name), free((char *)c->columns[i].unit);
        free((char *)c->columns[i].doc);
    }
    free(c->columns);
    free_list(c->argv, c->argc);
    free_list(c->artifact_files, c->artifact_count);
    free_list(c->pattern_columns, c->pattern_count);
    free_list(c->pattern_texts, c->pattern_count);
    exec_parser_free(c->parser);
    free(c->path);
    free(c->argv_json);
    free(c->summary);
    free(c->name);
    free(c);
}

/* Appends item to a growing array of elements of size bytes. */
static int push(void **array, size_t *count, size_t size, const void *item)
{
    char *grown = realloc(*array, (*count + 1) * size);
    if (!grown)
        return -1;
    memcpy(grown + *count * size, item, size);
    *array = grown;
    (*count)++;
    return 0;
}

static int push_text(char ***list, size_t *count, const char *text)
{
    char *copy = util_strdup(text);
    if (!copy || push((void **)list, count, sizeof copy, &copy) != 0) {
        free(copy);
        return -1;
    }
    return 0;
}

int exec_command_add_param(exec_command *c, const runner_param *param)
{
    runner_param p = *param;
    p.name = util_strdup(param->name);
    p.unit = util_strdup(param->unit ? param->unit : "");
    p.doc = util_strdup(param->doc ? param->doc : "");
    p.default_text = param->default_text ? util_strdup(param->default_text) : NULL;
    p.choices = NULL;
    size_t n = 0;
    while (param->choices && param->choices[n])
        n++;
    const char **choices = param->choices ? calloc(n + 1, sizeof *choices) : NULL;
    for (size_t i = 0; choices && i < n; i++)
        choices[i] = util_strdup(param->choices[i]);
    p.choices = choices;
    if (!p.name || !p.unit || !p.doc || push((void **)&c->params, &c->param_count, sizeof p, &p)) {
        free((char *)p.name), free((char *)p.unit), free((char *)p.doc);
        free((char *)p.default_text);
        for (size_t i = 0; choices && i < n; i++)
            free((char *)choices[i]);
        free(choices);
        return -1;
    }
    return 0;
}

int exec_command_add_column(exec_command *c, const runner_column *column)
{
    runner_column col = { util_strdup(column->name), column->type,
                          util_strdup(column->unit ? column->unit : ""),
                          util_strdup(column->doc ? column->doc : "") };
    if (!col.name || !col.unit || !col.doc ||
        push((void **)&c->columns, &c->declared_columns, sizeof col, &col) != 0) {
        free((char *)col.name), free((char *)col.unit), free((char *)col.doc);
        return -1;
    }
    return 0;
}

int exec_command_add_argv(exec_command *c, const char *element)
{
    return push_text(&c->argv, &c->argc, element);
}

int exec_command_add_artifact(exec_command *c, const char *file_name)
{
    return push_text(&c->artifact_files, &c->artifact_count, file_name);
}

int exec_command_set_pattern(exec_command *c, const char *column, const char *pattern)
{
    size_t n = c->pattern_count;
    if (push_text(&c->pattern_columns, &n, column) != 0)
        return -1;
    n = c->pattern_count;
    if (push_text(&c->pattern_texts, &n, pattern) != 0)
        return -1;
    c->pattern_count = n;
    return 0;
}

/* ---- finishing: template, executable, measured columns ---- */

static int executable_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* A bare program name: runner's libexec directory, then PATH. */
static char *search_program(const char *name)
{
    char *libexec = install_layout_libexec_dir();
    char *found = libexec ? util_format("%s/%s", libexec, name) : NULL;
    free(libexec);
    if (found && executable_file(found))
        return found;
    free(found);
    const char *path = getenv("PATH");
    for (const char *dir = path ? path : "/usr/bin:/bin"; dir;) {
        size_t n = strcspn(dir, ":");
        found = util_format("%.*s/%s", (int)n, n ? dir : ".", name);
        if (found && executable_file(found))
            return found;
        free(found);
        dir = dir[n] ? dir + n + 1 : NULL;
    }
    return NULL;
}

static int resolve_program(exec_command *c, char **err)
{
    const char *program = c->settings.shell ? "/bin/sh" : c->argv[0];
    if (!strchr(program, '/')) {
        char *libexec = install_layout_libexec_dir();
        c->path = search_program(program);
        if (!c->path) {
            util_fail(err, "program '%s' not found in %s or on PATH", program,
                      libexec ? libexec : "runner's libexec directory");
            free(libexec);
            return -1;
        }
        free(libexec);
    } else {
        struct stat st;
        if (stat(program, &st) != 0)
            return util_fail(err, "program '%s': %s", program, strerror(errno));
        if (!executable_file(program))
            return util_fail(err, "program '%s' is not an executable file", program);
        c->path = realpath(program, NULL);
        if (!c->path)
            return util_fail(err, "program '%s': %s", program, strerror(errno));
    }
    if (digest_file_sha256_hex(c->path, c->lp.sha256) != 0)
        return util_fail(err, "program '%s': cannot read it to hash it: %s", c->path,
                         strerror(errno));
    return 0;
}

/* What runner measures of every point, after the declared columns. */
static const runner_column measured[] = {
    { "wall_s", RUNNER_REAL, "s", "wall-clock time of a run (the mean with repeats)" },
    { "user_s", RUNNER_REAL, "s", "user CPU time of a run, children included (mean)" },
    { "sys_s", RUNNER_REAL, "s", "system CPU time of a run, children included (mean)" },
    { "max_rss_kib", RUNNER_INTEGER, "KiB", "peak resident set size (max over runs)" },
    { "exit_status", RUNNER_INTEGER, "", "exit status of the last run" },
    { "wall_sd_s", RUNNER_REAL, "s", "standard deviation of the wall times" },
    { "wall_min_s", RUNNER_REAL, "s", "shortest wall time" },
    { "wall_median_s", RUNNER_REAL, "s", "median wall time" },
    { "wall_max_s", RUNNER_REAL, "s", "longest wall time" },
    /* n of the mean and sd above: what diff --stat needs (docs/analysis.md) */
    { "wall_runs", RUNNER_INTEGER, "", "measured runs (repeats)" },
};

int exec_is_measured_column(const char *name)
{
    for (size_t i = 0; i < sizeof measured / sizeof *measured; i++)
        if (strcmp(name, measured[i].name) == 0)
            return 1;
    return 0;
}

static int add_measured_columns(exec_command *c)
{
    size_t n = MEASURED_COLUMNS + (c->settings.repeats > 1 ? SPREAD_COLUMNS : 0);
    runner_column *all = realloc(c->columns, (c->declared_columns + n) * sizeof *all);
    if (!all)
        return -1;
    memcpy(all + c->declared_columns, measured, n * sizeof *all);
    c->columns = all;
    c->column_count = c->declared_columns + n;
    return 0;
}

static int compile_output(exec_command *c, char **err)
{
    const char **patterns = NULL;
    if (c->settings.output == EXEC_OUTPUT_PATTERN) {
        patterns = calloc(c->declared_columns ? c->declared_columns : 1, sizeof *patterns);
        if (!patterns)
            return util_fail(err, "out of memory");
        for (size_t k = 0; k < c->pattern_count; k++) {
            size_t i = 0;
            while (i < c->declared_columns && strcmp(c->columns[i].name, c->pattern_columns[k]))
                i++;
            if (i == c->declared_columns) {
                free(patterns);
                return util_fail(err, "output: '%s' is not a declared column",
                                 c->pattern_columns[k]);
            }
            patterns[i] = c->pattern_texts[k];
        }
    }
    int rc = exec_parser_new(c->settings.output, c->columns, c->declared_columns, patterns,
                             &c->parser, err);
    free(patterns);
    return rc;
}

static int check_settings(const exec_command *c, char **err)
{
    const exec_settings *s = &c->settings;
    if (c->argc == 0)
        return util_fail(err, "argv must list the program and its arguments");
    if (s->shell && c->argc != 1)
        return util_fail(err, "with shell = true, argv must be one string (the /bin/sh command)");
    if (s->repeats < 1 || s->warmup < 0)
        return util_fail(err, "repeats must be at least 1 and warmup at least 0");
    if (s->timeout_s < 0 || !isfinite(s->timeout_s))
        return util_fail(err, "timeout must be a number of seconds >= 0 (0: none)");
    for (size_t i = 0; i < c->artifact_count; i++)
        if (!*c->artifact_files[i] || strchr(c->artifact_files[i], '/') ||
            strcmp(c->artifact_files[i], ".") == 0 || strcmp(c->artifact_files[i], "..") == 0 ||
            strcmp(c->artifact_files[i], "stdout") == 0 ||
            strcmp(c->artifact_files[i], "stderr") == 0)
            return util_fail(err,
                             "artifacts: '%s' must be a plain file name in the point's "
                             "directory, not stdout or stderr",
                             c->artifact_files[i]);
    return 0;
}

int exec_command_finish(exec_command *c, char **err)
{
    char msg[512];
    runner_plugin *d = &c->desc;
    c->summary = util_format("command experiment: %s", c->argv ? c->argv[0] : "");
    *d = (runner_plugin){
        .abi_version = RUNNER_PLUGIN_ABI,
        .struct_size = sizeof *d,
        .name = c->name,
        .version = "command",
        .summary = c->summary,
        .params = c->params,
        .param_count = (uint32_t)c->param_count,
        .run = execi_run,
    };
    if (!c->summary || check_settings(c, err) != 0)
        return c->summary ? -1 : util_fail(err, "out of memory");
    if (add_measured_columns(c) != 0)
        return util_fail(err, "out of memory");
    d->columns = c->columns;
    d->column_count = (uint32_t)c->column_count;
    if (plugin_validate(d, msg, sizeof msg) != 0)
        return util_fail(err, "%s", msg);
    for (size_t i = 0; i < c->argc; i++) {
        char *why = NULL;
        char *checked = exec_substitute(c->argv[i], d, NULL, 0, c->settings.shell, &why);
        if (!checked) {
            int rc = util_fail(err, "argv[%zu] \"%s\": %s", i + 1, c->argv[i],
                               why ? why : "out of memory");
            free(why);
            return rc;
        }
        free(checked);
    }
    if (compile_output(c, err) != 0 || resolve_program(c, err) != 0)
        return -1;
    json_t *template_json = json_array();
    for (size_t i = 0; template_json && i < c->argc; i++)
        json_array_append_new(template_json, json_string(c->argv[i]));
    c->argv_json = template_json ? json_dumps(template_json, JSON_COMPACT) : NULL;
    json_decref(template_json);
    const char *tmp = getenv("TMPDIR");
    tmp = tmp && *tmp ? tmp : "/tmp";
    c->work_root = util_format("%s/runner-%s-XXXXXX", tmp, c->name);
    if (!c->argv_json || !c->work_root)
        return util_fail(err, "out of memory");
    if (execi_scratch_make(tmp, c->work_root) != 0) {
        int rc =
            util_fail(err, "cannot make a work directory %s: %s", c->work_root, strerror(errno));
        free(c->work_root);
        c->work_root = NULL;
        return rc;
    }
    c->lp.desc = d;
    c->lp.path = c->path;
    c->lp.file_stem = c->name;
    return 0;
}

const loaded_plugin *exec_command_plugin(const exec_command *c) { return &c->lp; }

int exec_is_command(const runner_plugin *plugin) { return plugin && plugin->run == execi_run; }

char *exec_argv_json(const runner_plugin *plugin)
{
    return util_strdup(((const exec_command *)plugin)->argv_json);
}

int exec_uses_shell(const runner_plugin *plugin)
{
    return ((const exec_command *)plugin)->settings.shell;
}

int exec_repeats(const runner_plugin *plugin)
{
    return ((const exec_command *)plugin)->settings.repeats;
}

int exec_max_jobs(const runner_plugin *plugin)
{
    return ((const exec_command *)plugin)->settings.max_jobs;
}
