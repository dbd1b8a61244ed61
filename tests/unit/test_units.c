/* test_units: every unit runner reads, with and without prefixes, the
 * spellings it refuses (and the exact message), overflow, and the
 * exact-integer rule that --set and script values share. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "base/units.h"

static char msg[400];

/* units_convert of text into declared, or NAN with the message in msg. */
static double converted(const char *text, const char *declared)
{
    double x;
    msg[0] = '\0';
    return units_convert(text, declared, &x, msg, sizeof msg) == 0 ? x : NAN;
}

/* Refused, with exactly this message. */
#define CHECK_REFUSED(text, declared, expected)                                                    \
    do {                                                                                           \
        CHECK(isnan(converted((text), (declared))));                                               \
        CHECK_STR_EQ(msg, (expected));                                                             \
    } while (0)

static void test_time(void)
{
    CHECK(converted("1ns", "s") == 1e-9);
    CHECK(converted("1us", "s") == 1e-6);
    CHECK(converted("1\xc2\xb5s", "s") == 1e-6); /* micro sign */
    CHECK(converted("1\xce\xbcs", "s") == 1e-6); /* Greek mu */
    CHECK(converted("500ms", "s") == 0.5);       /* exactly, not 500 * 0.001 */
    CHECK(converted("2s", "s") == 2.0);
    CHECK(converted("2min", "s") == 120.0);
    CHECK(converted("1.5h", "s") == 5400.0);
    CHECK(converted("2s", "ms") == 2000.0);
    CHECK(converted("1h", "min") == 60.0);
    CHECK(converted("90 s", "min") == 1.5); /* spaces between number and unit */
    CHECK(converted("0.1s", "s") == 0.1);   /* the declared unit: the number as written */
    CHECK(converted("-3ms", "s") == -0.003);
    CHECK(converted("+2.5e3ms", "s") == 2.5);
}

static void test_bytes(void)
{
    CHECK(converted("3B", "bytes") == 3.0);
    CHECK(converted("3 bytes", "bytes") == 3.0);
    CHECK(converted("1byte", "bytes") == 1.0);
    CHECK(converted("1kB", "bytes") == 1e3);
    CHECK(converted("1MB", "bytes") == 1e6);
    CHECK(converted("1GB", "bytes") == 1e9);
    CHECK(converted("1TB", "bytes") == 1e12);
    CHECK(converted("1KiB", "bytes") == 1024.0);
    CHECK(converted("1MiB", "bytes") == 1048576.0);
    CHECK(converted("1.5GiB", "bytes") == 1610612736.0);
    CHECK(converted("1TiB", "bytes") == 1099511627776.0);
    CHECK(converted("8bit", "bytes") == 1.0);
    CHECK(converted("16 bits", "bytes") == 2.0);
    CHECK(converted("1kbit", "bytes") == 125.0);
    CHECK(converted("1Mbit", "bytes") == 125e3);
    CHECK(converted("1Gbit", "bytes") == 125e6);
    CHECK(converted("1Tbit", "bytes") == 125e9);
    /* a size per counted thing is a size */
    CHECK(converted("2B", "bytes/param") == 2.0);
    CHECK(converted("2 bytes/param", "bytes/param") == 2.0);
}

static void test_rates(void)
{
    CHECK(converted("10Gbit/s", "bytes/s") == 1.25e9);
    CHECK(converted("3.125GB/s", "bytes/s") == 3.125e9);
    CHECK(converted("1MiB/ms", "bytes/s") == 1048576000.0);
    CHECK(converted("60 kB/min", "bytes/s") == 1000.0);
    CHECK(converted("1GB/s", "MB/s") == 1000.0);
    CHECK(converted("100 B/s", "bytes/s") == 100.0);
}

static void test_counts(void)
{
    CHECK(converted("1.3G", "params") == 1.3e9);
    CHECK(converted("2k", "workers") == 2000.0);
    CHECK(converted("7.5M", "") == 7.5e6);
    CHECK(converted("1T", "keys") == 1e12);
    CHECK(converted("64 workers", "workers") == 64.0); /* the declared word itself */
    CHECK(converted("4 points/node", "points/node") == 4.0);
    CHECK(converted("3k", "points/node") == 3000.0);
}

static void test_bare_numbers(void)
{
    /* a bare number means the declared unit */
    CHECK(converted("30", "s") == 30.0);
    CHECK(converted("1.3e9", "params") == 1.3e9);
    CHECK(converted("0.25", "") == 0.25);
}

