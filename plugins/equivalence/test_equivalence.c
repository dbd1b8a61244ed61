/* Unit tests of the equivalence model and its plugin glue (docs/science.md
 * section 1): the weighted average of shard gradients is the full gradient
 * up to rounding, the plain average is not when shards differ. */
#include "check.h"
#include "model.h"
#include "plugin_harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char err[256];

static equivalence_data *data_of(int64_t samples, int64_t features, uint64_t seed)
{
    equivalence_data *data = NULL;
    CHECK_INT_EQ(equivalence_data_new(samples, features, seed, NULL, NULL, &data, err, sizeof err),
                 0);
    return data;
}

static equivalence_result compare(const equivalence_data *data, int64_t shards,
                                  equivalence_split split)
{
    equivalence_result result;
    memset(&result, 0, sizeof result);
    CHECK_INT_EQ(equivalence_compare(data, shards, split, NULL, NULL, &result, err, sizeof err), 0);
    return result;
}

static void test_shard_sizes(void)
{
    int64_t sizes[64];
    static const int64_t uneven_default[8] = { 278, 556, 833, 1111, 1389, 1667, 1944, 2222 };
    equivalence_shard_sizes(10000, 8, EQUIVALENCE_SPLIT_UNEVEN, sizes);
    for (int i = 0; i < 8; i++)
        CHECK_INT_EQ(sizes[i], uneven_default[i]);
    equivalence_shard_sizes(8, 8, EQUIVALENCE_SPLIT_UNEVEN, sizes);
    for (int i = 0; i < 8; i++)
        CHECK_INT_EQ(sizes[i], 1);
    equivalence_shard_sizes(10003, 4, EQUIVALENCE_SPLIT_EVEN, sizes);
    CHECK(sizes[0] == 2501 && sizes[1] == 2501 && sizes[2] == 2501 && sizes[3] == 2500);

    int wrong = 0;
    for (int64_t n = 2; n <= 300; n++) {
        for (int64_t s = 1; s <= n && s <= 64; s++) {
            for (int split = 0; split < 2; split++) {
                int64_t sum = 0, min = n, max = 0;
                equivalence_shard_sizes(n, s, (equivalence_split)split, sizes);
                for (int64_t i = 0; i < s; i++) {
                    sum += sizes[i];
                    min = sizes[i] < min ? sizes[i] : min;
                    max = sizes[i] > max ? sizes[i] : max;
                    if (split == EQUIVALENCE_SPLIT_UNEVEN && i > 0 && sizes[i] < sizes[i - 1])
                        wrong++;
                }
                if (sum != n || min < 1 || (split == EQUIVALENCE_SPLIT_EVEN && max - min > 1))
                    wrong++;
            }
        }
    }
    CHECK_INT_EQ(wrong, 0);
}

/* The data model as documented: bias column of ones, 0/1 labels, features
 * of mean 0 and variance 1, w = -w_true. */
static void test_data(void)
{
    equivalence_data *data = data_of(10000, 20, 42);
    if (!data)
        return;
    double sum = 0.0, sum_squares = 0.0, labels = 0.0;
    int bad = 0;
    for (int64_t i = 0; i < data->samples; i++) {
        const double *row = data->x + i * data->columns;
        bad += row[0] != 1.0 || (data->y[i] != 0.0 && data->y[i] != 1.0);
        labels += data->y[i];
        for (int64_t j = 1; j < data->columns; j++) {
            sum += row[j];
            sum_squares += row[j] * row[j];
        }
    }
    double cells = (double)data->samples * (double)(data->columns - 1);
    CHECK_INT_EQ(bad, 0);
    CHECK_NEAR(sum / cells, 0.0, 0.01);         /* 2e5 draws: sd 0.0022 */
    CHECK_NEAR(sum_squares / cells, 1.0, 0.02); /* sd 0.0032 */
    CHECK(labels > 3000 && labels < 7000);      /* both classes present */
    for (int64_t j = 0; j < data->columns; j++)
        CHECK(data->w[j] == -data->w_true[j] && data->w[j] != 0.0);

    /* Rows are drawn in order: 5000 samples are the first half of 10000. */
    equivalence_data *half = data_of(5000, 20, 42);
    if (half) {
        CHECK(memcmp(half->x, data->x, 5000 * 21 * sizeof(double)) == 0);
        CHECK(memcmp(half->y, data->y, 5000 * sizeof(double)) == 0);
    }
    equivalence_data_free(half);
    equivalence_data_free(data);
}

