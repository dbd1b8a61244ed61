/* test_param: what a sweep script may pass for each parameter type (and the
 * exact message when it may not), "did you mean", defaults, and the
 * canonical JSON and identity that make a point reproducible. */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "demo_plugin.h"
#include "base/digest.h"
#include "plugin/param.h"
#include "base/util.h"

static const char *const hash_choices[] = { "xxh64", "md5", NULL };

enum {
    P_WORKERS,
    P_JITTER,
    P_HASH,
    P_VERBOSE,
    P_LABEL
};
static const runner_param demo_params[] = {
    RUNNER_PARAM_INTEGER("workers", "workers", "number of workers", 4, 1, 1e7),
    RUNNER_PARAM_REAL("jitter", "s", "largest extra delay", 0.5, 0, HUGE_VAL),
    RUNNER_PARAM_TEXT("hash", "digest used for shards", "xxh64", hash_choices),
    RUNNER_PARAM_BOOLEAN("verbose", "print every round", 0),
    RUNNER_PARAM_TEXT("label", "free text", "none", NULL),
};
static const runner_column demo_columns[] = {
    RUNNER_COLUMN("round_s", RUNNER_REAL, "s", "duration of a round"),
};

static const runner_plugin demo = DEMO_PLUGIN("1.0.0", demo_params, demo_columns, demo_never_run);

/* The same plugin, one release later. */
static const runner_plugin demo_bugfix =
    DEMO_PLUGIN("1.0.1", demo_params, demo_columns, demo_never_run);

static const runner_param *spec(int index) { return &demo_params[index]; }

static char msg[256];

/* Runs param_check on v and returns its result; the message lands in msg. */
static int check_value(int index, value *v)
{
    msg[0] = '\0';
    return param_check(spec(index), v, msg, sizeof msg);
}

static void test_integer(void)
{
    value v = value_integer(8);
    CHECK_INT_EQ(check_value(P_WORKERS, &v), 0);
    CHECK_INT_EQ(v.type, RUNNER_INTEGER);
    CHECK_INT_EQ(v.as.integer, 8);

    /* 8.0 (a Lua float) is the integer 8. */
    v = value_real(8.0);
    CHECK_INT_EQ(check_value(P_WORKERS, &v), 0);
    CHECK_INT_EQ(v.type, RUNNER_INTEGER);
    CHECK_INT_EQ(v.as.integer, 8);

    v = value_real(8.5);
    CHECK_INT_EQ(check_value(P_WORKERS, &v), -1);
    CHECK_STR_EQ(msg, "workers: expected an integer, got 8.5");

    v = value_integer(0);
    CHECK_INT_EQ(check_value(P_WORKERS, &v), -1);
    CHECK_STR_EQ(msg, "workers: 0 is out of range [1, 10000000] workers");

    v = value_integer(10000001);
    CHECK_INT_EQ(check_value(P_WORKERS, &v), -1);
    CHECK_STR_EQ(msg, "workers: 10000001 is out of range [1, 10000000] workers");

    /* The bounds are inclusive. */
    v = value_integer(1);
    CHECK_INT_EQ(check_value(P_WORKERS, &v), 0);
    v = value_integer(10000000);
    CHECK_INT_EQ(check_value(P_WORKERS, &v), 0);

    /* A whole float outside the range is converted first, then refused. */
    v = value_real(0.0);
    CHECK_INT_EQ(check_value(P_WORKERS, &v), -1);
    CHECK_STR_EQ(msg, "workers: 0 is out of range [1, 10000000] workers");

    v = value_real(NAN);
    CHECK_INT_EQ(check_value(P_WORKERS, &v), -1);
    CHECK_STR_EQ(msg, "workers: expected a finite integer, got nan");

    v = value_text("8");
    CHECK_INT_EQ(check_value(P_WORKERS, &v), -1);
    CHECK_STR_EQ(msg, "workers: expected an integer, got a text");
    value_clear(&v);

    v = value_boolean(1);
    CHECK_INT_EQ(check_value(P_WORKERS, &v), -1);
    CHECK_STR_EQ(msg, "workers: expected an integer, got a boolean");
}

