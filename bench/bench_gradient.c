/* bench_gradient: the equivalence plugin's full-batch gradient
 * (equivalence_gradient in plugins/equivalence/model.c, compiled in: two
 * single-threaded OpenBLAS dgemv passes over X) as a memory bandwidth,
 * against memcpy of a buffer the size of X measured in the same run. Not a
 * test (docs/performance.md).
 *
 * usage: bench_gradient [samples] [features]   (default 250000 127: X is
 *   250000 x 128 doubles = 256 MB, far beyond any cache)
 *
 * X is read twice per gradient (X w, then X^T r), so "X bytes read/s" counts
 * 2 |X| per gradient; "X bytes/s, one pass" counts |X|, what a fused
 * one-pass kernel would have to read. memcpy's figure is bytes copied per
 * second (each byte is read once and written once). */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model.h"

#define REPEATS 7

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The fastest of the repeats: on a shared machine the others measure the
 * neighbours as much as the kernel. */
static double best(const double *values, int count)
{
    double fastest = values[0];
    for (int i = 1; i < count; i++)
        fastest = fmin(fastest, values[i]);
    return fastest;
}

/* Best seconds of one memcpy of `bytes` between two fresh buffers. */
static double memcpy_seconds(size_t bytes, double *sink)
{
    unsigned char *from = malloc(bytes), *to = malloc(bytes);
    if (!from || !to) {
        free(from);
        free(to);
        return -1.0;
    }
    memset(from, 1, bytes);
    memset(to, 2, bytes); /* fault the pages in before timing */
    double times[REPEATS];
    for (int r = 0; r < REPEATS; r++) {
        from[(size_t)r * 4096 % bytes] = (unsigned char)r;
        double start = now_s();
        memcpy(to, from, bytes);
        times[r] = now_s() - start;
        *sink += to[(size_t)r * 4096 % bytes];
    }
    free(from);
    free(to);
    return best(times, REPEATS);
}

/* Best seconds of reading `count` doubles with eight independent sums (a
 * read-only stream the compiler cannot turn into one dependency chain). */
static double read_seconds(const double *data, size_t count, double *sink)
{
    double times[REPEATS];
    for (int r = 0; r < REPEATS; r++) {
        double sums[8] = { 0 };
        double start = now_s();
        size_t i = 0;
        for (; i + 8 <= count; i += 8)
            for (int lane = 0; lane < 8; lane++)
                sums[lane] += data[i + (size_t)lane];
        for (; i < count; i++)
            sums[0] += data[i];
        times[r] = now_s() - start;
        for (int lane = 0; lane < 8; lane++)
            *sink += sums[lane];
    }
    return best(times, REPEATS);
}

int main(int argc, char **argv)
{
    char *end = NULL;
    long long samples = argc > 1 ? strtoll(argv[1], &end, 10) : 250000;
    if (argc > 1 && (*end != '\0' || samples < 1 || samples > 100000000))
        samples = -1;
    long long features = argc > 2 ? strtoll(argv[2], &end, 10) : 127;
    if (argc > 2 && (*end != '\0' || features < 1 || features > 10000))
        features = -1;
    if (samples < 1 || features < 1 || argc > 3) {
        fprintf(stderr, "usage: bench_gradient [samples 1..1e8] [features 1..10000]\n");
        return 2;
    }

    char err[256];
    equivalence_data *data = NULL;
    double start = now_s();
    if (equivalence_data_new(samples, features, 1, NULL, NULL, &data, err, sizeof err) != 0) {
        fprintf(stderr, "bench_gradient: %s\n", err);
        return 1;
    }
    double generate_s = now_s() - start;
    size_t x_bytes = (size_t)data->samples * (size_t)data->columns * sizeof(double);
    double *residual = malloc((size_t)samples * sizeof *residual);
    double *grad = malloc((size_t)data->columns * sizeof *grad);
    if (!residual || !grad) {
        fprintf(stderr, "bench_gradient: out of memory\n");
        return 1;
    }

    double sink = 0.0;
    double times[REPEATS];
    equivalence_gradient(data, 0, samples, residual, grad); /* warm-up, sets BLAS threads */
    for (int r = 0; r < REPEATS; r++) {
        start = now_s();
        equivalence_gradient(data, 0, samples, residual, grad);
        times[r] = now_s() - start;
        sink += grad[0];
    }
    double gradient_s = best(times, REPEATS);
    double read_s = read_seconds(data->x, x_bytes / sizeof(double), &sink);
    double copy_s = memcpy_seconds(x_bytes, &sink);
    if (copy_s <= 0) {
        fprintf(stderr, "bench_gradient: out of memory for the memcpy buffers\n");
        return 1;
    }

    double two_pass = 2.0 * (double)x_bytes / gradient_s, one_pass = (double)x_bytes / gradient_s;
    double copy_rate = (double)x_bytes / copy_s, read_rate = (double)x_bytes / read_s;
    printf("bench_gradient: X is %lld x %lld doubles = %.1f MB (generated in %.2f s), "
           "best of %d\n",
           samples, (long long)data->columns, (double)x_bytes / 1e6, generate_s, REPEATS);
    printf("  gradient:                 %.4f s = %.2f gradients/s\n", gradient_s, 1.0 / gradient_s);
    printf("  gradient X bytes read/s:  %.2f GB/s (two passes)\n", two_pass / 1e9);
    printf("  gradient X bytes/s, one pass: %.2f GB/s\n", one_pass / 1e9);
    printf("  memcpy bandwidth:         %.2f GB/s (bytes copied)\n", copy_rate / 1e9);
    printf("  read-only bandwidth:      %.2f GB/s (8 independent sums)\n", read_rate / 1e9);
    printf("  gradient read / memcpy:   %.2f\n", two_pass / copy_rate);
    printf("  (sink %g)\n", sink);

    free(residual);
    free(grad);
    equivalence_data_free(data);
    return 0;
}
