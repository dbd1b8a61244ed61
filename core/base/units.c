/* units: values with units and the exact-integer rule (see units.h). */
#include "units.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A unit as a power of bytes and of seconds times num/den. Factors are
 * kept as a fraction of two exact integers so that 500ms is 500/1000 = 0.5
 * exactly, not 500 * 0.001. */
typedef struct quantity {
    int bytes_exp, time_exp;
    double num, den;
} quantity;

typedef struct unit_def {
    const char *spelling;
    int bytes_exp, time_exp;
    double num, den;
    int listed; /* named in "s takes ..." (synonyms are not) */
} unit_def;

static const unit_def unit_table[] = {
    { "ns", 0, 1, 1, 1e9, 1 },
    { "us", 0, 1, 1, 1e6, 1 },
    { "\xc2\xb5s", 0, 1, 1, 1e6, 1 }, /* micro sign */
    { "\xce\xbcs", 0, 1, 1, 1e6, 0 }, /* Greek mu, which looks the same */
    { "ms", 0, 1, 1, 1e3, 1 },
    { "s", 0, 1, 1, 1, 1 },
    { "min", 0, 1, 60, 1, 1 },
    { "h", 0, 1, 3600, 1, 1 },
    { "B", 1, 0, 1, 1, 1 },
    { "byte", 1, 0, 1, 1, 0 },
    { "bytes", 1, 0, 1, 1, 0 },
    { "kB", 1, 0, 1e3, 1, 1 },
    { "MB", 1, 0, 1e6, 1, 1 },
    { "GB", 1, 0, 1e9, 1, 1 },
    { "TB", 1, 0, 1e12, 1, 1 },
    { "KiB", 1, 0, 1024.0, 1, 1 },
    { "MiB", 1, 0, 1048576.0, 1, 1 },
    { "GiB", 1, 0, 1073741824.0, 1, 1 },
    { "TiB", 1, 0, 1099511627776.0, 1, 1 },
    { "bit", 1, 0, 1, 8, 1 },
    { "bits", 1, 0, 1, 8, 0 },
    { "kbit", 1, 0, 1e3, 8, 1 },
    { "Mbit", 1, 0, 1e6, 8, 1 },
    { "Gbit", 1, 0, 1e9, 8, 1 },
    { "Tbit", 1, 0, 1e12, 8, 1 },
    { "k", 0, 0, 1e3, 1, 1 }, /* SI prefixes on a count */
    { "M", 0, 0, 1e6, 1, 1 },
    { "G", 0, 0, 1e9, 1, 1 },
    { "T", 0, 0, 1e12, 1, 1 },
};
#define UNIT_COUNT (sizeof unit_table / sizeof unit_table[0])

static const unit_def *unit_lookup(const char *spelling, size_t len)
{
    for (size_t i = 0; i < UNIT_COUNT; i++)
        if (strlen(unit_table[i].spelling) == len &&
            memcmp(unit_table[i].spelling, spelling, len) == 0)
            return &unit_table[i];
    return NULL;
}

/* One side of a unit. A declared unit may name what is counted ("workers",
 * "params"): such a word is a count, factor 1. A value's unit may not. */
static int parse_simple(const char *spelling, size_t len, int allow_nouns, quantity *q)
{
    const unit_def *u = unit_lookup(spelling, len);
    if (u) {
        *q = (quantity){ u->bytes_exp, u->time_exp, u->num, u->den };
        return 0;
    }
    if (!allow_nouns || len == 0)
        return -1;
    *q = (quantity){ 0, 0, 1, 1 };
    return 0;
}

/* "GB/s" as a quantity: a unit, or a unit over a unit. Returns 0 or -1. */
static int parse_unit(const char *unit, int allow_nouns, quantity *q)
{
    if (allow_nouns && *unit == '\0') {
        *q = (quantity){ 0, 0, 1, 1 };
        return 0;
    }
    const char *slash = strchr(unit, '/');
    size_t top_len = slash ? (size_t)(slash - unit) : strlen(unit);
    if (parse_simple(unit, top_len, allow_nouns, q) != 0)
        return -1;
    if (!slash)
        return 0;
    quantity per;
    if (strchr(slash + 1, '/') ||
        parse_simple(slash + 1, strlen(slash + 1), allow_nouns, &per) != 0)
        return -1;
    q->bytes_exp -= per.bytes_exp;
    q->time_exp -= per.time_exp;
    q->num *= per.den;
    q->den *= per.num;
    return 0;
}