static void test_real(void)
{
    value v = value_real(0.25);
    CHECK_INT_EQ(check_value(P_JITTER, &v), 0);
    CHECK_INT_EQ(v.type, RUNNER_REAL);
    CHECK(v.as.real == 0.25);

    /* An integer is the real with the same value. */
    v = value_integer(2);
    CHECK_INT_EQ(check_value(P_JITTER, &v), 0);
    CHECK_INT_EQ(v.type, RUNNER_REAL);
    CHECK(v.as.real == 2.0);

    v = value_real(NAN);
    CHECK_INT_EQ(check_value(P_JITTER, &v), -1);
    CHECK_STR_EQ(msg, "jitter: expected a finite number, got nan");

    v = value_real(INFINITY);
    CHECK_INT_EQ(check_value(P_JITTER, &v), -1);
    CHECK_STR_EQ(msg, "jitter: expected a finite number, got inf");

    v = value_real(-INFINITY);
    CHECK_INT_EQ(check_value(P_JITTER, &v), -1);
    CHECK_STR_EQ(msg, "jitter: expected a finite number, got -inf");

    /* -0.0 is 0.0 from entry on: SQLite could not store the sign. */
    v = value_real(-0.0);
    CHECK_INT_EQ(check_value(P_JITTER, &v), 0);
    CHECK(v.as.real == 0.0 && !signbit(v.as.real));

    v = value_real(-0.5);
    CHECK_INT_EQ(check_value(P_JITTER, &v), -1);
    CHECK_STR_EQ(msg, "jitter: -0.5 is out of range [0, inf] s");

    v = value_integer(-3); /* converted, then refused with the real's range */
    CHECK_INT_EQ(check_value(P_JITTER, &v), -1);
    CHECK_STR_EQ(msg, "jitter: -3 is out of range [0, inf] s");

    v = value_boolean(0);
    CHECK_INT_EQ(check_value(P_JITTER, &v), -1);
    CHECK_STR_EQ(msg, "jitter: expected a number, got a boolean");
}

static void test_text(void)
{
    value v = value_text("md5");
    CHECK_INT_EQ(check_value(P_HASH, &v), 0);
    CHECK_STR_EQ(v.as.text, "md5");
    value_clear(&v);

    v = value_text("sha1");
    CHECK_INT_EQ(check_value(P_HASH, &v), -1);
    CHECK_STR_EQ(msg, "hash: 'sha1' is not one of 'xxh64', 'md5'");
    value_clear(&v);

    /* Choices are case-sensitive. */
    v = value_text("MD5");
    CHECK_INT_EQ(check_value(P_HASH, &v), -1);
    CHECK_STR_EQ(msg, "hash: 'MD5' is not one of 'xxh64', 'md5'");
    value_clear(&v);

    /* Without choices, any text goes, even "". */
    v = value_text("");
    CHECK_INT_EQ(check_value(P_LABEL, &v), 0);
    value_clear(&v);

    v = value_real(1.5);
    CHECK_INT_EQ(check_value(P_LABEL, &v), -1);
    CHECK_STR_EQ(msg, "label: expected a string, got a real");

    /* Text JSON cannot hold is refused, its bytes quoted escaped. */
    v = value_text("caf\xe9\n");
    CHECK_INT_EQ(check_value(P_LABEL, &v), -1);
    CHECK_STR_EQ(msg, "label: text is not valid UTF-8: 'caf\\xe9\\n'");
    value_clear(&v);
}

static void test_boolean(void)
{
    value v = value_boolean(1);
    CHECK_INT_EQ(check_value(P_VERBOSE, &v), 0);
    CHECK_INT_EQ(v.as.boolean, 1);

    v = value_text("true");
    CHECK_INT_EQ(check_value(P_VERBOSE, &v), -1);
    CHECK_STR_EQ(msg, "verbose: expected true or false, got a text");
    value_clear(&v);

    /* 1 is not true: booleans are never converted from numbers. */
    v = value_integer(1);
    CHECK_INT_EQ(check_value(P_VERBOSE, &v), -1);
    CHECK_STR_EQ(msg, "verbose: expected true or false, got an integer");
    CHECK_INT_EQ(v.type, RUNNER_INTEGER); /* left as it was */
}

