/* realtext: "%.Pg" without printf. The P significant digits are
 * round(|x| * 10^k) with k = P - 1 - floor(log10 |x|) in -27..27: the
 * mantissa (< 2^53) times or divided by 5^|k| (< 2^63) fits in 128 bits,
 * and the power of two is a shift, rounded half to even on the exact value
 * as glibc rounds. Everything else is rare in results and goes to
 * snprintf. The shortest text that reads back is found on the same
 * integers: the decimal must fall inside x's rounding interval. */
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

/* The digits of v (below 10^8) into out, most significant first; returns
 * how many. 32-bit divisions: a 64-bit one per pair cost more than the
 * rest of a real's formatting. */
static size_t put_small(uint32_t v, char *out)
{
    size_t n = v >= 10000000  ? 8
               : v >= 1000000 ? 7
               : v >= 100000  ? 6
               : v >= 10000   ? 5
               : v >= 1000    ? 4
               : v >= 100     ? 3
               : v >= 10      ? 2
                              : 1;
    char *p = out + n;
    while (v >= 100) { /* two digits per division */
        unsigned pair = v % 100;
        v /= 100;
        p -= 2;
        memcpy(p, pairs + 2 * pair, 2);
    }
    if (v >= 10)
        memcpy(out, pairs + 2 * v, 2);
    else
        out[0] = (char)('0' + v);
    return n;
}

/* Exactly eight digits of v (below 10^8), leading zeros kept. */
static void put_eight(uint32_t v, char *out)
{
    uint32_t high = v / 10000, low = v % 10000;
    memcpy(out, pairs + 2 * (high / 100), 2);
    memcpy(out + 2, pairs + 2 * (high % 100), 2);
    memcpy(out + 4, pairs + 2 * (low / 100), 2);
    memcpy(out + 6, pairs + 2 * (low % 100), 2);
}

/* The digits of u into out, most significant first; returns how many. */
static size_t put_unsigned(uint64_t u, char *out)
{
    if (u < 100000000)
        return put_small((uint32_t)u, out);
    if (u < 10000000000000000ULL) {
        size_t n = put_small((uint32_t)(u / 100000000), out);
        put_eight((uint32_t)(u % 100000000), out + n);
        return n + 8;
    }
    size_t n = put_small((uint32_t)(u / 10000000000000000ULL), out);
    put_eight((uint32_t)(u / 100000000 % 100000000), out + n);
    put_eight((uint32_t)(u % 100000000), out + n + 8);
    return n + 16;
}

static const uint64_t pow5[28] = { 1ULL,
                                   5ULL,
                                   25ULL,
                                   125ULL,
                                   625ULL,
                                   3125ULL,
                                   15625ULL,
                                   78125ULL,
                                   390625ULL,
                                   1953125ULL,
                                   9765625ULL,
                                   48828125ULL,
                                   244140625ULL,
                                   1220703125ULL,
                                   6103515625ULL,
                                   30517578125ULL,
                                   152587890625ULL,
                                   762939453125ULL,
                                   3814697265625ULL,
                                   19073486328125ULL,
                                   95367431640625ULL,
                                   476837158203125ULL,
                                   2384185791015625ULL,
                                   11920928955078125ULL,
                                   59604644775390625ULL,
                                   298023223876953125ULL,
                                   1490116119384765625ULL,
                                   7450580596923828125ULL };

static const uint64_t pow10[18] = { 1ULL,
                                    10ULL,
                                    100ULL,
                                    1000ULL,
                                    10000ULL,
                                    100000ULL,
                                    1000000ULL,
                                    10000000ULL,
                                    100000000ULL,
                                    1000000000ULL,
                                    10000000000ULL,
                                    100000000000ULL,
                                    1000000000000ULL,
                                    10000000000000ULL,
                                    100000000000000ULL,
                                    1000000000000000ULL,
                                    TEN_TO_16,
                                    TEN_TO_17 };

/* 10^j as doubles for j in POW10_LOW..POW10_LOW + 78, to place |x|
 * between two powers of ten before any 128-bit work. The negative ones are
 * rounded: the digits below still check the guess. */
#define POW10_LOW (-32)
static const double pow10_double[] = {
    1e-32, 1e-31, 1e-30, 1e-29, 1e-28, 1e-27, 1e-26, 1e-25, 1e-24, 1e-23, 1e-22, 1e-21,
    1e-20, 1e-19, 1e-18, 1e-17, 1e-16, 1e-15, 1e-14, 1e-13, 1e-12, 1e-11, 1e-10, 1e-9,
    1e-8,  1e-7,  1e-6,  1e-5,  1e-4,  1e-3,  1e-2,  1e-1,  1e0,   1e1,   1e2,   1e3,
    1e4,   1e5,   1e6,   1e7,   1e8,   1e9,   1e10,  1e11,  1e12,  1e13,  1e14,  1e15,
    1e16,  1e17,  1e18,  1e19,  1e20,  1e21,  1e22,  1e23,  1e24,  1e25,  1e26,  1e27,
    1e28,  1e29,  1e30,  1e31,  1e32,  1e33,  1e34,  1e35,  1e36,  1e37,  1e38,  1e39,
    1e40,  1e41,  1e42,  1e43,  1e44,  1e45,  1e46
};

