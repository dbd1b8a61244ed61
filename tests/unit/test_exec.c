/* exec: the argv template ({name}, {seed}, {{), values as text, shell
 * references quoted for where they stand, what exec_command_finish
 * refuses, and a declaration sent to an MPI worker (exec_wire.c). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "exec/exec.h"

static const runner_param params[] = {
    RUNNER_PARAM_INTEGER("workers", "", "", 1, 1, 64),
    RUNNER_PARAM_REAL("base", "s", "", 2, 0, HUGE_VAL),
    RUNNER_PARAM_TEXT("label", "", "", NULL),
};
static const runner_column columns[] = { RUNNER_COLUMN("round_s", RUNNER_REAL, "s", "") };
static const runner_plugin plugin = {
    .abi_version = RUNNER_PLUGIN_ABI,
    .struct_size = sizeof plugin,
    .name = "t",
    .version = "1",
    .summary = "t",
    .params = params,
    .param_count = 3,
    .columns = columns,
    .column_count = 1,
};

static void expect_substitute(const char *tmpl, int shell, const char *expected)
{
    value v[3] = { value_integer(4), value_real(0.1), value_text("it's; $(x)") };
    char *err = NULL;
    char *got = exec_substitute(tmpl, &plugin, v, 42, shell, &err);
    CHECK_STR_EQ(got, expected);
    if (err)
        fprintf(stderr, "%s\n", err);
    free(got);
    free(err);
    value_clear(&v[2]);
}

/* tmpl with shell = true is refused with a message starting with start. */
static void expect_shell_refused(const char *tmpl, const char *start)
{
    char *err = NULL;
    char *got = exec_substitute(tmpl, &plugin, NULL, 0, 1, &err);
    CHECK(got == NULL);
    CHECK(err && strncmp(err, start, strlen(start)) == 0);
    if (err && strncmp(err, start, strlen(start)) != 0)
        fprintf(stderr, "%s: got %s\n", tmpl, err);
    free(got);
    free(err);
}

static void test_substitute(void)
{
    expect_substitute("-np={workers}", 0, "-np=4");
    expect_substitute("{base}/{label}/{seed}", 0, "0.1/it's; $(x)/42");
    expect_substitute("{{literal}} {{{workers}}}", 0, "{literal} {4}");
    /* shell: a reference to the value's variable, quoted for where it
     * stands; the value itself never enters the script */
    expect_substitute("echo {label} {seed}", 1,
                      "echo \"${RUNNER_PARAM_LABEL}\" \"${RUNNER_SEED}\"");
    expect_substitute("echo \"n={workers}\"", 1, "echo \"n=${RUNNER_PARAM_WORKERS}\"");
    expect_substitute("echo \"$(printf %s {base})\"", 1,
                      "echo \"$(printf %s \"${RUNNER_PARAM_BASE}\")\"");
    expect_substitute("sh -c 'echo \"$1\"' _ {label}", 1,
                      "sh -c 'echo \"$1\"' _ \"${RUNNER_PARAM_LABEL}\"");
    expect_substitute("cat <<EOF\nx\nEOF\necho {base}", 1,
                      "cat <<EOF\nx\nEOF\necho \"${RUNNER_PARAM_BASE}\"");
    /* where the text would be read again as code: refused */
    expect_shell_refused("printf '%s' '{label}'", "{label} inside single quotes");
    expect_shell_refused("sh -c 'echo {label}'", "{label} inside single quotes");
    expect_shell_refused("bash -c \"echo {label}\"", "{label} in the script of bash");
    expect_shell_refused("env X=1 sh -xc \"echo {label}\"", "{label} in the script of sh");
    expect_shell_refused("echo $(sh -c {label})", "{label} in the script of sh");
    expect_shell_refused("eval echo {label}", "{label} in an argument of eval");
    expect_shell_refused("ssh host echo {label}", "{label} in an argument of ssh");
    expect_shell_refused("echo $(( {workers} + 1 ))", "{workers} inside $(( ))");
    expect_shell_refused("cat <<-EOF\n\t{label}\n\tEOF", "{label} in a here-document");
    expect_substitute("echo `echo {base}` \\'{base}", 1,
                      "echo `echo \"${RUNNER_PARAM_BASE}\"` \\'\"${RUNNER_PARAM_BASE}\"");
    expect_substitute("true # it's {base}\necho {base}", 1,
                      "true # it's \"${RUNNER_PARAM_BASE}\"\necho \"${RUNNER_PARAM_BASE}\"");
    expect_substitute("echo {{x}} '{{'", 1, "echo {x} '{'");
    char *err = NULL;
    CHECK(!exec_substitute("{wrokers}", &plugin, NULL, 0, 0, &err));
    CHECK_STR_EQ(err, "{wrokers} names no parameter (did you mean {workers}?)");
    free(err);
    err = NULL;
    CHECK(!exec_substitute("BEGIN { print 1 }", &plugin, NULL, 0, 0, &err));
    CHECK_STR_EQ(err, "{ print 1 } names no parameter (write {{ and }} for literal braces)");
    free(err);
    err = NULL;
    CHECK(!exec_substitute("{workers", &plugin, NULL, 0, 0, &err));
    CHECK_STR_EQ(err, "'{' without '}' (write {{ for a literal brace)");
    free(err);
}