static void test_message_fits_small_buffer(void)
{
    char small[16];
    value v = value_real(8.5);
    CHECK_INT_EQ(param_check(spec(P_WORKERS), &v, small, sizeof small), -1);
    CHECK_STR_EQ(small, "workers: expect"); /* truncated, still terminated */
}

static void test_find_and_suggest(void)
{
    CHECK_INT_EQ(param_find(&demo, "workers"), P_WORKERS);
    CHECK_INT_EQ(param_find(&demo, "label"), P_LABEL);
    CHECK_INT_EQ(param_find(&demo, "Label"), -1);
    CHECK_INT_EQ(param_find(&demo, "nope"), -1);

    CHECK_STR_EQ(param_suggest(&demo, "jiter"), "jitter");
    CHECK_STR_EQ(param_suggest(&demo, "wrkers"), "workers");
    CHECK_STR_EQ(param_suggest(&demo, "hsh"), "hash"); /* short names allow one edit */
    CHECK(param_suggest(&demo, "zzzzzz") == NULL);
    CHECK(param_suggest(&demo, "hs") == NULL); /* two edits is too many for "hs" */
}

static void test_defaults(void)
{
    value v = param_default(spec(P_WORKERS));
    CHECK_INT_EQ(v.type, RUNNER_INTEGER);
    CHECK_INT_EQ(v.as.integer, 4);

    v = param_default(spec(P_JITTER));
    CHECK_INT_EQ(v.type, RUNNER_REAL);
    CHECK(v.as.real == 0.5);

    v = param_default(spec(P_VERBOSE));
    CHECK_INT_EQ(v.type, RUNNER_BOOLEAN);
    CHECK_INT_EQ(v.as.boolean, 0);

    v = param_default(spec(P_HASH));
    CHECK_INT_EQ(v.type, RUNNER_TEXT);
    CHECK_STR_EQ(v.as.text, "xxh64");
    CHECK(v.as.text != hash_choices[0]); /* a copy the caller clears */
    value_clear(&v);

    /* Every default passes its own check. */
    for (int i = 0; i < (int)RUNNER_COUNT(demo_params); i++) {
        v = param_default(spec(i));
        CHECK_INT_EQ(check_value(i, &v), 0);
        value_clear(&v);
    }
}

static void test_describe_range(void)
{
    char buf[80];
    param_describe_range(spec(P_WORKERS), buf, sizeof buf);
    CHECK_STR_EQ(buf, "[1, 10000000]");
    param_describe_range(spec(P_JITTER), buf, sizeof buf);
    CHECK_STR_EQ(buf, "[0, inf]");
    runner_param open = RUNNER_PARAM_REAL("offset", "", "any offset", 0, -HUGE_VAL, HUGE_VAL);
    param_describe_range(&open, buf, sizeof buf);
    CHECK_STR_EQ(buf, "[-inf, inf]");
    runner_param wide = RUNNER_PARAM_REAL("size", "bytes", "a size", 1, 0.25, 1e20);
    param_describe_range(&wide, buf, sizeof buf);
    CHECK_STR_EQ(buf, "[0.25, 1e+20]");
}

/* A full vector: workers 8, jitter 2.0, hash md5, verbose true, label with
 * quotes and a newline. Text is owned; clear with clear_params. */
static void make_params(value *params, const char *label)
{
    params[P_WORKERS] = value_integer(8);
    params[P_JITTER] = value_real(2.0);
    params[P_HASH] = value_text("md5");
    params[P_VERBOSE] = value_boolean(1);
    params[P_LABEL] = value_text(label);
}

static void clear_params(value *params)
{
    for (int i = 0; i < (int)RUNNER_COUNT(demo_params); i++)
        value_clear(&params[i]);
}