/* An independent plain-loop gradient, the definition written out. */
static void naive_gradient(const equivalence_data *data, int64_t first, int64_t count, double *grad)
{
    int64_t c = data->columns;
    for (int64_t j = 0; j < c; j++)
        grad[j] = 0.0;
    for (int64_t i = first; i < first + count; i++) {
        double z = 0.0;
        for (int64_t j = 0; j < c; j++)
            z += data->x[i * c + j] * data->w[j];
        double r = 1.0 / (1.0 + exp(-z)) - data->y[i];
        for (int64_t j = 0; j < c; j++)
            grad[j] += data->x[i * c + j] * r;
    }
    for (int64_t j = 0; j < c; j++)
        grad[j] /= (double)count;
}

static void test_gradient_against_loop(void)
{
    equivalence_data *data = data_of(3000, 7, 5);
    double blas[8], loop[8], residual[3000];
    if (!data)
        return;
    static const int64_t ranges[][2] = { { 0, 3000 }, { 100, 37 }, { 2999, 1 } };
    for (size_t r = 0; r < sizeof ranges / sizeof ranges[0]; r++) {
        equivalence_gradient(data, ranges[r][0], ranges[r][1], residual, blas);
        naive_gradient(data, ranges[r][0], ranges[r][1], loop);
        double max = 0.0;
        for (int j = 0; j < 8; j++)
            max = fmax(max, fabs(loop[j]));
        CHECK(max > 1e-3);
        for (int j = 0; j < 8; j++)
            CHECK_NEAR(blas[j], loop[j], 1e-12 * max);
    }
    equivalence_data_free(data);
}

/* The defaults: 10000 x 20, 8 uneven shards (278 ... 2222). */
static void test_uneven(void)
{
    equivalence_data *data = data_of(10000, 20, 42);
    if (!data)
        return;
    equivalence_result r = compare(data, 8, EQUIVALENCE_SPLIT_UNEVEN);
    printf("uneven: |g| %.3e, weighted %.3e (rel %.2e), plain %.3e (rel %.2e)\n", r.grad_max_abs,
           r.weighted_max_abs_diff, r.weighted_max_abs_diff / r.grad_max_abs, r.plain_max_abs_diff,
           r.plain_max_abs_diff / r.grad_max_abs);
    CHECK(r.grad_max_abs > 1e-2 && r.grad_max_abs < 1.0); /* ~1e-1 */
    CHECK(r.weighted_max_abs_diff < 1e-14 * r.grad_max_abs);
    CHECK(r.plain_max_abs_diff > 1e-4 * r.grad_max_abs);
    CHECK_INT_EQ(r.shard_min, 278);
    CHECK_INT_EQ(r.shard_max, 2222);

    /* One shard is the full batch again: both combinations are it. */
    equivalence_result one = compare(data, 1, EQUIVALENCE_SPLIT_UNEVEN);
    CHECK(one.weighted_max_abs_diff == 0.0 && one.plain_max_abs_diff == 0.0);
    CHECK_INT_EQ(one.shard_min, 10000);

    /* Many small unequal shards, and shards of one sample. */
    equivalence_result many = compare(data, 100, EQUIVALENCE_SPLIT_UNEVEN);
    CHECK(many.weighted_max_abs_diff < 1e-14 * many.grad_max_abs);
    CHECK(many.plain_max_abs_diff > 1e-4 * many.grad_max_abs);
    equivalence_data_free(data);

    equivalence_data *tiny = data_of(8, 3, 1);
    if (tiny) {
        equivalence_result ones = compare(tiny, 8, EQUIVALENCE_SPLIT_UNEVEN);
        CHECK(ones.shard_min == 1 && ones.shard_max == 1);
        CHECK(ones.plain_max_abs_diff < 1e-14 * ones.grad_max_abs);
    }
    equivalence_data_free(tiny);
}

