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
    int d = (int)floor((biased - 1023) * 0.30102999566398120);
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

/* The shortest of 15, 16 and 17 significant digits that reads back as x
 * (|x| normal, below 10^15): the decimal must lie strictly inside the
 * interval of the reals that round to x, checked exactly on the scaled
 * integers. -1: not decided here (the caller prints 17 digits). */
static int shortest_digits(double x, uint64_t *digits, int *exp10, int *precision)
{
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    int biased = (int)((bits >> 52) & 0x7ff);
    uint64_t mant = (bits & ((1ULL << 52) - 1)) | (1ULL << 52);
    int e2 = biased - 1075;
    for (int p = 15; p <= 16; p++) {
        uint64_t q;
        int d;
        if (significant_digits(x, p, &q, &d) != 0)
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
        }
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