static void test_value_text(void)
{
    char buf[64];
    CHECK_STR_EQ(exec_value_text(&(value){ .type = RUNNER_REAL, .as.real = 0.1 }, buf, sizeof buf),
                 "0.1");
    CHECK_STR_EQ(
        exec_value_text(&(value){ .type = RUNNER_REAL, .as.real = 1.0 / 3 }, buf, sizeof buf),
        "0.3333333333333333");
    CHECK_STR_EQ(exec_value_text(&(value){ .type = RUNNER_REAL, .as.real = 2 }, buf, sizeof buf),
                 "2");
    CHECK_STR_EQ(
        exec_value_text(&(value){ .type = RUNNER_INTEGER, .as.integer = -7 }, buf, sizeof buf),
        "-7");
    CHECK_STR_EQ(
        exec_value_text(&(value){ .type = RUNNER_BOOLEAN, .as.boolean = 1 }, buf, sizeof buf),
        "true");
}

static void expect_refused(const char *const *argv, int shell, const char *artifact,
                           const char *expected)
{
    exec_command *c = exec_command_new("cmd");
    for (const char *const *a = argv; *a; a++)
        exec_command_add_argv(c, *a);
    exec_command_add_column(c, &columns[0]);
    exec_command_add_param(c, &params[0]);
    if (artifact)
        exec_command_add_artifact(c, artifact);
    exec_command_settings(c)->shell = shell;
    char *err = NULL;
    CHECK_INT_EQ(exec_command_finish(c, &err), -1);
    CHECK_STR_EQ(err, expected);
    free(err);
    exec_command_free(c);
}

static void test_finish(void)
{
    expect_refused((const char *[]){ NULL }, 0, NULL,
                   "argv must list the program and its arguments");
    expect_refused((const char *[]){ "echo", "hi", NULL }, 1, NULL,
                   "with shell = true, argv must be one string (the /bin/sh command)");
    expect_refused((const char *[]){ "true", NULL }, 0, "../x",
                   "artifacts: '../x' must be a plain file name in the point's directory, not "
                   "stdout or stderr");
    expect_refused((const char *[]){ "/nonexistent/prog", NULL }, 0, NULL,
                   "program '/nonexistent/prog': No such file or directory");
    /* A good one: the program found on PATH, hashed, measured columns added. */
    exec_command *c = exec_command_new("ok");
    exec_command_add_argv(c, "true");
    exec_command_add_column(c, &columns[0]);
    exec_command_settings(c)->repeats = 3;
    char *err = NULL;
    CHECK_INT_EQ(exec_command_finish(c, &err), 0);
    const loaded_plugin *lp = exec_command_plugin(c);
    CHECK(exec_is_command(lp->desc));
    CHECK(!exec_is_command(&plugin));
    CHECK_INT_EQ(lp->desc->column_count, 1 + 5 + 5);
    CHECK_STR_EQ(lp->desc->columns[1].name, "wall_s");
    CHECK_STR_EQ(lp->desc->columns[9].name, "wall_max_s");
    CHECK_STR_EQ(lp->desc->columns[10].name, "wall_runs");
    CHECK_INT_EQ(strlen(lp->sha256), 64);
    CHECK(lp->path && lp->path[0] == '/');
    char *json = exec_argv_json(lp->desc);
    CHECK_STR_EQ(json, "[\"true\"]");
    free(json);
    exec_command_free(c);
}

