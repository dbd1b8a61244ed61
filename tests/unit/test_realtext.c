/* test_realtext: realtext_g17 prints what snprintf's "%.17g" prints, byte
 * for byte: edge values, powers of ten and their neighbours, halfway
 * cases, and a million random doubles spread over every exponent. */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
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
    return check_done("test_realtext");
}