/* A text with a unit becomes the number in the declared unit; a text
 * without one stays a text (refused); an incompatible unit names both. */
static void test_units(void)
{
    value v = value_text("2min");
    CHECK_INT_EQ(check_value(P_JITTER, &v), 0);
    CHECK_INT_EQ(v.type, RUNNER_REAL);
    CHECK(v.as.real == 120.0);

    v = value_text("1.5k");
    CHECK_INT_EQ(check_value(P_WORKERS, &v), 0);
    CHECK_INT_EQ(v.type, RUNNER_INTEGER);
    CHECK_INT_EQ(v.as.integer, 1500);

    v = value_text("64 workers");
    CHECK_INT_EQ(check_value(P_WORKERS, &v), 0);
    CHECK_INT_EQ(v.as.integer, 64);

    v = value_text("1.5GiB");
    CHECK_INT_EQ(check_value(P_JITTER, &v), -1);
    CHECK_STR_EQ(msg, "jitter: '1.5GiB': GiB (bytes) does not convert to s (time)");
    value_clear(&v);

    v = value_text("1.2345k");
    CHECK_INT_EQ(check_value(P_WORKERS, &v), -1);
    CHECK_STR_EQ(msg, "workers: '1.2345k' is 1234.5 workers, not a whole number");
    value_clear(&v);

    v = value_text("20M"); /* converted, then the declared range applies */
    CHECK_INT_EQ(check_value(P_WORKERS, &v), -1);
    CHECK_STR_EQ(msg, "workers: 20000000 is out of range [1, 10000000] workers");

    v = value_text("-1ms");
    CHECK_INT_EQ(check_value(P_JITTER, &v), -1);
    CHECK_STR_EQ(msg, "jitter: -0.001 is out of range [0, inf] s");

    v = value_text("30 "); /* a number in quotes is no number */
    CHECK_INT_EQ(check_value(P_JITTER, &v), -1);
    CHECK_STR_EQ(msg, "jitter: expected a number, got a text");
    value_clear(&v);

    /* Text parameters take text with units as it is. */
    v = value_text("2min");
    CHECK_INT_EQ(check_value(P_LABEL, &v), 0);
    CHECK_STR_EQ(v.as.text, "2min");
    value_clear(&v);

    /* 500ms is the point 0.5 is: the same canonical form, the same identity. */
    value with_unit[RUNNER_COUNT(demo_params)], bare[RUNNER_COUNT(demo_params)];
    make_params(with_unit, "a");
    make_params(bare, "a");
    with_unit[P_JITTER] = value_text("500ms");
    bare[P_JITTER] = value_real(0.5);
    CHECK_INT_EQ(check_value(P_JITTER, &with_unit[P_JITTER]), 0);
    char *json_unit = param_canonical_json(&demo, with_unit);
    char *json_bare = param_canonical_json(&demo, bare);
    CHECK_STR_EQ(json_unit, json_bare);
    free(json_unit);
    free(json_bare);
    clear_params(with_unit);
    clear_params(bare);
}

static void test_canonical_json(void)
{
    value params[RUNNER_COUNT(demo_params)];
    make_params(params, "say \"hi\"\n");
    char *json = param_canonical_json(&demo, params);
    /* Keys in declaration order, no spaces, 2.0 stays a real, text escaped. */
    CHECK_STR_EQ(json, "{\"workers\":8,\"jitter\":2.0,\"hash\":\"md5\",\"verbose\":true,"
                       "\"label\":\"say \\\"hi\\\"\\n\"}");
    free(json);

    /* Reals keep 17 significant digits, so 0.1 and its neighbour differ. */
    params[P_JITTER] = value_real(0.1);
    json = param_canonical_json(&demo, params);
    CHECK(json && strstr(json, "\"jitter\":0.10000000000000001,") != NULL);
    char *json_neighbour;
    params[P_JITTER] = value_real(nextafter(0.1, 1.0));
    json_neighbour = param_canonical_json(&demo, params);
    CHECK(json && json_neighbour && strcmp(json, json_neighbour) != 0);
    free(json);
    free(json_neighbour);
    clear_params(params);
}

