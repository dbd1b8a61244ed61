/* test_value: construction, ownership, comparison and formatting of cells. */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "base/util.h"
#include "base/value.h"

static const char *formatted(value v, int digits)
{
    static char buf[64];
    value_format(&v, digits, buf, sizeof buf);
    return buf;
}

static void test_constructors(void)
{
    value i = value_integer(-42);
    CHECK_INT_EQ(i.type, RUNNER_INTEGER);
    CHECK_INT_EQ(i.as.integer, -42);

    value r = value_real(2.5);
    CHECK_INT_EQ(r.type, RUNNER_REAL);
    CHECK(r.as.real == 2.5);

    value b = value_boolean(7);
    CHECK_INT_EQ(b.type, RUNNER_BOOLEAN);
    CHECK_INT_EQ(b.as.boolean, 1); /* normalised to 0 or 1 */
    CHECK_INT_EQ(value_boolean(0).as.boolean, 0);

    char source[] = "hello";
    value t = value_text(source);
    CHECK_INT_EQ(t.type, RUNNER_TEXT);
    CHECK(t.as.text != source); /* copied, not borrowed */
    source[0] = 'j';
    CHECK_STR_EQ(t.as.text, "hello");
    value_clear(&t);
    CHECK_INT_EQ(t.type, 0);

    CHECK_INT_EQ(value_text(NULL).type, 0);
    CHECK_INT_EQ(VALUE_NULL.type, 0);
    value_clear(NULL); /* accepted */
}

static void test_copy(void)
{
    value src = value_text("shard");
    value dst = value_integer(1);
    CHECK_INT_EQ(value_copy(&dst, &src), 0);
    CHECK_INT_EQ(dst.type, RUNNER_TEXT);
    CHECK(dst.as.text != src.as.text); /* deep copy: both can be cleared */
    CHECK_STR_EQ(dst.as.text, "shard");
    value_clear(&src);
    CHECK_STR_EQ(dst.as.text, "shard");
    value_clear(&dst);

    value real = value_real(-0.25), copy;
    CHECK_INT_EQ(value_copy(&copy, &real), 0);
    CHECK(value_equal(&copy, &real));
}

static void test_number(void)
{
    value v = value_integer(3);
    CHECK(value_number(&v) == 3.0);
    v = value_real(0.5);
    CHECK(value_number(&v) == 0.5);
    v = value_boolean(1);
    CHECK(value_number(&v) == 1.0);
    v = value_text("3");
    CHECK(isnan(value_number(&v))); /* text is not a number, even "3" */
    value_clear(&v);
    v = VALUE_NULL;
    CHECK(isnan(value_number(&v)));
}

static void test_format(void)
{
    CHECK_STR_EQ(formatted(value_integer(INT64_MAX), 6), "9223372036854775807");
    CHECK_STR_EQ(formatted(value_integer(INT64_MIN), 6), "-9223372036854775808");
    CHECK_STR_EQ(formatted(value_real(0.1), 17), "0.10000000000000001");
    CHECK_STR_EQ(formatted(value_real(0.1), 6), "0.1");
    CHECK_STR_EQ(formatted(value_real(3.053e-16), 4), "3.053e-16");
    CHECK_STR_EQ(formatted(value_real(4000000), 6), "4e+06");
    CHECK_STR_EQ(formatted(value_real(1.0 / 3.0), 0), "0.33333333333333331"); /* default 17 */
    CHECK_STR_EQ(formatted(value_real(NAN), 6), "NaN");
    CHECK_STR_EQ(formatted(value_real(-NAN), 6), "NaN");
    CHECK_STR_EQ(formatted(value_real(INFINITY), 6), "inf");
    CHECK_STR_EQ(formatted(value_real(-INFINITY), 6), "-inf");
    CHECK_STR_EQ(formatted(value_boolean(1), 6), "true");
    CHECK_STR_EQ(formatted(value_boolean(0), 6), "false");
    CHECK_STR_EQ(formatted(VALUE_NULL, 6), "");

    value t = value_text("ring allreduce");
    char small[5];
    value_format(&t, 6, small, sizeof small);
    CHECK_STR_EQ(small, "ring"); /* truncated, still terminated */
    char buf[32];
    value_format(&t, 6, buf, sizeof buf);
    CHECK_STR_EQ(buf, "ring allreduce");
    value_clear(&t);

    /* 17 digits round-trip every double. */
    double x = 0.1 + 0.2;
    CHECK(strtod(formatted(value_real(x), 17), NULL) == x);
}

static void test_type_names(void)
{
    CHECK_STR_EQ(value_type_name(RUNNER_INTEGER), "integer");
    CHECK_STR_EQ(value_type_name(RUNNER_REAL), "real");
    CHECK_STR_EQ(value_type_name(RUNNER_TEXT), "text");
    CHECK_STR_EQ(value_type_name(RUNNER_BOOLEAN), "boolean");
    CHECK_STR_EQ(value_type_name((runner_type)0), "null");
}