/* Equal shards: 1 / S equals n_i / N, so the plain average is right too. */
static void test_even(void)
{
    equivalence_data *data = data_of(10000, 20, 42);
    if (!data)
        return;
    equivalence_result r = compare(data, 8, EQUIVALENCE_SPLIT_EVEN);
    CHECK_INT_EQ(r.shard_min, 1250);
    CHECK_INT_EQ(r.shard_max, 1250);
    CHECK(r.weighted_max_abs_diff < 1e-14 * r.grad_max_abs);
    CHECK(r.plain_max_abs_diff < 1e-14 * r.grad_max_abs);
    equivalence_result r16 = compare(data, 16, EQUIVALENCE_SPLIT_EVEN);
    CHECK(r16.plain_max_abs_diff < 1e-14 * r16.grad_max_abs);
    equivalence_data_free(data);
}

static void test_determinism(void)
{
    equivalence_data *a = data_of(2000, 10, 7), *b = data_of(2000, 10, 7),
                     *c = data_of(2000, 10, 8);
    if (a && b && c) {
        CHECK(memcmp(a->x, b->x, 2000 * 11 * sizeof(double)) == 0);
        CHECK(memcmp(a->y, b->y, 2000 * sizeof(double)) == 0);
        CHECK(memcmp(a->w, b->w, 11 * sizeof(double)) == 0);
        CHECK(memcmp(a->x, c->x, 2000 * 11 * sizeof(double)) != 0);
        CHECK(memcmp(a->w, c->w, 11 * sizeof(double)) != 0);
        equivalence_result ra = compare(a, 5, EQUIVALENCE_SPLIT_UNEVEN);
        equivalence_result rb = compare(b, 5, EQUIVALENCE_SPLIT_UNEVEN);
        equivalence_result rc = compare(c, 5, EQUIVALENCE_SPLIT_UNEVEN);
        CHECK(memcmp(&ra, &rb, sizeof ra) == 0);
        CHECK(ra.grad_max_abs != rc.grad_max_abs);
    }
    equivalence_data_free(a);
    equivalence_data_free(b);
    equivalence_data_free(c);
}

static int stop_now(void *context)
{
    (void)context;
    return 1;
}

static void test_stop(void)
{
    equivalence_data *data = NULL;
    equivalence_result r;
    CHECK_INT_EQ(equivalence_data_new(1000, 3, 1, stop_now, NULL, &data, err, sizeof err), -2);
    CHECK(data == NULL);
    data = data_of(1000, 3, 1);
    if (data)
        CHECK_INT_EQ(equivalence_compare(data, 4, EQUIVALENCE_SPLIT_EVEN, stop_now, NULL, &r, err,
                                         sizeof err),
                     -2);
    equivalence_data_free(data);
}

/* The glue, through the real host. */
/* Several ranks simulated in one process. A real allreduce needs every
 * rank at once; here each rank runs twice: first its reduce records the
 * partial sums it contributes, then it replays the sum of all ranks'
 * records, which is what MPI would have handed every rank. */
#define SIM_RANKS_MAX 8
typedef struct sim_reduce {
    int rank, ranks, replay, calls;
    double recorded[SIM_RANKS_MAX][2][64]; /* [rank][call][value] */
} sim_reduce;

static int sim_reduce_fn(void *context, double *values, size_t count)
{
    sim_reduce *sim = context;
    int call = sim->calls++;
    if (call > 1 || count > 64)
        return -1;
    if (!sim->replay) {
        for (size_t j = 0; j < count; j++)
            sim->recorded[sim->rank][call][j] = values[j];
        return 0;
    }
    for (size_t j = 0; j < count; j++) {
        values[j] = 0.0;
        for (int r = 0; r < sim->ranks; r++)
            values[j] += sim->recorded[r][call][j];
    }
    return 0;
}

static equivalence_result compare_on_ranks(const equivalence_data *data, int64_t shards, int ranks,
                                           sim_reduce *sim)
{
    equivalence_result result, ignored;
    memset(&result, 0, sizeof result);
    memset(sim, 0, sizeof *sim);
    sim->ranks = ranks;
    for (int pass = 0; pass < 2; pass++) {
        sim->replay = pass;
        for (int r = 0; r < ranks; r++) {
            sim->rank = r;
            sim->calls = 0;
            CHECK_INT_EQ(equivalence_compare_ranks(
                             data, shards, EQUIVALENCE_SPLIT_UNEVEN, r, ranks, sim_reduce_fn, sim,
                             NULL, NULL, r == 0 && pass ? &result : &ignored, err, sizeof err),
                         0);
            CHECK_INT_EQ(sim->calls, 2); /* the status, then the sums: on every rank */
        }
    }
    return result;
}

