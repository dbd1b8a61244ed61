/* realtext: a double as printf's "%.17g" prints it, byte for byte, without
 * printf. `runner show` prints millions of reals; glibc's exact printer
 * takes about 140 ns each (multi-precision arithmetic for every value),
 * which capped show at about 40 k rows/s for a 20-real row. */
#ifndef RUNNER_REALTEXT_H
#define RUNNER_REALTEXT_H

#include <stddef.h>
#include <stdint.h>

/* Room for any "%.17g" text of a double, with its NUL. */
#define REALTEXT_SIZE 32

/* Writes snprintf(buf, size, "%.17g", x)'s text into buf (at least
 * REALTEXT_SIZE bytes) and returns its length. Exact for every double:
 * the common cases (integers, 1e-11 <= |x| < 1e17) take a 128-bit integer
 * path; the rest, NaN and infinities go to snprintf ("nan", "inf"). */
size_t realtext_g17(double x, char *buf);

/* Writes snprintf(buf, size, "%.*g", precision, x)'s text into buf (at
 * least REALTEXT_SIZE bytes; precision 1..17, else 17) and returns its
 * length; the same fast path as realtext_g17. */
size_t realtext_g(double x, int precision, char *buf);

/* Writes the shortest of x's "%.15g", "%.16g" and "%.17g" texts that
 * strtod reads back as x (into buf, at least REALTEXT_SIZE bytes) and
 * returns its length. 17 digits where the fast path cannot decide (|x| at
 * or above 10^15, integers, tiny or huge exponents): still exact. */
size_t realtext_shortest(double x, char *buf);

/* Writes i as "%" PRId64 prints it and returns its length (buf: at least
 * REALTEXT_SIZE bytes). */
size_t realtext_int64(int64_t i, char *buf);

#endif