/* Quantities only: a boolean is shown as true/false and gets no figures. */
static void test_type_is_numeric(void)
{
    CHECK_INT_EQ(value_type_is_numeric(RUNNER_INTEGER), 1);
    CHECK_INT_EQ(value_type_is_numeric(RUNNER_REAL), 1);
    CHECK_INT_EQ(value_type_is_numeric(RUNNER_BOOLEAN), 0);
    CHECK_INT_EQ(value_type_is_numeric(RUNNER_TEXT), 0);
    CHECK_INT_EQ(value_type_is_numeric((runner_type)0), 0);
}

static void test_equal(void)
{
    value a = value_integer(1), b = value_real(1.0);
    CHECK(!value_equal(&a, &b)); /* types differ */
    b = value_integer(1);
    CHECK(value_equal(&a, &b));
    b = value_integer(2);
    CHECK(!value_equal(&a, &b));

    a = value_real(NAN);
    b = value_real(NAN);
    CHECK(value_equal(&a, &b));
    b = value_real(0);
    CHECK(!value_equal(&a, &b));
    a = value_real(INFINITY);
    b = value_real(-INFINITY);
    CHECK(!value_equal(&a, &b));

    a = value_text("x");
    b = value_text("x");
    CHECK(value_equal(&a, &b));
    value_clear(&b);
    b = value_text("y");
    CHECK(!value_equal(&a, &b));
    value_clear(&a);
    value_clear(&b);

    a = value_boolean(1);
    b = value_boolean(5);
    CHECK(value_equal(&a, &b));
    a = VALUE_NULL;
    b = VALUE_NULL;
    CHECK(value_equal(&a, &b));
}

/* JSON has no NaN or infinities: they travel as strings, everywhere. */
static void test_json(void)
{
    value cases[] = { value_integer(-7),     value_real(0.5),
                      value_real(NAN),       value_real(INFINITY),
                      value_real(-INFINITY), value_boolean(1),
                      value_text("a\"b"),    VALUE_NULL };
    const char *expected[] = { "-7",       "0.5",  "\"NaN\"",    "\"inf\"",
                               "\"-inf\"", "true", "\"a\\\"b\"", "null" };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_t *j = value_to_json(&cases[i]);
        char *text = j ? json_dumps(j, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
        CHECK_STR_EQ(text, expected[i]);
        free(text);
        json_decref(j);
        value_clear(&cases[i]);
    }
    value bad = value_text("caf\xe9"); /* Latin-1, not UTF-8 */
    CHECK(value_to_json(&bad) == NULL);
    value_clear(&bad);
}

/* util_utf8_valid decides what JSON can hold, so it must agree with
 * jansson byte for byte: overlong forms, surrogates, past U+10FFFF, stray
 * and missing continuation bytes. */
static void test_utf8_agrees_with_jansson(void)
{
    static const char *const cases[] = {
        "",
        "plain",
        "caf\xc3\xa9",
        "\xe2\x82\xac",
        "\xf0\x9f\x98\x80",
        "\xf4\x8f\xbf\xbf",
        "caf\xe9",
        "\xc0\x80",
        "\xc1\xbf",
        "\xe0\x80\x80",
        "\xe0\x9f\xbf",
        "\xed\xa0\x80",
        "\xed\xbf\xbf",
        "\xf0\x80\x80\x80",
        "\xf4\x90\x80\x80",
        "\xf5\x80\x80\x80",
        "\xff",
        "\x80",
        "\xc3",
        "\xe2\x82",
        "\xf0\x9f\x98",
        "a\xc3(",
        "\xef\xbf\xbd",
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_t *j = json_string(cases[i]);
        CHECK_INT_EQ(util_utf8_valid(cases[i]), j != NULL);
        json_decref(j);
    }
}

/* The encoder of printed JSON never drops text: a byte that is not UTF-8
 * becomes U+FFFD, valid text is unchanged, and the exact encoder (the
 * identity's) still refuses. */
static void test_json_text(void)
{
    static const char *const cases[][2] = {
        { "caf\xc3\xa9", "\"caf\\u00E9\"" },
        { "caf\xe9", "\"caf\\uFFFD\"" },
        { "\xff\xfe", "\"\\uFFFD\\uFFFD\"" },
        { "a\xe2\x82"
          "b",
          "\"a\\uFFFD\\uFFFDb\"" },
        { "", "\"\"" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_t *j = value_json_text(cases[i][0]);
        char *text = j ? json_dumps(j, JSON_ENCODE_ANY | JSON_ENSURE_ASCII) : NULL;
        CHECK_STR_EQ(text, cases[i][1]);
        free(text);
        json_decref(j);
    }
    json_t *null = value_json_text(NULL);
    CHECK(json_is_null(null));
    json_decref(null);
    value bad = value_text("caf\xe9");
    json_t *shown = value_to_json_shown(&bad);
    CHECK_STR_EQ(json_string_value(shown), "caf\xef\xbf\xbd");
    json_decref(shown);
    value_clear(&bad);
}

int main(void)
{
    test_utf8_agrees_with_jansson();
    test_json_text();
    test_json();
    test_constructors();
    test_copy();
    test_number();
    test_format();
    test_type_names();
    test_type_is_numeric();
    test_equal();
    return check_done("test_value");
}