static void test_ranks(void)
{
    equivalence_data *data = data_of(10000, 20, 42);
    if (!data)
        return;
    equivalence_result one = compare(data, 8, EQUIVALENCE_SPLIT_UNEVEN);
    equivalence_result same;
    sim_reduce *sim = calloc(1, sizeof *sim);
    if (!sim) {
        equivalence_data_free(data);
        return;
    }
    /* One rank is equivalence_compare, to the bit. */
    CHECK_INT_EQ(equivalence_compare_ranks(data, 8, EQUIVALENCE_SPLIT_UNEVEN, 0, 1, NULL, NULL,
                                           NULL, NULL, &same, err, sizeof err),
                 0);
    CHECK(memcmp(&one, &same, sizeof one) == 0);
    for (int ranks = 2; ranks <= 5; ranks++) {
        equivalence_result many = compare_on_ranks(data, 8, ranks, sim);
        /* The full gradient is computed alone on each rank: the same bits. */
        CHECK(many.grad_max_abs == one.grad_max_abs);
        CHECK_INT_EQ(many.shard_min, 278);
        CHECK_INT_EQ(many.shard_max, 2222);
        /* Only the order of additions changed: the weighted average stays
         * at rounding level, the plain one as wrong as before. */
        CHECK(many.weighted_max_abs_diff / many.grad_max_abs < 1e-14);
        CHECK(fabs(many.plain_max_abs_diff - one.plain_max_abs_diff) < 1e-15);
        CHECK(many.plain_max_abs_diff / many.grad_max_abs > 1e-2);
    }
    /* A rank asked to stop: the others learn it in the status reduce and
     * all give up together, each after exactly one reduce. */
    memset(sim, 0, sizeof *sim);
    sim->ranks = 2;
    for (int r = 0; r < 2; r++) {
        sim->rank = r;
        sim->calls = 0;
        equivalence_compare_ranks(data, 8, EQUIVALENCE_SPLIT_UNEVEN, r, 2, sim_reduce_fn, sim,
                                  r == 1 ? stop_now : NULL, NULL, &same, err, sizeof err);
    }
    sim->replay = 1;
    for (int r = 0; r < 2; r++) {
        sim->rank = r;
        sim->calls = 0;
        CHECK_INT_EQ(equivalence_compare_ranks(data, 8, EQUIVALENCE_SPLIT_UNEVEN, r, 2,
                                               sim_reduce_fn, sim, r == 1 ? stop_now : NULL, NULL,
                                               &same, err, sizeof err),
                     -2);
        CHECK_INT_EQ(sim->calls, 1);
    }
    free(sim);
    equivalence_data_free(data);
}