/* Scans a decimal number at the start of text into *number; *rest points
 * past it and any spaces. Returns 0, or -1 when text does not start with
 * one. Hex, inf and nan are not decimal numbers (strtod would take them). */
static int scan_number(const char *text, double *number, const char **rest)
{
    const char *p = text;
    size_t digits = 0;
    if (*p == '+' || *p == '-')
        p++;
    for (; *p >= '0' && *p <= '9'; p++)
        digits++;
    if (*p == '.')
        for (p++; *p >= '0' && *p <= '9'; p++)
            digits++;
    if (digits == 0)
        return -1;
    if (*p == 'e' || *p == 'E') {
        const char *e = p + 1;
        if (*e == '+' || *e == '-')
            e++;
        if (*e >= '0' && *e <= '9') {
            for (p = e; *p >= '0' && *p <= '9'; p++)
                ;
        }
    }
    size_t len = (size_t)(p - text);
    char buf[128];
    if (len >= sizeof buf)
        return -1;
    memcpy(buf, text, len);
    buf[len] = '\0';
    *number = strtod(buf, NULL); /* HUGE_VAL on overflow: callers check */
    while (*p == ' ')
        p++;
    *rest = p;
    return 0;
}

units_form units_split(const char *text, double *number, const char **unit)
{
    const char *rest;
    quantity q;
    if (scan_number(text, number, &rest) != 0) {
        *unit = text;
        return UNITS_NOT_A_NUMBER;
    }
    *unit = rest;
    if (*rest == '\0')
        return rest[-1] == ' ' ? UNITS_NOT_A_NUMBER : UNITS_BARE;
    return parse_unit(rest, 0, &q) == 0 ? UNITS_WITH_UNIT : UNITS_NOT_A_NUMBER;
}

static const char *dimension_name(const quantity *q)
{
    if (q->bytes_exp == 0 && q->time_exp == 0)
        return "a count";
    if (q->bytes_exp == 0 && q->time_exp == 1)
        return "time";
    if (q->bytes_exp == 1 && q->time_exp == 0)
        return "bytes";
    if (q->bytes_exp == 1 && q->time_exp == -1)
        return "bytes per time";
    return "another dimension";
}

/* "ns, us, µs, ms, s, min, h": the units that convert to q. */
static void describe_accepted(const quantity *q, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < UNIT_COUNT; i++) {
        const unit_def *u = &unit_table[i];
        if (!u->listed || u->bytes_exp != q->bytes_exp || u->time_exp != q->time_exp)
            continue;
        int n = snprintf(buf + used, size - used, "%s%s", used ? ", " : "", u->spelling);
        if (n > 0 && (size_t)n < size - used)
            used += (size_t)n;
    }
    if (used == 0)
        snprintf(buf, size,
                 q->bytes_exp == 1 && q->time_exp == -1
                     ? "a size over a time, such as MB/s, GiB/s or Gbit/s"
                     : "no unit");
}

/* x * num/den in one rounding where one of the two divides the other. */
static double scale(double x, double num, double den)
{
    if (num >= den && fmod(num, den) == 0)
        return x * (num / den);
    if (den > num && fmod(den, num) == 0)
        return x / (den / num);
    return x * num / den;
}

int units_convert(const char *text, const char *declared_unit, double *out, char *msg,
                  size_t msg_size)
{
    const char *declared = declared_unit ? declared_unit : "";
    const char *unit;
    double number;
    if (scan_number(text, &number, &unit) != 0) {
        snprintf(msg, msg_size, "'%s' is not a number", text);
        return -1;
    }
    if (!isfinite(number)) {
        snprintf(msg, msg_size, "'%s': the number is too large", text);
        return -1;
    }
    if (*unit == '\0' || strcmp(unit, declared) == 0) {
        *out = number; /* a bare number means the declared unit */
        return 0;
    }
    quantity want, given;
    parse_unit(declared, 1, &want); /* never fails: a word is a count */
    const char *shown_declared = *declared ? declared : "a plain number";
    if (parse_unit(unit, 0, &given) != 0) {
        char accepted[200];
        describe_accepted(&want, accepted, sizeof accepted);
        snprintf(msg, msg_size, "'%s': unknown unit '%s'; %s takes %s", text, unit, shown_declared,
                 accepted);
        return -1;
    }
    if (given.bytes_exp != want.bytes_exp || given.time_exp != want.time_exp) {
        char wanted[80];
        if (*declared)
            snprintf(wanted, sizeof wanted, "%s (%s)", declared, dimension_name(&want));
        else
            snprintf(wanted, sizeof wanted, "a plain number");
        snprintf(msg, msg_size, "'%s': %s (%s) does not convert to %s", text, unit,
                 dimension_name(&given), wanted);
        return -1;
    }
    double x = scale(number, given.num * want.den, given.den * want.num);
    if (!isfinite(x)) {
        snprintf(msg, msg_size, "'%s' is too large in %s", text, shown_declared);
        return -1;
    }
    *out = x;
    return 0;
}