/* round(num / den), half to even, with *floor_out the value before
 * rounding; both capped at UINT64_MAX. */
static uint64_t divide_rounded(u128 num, u128 den, uint64_t *floor_out)
{
    u128 q = num / den, rem = num - q * den;
    *floor_out = q > UINT64_MAX ? UINT64_MAX : (uint64_t)q;
    if (rem > den - rem || (rem == den - rem && (q & 1)))
        q++;
    return q > UINT64_MAX ? UINT64_MAX : (uint64_t)q;
}

/* round(mant * 2^e2 * 10^k), half to even, k in -27..27; *floor_out is
 * the value before rounding (it decides the exponent, not the rounded one).
 * -1 when the exact value does not fit the 128-bit arithmetic. */
static int scaled_digits(uint64_t mant, int e2, int k, uint64_t *q, uint64_t *floor_out)
{
    if (k < 0) { /* divide by 10^-k = 2^-k 5^-k */
        int shift = e2 + k;
        if (shift >= 0) {
            if (shift > 74)
                return -1;
            *q = divide_rounded((u128)mant << shift, pow5[-k], floor_out);
        } else {
            if (-shift > 63)
                return -1;
            *q = divide_rounded(mant, (u128)pow5[-k] << -shift, floor_out);
        }
        return 0;
    }
    u128 p = (u128)mant * pow5[k];
    int shift = e2 + k;
    if (shift >= 0) {
        *q = *floor_out = shift >= 64 ? UINT64_MAX : (uint64_t)(p << shift);
        return 0;
    }
    int s = -shift;
    if (s >= 127) {
        *q = *floor_out = 0;
        return 0;
    }
    u128 whole = p >> s, rem = p - (whole << s), half = (u128)1 << (s - 1);
    *floor_out = whole > UINT64_MAX ? UINT64_MAX : (uint64_t)whole;
    if (rem > half || (rem == half && (whole & 1)))
        whole++;
    *q = whole > UINT64_MAX ? UINT64_MAX : (uint64_t)whole;
    return 0;
}

/* The `precision` (1..17) significant digits of |x| in *digits, rounded
 * as printf rounds, and its decimal exponent in *exp10; -1 outside the
 * fast range (zero, subnormals, inf, NaN, very large or small). */
static int significant_digits(double x, int precision, uint64_t *digits, int *exp10)
{
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    int biased = (int)((bits >> 52) & 0x7ff);
    if (biased == 0 || biased == 0x7ff)
        return -1; /* zero, subnormal, inf, NaN */
    uint64_t mant = (bits & ((1ULL << 52) - 1)) | (1ULL << 52);
    int e2 = biased - 1075;
    uint64_t low = pow10[precision - 1], high = pow10[precision];
    /* floor(log10 |x|) or one less, from the binary exponent; the loop below
     * moves up when the digits say so. */
    double guess = (biased - 1023) * 0.30102999566398120;
    int d = (int)guess;
    if (guess < d)
        d--; /* floor: |x| is in [10^d, 10^(d+2)) */
    int above = d + 1 - POW10_LOW;
    if (above >= 0 && above < (int)(sizeof pow10_double / sizeof pow10_double[0]) &&
        fabs(x) >= pow10_double[above])
        d++;
    for (int tries = 0; tries < 3; tries++) {
        int k = precision - 1 - d;
        if (k < -27 || k > 27)
            return -1;
        uint64_t below, q;
        if (scaled_digits(mant, e2, k, &q, &below) != 0)
            return -1;
        if (below < low) {
            d--; /* not with the estimate above; a guard */
        } else if (below >= high) {
            d++;
        } else {
            if (q == high) { /* rounding carried into one more digit */
                q = low;
                d++;
            }
            *digits = q;
            *exp10 = d;
            return 0;
        }
    }
    return -1;
}

/* The `precision` (15 or 16) significant digits of |x| from its 17, q17
 * with exponent d17: round(q17 / 10^(17 - precision)) equals rounding the
 * exact value unless q17 ends in the half (50 or 5), where the exact value
 * decides and significant_digits computes it. */
static int fewer_digits(double x, uint64_t q17, int d17, int precision, uint64_t *digits,
                        int *exp10)
{
    uint64_t step = precision == 15 ? 100 : 10;
    if (q17 % step == step / 2)
        return significant_digits(x, precision, digits, exp10);
    *digits = (q17 + step / 2) / step;
    *exp10 = d17;
    if (*digits == pow10[precision]) { /* 99...95 and up carried */
        *digits = pow10[precision - 1];
        ++*exp10;
    }
    return 0;
}

/* The shortest of 15, 16 and 17 significant digits that reads back as x
 * (|x| normal, below 10^15): the decimal must lie strictly inside the
 * interval of the reals that round to x, checked exactly on the scaled
 * integers. 17 digits in *digits when neither shorter one reads back; -1:
 * not decided here (the caller prints "%.17g"). */
