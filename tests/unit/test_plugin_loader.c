/* test_plugin_loader: every way loading a plugin can fail, each with the
 * exact message the user sees (fixture plugins in RUNNER_TEST_FIXTURES), the
 * metadata rules on hand-made descriptors, and the registry's search order,
 * shadowing, duplicates and "did you mean". */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "demo_plugin.h"
#include "base/digest.h"
#include "base/install_layout.h"
#include "plugin/plugin_loader.h"
#include "base/util.h"

static char fixtures[512];
static char tmp_dir[512];

/* fixtures/<rest>, in one of a few rotating buffers. */
static const char *fixture(const char *rest)
{
    static char path[4][700];
    static int next;
    char *p = path[next++ % 4];
    snprintf(p, sizeof path[0], "%s/%s", fixtures, rest);
    return p;
}

static int starts_with(const char *s, const char *prefix)
{
    return s && strncmp(s, prefix, strlen(prefix)) == 0;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = s ? strlen(s) : 0, m = strlen(suffix);
    return s && n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Copies a file byte for byte; returns 0 or -1. */
static int copy_file(const char *from, const char *to)
{
    char *data = NULL;
    size_t len = 0;
    if (util_read_file(from, &data, &len) != 0)
        return -1;
    FILE *f = fopen(to, "wb");
    int rc = f && fwrite(data, 1, len, f) == len ? 0 : -1;
    if (f && fclose(f) != 0)
        rc = -1;
    free(data);
    return rc;
}

/* A directory under RUNNER_TEST_TMP; each test removes what it put there. */
static const char *make_dir(const char *name)
{
    static char path[4][700];
    static int next;
    char *p = path[next++ % 4];
    snprintf(p, sizeof path[0], "%s/%s", tmp_dir, name);
    mkdir(p, 0755);
    return p;
}

/* --- plugin_load_file on each fixture ------------------------------------- */

static void test_load_not_a_shared_object(void)
{
    const char *path = fixture("notso/garbage.so");
    loaded_plugin lp;
    char *err = NULL;
    CHECK_INT_EQ(plugin_load_file(path, &lp, &err), -1);
    /* dlerror()'s own words in the middle vary by libc; the frame does not. */
    char *prefix = util_format("%s: cannot load plugin: ", path);
    CHECK(starts_with(err, prefix));
    CHECK(ends_with(err, " (is it a shared object built for this machine? check it with "
                         "'file' and 'ldd')"));
    CHECK(lp.desc == NULL && lp.handle == NULL && lp.path == NULL);
    if (!starts_with(err, prefix))
        fprintf(stderr, "  got: %s\n", err ? err : "(null)");
    free(prefix);
    free(err);

    /* A file that does not exist fails the same way. */
    path = fixture("notso/missing.so");
    err = NULL;
    CHECK_INT_EQ(plugin_load_file(path, &lp, &err), -1);
    prefix = util_format("%s: cannot load plugin: ", path);
    CHECK(starts_with(err, prefix));
    free(prefix);
    free(err);
}

static void test_load_no_entry(void)
{
    const char *path = fixture("noentry/noentry.so");
    loaded_plugin lp;
    char *err = NULL;
    CHECK_INT_EQ(plugin_load_file(path, &lp, &err), -1);
    char *expected = util_format("%s: not a runner plugin: no 'runner_plugin_entry' symbol "
                                 "(define it with RUNNER_PLUGIN_DEFINE from <runner/plugin.h>)",
                                 path);
    CHECK_STR_EQ(err, expected);
    free(expected);
    free(err);
}

static void test_load_future_abi(void)
{
    const char *path = fixture("abi_future/future.so");
    loaded_plugin lp;
    char *err = NULL;
    CHECK_INT_EQ(plugin_load_file(path, &lp, &err), -1);
    char *expected = util_format("%s: future needs plugin ABI %d, runner provides %d; upgrade "
                                 "runner or rebuild the plugin against this runner's "
                                 "<runner/plugin.h>",
                                 path, RUNNER_PLUGIN_ABI + 1, RUNNER_PLUGIN_ABI);
    CHECK_STR_EQ(err, expected);
    free(expected);
    free(err);
}

static void test_load_bad_metadata(void)
{
    const char *path = fixture("badmeta/badmeta.so");
    loaded_plugin lp;
    char *err = NULL;
    CHECK_INT_EQ(plugin_load_file(path, &lp, &err), -1);
    char *expected = util_format("%s: invalid plugin metadata: parameter 'x': default 30 is "
                                 "outside [0, 10]",
                                 path);
    CHECK_STR_EQ(err, expected);
    free(expected);
    free(err);
}

/* A plugin built when runner_plugin ended at run: it loads, and the flags
 * its struct_size leaves out read as 0, whatever lies past its end. */
static void test_load_abi1_struct(void)
{
    const char *path = fixture("abi1_short/oldshape.so");
    loaded_plugin lp;
    char *err = NULL;
    CHECK_INT_EQ(plugin_load_file(path, &lp, &err), 0);
    CHECK(err == NULL);
    if (!lp.desc) {
        fprintf(stderr, "  load error: %s\n", err ? err : "(null)");
        free(err);
        return;
    }
    CHECK_INT_EQ(lp.desc->struct_size, RUNNER_PLUGIN_ABI1_SIZE);
    CHECK(lp.desc->struct_size < sizeof(runner_plugin));
    CHECK_INT_EQ(lp.desc->flags, RUNNER_PLUGIN_COLLECTIVE); /* in the object... */
    CHECK_INT_EQ(plugin_flags(lp.desc), 0);                 /* ...but not in its struct */
    plugin_unload(&lp);
}

static void test_load_struct_too_small(void)
{
    const char *path = fixture("struct_tiny/tiny.so");
    loaded_plugin lp;
    char *err = NULL;
    CHECK_INT_EQ(plugin_load_file(path, &lp, &err), -1);
    char *expected = util_format("%s: invalid plugin metadata: struct_size 16 is smaller than "
                                 "ABI 1's runner_plugin (%zu bytes)",
                                 path, (size_t)RUNNER_PLUGIN_ABI1_SIZE);
    CHECK_STR_EQ(err, expected);
    free(expected);
    free(err);
}

static void test_load_unknown_flags(void)
{
    const char *path = fixture("flags_future/flagged.so");
    loaded_plugin lp;
    char *err = NULL;
    CHECK_INT_EQ(plugin_load_file(path, &lp, &err), -1);
    char *expected = util_format("%s: invalid plugin metadata: plugin 'flagged' declares flags "
                                 "0x80 this runner does not know (it knows 0x1); upgrade runner",
                                 path);
    CHECK_STR_EQ(err, expected);
    free(expected);
    free(err);
}

static void test_load_good(void)
{
    const char *path = fixture("good/testkit.so");
    loaded_plugin lp;
    char *err = NULL;
    CHECK_INT_EQ(plugin_load_file(path, &lp, &err), 0);
    CHECK(err == NULL);
    CHECK(lp.desc != NULL && lp.handle != NULL);
    if (!lp.desc) {
        fprintf(stderr, "  load error: %s\n", err ? err : "(null)");
        free(err);
        return;
    }
    CHECK_STR_EQ(lp.desc->name, "testkit");
    CHECK_STR_EQ(lp.desc->version, "1.0.0");
    CHECK_INT_EQ(lp.desc->abi_version, RUNNER_PLUGIN_ABI);
    CHECK_INT_EQ(lp.desc->param_count, 4);
    CHECK_INT_EQ(lp.desc->column_count, 8);
    CHECK_STR_EQ(lp.path, path);
    CHECK(lp.path != path); /* a copy */
    CHECK_STR_EQ(lp.file_stem, "testkit");
    char expected_sha[DIGEST_HEX_SIZE];
    CHECK_INT_EQ(digest_file_sha256_hex(path, expected_sha), 0);
    CHECK_STR_EQ(lp.sha256, expected_sha);
    plugin_unload(&lp);
    CHECK(lp.desc == NULL && lp.handle == NULL && lp.path == NULL && lp.file_stem == NULL);
    plugin_unload(NULL); /* accepted */

    /* Each twin loads on its own; only together in one directory are they
     * a problem (see test_registry_duplicate). */
    CHECK_INT_EQ(plugin_load_file(fixture("duplicate/twin_a.so"), &lp, &err), 0);
    CHECK(lp.desc && strcmp(lp.desc->name, "twin") == 0);
    CHECK_STR_EQ(lp.file_stem, "twin_a");
    plugin_unload(&lp);
}

/* --- plugin_validate on hand-made descriptors ----------------------------- */

static const char *const hash_choices[] = { "xxh64", "md5", NULL };

static int ok_run(const runner_host *host, runner_point *point)
{
    (void)host;
    (void)point;
    return RUNNER_OK;
}

static const runner_param good_params[] = {
    RUNNER_PARAM_REAL("x", "s", "an input", 1.0, 0, 10),
    RUNNER_PARAM_INTEGER("n", "", "a count", 2, 0, 100),
    RUNNER_PARAM_TEXT("hash", "a digest", "md5", hash_choices),
    RUNNER_PARAM_BOOLEAN("flag", "a flag", 1),
};
static const runner_column good_columns[] = {
    RUNNER_COLUMN("y", RUNNER_REAL, "s", "an output"),
    RUNNER_COLUMN("label", RUNNER_TEXT, "", "another output"),
};

static runner_plugin good_plugin(void)
{
    runner_plugin plugin = DEMO_PLUGIN("1.0.0", good_params, good_columns, ok_run);
    return plugin;
}

static char msg[512];

static int validate(const runner_plugin *plugin)
{
    msg[0] = '\0';
    return plugin_validate(plugin, msg, sizeof msg);
}

/* The good parameters with one replaced. */
static runner_param bad_params[RUNNER_COUNT(good_params)];
static runner_plugin with_param(uint32_t index, runner_param param)
{
    memcpy(bad_params, good_params, sizeof good_params);
    bad_params[index] = param;
    runner_plugin plugin = good_plugin();
    plugin.params = bad_params;
    return plugin;
}

static runner_column bad_columns[RUNNER_COUNT(good_columns)];
static runner_plugin with_column(uint32_t index, runner_column column)
{
    memcpy(bad_columns, good_columns, sizeof good_columns);
    bad_columns[index] = column;
    runner_plugin plugin = good_plugin();
    plugin.columns = bad_columns;
    return plugin;
}

static void test_validate_plugin(void)
{
    runner_plugin plugin = good_plugin();
    CHECK_INT_EQ(validate(&plugin), 0);

    plugin.name = "Bad-Name";
    CHECK_INT_EQ(validate(&plugin), -1);
    CHECK_STR_EQ(msg, "name 'Bad-Name' is not a lower_snake_case identifier");

    plugin.name = "point"; /* a catalog table */
    CHECK_INT_EQ(validate(&plugin), -1);
    CHECK_STR_EQ(msg, "name 'point' is reserved by runner's catalog");

    plugin.name = "sqlite_stat1"; /* SQLite's own namespace */
    CHECK_INT_EQ(validate(&plugin), -1);
    CHECK_STR_EQ(msg, "name 'sqlite_stat1' is reserved by runner's catalog");

    plugin = good_plugin();
    plugin.version = "";
    CHECK_INT_EQ(validate(&plugin), -1);
    CHECK_STR_EQ(msg, "plugin 'demo' must declare a version and a one-line summary");
    plugin = good_plugin();
    plugin.summary = NULL;
    CHECK_INT_EQ(validate(&plugin), -1);
    CHECK_STR_EQ(msg, "plugin 'demo' must declare a version and a one-line summary");

    plugin = good_plugin();
    plugin.run = NULL;
    CHECK_INT_EQ(validate(&plugin), -1);
    CHECK_STR_EQ(msg, "plugin 'demo' has no run function");

    plugin = good_plugin();
    plugin.column_count = 0;
    CHECK_INT_EQ(validate(&plugin), -1);
    CHECK_STR_EQ(msg, "plugin 'demo': parameter or column arrays are missing (a plugin needs "
                      "at least one column)");

    /* No parameters at all is fine. */
    plugin = good_plugin();
    plugin.params = NULL;
    plugin.param_count = 0;
    CHECK_INT_EQ(validate(&plugin), 0);
}

static void test_validate_params(void)
{
    runner_plugin plugin;

    plugin = with_param(1, (runner_param)RUNNER_PARAM_INTEGER("Workers", "", "d", 1, 0, 9));
    CHECK_INT_EQ(validate(&plugin), -1);
    CHECK_STR_EQ(msg, "parameter 2: name 'Workers' is not a lower_snake_case identifier");

    plugin = with_param(1, (runner_param)RUNNER_PARAM_INTEGER("row_id", "", "d", 1, 0, 9));
    CHECK_INT_EQ(validate(&plugin), -1);
    CHECK_STR_EQ(msg, "parameter 'row_id': the name is reserved by runner");

    plugin = with_param(3, (runner_param)RUNNER_PARAM_BOOLEAN("x", "same name as the first", 0));
    CHECK_INT_EQ(validate(&plugin), -1);
    CHECK_STR_EQ(msg, "parameter 'x' is declared twice");

    plugin = with_param(0, (runner_param)RUNNER_PARAM_REAL("x", "s", "d", 5, 10, 0));
    CHECK_INT_EQ(validate(&plugin), -1);
    CHECK_STR_EQ(msg, "parameter 'x': range [10, 0] is empty");

    plugin = with_param(0, (runner_param)RUNNER_PARAM_REAL("x", "s", "d", 30, 0, 10));
    CHECK_INT_EQ(validate(&plugin), -1);
    CHECK_STR_EQ(msg, "parameter 'x': default 30 is outside [0, 10]");

    plugin = with_param(1, (runner_param)RUNNER_PARAM_INTEGER("n", "", "d", 2.5, 0, 100));
    CHECK_INT_EQ(validate(&plugin), -1);
    CHECK_STR_EQ(msg, "parameter 'n': integer default 2.5 is not whole");

    plugin = with_param(3, (runner_param)RUNNER_PARAM_BOOLEAN("flag", "d", 2));
    CHECK_INT_EQ(validate(&plugin), -1);
    CHECK_STR_EQ(msg, "parameter 'flag': boolean default must be 0 or 1");

    plugin = with_param(2, (runner_param)RUNNER_PARAM_TEXT("hash", "d", "sha1", hash_choices));
    CHECK_INT_EQ(validate(&plugin), -1);
    CHECK_STR_EQ(msg, "parameter 'hash': default 'sha1' is not among its choices");

    plugin = with_param(2, (runner_param)RUNNER_PARAM_TEXT("hash", "d", NULL, NULL));
    CHECK_INT_EQ(validate(&plugin), -1);
    CHECK_STR_EQ(msg, "parameter 'hash': text default must not be NULL");

    runner_param untyped = RUNNER_PARAM_REAL("x", "s", "d", 1, 0, 10);
    untyped.type = (runner_type)9;
    plugin = with_param(0, untyped);
    CHECK_INT_EQ(validate(&plugin), -1);
    CHECK_STR_EQ(msg, "parameter 'x': unknown type 9");

    runner_param no_unit = RUNNER_PARAM_REAL("x", NULL, "d", 1, 0, 10);
    plugin = with_param(0, no_unit);
    CHECK_INT_EQ(validate(&plugin), -1);
    CHECK_STR_EQ(msg, "parameter 'x': unit and doc must not be NULL (use \"\")");

    /* Unbounded ranges are allowed, with a finite default. */
    plugin = with_param(0, (runner_param)RUNNER_PARAM_REAL("x", "s", "d", -3, -HUGE_VAL, HUGE_VAL));
    CHECK_INT_EQ(validate(&plugin), 0);
}

/* A default no script could pass: param_check refuses non-finite values, so
 * a non-finite default must be refused when the plugin loads. Otherwise it
 * reaches run() unchecked, the canonical JSON drops it (JSON has no inf),
 * and an integer default of inf is converted with (int64_t)inf, which is
 * undefined behaviour. */
static void test_validate_non_finite_default(void)
{
    runner_plugin plugin;
    plugin = with_param(
        0, (runner_param)RUNNER_PARAM_REAL("x", "s", "d", HUGE_VAL, -HUGE_VAL, HUGE_VAL));
    CHECK_INT_EQ(validate(&plugin), -1);
    CHECK(starts_with(msg, "parameter 'x': "));

    plugin = with_param(
        1, (runner_param)RUNNER_PARAM_INTEGER("n", "", "d", -HUGE_VAL, -HUGE_VAL, HUGE_VAL));
    CHECK_INT_EQ(validate(&plugin), -1);
    CHECK(starts_with(msg, "parameter 'n': "));
}

/* Every string a plugin declares is shown, stored and sent as JSON, so it
 * must be UTF-8: refused at load, the bytes quoted escaped (a Latin-1
 * default once loaded and then failed every sweep on a point's identity). */
static const char *const latin1_choices[] = { "md5", "caf\xe9", NULL };
static void test_validate_not_utf8(void)
{
    runner_plugin plugin = good_plugin();
    plugin.version = "1.0\xff";
    CHECK_INT_EQ(validate(&plugin), -1);
    CHECK_STR_EQ(msg, "plugin 'demo': version is not valid UTF-8: '1.0\\xff'");
    plugin = good_plugin();
    plugin.summary = "caf\xe9 tests";
    CHECK_INT_EQ(validate(&plugin), -1);
    CHECK_STR_EQ(msg, "plugin 'demo': summary is not valid UTF-8: 'caf\\xe9 tests'");

    plugin = with_param(2, (runner_param)RUNNER_PARAM_TEXT("hash", "d", "caf\xe9", NULL));
    CHECK_INT_EQ(validate(&plugin), -1);
    CHECK_STR_EQ(msg, "parameter 'hash': default is not valid UTF-8: 'caf\\xe9'");
    plugin = with_param(2, (runner_param)RUNNER_PARAM_TEXT("hash", "d", "md5", latin1_choices));
    CHECK_INT_EQ(validate(&plugin), -1);
    CHECK_STR_EQ(msg, "parameter 'hash': a choice is not valid UTF-8: 'caf\\xe9'");
    plugin = with_param(0, (runner_param)RUNNER_PARAM_REAL("x", "\xb5s", "d", 1, 0, 10));
    CHECK_INT_EQ(validate(&plugin), -1);
    CHECK_STR_EQ(msg, "parameter 'x': unit is not valid UTF-8: '\\xb5s'");
    plugin = with_param(3, (runner_param)RUNNER_PARAM_BOOLEAN("flag", "\xc0\xaf", 1));
    CHECK_INT_EQ(validate(&plugin), -1);
    CHECK_STR_EQ(msg, "parameter 'flag': doc is not valid UTF-8: '\\xc0\\xaf'");

    plugin = with_column(0, (runner_column)RUNNER_COLUMN("y", RUNNER_REAL, "\xb5s", "d"));
    CHECK_INT_EQ(validate(&plugin), -1);
    CHECK_STR_EQ(msg, "column 'y': unit is not valid UTF-8: '\\xb5s'");
    plugin = with_column(1, (runner_column)RUNNER_COLUMN("label", RUNNER_TEXT, "", "\xed\xa0\x80"));
    CHECK_INT_EQ(validate(&plugin), -1);
    CHECK_STR_EQ(msg, "column 'label': doc is not valid UTF-8: '\\xed\\xa0\\x80'");

    /* UTF-8 is welcome: a unit of microseconds. */
    plugin = with_column(0, (runner_column)RUNNER_COLUMN("y", RUNNER_REAL, "\xc2\xb5s", "d"));
    CHECK_INT_EQ(validate(&plugin), 0);
}

/* The fixture whose text default is Latin-1: refused with the loader's
 * message, naming the file. */
static void test_load_bad_text(void)
{
    const char *path = fixture("badtext/badtext.so");
    loaded_plugin lp;
    char *err = NULL;
    CHECK_INT_EQ(plugin_load_file(path, &lp, &err), -1);
    char *expected = util_format("%s: invalid plugin metadata: parameter 'label': default is not "
                                 "valid UTF-8: 'caf\\xe9'",
                                 path);
    CHECK_STR_EQ(err, expected);
    free(expected);
    free(err);
}

static void test_validate_columns(void)
{
    runner_plugin plugin;

    plugin = with_column(1, (runner_column)RUNNER_COLUMN("x", RUNNER_REAL, "s", "d"));
    CHECK_INT_EQ(validate(&plugin), -1);
    CHECK_STR_EQ(msg, "column 'x' has the name of a parameter");

    plugin = with_column(1, (runner_column)RUNNER_COLUMN("y", RUNNER_TEXT, "", "d"));
    CHECK_INT_EQ(validate(&plugin), -1);
    CHECK_STR_EQ(msg, "column 'y' is declared twice");

    plugin = with_column(0, (runner_column)RUNNER_COLUMN("2y", RUNNER_REAL, "", "d"));
    CHECK_INT_EQ(validate(&plugin), -1);
    CHECK_STR_EQ(msg, "column 1: name '2y' is not a lower_snake_case identifier");

    plugin = with_column(0, (runner_column)RUNNER_COLUMN("sweep_id", RUNNER_INTEGER, "", "d"));
    CHECK_INT_EQ(validate(&plugin), -1);
    CHECK_STR_EQ(msg, "column 'sweep_id': the name is reserved by runner");

    plugin = with_column(0, (runner_column)RUNNER_COLUMN("y", RUNNER_REAL, "s", NULL));
    CHECK_INT_EQ(validate(&plugin), -1);
    CHECK_STR_EQ(msg, "column 'y': needs a valid type, a unit and a doc");
}

/* --- the registry --------------------------------------------------------- */

static const char *registry_error_containing(const plugin_registry *reg, const char *needle)
{
    for (size_t i = 0; i < plugin_registry_error_count(reg); i++)
        if (strstr(plugin_registry_error(reg, i), needle))
            return plugin_registry_error(reg, i);
    return NULL;
}

static void test_registry_missing_dir(void)
{
    const char *dir = fixture("no_such_dir");
    const char *dirs[] = { dir, NULL };
    plugin_registry *reg = NULL;
    char *err = NULL;
    CHECK_INT_EQ(plugin_registry_open(dirs, &reg, &err), -1);
    CHECK(reg == NULL);
    char *expected = util_format("plugin directory '%s': No such file or directory", dir);
    CHECK_STR_EQ(err, expected);
    free(expected);
    free(err);
}

static void test_registry_get(void)
{
    const char *good = fixture("good"), *noentry = fixture("noentry");
    const char *dirs[] = { good, noentry, NULL };
    plugin_registry *reg = NULL;
    char *err = NULL;
    CHECK_INT_EQ(plugin_registry_open(dirs, &reg, &err), 0);
    CHECK(err == NULL);
    if (!reg)
        return;

    const loaded_plugin *lp = plugin_registry_get(reg, "testkit", &err);
    CHECK(lp != NULL);
    CHECK(lp && strcmp(lp->path, fixture("good/testkit.so")) == 0);
    CHECK(err == NULL);

    /* Found among the plugins by index too. */
    int seen = 0;
    for (size_t i = 0; i < plugin_registry_count(reg); i++)
        seen += strcmp(plugin_registry_at(reg, i)->desc->name, "testkit") == 0;
    CHECK_INT_EQ(seen, 1);
    CHECK(plugin_registry_at(reg, plugin_registry_count(reg)) == NULL);

    /* Asking for the plugin a broken file would have provided gives the
     * file's own load error, which is also listed. */
    char *noentry_error = util_format("%s/noentry.so: not a runner plugin: no "
                                      "'runner_plugin_entry' symbol (define it with "
                                      "RUNNER_PLUGIN_DEFINE from <runner/plugin.h>)",
                                      noentry);
    CHECK(plugin_registry_get(reg, "noentry", &err) == NULL);
    CHECK_STR_EQ(err, noentry_error);
    free(err);
    err = NULL;
    CHECK_STR_EQ(registry_error_containing(reg, "noentry.so"), noentry_error);
    CHECK(plugin_registry_error(reg, plugin_registry_error_count(reg)) == NULL);
    free(noentry_error);

    /* A near miss gets a suggestion. */
    CHECK(plugin_registry_get(reg, "testkt", &err) == NULL);
    CHECK_STR_EQ(err, "unknown plugin 'testkt' (did you mean 'testkit'?); 'runner plugins' "
                      "lists the installed ones");
    free(err);
    err = NULL;

    /* A far miss gets the search path instead. */
    char *own = install_layout_plugin_dir();
    char *search = util_format("%s:%s:%s", good, noentry, own);
    free(own);
    CHECK_STR_EQ(plugin_registry_search_path(reg), search);
    char *expected = util_format("unknown plugin 'zzzzzzzz'; searched %s; 'runner plugins' "
                                 "lists the installed ones",
                                 search);
    CHECK(plugin_registry_get(reg, "zzzzzzzz", &err) == NULL);
    CHECK_STR_EQ(err, expected);
    free(expected);
    free(search);
    free(err);
    plugin_registry_free(reg);
    plugin_registry_free(NULL); /* accepted */
}

static void test_registry_duplicate(void)
{
    const char *dir = fixture("duplicate");
    const char *dirs[] = { dir, NULL };
    plugin_registry *reg = NULL;
    char *err = NULL;
    CHECK_INT_EQ(plugin_registry_open(dirs, &reg, &err), 0);
    if (!reg)
        return;
    char *expected = util_format("two plugins named 'twin': %s/twin_a.so and %s/twin_b.so; "
                                 "remove one, or put the one you want in an earlier "
                                 "--plugin-dir",
                                 dir, dir);
    CHECK_STR_EQ(registry_error_containing(reg, "two plugins named 'twin'"), expected);
    /* Neither twin is usable; asking for it explains why. */
    CHECK(plugin_registry_get(reg, "twin", &err) == NULL);
    CHECK_STR_EQ(err, expected);
    for (size_t i = 0; i < plugin_registry_count(reg); i++)
        CHECK(strcmp(plugin_registry_at(reg, i)->desc->name, "twin") != 0);
    free(expected);
    free(err);
    plugin_registry_free(reg);
}

/* Three files declaring one name in one directory are as ambiguous as two:
 * none of them may be picked. */
static void test_registry_triplicate(void)
{
    const char *dir = make_dir("loader_triplets");
    const char *names[] = { "twin_a.so", "twin_b.so", "twin_c.so" };
    for (int i = 0; i < 3; i++) {
        char *to = util_format("%s/%s", dir, names[i]);
        CHECK_INT_EQ(copy_file(fixture("duplicate/twin_a.so"), to), 0);
        free(to);
    }
    const char *dirs[] = { dir, NULL };
    plugin_registry *reg = NULL;
    char *err = NULL;
    CHECK_INT_EQ(plugin_registry_open(dirs, &reg, &err), 0);
    if (!reg)
        return;
    CHECK(registry_error_containing(reg, "two plugins named 'twin'") != NULL);
    const loaded_plugin *lp = plugin_registry_get(reg, "twin", &err);
    CHECK(lp == NULL);
    if (lp)
        fprintf(stderr, "  'twin' resolved to %s despite the duplicates\n", lp->path);
    CHECK(err && strstr(err, "two plugins named 'twin'") != NULL);
    free(err);
    plugin_registry_free(reg);
    for (int i = 0; i < 3; i++) {
        char *path = util_format("%s/%s", dir, names[i]);
        remove(path);
        free(path);
    }
    rmdir(dir);
}

/* An earlier directory shadows a later one; RUNNER_PLUGIN_PATH comes after
 * the explicit directories, and its missing entries are skipped. */
static void test_registry_search_order(void)
{
    const char *first = make_dir("loader_shadow");
    char *copy = util_format("%s/testkit.so", first);
    CHECK_INT_EQ(copy_file(fixture("good/testkit.so"), copy), 0);

    const char *dirs[] = { first, fixture("good"), NULL };
    plugin_registry *reg = NULL;
    char *err = NULL;
    CHECK_INT_EQ(plugin_registry_open(dirs, &reg, &err), 0);
    if (reg) {
        const loaded_plugin *lp = plugin_registry_get(reg, "testkit", &err);
        CHECK(lp && strcmp(lp->path, copy) == 0);
        CHECK(registry_error_containing(reg, "testkit") == NULL); /* shadowing is no error */
        plugin_registry_free(reg);
    }

    char *env = util_format("%s:%s", fixture("no_such_dir"), fixture("good"));
    setenv("RUNNER_PLUGIN_PATH", env, 1);
    const char *only_first[] = { first, NULL };
    reg = NULL;
    CHECK_INT_EQ(plugin_registry_open(only_first, &reg, &err), 0);
    if (reg) {
        const loaded_plugin *lp = plugin_registry_get(reg, "testkit", &err);
        CHECK(lp && strcmp(lp->path, copy) == 0);
        char *own = install_layout_plugin_dir();
        char *search = util_format("%s:%s:%s", first, env, own);
        free(own);
        CHECK_STR_EQ(plugin_registry_search_path(reg), search);
        free(search);
        plugin_registry_free(reg);
    }

    /* From RUNNER_PLUGIN_PATH alone. */
    reg = NULL;
    CHECK_INT_EQ(plugin_registry_open(NULL, &reg, &err), 0);
    if (reg) {
        const loaded_plugin *lp = plugin_registry_get(reg, "testkit", &err);
        CHECK(lp && strcmp(lp->path, fixture("good/testkit.so")) == 0);
        plugin_registry_free(reg);
    }
    unsetenv("RUNNER_PLUGIN_PATH");
    free(env);
    remove(copy);
    free(copy);
    rmdir(first);
}

int main(void)
{
    const char *fx = getenv("RUNNER_TEST_FIXTURES");
    const char *tmp = getenv("RUNNER_TEST_TMP");
    if (!fx || !*fx) {
        fprintf(stderr,
                "test_plugin_loader: RUNNER_TEST_FIXTURES is not set (run through ctest)\n");
        return 1;
    }
    snprintf(fixtures, sizeof fixtures, "%s", fx);
    snprintf(tmp_dir, sizeof tmp_dir, "%s", tmp && *tmp ? tmp : "/tmp");
    unsetenv("RUNNER_PLUGIN_PATH"); /* the registry tests name every directory */

    test_load_not_a_shared_object();
    test_load_no_entry();
    test_load_future_abi();
    test_load_bad_metadata();
    test_load_good();
    test_load_abi1_struct();
    test_load_struct_too_small();
    test_load_unknown_flags();
    test_validate_plugin();
    test_validate_params();
    test_validate_non_finite_default();
    test_validate_columns();
    test_validate_not_utf8();
    test_load_bad_text();
    test_registry_missing_dir();
    test_registry_get();
    test_registry_duplicate();
    test_registry_triplicate();
    test_registry_search_order();
    return check_done("test_plugin_loader");
}