static void test_refused(void)
{
    CHECK_REFUSED("2GiB", "s", "'2GiB': GiB (bytes) does not convert to s (time)");
    CHECK_REFUSED("2s", "bytes", "'2s': s (time) does not convert to bytes (bytes)");
    CHECK_REFUSED("1.5GiB", "params", "'1.5GiB': GiB (bytes) does not convert to params (a count)");
    CHECK_REFUSED("2ms", "", "'2ms': ms (time) does not convert to a plain number");
    CHECK_REFUSED("1GB", "bytes/s",
                  "'1GB': GB (bytes) does not convert to bytes/s (bytes per time)");
    CHECK_REFUSED("1GB/s", "bytes",
                  "'1GB/s': GB/s (bytes per time) does not convert to bytes (bytes)");
    CHECK_REFUSED("2k", "s", "'2k': k (a count) does not convert to s (time)");
    CHECK_REFUSED(
        "2 fortnights", "s",
        "'2 fortnights': unknown unit 'fortnights'; s takes ns, us, \xc2\xb5s, ms, s, min, h");
    /* case matters: KB, mb and Gb are not units (kB or KiB, MB, Gbit) */
    CHECK_REFUSED("1KB", "bytes",
                  "'1KB': unknown unit 'KB'; bytes takes B, kB, MB, GB, TB, "
                  "KiB, MiB, GiB, TiB, bit, kbit, Mbit, Gbit, Tbit");
    CHECK_REFUSED("1mb", "bytes",
                  "'1mb': unknown unit 'mb'; bytes takes B, kB, MB, GB, TB, "
                  "KiB, MiB, GiB, TiB, bit, kbit, Mbit, Gbit, Tbit");
    CHECK_REFUSED("1Gb/s", "bytes/s",
                  "'1Gb/s': unknown unit 'Gb/s'; bytes/s takes a size over a "
                  "time, such as MB/s, GiB/s or Gbit/s");
    CHECK_REFUSED("3 workers", "params",
                  "'3 workers': unknown unit 'workers'; params takes k, M, G, T");
    CHECK_REFUSED("1GB/s/s", "bytes/s",
                  "'1GB/s/s': unknown unit 'GB/s/s'; bytes/s takes a size over "
                  "a time, such as MB/s, GiB/s or Gbit/s");
    CHECK_REFUSED("s", "s", "'s' is not a number");
    CHECK_REFUSED("0x10s", "s",
                  "'0x10s': unknown unit 'x10s'; s takes ns, us, \xc2\xb5s, ms, s, min, h");
    CHECK_REFUSED("infs", "s", "'infs' is not a number");
}

static void test_overflow(void)
{
    CHECK_REFUSED("1e999s", "s", "'1e999s': the number is too large");
    CHECK_REFUSED("1e300TiB", "bytes", "'1e300TiB' is too large in bytes");
    CHECK_REFUSED("1e308h", "ns", "'1e308h' is too large in ns");
    CHECK_NEAR(converted("1e300h", "s"), 3.6e303, 1e289);
}

static void test_split(void)
{
    double x;
    const char *unit;
    CHECK_INT_EQ(units_split("1.3e9", &x, &unit), UNITS_BARE);
    CHECK(x == 1.3e9);
    CHECK_STR_EQ(unit, "");
    CHECK_INT_EQ(units_split("2min", &x, &unit), UNITS_WITH_UNIT);
    CHECK(x == 2.0);
    CHECK_STR_EQ(unit, "min");
    CHECK_INT_EQ(units_split("10 Gbit/s", &x, &unit), UNITS_WITH_UNIT);
    CHECK_STR_EQ(unit, "Gbit/s");
    /* a number, then no known unit: the tail is shown */
    CHECK_INT_EQ(units_split("2fortnights", &x, &unit), UNITS_NOT_A_NUMBER);
    CHECK_STR_EQ(unit, "fortnights");
    CHECK_INT_EQ(units_split("0x1e", &x, &unit), UNITS_NOT_A_NUMBER);
    CHECK_STR_EQ(unit, "x1e");
    CHECK_INT_EQ(units_split("30 ", &x, &unit), UNITS_NOT_A_NUMBER);
    /* no number at all */
    const char *words = "fast";
    CHECK_INT_EQ(units_split(words, &x, &unit), UNITS_NOT_A_NUMBER);
    CHECK(unit == words);
    CHECK_INT_EQ(units_split("", &x, &unit), UNITS_NOT_A_NUMBER);
    CHECK_INT_EQ(units_split("inf", &x, &unit), UNITS_NOT_A_NUMBER);
    CHECK_INT_EQ(units_split("nan", &x, &unit), UNITS_NOT_A_NUMBER);
    CHECK_INT_EQ(units_split(".", &x, &unit), UNITS_NOT_A_NUMBER);
    CHECK_INT_EQ(units_split(".5", &x, &unit), UNITS_BARE);
    CHECK(x == 0.5);
    CHECK_INT_EQ(units_split("1e", &x, &unit), UNITS_NOT_A_NUMBER); /* 'e' is no unit */
    CHECK_INT_EQ(units_split("1e999", &x, &unit), UNITS_BARE);
    CHECK(isinf(x));
}

