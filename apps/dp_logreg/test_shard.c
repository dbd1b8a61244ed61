/* test_shard: dp_logreg's data and arithmetic without MPI. The k shards of
 * any k hold the dataset of one, their gradient sums add up to the whole
 * one's (what MPI_Allreduce relies on), repeats only cost time, and the
 * delays are seeded uniforms. */
#include "check.h"
#include "shard.h"

#include <string.h>

enum {
    SAMPLES = 1001,
    FEATURES = 5
};

static void gradient_of(uint64_t seed, int64_t first, int64_t samples, const double *w,
                        int64_t passes, double *grad)
{
    shard s;
    CHECK(shard_make(&s, seed, first, samples, FEATURES) == 0);
    for (int j = 0; j < FEATURES; j++)
        grad[j] = 0.0;
    shard_gradient(&s, w, passes, grad);
    shard_free(&s);
}

int main(void)
{
    double w[FEATURES] = { 0.1, -0.2, 0.3, 0.0, 0.05 }, whole[FEATURES];
    gradient_of(7, 0, SAMPLES, w, 1, whole);
    /* A shard's rows are the whole dataset's rows. */
    shard all, part;
    CHECK(shard_make(&all, 7, 0, SAMPLES, FEATURES) == 0);
    CHECK(shard_make(&part, 7, 500, 20, FEATURES) == 0);
    CHECK(memcmp(part.x, all.x + 500 * FEATURES, 20 * FEATURES * sizeof *part.x) == 0);
    CHECK(memcmp(part.y, all.y + 500, 20 * sizeof *part.y) == 0);
    CHECK(all.x[FEATURES - 1] == 1.0); /* the bias column */
    shard_free(&part);
    shard_free(&all);
    /* k = 1, 2, 3, 4 contiguous shards sum to the whole gradient. */
    for (int64_t k = 1; k <= 4; k++) {
        double total[FEATURES] = { 0 }, grad[FEATURES];
        for (int64_t r = 0; r < k; r++) {
            int64_t first = SAMPLES * r / k, last = SAMPLES * (r + 1) / k;
            gradient_of(7, first, last - first, w, 1, grad);
            for (int j = 0; j < FEATURES; j++)
                total[j] += grad[j];
        }
        for (int j = 0; j < FEATURES; j++)
            CHECK_NEAR(total[j], whole[j], 1e-12 * SAMPLES);
    }
    /* Repeated passes average to the same gradient. */
    double repeated[FEATURES];
    gradient_of(7, 0, SAMPLES, w, 3, repeated);
    for (int j = 0; j < FEATURES; j++)
        CHECK_NEAR(repeated[j], whole[j], 1e-12 * SAMPLES);
    /* Delays: seeded, in [0, 1), not all alike, mean near 1/2. */
    double sum = 0.0;
    for (uint64_t round = 0; round < 10000; round++) {
        double u = shard_uniform(1, 3, round);
        CHECK(u >= 0.0 && u < 1.0);
        sum += u;
    }
    CHECK_NEAR(sum / 10000, 0.5, 0.02);
    CHECK(shard_uniform(1, 3, 4) == shard_uniform(1, 3, 4));
    CHECK(shard_uniform(1, 3, 4) != shard_uniform(2, 3, 4));
    CHECK(shard_uniform(1, 3, 4) != shard_uniform(1, 4, 4));
    return check_done("test_shard");
}
