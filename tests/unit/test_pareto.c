/* test_pareto: pareto_front equals the definition computed by brute force
 * (every pair) on seeded random data of several sizes and widths, with
 * many ties (values from a small set), NaN and infinities. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "analysis/analysis.h"
#include "check.h"

static uint64_t rng_state = 0x2545f4914f6cdd1dULL;

static uint64_t next_random(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* A value: from `levels` distinct ones (ties when small), or a real;
 * sometimes NaN or an infinity. */
static double draw(unsigned levels, int specials)
{
    uint64_t r = next_random();
    if (specials && r % 50 == 0)
        return NAN;
    if (specials && r % 50 == 1)
        return (r >> 8) % 2 ? INFINITY : -INFINITY;
    if (levels)
        return (double)((r >> 16) % levels);
    return (double)(r >> 11) / 9007199254740992.0;
}

static int brute_on_front(const double *v, size_t n, size_t k, size_t i)
{
    for (size_t j = 0; j < k; j++)
        if (isnan(v[i * k + j]))
            return 0;
    for (size_t o = 0; o < n; o++) {
        int le = 1, lt = 0, nan = 0;
        for (size_t j = 0; j < k; j++) {
            double a = v[o * k + j], b = v[i * k + j];
            nan |= isnan(a);
            le &= a <= b;
            lt |= a < b;
        }
        if (!nan && le && lt)
            return 0;
    }
    return 1;
}

static void check_case(size_t n, size_t k, unsigned levels, int specials)
{
    double *v = malloc((n * k + 1) * sizeof *v);
    unsigned char *front = malloc(n + 1);
    for (size_t i = 0; i < n * k; i++)
        v[i] = draw(levels, specials);
    long count = pareto_front(v, n, k, front);
    long want = 0, wrong = 0;
    for (size_t i = 0; i < n; i++) {
        int on = brute_on_front(v, n, k, i);
        want += on;
        wrong += on != front[i];
    }
    if (wrong || count != want)
        fprintf(stderr, "n=%zu k=%zu levels=%u specials=%d: %ld rows wrong, %ld vs %ld\n", n, k,
                levels, specials, wrong, count, want);
    CHECK_INT_EQ(wrong, 0);
    CHECK_INT_EQ(count, want);
    free(v);
    free(front);
}

int main(void)
{
    static const size_t sizes[] = { 0, 1, 2, 3, 10, 100, 1000, 3000 };
    static const unsigned levels[] = { 0, 2, 5, 30 };
    for (size_t k = 2; k <= 4; k++)
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
            for (size_t l = 0; l < sizeof levels / sizeof *levels; l++)
                for (int specials = 0; specials <= 1; specials++)
                    for (int repeat = 0; repeat < 3; repeat++)
                        check_case(sizes[s], k, levels[l], specials);
    /* a known front: (1,5) (2,2) (2,2) (5,1) kept; (3,3), (2,4), NaN out */
    double v[] = { 1, 5, 2, 2, 3, 3, 2, 4, 5, 1, NAN, 0, 2, 2 };
    unsigned char front[7];
    CHECK_INT_EQ(pareto_front(v, 7, 2, front), 4);
    CHECK(front[0] && front[1] && !front[2] && !front[3] && front[4] && !front[5] && front[6]);
    return check_done("test_pareto");
}