static void test_exact_integer(void)
{
    int64_t n = 0;
    CHECK_INT_EQ(units_integer(1.3e9, &n, msg, sizeof msg), 0);
    CHECK_INT_EQ(n, 1300000000);
    CHECK_INT_EQ(units_integer(-4.0, &n, msg, sizeof msg), 0);
    CHECK_INT_EQ(n, -4);
    CHECK_INT_EQ(units_integer(9007199254740992.0, &n, msg, sizeof msg), 0);
    CHECK_INT_EQ(n, 9007199254740992LL);
    CHECK_INT_EQ(units_integer(1.3e-9, &n, msg, sizeof msg), -1);
    CHECK_STR_EQ(msg, "expected an integer, got 1.3e-09");
    CHECK_INT_EQ(units_integer(8.5, &n, msg, sizeof msg), -1);
    CHECK_STR_EQ(msg, "expected an integer, got 8.5");
    CHECK_INT_EQ(units_integer(1e30, &n, msg, sizeof msg), -1);
    CHECK_STR_EQ(msg, "1e+30 is out of the exact integer range [-2^53, 2^53]");
    CHECK_INT_EQ(units_integer(-18014398509481984.0, &n, msg, sizeof msg), -1);
    CHECK_STR_EQ(msg, "-18014398509481984 is out of the exact integer range [-2^53, 2^53]");
    CHECK_INT_EQ(units_integer(NAN, &n, msg, sizeof msg), -1);
    CHECK_STR_EQ(msg, "expected a finite integer, got nan");
    CHECK_INT_EQ(units_integer(-INFINITY, &n, msg, sizeof msg), -1);
    CHECK_STR_EQ(msg, "expected a finite integer, got -inf");
}

/* An integer with a unit: the digits times the unit's factor in integer
 * arithmetic, never through a double (issue 28). */
static void test_exact_conversion(void)
{
    int64_t n = 0;
    double approx = 0;
    CHECK_INT_EQ(units_convert_integer("9007199254740992B", "bytes", &n, &approx, msg, sizeof msg),
                 0);
    CHECK_INT_EQ(n, 9007199254740992LL);
    CHECK_INT_EQ(units_convert_integer("9007199254740993B", "bytes", &n, &approx, msg, sizeof msg),
                 -1);
    CHECK_STR_EQ(msg, "9007199254740993 is out of the exact integer range [-2^53, 2^53]");
    CHECK_INT_EQ(units_convert_integer("1.1kB", "bytes", &n, &approx, msg, sizeof msg), 0);
    CHECK_INT_EQ(n, 1100);
    CHECK_INT_EQ(units_convert_integer("0.5KiB", "bytes", &n, &approx, msg, sizeof msg), 0);
    CHECK_INT_EQ(n, 512);
    CHECK_INT_EQ(units_convert_integer("-2.5e-3s", "us", &n, &approx, msg, sizeof msg), 0);
    CHECK_INT_EQ(n, -2500);
    CHECK_INT_EQ(units_convert_integer("10 Gbit/s", "bytes/s", &n, &approx, msg, sizeof msg), 0);
    CHECK_INT_EQ(n, 1250000000);
    CHECK_INT_EQ(units_convert_integer("8000000000000000.5k", "", &n, &approx, msg, sizeof msg),
                 -1);
    CHECK_STR_EQ(msg, "8000000000000000500 is out of the exact integer range [-2^53, 2^53]");
    CHECK_INT_EQ(units_convert_integer("1.5B", "bytes", &n, &approx, msg, sizeof msg), -2);
    CHECK_STR_EQ(msg, "'1.5B' is 1.5 bytes, not a whole number");
    CHECK(approx == 1.5);
    CHECK_INT_EQ(units_convert_integer("1bit", "bytes", &n, &approx, msg, sizeof msg), -2);
    CHECK_INT_EQ(units_convert_integer("0.000B", "bytes", &n, &approx, msg, sizeof msg), 0);
    CHECK_INT_EQ(n, 0);
    CHECK_INT_EQ(units_convert_integer("1e30B", "bytes", &n, &approx, msg, sizeof msg), -1);
    CHECK_STR_EQ(msg, "1e+30 is out of the exact integer range [-2^53, 2^53]");
    CHECK_INT_EQ(units_convert_integer("2s", "bytes", &n, &approx, msg, sizeof msg), -1);
    CHECK_STR_EQ(msg, "'2s': s (time) does not convert to bytes (bytes)");
    CHECK_INT_EQ(units_convert_integer("1.000000000000000000000000000000000000001kB", "bytes", &n,
                                       &approx, msg, sizeof msg),
                 -1);
    CHECK_STR_EQ(msg, "'1.000000000000000000000000000000000000001kB' has more digits than runner "
                      "converts exactly (38)");
}