/* A declaration through exec_command_encode and _decode: the same
 * descriptor on the other side, text parameters' choices and defaults and
 * output patterns included; a cut message is refused. */
static void test_wire(void)
{
    static const char *const colours[] = { "red", "", NULL };
    const runner_param declared[] = {
        RUNNER_PARAM_INTEGER("n", "bytes", "size", 8, 1, 64),
        RUNNER_PARAM_TEXT("colour", "which", "red", colours),
        RUNNER_PARAM_TEXT("free", "", "", NULL),
    };
    exec_command *c = exec_command_new("wired");
    for (size_t i = 0; i < 3; i++)
        exec_command_add_param(c, &declared[i]);
    exec_command_add_column(c, &columns[0]);
    exec_command_add_argv(c, "echo");
    exec_command_add_argv(c, "{n}-{colour}");
    exec_command_add_artifact(c, "trace.json");
    exec_command_set_pattern(c, "round_s", "took ([0-9.]+)");
    exec_settings *s = exec_command_settings(c);
    s->output = EXEC_OUTPUT_PATTERN;
    s->repeats = 2;
    s->timeout_s = 1.5;
    char *err = NULL;
    CHECK_INT_EQ(exec_command_finish(c, &err), 0);
    if (err) {
        fprintf(stderr, "%s\n", err);
        free(err);
        exec_command_free(c);
        return;
    }
    const runner_plugin *d = exec_command_plugin(c)->desc;
    wire_writer w = { 0 };
    exec_command_encode(d, &w);
    wire_put_u8(&w, 7); /* the caller's, after the declaration */
    CHECK(!w.failed);
    wire_reader r = wire_reader_of(w.data, w.len);
    exec_command *copy = exec_command_decode(&r, &err);
    CHECK(copy != NULL);
    CHECK_INT_EQ(wire_get_u8(&r), 7);
    CHECK(!r.failed && r.pos == r.len);
    if (copy) {
        const loaded_plugin *lp = exec_command_plugin(copy);
        const runner_plugin *e = lp->desc;
        CHECK_STR_EQ(e->name, "wired");
        CHECK_STR_EQ(lp->sha256, exec_command_plugin(c)->sha256);
        CHECK_INT_EQ(e->param_count, 3);
        CHECK_INT_EQ(e->column_count, d->column_count);
        CHECK_STR_EQ(e->params[0].unit, "bytes");
        CHECK(e->params[0].min == 1 && e->params[0].max == 64 && e->params[0].default_number == 8);
        CHECK_STR_EQ(e->params[1].default_text, "red");
        CHECK_STR_EQ(e->params[1].choices[1], "");
        CHECK(e->params[1].choices[2] == NULL);
        CHECK(e->params[2].choices == NULL);
        CHECK_STR_EQ(e->params[2].default_text, "");
        CHECK_STR_EQ(e->columns[0].name, "round_s");
        CHECK_STR_EQ(e->columns[0].unit, "s");
        char *json = exec_argv_json(e);
        CHECK_STR_EQ(json, "[\"echo\",\"{n}-{colour}\"]");
        free(json);
    }
    exec_command_free(copy);
    r = wire_reader_of(w.data, w.len / 2);
    CHECK(exec_command_decode(&r, &err) == NULL);
    CHECK_STR_EQ(err, "a malformed command declaration");
    free(err);
    wire_writer_free(&w);
    exec_command_free(c);
}

int main(void)
{
    test_substitute();
    test_value_text();
    test_finish();
    test_wire();
    return check_done("test_exec");
}