typedef unsigned __int128 u128;

/* text's decimal number (as scan_number reads it) as +-mantissa * 10^exp10,
 * exactly. Returns 0, or -1 when its significant digits do not fit 38. */
static int exact_decimal(const char *text, int *negative, u128 *mantissa, long *exp10)
{
    const char *p = text;
    *negative = *p == '-';
    if (*p == '+' || *p == '-')
        p++;
    u128 m = 0;
    long e = 0;
    int significant = 0, pending_zeros = 0, after_point = 0;
    for (; (*p >= '0' && *p <= '9') || (*p == '.' && !after_point); p++) {
        if (*p == '.') {
            after_point = 1;
            continue;
        }
        if (after_point)
            e--;
        if (*p == '0') { /* kept aside, so trailing zeros cost no digits */
            if (significant)
                pending_zeros++;
            continue;
        }
        for (; pending_zeros > 0; pending_zeros--, significant++)
            m *= 10;
        if (++significant > 38)
            return -1;
        m = m * 10 + (u128)(*p - '0');
    }
    e += pending_zeros;
    if (*p == 'e' || *p == 'E') {
        int negative_exp = p[1] == '-';
        const char *d = p + 1 + (p[1] == '+' || p[1] == '-');
        long x = 0;
        for (; *d >= '0' && *d <= '9'; d++)
            if (x < 100000) /* beyond any range: only "too large" or "not whole" */
                x = x * 10 + (*d - '0');
        e += negative_exp ? -x : x;
    }
    if (significant > 38)
        return -1;
    *mantissa = m;
    *exp10 = e;
    return 0;
}

/* x * 10^n into *x; -1 on overflow. */
static int times_pow10(u128 *x, long n)
{
    for (; n > 0; n--) {
        if (*x > ~(u128)0 / 10)
            return -1;
        *x *= 10;
    }
    return 0;
}

static u128 gcd128(u128 a, u128 b)
{
    while (b) {
        u128 t = a % b;
        a = b;
        b = t;
    }
    return a;
}

#define EXACT_INTEGER_MAX 9007199254740992.0 /* 2^53 */

int units_convert_integer(const char *text, const char *declared_unit, int64_t *out, double *approx,
                          char *msg, size_t msg_size)
{
    const char *declared = declared_unit ? declared_unit : "";
    double x;
    /* Dimensions, unknown units and overflow are refused as for a real. */
    if (units_convert(text, declared, &x, msg, msg_size) != 0)
        return -1;
    *approx = x;
    double number;
    const char *unit;
    scan_number(text, &number, &unit);
    quantity want = { 0, 0, 1, 1 }, given = { 0, 0, 1, 1 };
    if (*unit && strcmp(unit, declared) != 0) {
        parse_unit(declared, 1, &want);
        parse_unit(unit, 0, &given);
    }
    int negative;
    u128 mantissa;
    long exp10;
    char shown[32];
    if (exact_decimal(text, &negative, &mantissa, &exp10) != 0) {
        snprintf(msg, msg_size, "'%s' has more digits than runner converts exactly (38)", text);
        return -1;
    }
    if (mantissa == 0) {
        *out = 0;
        return 0;
    }
    /* Every factor is a whole number (500ms is 500/1000 s): the value is
     * mantissa * 10^exp10 * top / bottom, in integers. */
    u128 top = (u128)given.num * (u128)want.den, bottom = (u128)given.den * (u128)want.num;
    int bottom_overflow = exp10 < 0 && times_pow10(&bottom, -exp10) != 0;
    if (bottom_overflow) {
        snprintf(msg, msg_size, "'%s' has more digits than runner converts exactly (38)", text);
        return -1;
    }
    u128 value = mantissa, g = gcd128(top, bottom);
    top /= g;
    bottom /= g;
    g = gcd128(value, bottom);
    value /= g;
    bottom /= g;
    if (bottom != 1) {
        snprintf(msg, msg_size, "'%s' is %s%s%s, not a whole number", text, units_number(x, shown),
                 *declared ? " " : "", declared);
        return -2;
    }
    int overflow = top && value > ~(u128)0 / top;
    if (!overflow) {
        value *= top;
        overflow = exp10 > 0 && times_pow10(&value, exp10) != 0;
    }
    if (overflow || value > (u128)EXACT_INTEGER_MAX) {
        if (!overflow && value <= (u128)INT64_MAX)
            snprintf(shown, sizeof shown, "%s%lld", negative ? "-" : "", (long long)value);
        else
            units_number(x, shown);
        snprintf(msg, msg_size, "%s is out of the exact integer range [-2^53, 2^53]", shown);
        return -1;
    }
    *out = negative ? -(int64_t)value : (int64_t)value;
    return 0;
}

