/* test_json_text: the JSON writer of `runner show` writes jansson's bytes
 * for the same values (strings with quotes, backslashes, control bytes,
 * newlines and UTF-8; integers; booleans; NULL), reals in jansson's style
 * with the shortest digits that read back, NaN and infinities as strings,
 * and bytes that are not UTF-8 as U+FFFD. */
#include <float.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "render/json_text.h"

/* What jansson writes for v (value_to_json_shown), as `runner show` wrote it before. */
static char *jansson_text(const value *v)
{
    json_t *j = value_to_json_shown(v);
    char *text = json_dumps(j, JSON_ENCODE_ANY | JSON_REAL_PRECISION(17));
    json_decref(j);
    return text;
}

static void same_as_jansson(value v)
{
    strbuf b = { 0 };
    json_text_value(&b, &v);
    char *want = jansson_text(&v);
    CHECK(!b.oom);
    CHECK_STR_EQ(b.data, want);
    free(want);
    strbuf_free(&b);
    value_clear(&v);
}

static void test_strings(void)
{
    const char *const texts[] = { "",
                                  "plain",
                                  "say \"hi\"",
                                  "back\\slash",
                                  "two\nlines\r\n",
                                  "tab\there",
                                  "\b\f\x01\x1f\x7f",
                                  "a/b",
                                  "caf\xc3\xa9 \xe2\x80\xa8 \xf0\x9f\x98\x80",
                                  "comma, \"quote\" and\nnewline" };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
        same_as_jansson(value_text(texts[i]));
    /* Not UTF-8: each stray byte is U+FFFD, the rest escaped as usual. */
    strbuf b = { 0 };
    json_text_string(&b, "a\xff\"b\xc3");
    CHECK_STR_EQ(b.data, "\"a\xef\xbf\xbd\\\"b\xef\xbf\xbd\"");
    strbuf_free(&b);
}

static void test_others(void)
{
    same_as_jansson(value_integer(0));
    same_as_jansson(value_integer(-42));
    same_as_jansson(value_integer(INT64_MAX));
    same_as_jansson(value_integer(INT64_MIN));
    same_as_jansson(value_boolean(1));
    same_as_jansson(value_boolean(0));
    same_as_jansson(VALUE_NULL);
    same_as_jansson(value_real(NAN));
    same_as_jansson(value_real(INFINITY));
    same_as_jansson(value_real(-INFINITY));
}

/* A real: jansson's bytes when its 17 digits are the shortest; otherwise
 * fewer digits, in the same style, that read back as the same double. */
static void check_real(double x)
{
    char got[JSON_TEXT_REAL_SIZE];
    size_t len = json_text_real(x, got);
    value v = value_real(x);
    char *want = jansson_text(&v);
    CHECK(len == strlen(got));
    CHECK(strtod(got, NULL) == x);
    CHECK(strlen(got) <= strlen(want));
    /* jansson's style: a point or an exponent, no '+', no leading zeros */
    CHECK(strpbrk(got, ".e") != NULL);
    CHECK(strstr(got, "e+") == NULL && strstr(got, "e0") == NULL && strstr(got, "e-0") == NULL);
    char full[64];
    snprintf(full, sizeof full, "%.17g", x);
    char shorter[64];
    snprintf(shorter, sizeof shorter, "%.16g", x);
    if (strtod(shorter, NULL) != x)
        CHECK_STR_EQ(got, want); /* 17 digits needed: jansson's bytes */
    free(want);
}

static void test_reals(void)
{
    const double some[] = { 0.0,          -0.0,   30.0,       0.5,   0.1,       1.0 / 3,
                            2.0 / 3,      5e-6,   1e-5,       1e20,  1e16,      1.5e300,
                            3125000000.0, 1e100,  60.5,       -7.25, 1e-7,      DBL_MAX,
                            DBL_MIN,      5e-324, 123456.789, 1e15,  1e15 + 0.5 };
    for (size_t i = 0; i < sizeof some / sizeof some[0]; i++) {
        check_real(some[i]);
        check_real(-some[i]);
    }
    char got[JSON_TEXT_REAL_SIZE];
    json_text_real(0.1, got);
    CHECK_STR_EQ(got, "0.1");
    json_text_real(30.0, got);
    CHECK_STR_EQ(got, "30.0");
    json_text_real(1e20, got);
    CHECK_STR_EQ(got, "1e20");
    json_text_real(5e-6, got);
    CHECK_STR_EQ(got, "5e-6");
    json_text_real(-0.0, got);
    CHECK_STR_EQ(got, "-0.0");
    json_text_real(NAN, got);
    CHECK_STR_EQ(got, "\"NaN\"");
    uint64_t state = 0x243f6a8885a308d3ULL;
    for (int i = 0; i < 20000; i++) {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        double x;
        memcpy(&x, &state, sizeof x);
        if (isfinite(x))
            check_real(x);
        check_real(0.5 + 1.5 * (double)(state % 1000) / 999);
    }
}

int main(void)
{
    test_strings();
    test_others();
    test_reals();
    return check_done("test_json_text");
}
