/* The option table (core/cli/options.def) is consistent, and the parser and the
 * resolvers read values the way docs/cli.md says. */
#include "check.h"
#include "base/exit_status.h"
#include "cli/options.h"

#include <stdlib.h>

static const options_command sweep = { "sweep", CMD_SWEEP, "SCRIPT", "run", NULL };
static const options_command sweeps = { "sweeps", CMD_SWEEPS, NULL, "list", NULL };

static int parse(const options_command *command, options_parsed *out, char **argv)
{
    int argc = 0;
    while (argv[argc])
        argc++;
    return options_parse(command, argc, argv, out);
}

static void test_table_is_consistent(void)
{
    for (int id = 0; id < OPTION_COUNT; id++) {
        const option_spec *o = options_spec((option_id)id);
        CHECK(o->name && o->name[0] == '-');
        CHECK(o->help && *o->help);
        CHECK(o->commands != 0);
        CHECK((o->required & ~o->commands) == 0);
        CHECK((o->kind == OPTION_FLAG) == (o->arg == NULL));
        if (o->kind == OPTION_INTEGER || o->kind == OPTION_SECONDS || o->kind == OPTION_CHOICE)
            CHECK(o->expected != NULL);
        /* An option that fills a sweep_options member has the kind its type
         * takes (options_fill_sweep). */
        if (o->sweep.type == OPTION_FIELD_INT)
            CHECK(o->kind == OPTION_FLAG);
        else if (o->sweep.type == OPTION_FIELD_U64)
            CHECK(o->kind == OPTION_INTEGER);
        else if (o->sweep.type == OPTION_FIELD_DOUBLE)
            CHECK(o->kind == OPTION_SECONDS);
        else if (o->sweep.type == OPTION_FIELD_TEXT)
            CHECK(o->kind == OPTION_TEXT || o->kind == OPTION_CHOICE);
        /* One spelling means one option for any command. */
        for (int other = id + 1; other < OPTION_COUNT; other++) {
            const option_spec *p = options_spec((option_id)other);
            if (strcmp(o->name, p->name) == 0)
                CHECK((o->commands & p->commands) == 0);
        }
    }
}

static void test_defaults(void)
{
    options_parsed a;
    char *argv[] = { "runner", "sweep", "s.lua", NULL };
    CHECK_INT_EQ(parse(&sweep, &a, argv), EXIT_OK);
    CHECK_STR_EQ(a.positional, "s.lua");
    CHECK_INT_EQ(a.values[OPTION_MAX_POINTS].integer, 1000000);
    CHECK_INT_EQ(a.values[OPTION_SCRIPT_MEMORY].integer, 1024);
    CHECK_NEAR(a.values[OPTION_SCRIPT_TIMEOUT].seconds, 600, 0);
    CHECK_INT_EQ(a.values[OPTION_JOBS].given, 0);
    CHECK_STR_EQ(a.values[OPTION_WEBHOOK_FORMAT].text, "generic");
    CHECK_INT_EQ(a.values[OPTION_SET].count, 0);
    CHECK(a.values[OPTION_SET].list && !a.values[OPTION_SET].list[0]);
    options_free(&a);
}

static void test_values(void)
{
    options_parsed a;
    char *argv[] = { "runner", "sweep",   "--jobs=4",  "--set",
                     "a=1",    "s.lua",   "--set=b=2", "--point-timeout",
                     "0.5",    "--quiet", "--seed",    "18446744073709551615",
                     NULL };
    CHECK_INT_EQ(parse(&sweep, &a, argv), EXIT_OK);
    CHECK_INT_EQ(a.values[OPTION_JOBS].integer, 4);
    CHECK_INT_EQ(a.values[OPTION_JOBS].given, 1);
    CHECK_INT_EQ(a.values[OPTION_SET].count, 2);
    CHECK_STR_EQ(a.values[OPTION_SET].list[0], "a=1");
    CHECK_STR_EQ(a.values[OPTION_SET].list[1], "b=2");
    CHECK_NEAR(a.values[OPTION_POINT_TIMEOUT].seconds, 0.5, 0);
    CHECK_INT_EQ(a.values[OPTION_QUIET].given, 1);
    CHECK(a.values[OPTION_SEED].integer == UINT64_MAX);
    options_free(&a);
}