int units_integer(double x, int64_t *out, char *msg, size_t msg_size)
{
    char shown[32];
    if (!isfinite(x)) {
        snprintf(msg, msg_size, "expected a finite integer, got %s", units_number(x, shown));
        return -1;
    }
    if (x != floor(x)) {
        snprintf(msg, msg_size, "expected an integer, got %s", units_number(x, shown));
        return -1;
    }
    if (fabs(x) > 9007199254740992.0) {
        snprintf(msg, msg_size, "%s is out of the exact integer range [-2^53, 2^53]",
                 units_number(x, shown));
        return -1;
    }
    *out = (int64_t)x;
    return 0;
}

int units_read_setting(const char *text, int as_integer, const char *unit, units_setting *out,
                       char *msg, size_t msg_size)
{
    double number;
    const char *tail;
    units_form form = units_split(text, &number, &tail);
    if (form == UNITS_NOT_A_NUMBER) {
        if (tail != text && *tail &&
            tail[strspn(tail, "abcdefghijklmnopqrstuvwxyz"
                              "ABCDEFGHIJKLMNOPQRSTUVWXYZ")] == '\0')
            snprintf(msg, msg_size, "unknown unit '%s'", tail);
        else /* hex, inf, words: the same words as before units */
            snprintf(msg, msg_size,
                     as_integer ? "expected an integer" : "expected a finite number");
        return -1;
    }
    if (form == UNITS_WITH_UNIT) {
        /* 2.5k is a number to any option; 2min only to one with a unit */
        if (!unit && units_convert(text, "", &number, msg, msg_size) != 0) {
            out->kind = UNITS_SETTING_TEXT;
            return 0;
        }
        if (unit && units_convert(text, unit, &number, msg, msg_size) != 0)
            return -1;
    }
    if (!as_integer) {
        if (!isfinite(number)) {
            snprintf(msg, msg_size, "expected a finite number");
            return -1;
        }
        out->kind = UNITS_SETTING_REAL;
        out->real = number;
        return 0;
    }
    /* plain digits exactly, past 2^53 too, as a script's integer literal */
    errno = 0;
    char *end = NULL;
    long long whole = strtoll(text, &end, 10);
    out->kind = UNITS_SETTING_INTEGER;
    if (form == UNITS_BARE && !*end && errno == 0) {
        out->integer = whole;
        return 0;
    }
    if (!isfinite(number))
        return units_integer(number, &out->integer, msg, msg_size);
    /* 1.3e9, 2.5k, 9007199254740993B: exactly, never through a double */
    double approx;
    int exact = units_convert_integer(text, form == UNITS_WITH_UNIT && unit ? unit : "",
                                      &out->integer, &approx, msg, msg_size);
    if (exact == -2) { /* not whole: refused, even when the double rounds to one */
        if (units_integer(approx, &out->integer, msg, msg_size) != 0)
            return -1;
        snprintf(msg, msg_size, "expected an integer, got %s", text);
        return -1;
    }
    return exact;
}

const char *units_number(double x, char buf[32])
{
    if (isnan(x)) {
        snprintf(buf, 32, "nan");
        return buf;
    }
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(buf, 32, "%.*g", digits, x);
        if (strtod(buf, NULL) == x)
            break;
    }
    return buf;
}