/* Text is bytes from a Lua script and need not be valid UTF-8. Whatever the
 * canonical form does with it, it must not drop the parameter: two points
 * differing only in such a label would otherwise share one identity. */
static void test_canonical_json_keeps_non_utf8_text(void)
{
    value params[RUNNER_COUNT(demo_params)];
    make_params(params, "caf\xe9"); /* Latin-1, not UTF-8 */
    char *json = param_canonical_json(&demo, params);
    value other[RUNNER_COUNT(demo_params)];
    make_params(other, "caf\xe8");
    char *other_json = param_canonical_json(&demo, other);
    /* Either refused (NULL), or kept and told apart. */
    CHECK(json == NULL || strstr(json, "\"label\"") != NULL);
    CHECK(json == NULL || other_json == NULL || strcmp(json, other_json) != 0);
    free(json);
    free(other_json);
    clear_params(params);
    clear_params(other);
}

static void test_point_identity(void)
{
    value params[RUNNER_COUNT(demo_params)];
    make_params(params, "base");
    char *json = param_canonical_json(&demo, params);
    CHECK(json != NULL);
    if (!json)
        return;

    char identity[65], again[65];
    uint64_t seed = 0, seed_again = 0;
    CHECK_INT_EQ(param_point_identity(&demo, json, 42, identity, &seed), 0);
    CHECK_INT_EQ(strlen(identity), 64);
    CHECK_INT_EQ(strspn(identity, "0123456789abcdef"), 64);

    /* Same inputs, same identity and seed. */
    CHECK_INT_EQ(param_point_identity(&demo, json, 42, again, &seed_again), 0);
    CHECK_STR_EQ(again, identity);
    CHECK(seed_again == seed);

    /* The identity is the SHA-256 of name, version, canonical parameters and
     * sweep seed, one per line; the seed is the first 8 bytes (little-endian)
     * of the same without the version. Stored databases depend on this. */
    char *text = util_format("demo\n1.0.0\n%s\n42", json);
    char expected[65];
    CHECK_INT_EQ(digest_sha256_hex(text, strlen(text), expected), 0);
    CHECK_STR_EQ(identity, expected);
    free(text);
    text = util_format("demo\n%s\n42", json);
    unsigned char raw[32];
    CHECK_INT_EQ(digest_sha256(text, strlen(text), raw), 0);
    uint64_t expected_seed = 0;
    for (int i = 7; i >= 0; i--)
        expected_seed = (expected_seed << 8) | raw[i];
    CHECK(seed == expected_seed);
    free(text);

    /* Another sweep seed: another identity and another random seed. */
    CHECK_INT_EQ(param_point_identity(&demo, json, 43, again, &seed_again), 0);
    CHECK(strcmp(again, identity) != 0);
    CHECK(seed_again != seed);

    /* Another parameter value: likewise. */
    params[P_WORKERS] = value_integer(9);
    char *json_9 = param_canonical_json(&demo, params);
    CHECK_INT_EQ(param_point_identity(&demo, json_9, 42, again, &seed_again), 0);
    CHECK(strcmp(again, identity) != 0);
    CHECK(seed_again != seed);
    free(json_9);

    /* A new plugin version is a new identity, but the same random stream. */
    CHECK_INT_EQ(param_point_identity(&demo_bugfix, json, 42, again, &seed_again), 0);
    CHECK(strcmp(again, identity) != 0);
    CHECK(seed_again == seed);

    free(json);
    clear_params(params);
}

int main(void)
{
    test_integer();
    test_real();
    test_text();
    test_boolean();
    test_message_fits_small_buffer();
    test_find_and_suggest();
    test_defaults();
    test_describe_range();
    test_units();
    test_canonical_json();
    test_canonical_json_keeps_non_utf8_text();
    test_point_identity();
    return check_done("test_param");
}