static void test_refused(void)
{
    const char *bad[][2] = {
        { "--jobs", " 4" },
        { "--jobs", "+4" },
        { "--jobs", "0" },
        { "--jobs", "1025" },
        { "--seed", "-1" },
        { "--seed", "18446744073709551616" },
        { "--script-timeout", "inf" },
        { "--script-timeout", "nan" },
        { "--script-timeout", "0x10" },
        { "--script-timeout", "0" },
        { "--script-timeout", "1e400" },
        { "--script-timeout", "." },
        { "--point-timeout", "1e10" },
        { "--max-points", "2k" },
        { "--webhook-format", "teams" },
        { "--format", "csv" },
        { "--frob", "1" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        options_parsed a;
        char *argv[] = { "runner", "sweep", (char *)bad[i][0], (char *)bad[i][1], NULL };
        int status = parse(&sweep, &a, argv);
        if (status != EXIT_USAGE)
            fprintf(stderr, "accepted %s '%s'\n", bad[i][0], bad[i][1]);
        CHECK_INT_EQ(status, EXIT_USAGE);
        options_free(&a);
    }
    options_parsed a;
    char *argv[] = { "runner", "sweeps", "3", NULL };
    CHECK_INT_EQ(parse(&sweeps, &a, argv), EXIT_USAGE);
    options_free(&a);
}

/* options_fill_sweep sets the members options.def names, typed or
 * default, and leaves the others to the command. */
static void test_fill_sweep(void)
{
    options_parsed a;
    char *argv[] = { "runner",  "sweep",           "s.lua", "--reuse", "--seed",
                     "7",       "--point-timeout", "2.5",   "--name",  "n",
                     "--quiet", "--max-failures",  "3",     NULL };
    CHECK_INT_EQ(parse(&sweep, &a, argv), EXIT_OK);
    sweep_options o = { .db_path = "kept", .jobs = 99, .fail_fast = 5, .sweep_note = "x" };
    options_fill_sweep(&a, &o);
    CHECK_INT_EQ(o.reuse, 1);
    CHECK_INT_EQ(o.seed, 7);
    CHECK_NEAR(o.point_timeout_s, 2.5, 0);
    CHECK_STR_EQ(o.sweep_name, "n");
    CHECK_INT_EQ(o.quiet, 1);
    CHECK_INT_EQ(o.max_failures, 3);
    CHECK_INT_EQ(o.fail_fast, 0); /* not given */
    CHECK(o.sweep_note == NULL);  /* not given, no default */
    CHECK_INT_EQ(o.isolate, 0);   /* the command adds it for a timeout */
    CHECK_STR_EQ(o.db_path, "kept");
    CHECK_INT_EQ(o.jobs, 99);
    options_free(&a);

    char *plain[] = { "runner", "sweep", "s.lua", NULL };
    CHECK_INT_EQ(parse(&sweep, &a, plain), EXIT_OK);
    options_fill_sweep(&a, &o);
    CHECK_INT_EQ(o.reuse, 0);
    CHECK_INT_EQ(o.seed, 0);
    CHECK_NEAR(o.point_timeout_s, 0, 0);
    CHECK_INT_EQ(o.max_failures, 0);
    CHECK(o.sweep_name == NULL);
    options_free(&a);
}

static void test_resolvers(void)
{
    const char *path = NULL;
    setenv("RUNNER_DB", "env.db", 1);
    CHECK_INT_EQ(options_resolve_db(NULL, &path), EXIT_OK);
    CHECK_STR_EQ(path, "env.db");
    CHECK_INT_EQ(options_resolve_db("given.db", &path), EXIT_OK);
    CHECK_STR_EQ(path, "given.db");
    setenv("RUNNER_DB", "", 1);
    CHECK_INT_EQ(options_resolve_db(NULL, &path), EXIT_OK);
    CHECK_STR_EQ(path, "results.db");
    CHECK_INT_EQ(options_resolve_db(":memory:", &path), EXIT_USAGE);
    CHECK_INT_EQ(options_resolve_db("", &path), EXIT_USAGE);

    int64_t id = -1;
    int last = -1;
    CHECK_INT_EQ(options_resolve_sweep("show", "last", 1, &id, &last), EXIT_OK);
    CHECK_INT_EQ(last, 1);
    CHECK_INT_EQ(options_resolve_sweep("show", "12", 1, &id, &last), EXIT_OK);
    CHECK_INT_EQ(id, 12);
    CHECK_INT_EQ(last, 0);
    /* every command takes every selector (selector.h): a name is no id */
    CHECK_INT_EQ(options_resolve_sweep("resume", "last", 0, &id, &last), EXIT_OK);
    CHECK_INT_EQ(last, 1);
    CHECK_INT_EQ(options_resolve_sweep("show", "baseline", 1, &id, &last), EXIT_OK);
    CHECK_INT_EQ(id, 0);
    CHECK_INT_EQ(last, 0);
    CHECK_INT_EQ(options_resolve_sweep("show", "tag:", 1, &id, &last), EXIT_USAGE);
    CHECK_INT_EQ(options_resolve_sweep("show", "0", 1, &id, &last), EXIT_USAGE);
    CHECK_INT_EQ(options_resolve_sweep("show", "+1", 1, &id, &last), EXIT_USAGE);
    CHECK_INT_EQ(options_resolve_sweep("show", NULL, 1, &id, &last), EXIT_USAGE);
}

int main(void)
{
    test_table_is_consistent();
    test_defaults();
    test_values();
    test_refused();
    test_fill_sweep();
    test_resolvers();
    return check_done("test_options");
}
