/* check.h: the tiny test header every unit test uses (collectd style).
 * CHECK* report file:line and keep going; the program's exit status is the
 * number of failed checks (capped), which ctest reads. */
#ifndef RUNNER_CHECK_H
#define RUNNER_CHECK_H

#include <math.h>
#include <stdio.h>
#include <string.h>

static int check_failures = 0;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);               \
            check_failures++;                                                                      \
        }                                                                                          \
    } while (0)

#define CHECK_INT_EQ(a, b)                                                                         \
    do {                                                                                           \
        long long check_a_ = (long long)(a), check_b_ = (long long)(b);                            \
        if (check_a_ != check_b_) {                                                                \
            fprintf(stderr, "%s:%d: %s == %s: %lld != %lld\n", __FILE__, __LINE__, #a, #b,         \
                    check_a_, check_b_);                                                           \
            check_failures++;                                                                      \
        }                                                                                          \
    } while (0)

#define CHECK_NEAR(a, b, tol)                                                                      \
    do {                                                                                           \
        double check_a_ = (double)(a), check_b_ = (double)(b), check_t_ = (double)(tol);           \
        if (!(fabs(check_a_ - check_b_) <= check_t_)) {                                            \
            fprintf(stderr, "%s:%d: %s ~ %s: %.17g vs %.17g (tolerance %g)\n", __FILE__, __LINE__, \
                    #a, #b, check_a_, check_b_, check_t_);                                         \
            check_failures++;                                                                      \
        }                                                                                          \
    } while (0)

#define CHECK_STR_EQ(a, b)                                                                         \
    do {                                                                                           \
        const char *check_a_ = (a), *check_b_ = (b);                                               \
        if (!check_a_ || !check_b_ || strcmp(check_a_, check_b_) != 0) {                           \
            fprintf(stderr, "%s:%d: %s == %s:\n  got      \"%s\"\n  expected \"%s\"\n", __FILE__,  \
                    __LINE__, #a, #b, check_a_ ? check_a_ : "(null)",                              \
                    check_b_ ? check_b_ : "(null)");                                               \
            check_failures++;                                                                      \
        }                                                                                          \
    } while (0)

/* Prints a summary and returns the exit status for main(). */
static inline int check_done(const char *name)
{
    if (check_failures)
        fprintf(stderr, "%s: %d check(s) failed\n", name, check_failures);
    else
        printf("%s: all checks passed\n", name);
    return check_failures > 100 ? 100 : check_failures;
}

#endif