static int shortest_digits(double x, uint64_t *digits, int *exp10, int *precision)
{
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    int biased = (int)((bits >> 52) & 0x7ff);
    uint64_t mant = (bits & ((1ULL << 52) - 1)) | (1ULL << 52);
    int e2 = biased - 1075;
    uint64_t q17;
    int d17;
    /* Near 10^-11 17 digits leave the 128-bit range where 15 do not. */
    int have_17 = significant_digits(x, SIG_DIGITS, &q17, &d17) == 0;
    for (int p = 15; p <= 16; p++) {
        uint64_t q;
        int d;
        if ((have_17 ? fewer_digits(x, q17, d17, p, &q, &d) : significant_digits(x, p, &q, &d)) !=
            0)
            continue;
        int k = p - 1 - d;
        if (k < 0 || k > 27)
            continue;
        /* x * 10^k = mant * 5^k / 2^s; the interval's ends are
         * (2 mant +- 1) 5^k / 2^(s+1), the lower one (4 mant - 1) 5^k /
         * 2^(s+2) when mant is a power of two (the gap below is half). */
        int s = -(e2 + k);
        if (s < 0 || s > 70)
            continue;
        u128 up = (u128)(2 * mant + 1) * pow5[k], twice = (u128)q << (s + 1);
        int lower_half = mant == (1ULL << 52) && biased > 1;
        u128 down = lower_half ? (u128)(4 * mant - 1) * pow5[k] : (u128)(2 * mant - 1) * pow5[k];
        u128 scaled_q = lower_half ? (u128)q << (s + 2) : twice;
        if (twice < up && scaled_q > down) {
            *digits = q;
            *exp10 = d;
            *precision = p;
            return 0;
        }
    }
    if (!have_17)
        return -1;
    *digits = q17;
    *exp10 = d17;
    *precision = SIG_DIGITS;
    return 0;
}

/* Drops trailing zeros of the fraction, and the point when none is left
 * (buf[0..len) holds a point). */
static size_t strip_fraction(char *buf, size_t len)
{
    while (buf[len - 1] == '0')
        len--;
    if (buf[len - 1] == '.')
        len--;
    return len;
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

/* "%.*g" of the digits q (precision of them) with decimal exponent d. */
static size_t format_g(int negative, uint64_t q, int d, int precision, char *buf)
{
    char digits[SIG_DIGITS + 1];
    put_unsigned(q, digits); /* q has exactly `precision` digits */
    size_t len = 0;
    if (negative)
        buf[len++] = '-';
    if (d < -4 || d >= precision) { /* %e style: d.dddde-0N */
        buf[len++] = digits[0];
        buf[len++] = '.';
        memcpy(buf + len, digits + 1, (size_t)precision - 1);
        len = strip_fraction(buf, len + (size_t)precision - 1);
        int e = d < 0 ? -d : d;
        buf[len++] = 'e';
        buf[len++] = d < 0 ? '-' : '+';
        if (e < 10)
            buf[len++] = '0';
        len += put_unsigned((uint64_t)e, buf + len);
        buf[len] = '\0';
        return len;
    }
    if (d < 0) { /* 0.000ddd */
        buf[len++] = '0';
        buf[len++] = '.';
        for (int i = 0; i < -d - 1; i++)
            buf[len++] = '0';
        memcpy(buf + len, digits, (size_t)precision);
        len += (size_t)precision;
    } else { /* ddd.ddd: d + 1 digits before the point */
        memcpy(buf + len, digits, (size_t)d + 1);
        len += (size_t)d + 1;
        if (d + 1 < precision) {
            buf[len++] = '.';
            memcpy(buf + len, digits + d + 1, (size_t)(precision - 1 - d));
            len += (size_t)(precision - 1 - d);
            len = strip_fraction(buf, len);
        }
        buf[len] = '\0';
        return len;
    }
    len = strip_fraction(buf, len);
    buf[len] = '\0';
    return len;
}

size_t realtext_g(double x, int precision, char *buf)
{
    if (precision < 1 || precision > SIG_DIGITS)
        precision = SIG_DIGITS;
    size_t len = 0;
    if (x == 0) {
        if (signbit(x))
            buf[len++] = '-';
        buf[len++] = '0';
        buf[len] = '\0';
        return len;
    }
    double limit = (double)pow10[precision];
    if (x > -limit && x < limit && x == (double)(int64_t)x)
        return realtext_int64((int64_t)x, buf);
    uint64_t q;
    int d;
    if (significant_digits(x, precision, &q, &d) != 0) {
        int n = snprintf(buf, REALTEXT_SIZE, "%.*g", precision, x);
        return n < 0 ? 0 : (size_t)n;
    }
    return format_g(x < 0, q, d, precision, buf);
}

size_t realtext_g17(double x, char *buf) { return realtext_g(x, SIG_DIGITS, buf); }

size_t realtext_shortest(double x, char *buf)
{
    uint64_t q;
    int d, precision;
    if (isfinite(x) && x != 0 && fabs(x) < 1e15 && x != (double)(int64_t)x &&
        shortest_digits(x, &q, &d, &precision) == 0)
        return format_g(x < 0, q, d, precision, buf);
    return realtext_g(x, SIG_DIGITS, buf);
}
