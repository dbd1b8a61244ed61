/* test_realtext: realtext_g17 prints what snprintf's "%.17g" prints, byte
 * for byte: edge values, powers of ten and their neighbours, halfway
 * cases, and a million random doubles spread over every exponent; so does
 * realtext_g for every other precision; realtext_shortest reads back as
 * the same double and no shorter "%.Ng" text (N >= 15) would. */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "base/realtext.h"

static int mismatches;

static void check_one(double x)
{
    char want[64], got[REALTEXT_SIZE];
    snprintf(want, sizeof want, "%.17g", x);
    size_t len = realtext_g17(x, got);
    if (strcmp(want, got) != 0 || len != strlen(want)) {
        if (mismatches++ < 10)
            fprintf(stderr, "realtext_g17(%a): got \"%s\", want \"%s\"\n", x, got, want);
    }
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t next_random(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static void test_edges(void)
{
    const double edges[] = { 0.0,
                             -0.0,
                             1.0,
                             -1.0,
                             0.1,
                             0.5,
                             2.5,
                             1e-6,
                             1e-5,
                             1e-4,
                             1e-3,
                             9.9999999999999995e-7,
                             0.0001,
                             123456.789,
                             1e16,
                             1e17,
                             99999999999999984.0,
                             1e17 - 16,
                             9007199254740993.0,
                             1.5e300,
                             DBL_MIN,
                             DBL_MAX,
                             DBL_TRUE_MIN,
                             NAN,
                             INFINITY,
                             -INFINITY,
                             2.0 / 3.0,
                             1.0 / 3.0,
                             3.14159265358979,
                             6.02214076e23 };
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) {
        check_one(edges[i]);
        check_one(-edges[i]);
    }
    for (int e = -12; e <= 20; e++) {
        double p = pow(10, e);
        check_one(p);
        check_one(nextafter(p, 0));
        check_one(nextafter(p, INFINITY));
    }
    /* Halfway at the 17th digit: integers times a power of two. */
    for (int i = 1; i < 20000; i++)
        check_one(ldexp((double)i, -i % 60));
    CHECK(mismatches == 0);
}

static void test_random(void)
{
    for (int i = 0; i < 1000000; i++) {
        uint64_t bits = next_random();
        double x;
        memcpy(&x, &bits, sizeof x);
        check_one(x);
        /* And in the fast range, where the results live. */
        check_one(ldexp((double)(bits >> 11), -53) * pow(10, (int)(bits % 30) - 12));
    }
    CHECK(mismatches == 0);
}

static int precision_mismatches, shortest_mismatches;

static void check_precisions(double x)
{
    for (int p = 1; p <= 17; p++) {
        char want[64], got[REALTEXT_SIZE];
        snprintf(want, sizeof want, "%.*g", p, x);
        size_t len = realtext_g(x, p, got);
        if ((strcmp(want, got) != 0 || len != strlen(want)) && precision_mismatches++ < 10)
            fprintf(stderr, "realtext_g(%a, %d): got \"%s\", want \"%s\"\n", x, p, got, want);
    }
}

/* The text reads back as x, is one of "%.15g", "%.16g", "%.17g", and no
 * shorter one of them reads back. */
static void check_shortest(double x)
{
    char got[REALTEXT_SIZE], want[64];
    size_t len = realtext_shortest(x, got);
    int ok = len == strlen(got) && (isnan(x) ? isnan(strtod(got, NULL)) : strtod(got, NULL) == x);
    int shortest = -1;
    for (int p = 15; p <= 17 && shortest < 0; p++) {
        snprintf(want, sizeof want, "%.*g", p, x);
        if (isnan(x) || strtod(want, NULL) == x)
            shortest = p;
    }
    /* Integers and |x| outside 1e-11 .. 1e15 may keep 17 digits (as "%.17g"
     * prints them). */
    char full[64];
    snprintf(full, sizeof full, "%.17g", x);
    if ((fabs(x) >= 1e15 || fabs(x) < 1e-11 || x == (double)(int64_t)x || !isfinite(x)) &&
        strcmp(got, full) == 0)
        snprintf(want, sizeof want, "%s", full);
    if ((!ok || strcmp(got, want) != 0) && shortest_mismatches++ < 10)
        fprintf(stderr, "realtext_shortest(%a): got \"%s\", want \"%s\"\n", x, got, want);
}

static void test_precisions(void)
{
    const double some[] = { 0.5,       0.05,    1.5,        2.5,           123456.5,
                            1234567.0, 3.125e9, 44500000.5, 1e-5,          9.9999949999999e-5,
                            0.1,       1.0 / 3, 2.0 / 3,    999999.5,      99999.95,
                            1e21,      1e-300,  -7.25,      6.02214076e23, 5e-324 };
    for (size_t i = 0; i < sizeof some / sizeof some[0]; i++) {
        check_precisions(some[i]);
        check_precisions(-some[i]);
        check_shortest(some[i]);
        check_shortest(-some[i]);
    }
    for (int e = -12; e <= 20; e++) {
        double p = pow(10, e);
        check_shortest(p);
        check_shortest(nextafter(p, 0));
        check_shortest(nextafter(p, INFINITY));
        check_shortest(ldexp(1.0, e * 3)); /* powers of two: the gap below is half */
        check_shortest(nextafter(ldexp(1.0, e * 3), 0));
    }
    for (int i = 0; i < 20000; i++) {
        uint64_t bits = next_random();
        double x;
        memcpy(&x, &bits, sizeof x);
        check_precisions(x);
        check_shortest(x);
        double y = ldexp((double)(bits >> 11), -53) * pow(10, (int)(bits % 30) - 12);
        check_precisions(y);
        check_shortest(y);
        check_shortest(0.5 + 1.5 * (double)(bits % 1000) / 999); /* linspace-like */
    }
    /* Short decimals (a sweep's parameters, 0.05 steps): their 17 digits
     * end in zeros, and the 15 are taken from them. */
    for (int i = 1; i < 20000; i++) {
        check_shortest(i / 1000.0);
        check_shortest(i * 0.05);
        check_shortest(0.5 + 1.5 * i / 19999.0);
        check_shortest(1e-9 * i);
    }
    CHECK(precision_mismatches == 0);
    CHECK(shortest_mismatches == 0);
}

static void test_int64(void)
{
    const int64_t values[] = { 0, 1, -1, 9, 10, 99, 100, 12345, -987654321, INT64_MAX, INT64_MIN };
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        char want[32], got[REALTEXT_SIZE];
        snprintf(want, sizeof want, "%" PRId64, values[i]);
        CHECK(realtext_int64(values[i], got) == strlen(want));
        CHECK_STR_EQ(got, want);
    }
}

int main(void)
{
    test_int64();
    test_edges();
    test_random();
    test_precisions();
    return check_done("test_realtext");
}
