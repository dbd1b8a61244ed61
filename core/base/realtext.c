/* realtext: "%.17g" without printf. For 1e-11 <= |x| < 1e17, the 17
 * significant digits are round(|x| * 10^k) with k = 16 - floor(log10 |x|)
 * in 0..27: the mantissa (< 2^53) times 5^k (< 2^63) fits in 128 bits, and
 * the power of two is a shift, rounded half to even on the exact value as
 * glibc rounds. Everything else is rare in results and goes to snprintf. */
#include "realtext.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define SIG_DIGITS 17
#define TEN_TO_16 10000000000000000ULL
#define TEN_TO_17 100000000000000000ULL

typedef unsigned __int128 u128;

static const char pairs[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

/* The digits of u (below 10^20) into out, most significant first; returns
 * how many. */
static size_t put_unsigned(uint64_t u, char *out)
{
    char tmp[24];
    size_t n = sizeof tmp;
    while (u >= 100) { /* two digits per division */
        unsigned pair = (unsigned)(u % 100);
        u /= 100;
        tmp[--n] = pairs[2 * pair + 1];
        tmp[--n] = pairs[2 * pair];
    }
    if (u >= 10) {
        tmp[--n] = pairs[2 * u + 1];
        tmp[--n] = pairs[2 * u];
    } else {
        tmp[--n] = (char)('0' + u);
    }
    memcpy(out, tmp + n, sizeof tmp - n);
    return sizeof tmp - n;
}

/* n digits of v (below 10^n), zero-padded, into out; 32-bit divisions. */
static void put_fixed(uint32_t v, int n, char *out)
{
    for (; n >= 2; n -= 2) {
        unsigned pair = v % 100;
        v /= 100;
        out[n - 1] = pairs[2 * pair + 1];
        out[n - 2] = pairs[2 * pair];
    }
    if (n == 1)
        out[0] = (char)('0' + v);
}

/* The 17 digits of q (10^16 <= q < 10^17): 9 and 8 digits, each in 32 bits. */
static void put_17_digits(uint64_t q, char *out)
{
    uint64_t high = q / 100000000;
    put_fixed((uint32_t)high, 9, out);
    put_fixed((uint32_t)(q - high * 100000000), 8, out + 9);
}

/* round(mant * 2^e2 * 10^k), half to even, k in 0..27; *floor_out is
 * the value before rounding (it decides the exponent, not the rounded one). */
static uint64_t scaled_digits(uint64_t mant, int e2, int k, uint64_t *floor_out)
{
    /* clang-format off */
    static const uint64_t pow5[28] = {
        1ULL, 5ULL, 25ULL, 125ULL, 625ULL, 3125ULL, 15625ULL, 78125ULL, 390625ULL,
        1953125ULL, 9765625ULL, 48828125ULL, 244140625ULL, 1220703125ULL, 6103515625ULL,
        30517578125ULL, 152587890625ULL, 762939453125ULL, 3814697265625ULL,
        19073486328125ULL, 95367431640625ULL, 476837158203125ULL, 2384185791015625ULL,
        11920928955078125ULL, 59604644775390625ULL, 298023223876953125ULL,
        1490116119384765625ULL, 7450580596923828125ULL
    };
    /* clang-format on */
    u128 p = (u128)mant * pow5[k];
    int shift = e2 + k;
    if (shift >= 0) {
        *floor_out = shift >= 64 ? UINT64_MAX : (uint64_t)(p << shift);
        return *floor_out;
    }
    int s = -shift;
    if (s >= 127) {
        *floor_out = 0;
        return 0;
    }
    u128 q = p >> s, rem = p - (q << s), half = (u128)1 << (s - 1);
    *floor_out = q > UINT64_MAX ? UINT64_MAX : (uint64_t)q;
    if (rem > half || (rem == half && (q & 1)))
        q++;
    return q > UINT64_MAX ? UINT64_MAX : (uint64_t)q;
}

/* The 17 digits of |x| in *digits and its decimal exponent in *exp10, or -1
 * outside the fast range. */
static int seventeen_digits(double x, uint64_t *digits, int *exp10)
{
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    int biased = (int)((bits >> 52) & 0x7ff);
    if (biased == 0 || biased == 0x7ff)
        return -1; /* zero, subnormal, inf, NaN */
    uint64_t mant = (bits & ((1ULL << 52) - 1)) | (1ULL << 52);
    int e2 = biased - 1075;
    /* floor(log10 |x|) or one less, from the binary exponent; the loop below
     * moves up when the digits say so. */
    int d = (int)floor((biased - 1023) * 0.30102999566398120);
    for (int tries = 0; tries < 3; tries++) {
        if (d < -11 || d > 16)
            return -1;
        uint64_t below;
        uint64_t q = scaled_digits(mant, e2, SIG_DIGITS - 1 - d, &below);
        if (below < TEN_TO_16) {
            d--; /* not with the estimate above; a guard */
        } else if (below >= TEN_TO_17) {
            d++;
        } else {
            if (q == TEN_TO_17) { /* rounding carried into an 18th digit */
                q = TEN_TO_16;
                d++;
            }
            *digits = q;
            *exp10 = d;
            return 0;
        }
    }
    return -1;
}

/* Drops trailing zeros of the fraction, and the point when none is left. */
static size_t strip_fraction(char *buf, size_t len)
{
    if (!memchr(buf, '.', len))
        return len;
    while (buf[len - 1] == '0')
        len--;
    if (buf[len - 1] == '.')
        len--;
    return len;
}

static size_t fallback(double x, char *buf)
{
    int n = snprintf(buf, REALTEXT_SIZE, "%.17g", x);
    return n < 0 ? 0 : (size_t)n;
}

size_t realtext_int64(int64_t i, char *buf)
{
    size_t len = 0;
    if (i < 0)
        buf[len++] = '-';
    len += put_unsigned(i < 0 ? 0 - (uint64_t)i : (uint64_t)i, buf + len);
    buf[len] = '\0';
    return len;
}

size_t realtext_g17(double x, char *buf)
{
    size_t len = 0;
    if (x == 0) {
        if (signbit(x))
            buf[len++] = '-';
        buf[len++] = '0';
        buf[len] = '\0';
        return len;
    }
    if (x > -1e17 && x < 1e17 && x == (double)(int64_t)x && x != 0) {
        return realtext_int64((int64_t)x, buf);
    }
    uint64_t q;
    int d;
    if (seventeen_digits(x, &q, &d) != 0)
        return fallback(x, buf);
    char digits[SIG_DIGITS];
    put_17_digits(q, digits);
    if (x < 0)
        buf[len++] = '-';
    if (d < -4) { /* %e style: d.dddde-0N */
        buf[len++] = digits[0];
        buf[len++] = '.';
        memcpy(buf + len, digits + 1, SIG_DIGITS - 1);
        len = strip_fraction(buf, len + SIG_DIGITS - 1);
        len += (size_t)sprintf(buf + len, "e-%02d", -d);
        return len;
    }
    if (d < 0) { /* 0.000ddd */
        buf[len++] = '0';
        buf[len++] = '.';
        for (int i = 0; i < -d - 1; i++)
            buf[len++] = '0';
        memcpy(buf + len, digits, SIG_DIGITS);
        len += SIG_DIGITS;
    } else { /* ddd.ddd: d + 1 digits before the point */
        memcpy(buf + len, digits, (size_t)d + 1);
        len += (size_t)d + 1;
        if (d + 1 < SIG_DIGITS) {
            buf[len++] = '.';
            memcpy(buf + len, digits + d + 1, (size_t)(SIG_DIGITS - 1 - d));
            len += (size_t)(SIG_DIGITS - 1 - d);
        }
    }
    len = strip_fraction(buf, len);
    buf[len] = '\0';
    return len;
}