static void test_plugin(void)
{
    const runner_plugin *plugin = runner_plugin_entry();
    harness point, again;

    CHECK_INT_EQ(harness_validate(plugin), 0);
    CHECK_STR_EQ(plugin->name, "equivalence");
    static const char *const names[] = { "samples", "features", "shards", "split", "seed" };
    CHECK_INT_EQ(plugin->param_count, 5);
    for (int i = 0; i < 5 && i < (int)plugin->param_count; i++)
        CHECK_STR_EQ(plugin->params[i].name, names[i]);

    harness_init(&point, plugin);
    harness_init(&again, plugin);
    CHECK_INT_EQ(harness_run(&point, 12345), 0);
    CHECK(point.point.error == NULL);
    CHECK_INT_EQ(point.point.row_count, 2);
    for (size_t row = 0; row < point.point.row_count; row++)
        CHECK_INT_EQ(harness_row_problems(&point, row), 0);
    CHECK_STR_EQ(harness_text(&point, 0, "weighting"), "weighted");
    CHECK_STR_EQ(harness_text(&point, 1, "weighting"), "plain");
    CHECK(harness_real(&point, 0, "rel_diff") < 1e-14);
    CHECK(harness_real(&point, 0, "rel_diff_eps") < 45.0);
    CHECK(harness_real(&point, 1, "rel_diff") > 1e-4);
    CHECK(harness_real(&point, 0, "rel_diff") ==
          harness_real(&point, 0, "max_abs_diff") / harness_real(&point, 0, "grad_max_abs"));
    CHECK(harness_real(&point, 0, "grad_max_abs") == harness_real(&point, 1, "grad_max_abs"));
    CHECK_INT_EQ(harness_integer(&point, 1, "shard_min"), 278);
    CHECK_INT_EQ(harness_integer(&point, 1, "shard_max"), 2222);
    CHECK_INT_EQ(harness_integer(&point, 0, "ranks"), 1); /* one process */
    /* The bits, for comparing runs under different OPENBLAS_NUM_THREADS
     * (test_equivalence_threads runs this program twice). */
    printf("test_equivalence: weighted max_abs_diff %a\n", harness_real(&point, 0, "max_abs_diff"));

    /* Same point seed: bit-identical rows. Another seed: other data. */
    CHECK_INT_EQ(harness_run(&again, 12345), 0);
    CHECK(harness_rows_identical(&point, &again));
    CHECK_INT_EQ(harness_run(&again, 12346), 0);
    CHECK(harness_real(&point, 0, "grad_max_abs") != harness_real(&again, 0, "grad_max_abs"));
    harness_free(&again);

    CHECK_INT_EQ(harness_set(&point, "split", value_text("even")), 0);
    CHECK_INT_EQ(harness_run(&point, 1), 0);
    CHECK_INT_EQ(harness_integer(&point, 1, "shard_min"), 1250);
    CHECK(harness_real(&point, 1, "rel_diff") < 1e-14);
    CHECK_INT_EQ(harness_set(&point, "split", value_text("random")), -1);
    CHECK_STR_EQ(point.message, "split: 'random' is not one of 'uneven', 'even'");

    CHECK_INT_EQ(harness_set(&point, "split", value_text("uneven")), 0);
    CHECK_INT_EQ(harness_set(&point, "samples", value_integer(10)), 0);
    CHECK_INT_EQ(harness_set(&point, "shards", value_integer(11)), 0);
    CHECK_INT_EQ(harness_run(&point, 1), -1);
    CHECK_INT_EQ(point.point.row_count, 0);
    CHECK_STR_EQ(point.point.error, "equivalence: shards (11) exceeds samples (10): every shard "
                                    "needs at least one sample; lower shards or raise samples");

    /* Ctrl-C: the stop flag the host was given ends the point. */
    CHECK_INT_EQ(harness_set(&point, "samples", value_integer(10000)), 0);
    CHECK_INT_EQ(harness_set(&point, "shards", value_integer(8)), 0);
    point.stop = 1;
    CHECK_INT_EQ(harness_run(&point, 1), -1);
    CHECK_STR_EQ(point.point.error, "equivalence: interrupted");
    CHECK_INT_EQ(point.point.row_count, 0);
    point.stop = 0;

#if defined(__SANITIZE_ADDRESS__)
    /* ASan aborts on an 8 TB request instead of returning NULL. */
#else
    /* The largest legal point needs 8 TB for X: malloc refuses it (Linux's
     * default overcommit heuristic refuses more than RAM + swap) and the
     * point fails with the size. Skipped where overcommit always succeeds,
     * as filling 8 TB is not a test. */
    FILE *overcommit = fopen("/proc/sys/vm/overcommit_memory", "r");
    int mode = overcommit ? fgetc(overcommit) : EOF;
    if (overcommit)
        fclose(overcommit);
    if (mode == '0' || mode == '2') {
        CHECK_INT_EQ(harness_set(&point, "samples", value_integer(100000000)), 0);
        CHECK_INT_EQ(harness_set(&point, "features", value_integer(10000)), 0);
        CHECK_INT_EQ(harness_run(&point, 1), -1);
        CHECK_STR_EQ(point.point.error,
                     "equivalence: cannot allocate 8000800000000 bytes for "
                     "the 100000000 x 10001 samples (samples x (features + 1)); lower samples "
                     "or features");
    } else {
        printf("test_equivalence: overcommit mode %c, allocation failure not tested\n", mode);
    }
#endif
    harness_free(&point);
}

int main(void)
{
    test_shard_sizes();
    test_data();
    test_gradient_against_loop();
    test_uneven();
    test_even();
    test_determinism();
    test_stop();
    test_ranks();
    test_plugin();
    return check_done("test_equivalence");
}