/* --set texts for number options: the same rule as a script's values. */
static units_setting setting;

static int read_setting(const char *text, int as_integer, const char *unit)
{
    msg[0] = '\0';
    setting = (units_setting){ 0 };
    return units_read_setting(text, as_integer, unit, &setting, msg, sizeof msg);
}

static void test_settings(void)
{
    CHECK_INT_EQ(read_setting("1.3e9", 1, NULL), 0);
    CHECK_INT_EQ(setting.kind, UNITS_SETTING_INTEGER);
    CHECK_INT_EQ(setting.integer, 1300000000);
    CHECK_INT_EQ(read_setting("9007199254740993", 1, NULL), 0); /* digits: exact past 2^53 */
    CHECK_INT_EQ(setting.integer, 9007199254740993LL);
    CHECK_INT_EQ(read_setting("-64", 1, NULL), 0);
    CHECK_INT_EQ(setting.integer, -64);
    CHECK_INT_EQ(read_setting("2.5k", 1, NULL), 0); /* a count prefix, any option */
    CHECK_INT_EQ(setting.kind, UNITS_SETTING_INTEGER);
    CHECK_INT_EQ(setting.integer, 2500);
    CHECK_INT_EQ(read_setting("2min", 1, NULL), 0); /* for the parameter to convert */
    CHECK_INT_EQ(setting.kind, UNITS_SETTING_TEXT);
    CHECK_INT_EQ(read_setting("2min", 1, "s"), 0); /* the option's own unit */
    CHECK_INT_EQ(setting.kind, UNITS_SETTING_INTEGER);
    CHECK_INT_EQ(setting.integer, 120);
    CHECK_INT_EQ(read_setting("250ms", 0, "s"), 0);
    CHECK_INT_EQ(setting.kind, UNITS_SETTING_REAL);
    CHECK(setting.real == 0.25);
    CHECK_INT_EQ(read_setting("0.25", 0, NULL), 0);
    CHECK(setting.real == 0.25);

    CHECK_INT_EQ(read_setting("1.3e-9", 1, NULL), -1);
    CHECK_STR_EQ(msg, "expected an integer, got 1.3e-09");
    CHECK_INT_EQ(read_setting("1e30", 1, NULL), -1);
    CHECK_STR_EQ(msg, "1e+30 is out of the exact integer range [-2^53, 2^53]");
    CHECK_INT_EQ(read_setting("99999999999999999999", 1, NULL), -1);
    CHECK_STR_EQ(msg, "1e+20 is out of the exact integer range [-2^53, 2^53]");
    CHECK_INT_EQ(read_setting("1500ms", 1, "s"), -1);
    CHECK_STR_EQ(msg, "expected an integer, got 1.5");
    CHECK_INT_EQ(read_setting("2GiB", 0, "s"), -1);
    CHECK_STR_EQ(msg, "'2GiB': GiB (bytes) does not convert to s (time)");
    CHECK_INT_EQ(read_setting("3weeks", 1, NULL), -1);
    CHECK_STR_EQ(msg, "unknown unit 'weeks'");
    CHECK_INT_EQ(read_setting("0x1e", 1, NULL), -1);
    CHECK_STR_EQ(msg, "expected an integer");
    CHECK_INT_EQ(read_setting("eight", 1, NULL), -1);
    CHECK_STR_EQ(msg, "expected an integer");
    CHECK_INT_EQ(read_setting("inf", 0, NULL), -1);
    CHECK_STR_EQ(msg, "expected a finite number");
    CHECK_INT_EQ(read_setting("1e999", 0, NULL), -1);
    CHECK_STR_EQ(msg, "expected a finite number");
    CHECK_INT_EQ(read_setting("", 0, NULL), -1);
    CHECK_STR_EQ(msg, "expected a finite number");
}

static void test_number_text(void)
{
    char buf[32];
    CHECK_STR_EQ(units_number(3.5, buf), "3.5");
    CHECK_STR_EQ(units_number(0.1, buf), "0.1");
    CHECK_STR_EQ(units_number(1.3e-9, buf), "1.3e-09");
    CHECK_STR_EQ(units_number(0x1p60, buf), "1.152921504606847e+18");
    CHECK_STR_EQ(units_number(NAN, buf), "nan");
}

int main(void)
{
    test_time();
    test_bytes();
    test_rates();
    test_counts();
    test_bare_numbers();
    test_refused();
    test_overflow();
    test_split();
    test_exact_integer();
    test_exact_conversion();
    test_settings();
    test_number_text();
    return check_done("test_units");
}
