/* sweep_time: the times --since and --until take (`runner sweeps`, `rm`,
 * `history`, and the dashboard's /api/history), read into the UTC ISO 8601
 * text sweep.started_at compares with (docs/cli.md, the filters of `runner sweeps`). */
#include "base/sweep_time.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/util.h"

/* Digits then one of s, m, h, d: an age. */
static int parse_age(const char *text, double *seconds)
{
    size_t digits = strspn(text, "0123456789");
    if (digits == 0 || digits > 9 || !text[digits] || text[digits + 1])
        return -1;
    const char *units = "smhd";
    static const double unit_s[] = { 1, 60, 3600, 86400 };
    const char *u = strchr(units, text[digits]);
    if (!u)
        return -1;
    *seconds = atof(text) * unit_s[u - units];
    return 0;
}

/* 1 when the digits of text (a checked "dddd-dd-dd[Thh:mm[:ss]]" of len
 * characters) name a day and time that exist: text comparison with
 * started_at would take 2026-13-01 as later than every date of 2026. */
static int real_date_time(const char *text, size_t len)
{
    int year = atoi(text), month = atoi(text + 5), day = atoi(text + 8);
    static const int month_days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    if (month < 1 || month > 12 || day < 1)
        return 0;
    int leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    if (day > month_days[month - 1] + (month == 2 && leap))
        return 0;
    if (len >= 16 && (atoi(text + 11) > 23 || atoi(text + 14) > 59))
        return 0;
    return len < 19 || atoi(text + 17) <= 59;
}

/* TIME as --since and --until take it, into out as UTC ISO 8601 text that
 * compares with sweep.started_at: a date, a date and time (T or a blank
 * between, an optional Z), or an age before now. Returns 0, -1 when text
 * has none of these forms, or -2 when it names a day or time that does not
 * exist (2026-02-30, 25:00). */
int sweep_time_parse(const char *text, char out[32])
{
    static const char pattern[] = "dddd-dd-dd?dd:dd:dd"; /* d: a digit, ?: T or a blank */
    double age_s;
    if (parse_age(text, &age_s) == 0) {
        time_t t = (time_t)(util_now() - age_s);
        struct tm tm;
        return gmtime_r(&t, &tm) && strftime(out, 32, "%Y-%m-%dT%H:%M:%S", &tm) ? 0 : -1;
    }
    size_t n = strlen(text);
    if (n > 0 && text[n - 1] == 'Z')
        n--;
    if (n != 10 && n != 16 && n != 19)
        return -1;
    for (size_t i = 0; i < n; i++) {
        char p = pattern[i], c = text[i];
        if ((p == 'd' && (c < '0' || c > '9')) || (p == '?' && c != 'T' && c != ' ') ||
            (p != 'd' && p != '?' && c != p))
            return -1;
        out[i] = p == '?' ? 'T' : c;
    }
    out[n] = '\0';
    return real_date_time(out, n) ? 0 : -2;
}
