/* test_table_view: the one width rule for printed tables (table_view.h):
 * a real column's digits, constants folded, and no line longer than the
 * width asked for. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "render/table_view.h"

static int digits_of(const double *values, size_t n)
{
    double copy[16];
    memcpy(copy, values, n * sizeof *values);
    return table_view_digits(copy, n);
}

static void test_digits(void)
{
    /* 4 digits tell them apart; never fewer (30.25 is not 30.3) */
    static const double thirds[] = { 1.3333333, 1.6, 0.0537634, 30.25 };
    CHECK_INT_EQ(digits_of(thirds, 4), 4);
    /* 1.00001 and 1.00002 need 6; NaN and inf are not counted */
    static const double close[] = { 1.00001, 1.00002, NAN, INFINITY };
    CHECK_INT_EQ(digits_of(close, 4), 6);
    /* 1.02917 and 1.02947 differ at 5 digits only */
    static const double five[] = { 1.02917, 1.02947, 1.021 };
    CHECK_INT_EQ(digits_of(five, 3), 5);
    static const double none[] = { NAN };
    CHECK_INT_EQ(digits_of(none, 1), 4);
    CHECK_INT_EQ(digits_of(none, 0), 4);
}

/* A wide table printed at 40 columns: every line fits, the constant
 * column is folded, the columns left out are named. */
static void test_width(void)
{
    table *t = table_new("a title long enough to be wrapped between its words here");
    table_add_column(t, "point", "", RUNNER_TEXT, 1);
    table_add_column(t, "plugin", "", RUNNER_TEXT, 1);
    table_add_column(t, "mean_a", "s", RUNNER_REAL, 0);
    table_add_column(t, "mean_b", "s", RUNNER_REAL, 0);
    table_add_column(t, "ratio_low", "", RUNNER_REAL, 0);
    table_add_column(t, "ratio_high", "", RUNNER_REAL, 0);
    for (int r = 0; r < 3; r++) {
        value row[6] = { value_text(r == 0   ? "{\"size\":1}"
                                    : r == 1 ? "{\"size\":2}"
                                             : "{\"size\":3}"),
                         value_text("noisy"),
                         value_real(1.0 + r / 3.0),
                         value_real(2.0 + r / 7.0),
                         value_real(0.9 + r / 100.0),
                         value_real(1.1 + r / 100.0) };
        CHECK_INT_EQ(table_append_row(t, row), 0);
    }
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    CHECK_INT_EQ(table_view_print(out, t, OUTPUT_TABLE, 40), 0);
    fclose(out);
    CHECK(strstr(text, "  plugin = noisy\n") != NULL);
    CHECK(strstr(text, "more columns, --wide") != NULL);
    CHECK(strstr(text, "1.333") != NULL && strstr(text, "1.33333") == NULL);
    size_t longest = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        size_t n = 0;
        for (const char *s = line; *s; s++)
            n += ((unsigned char)*s & 0xc0) != 0x80;
        if (n > longest)
            longest = n;
    }
    CHECK(longest <= 40);
    free(text);
    /* CSV keeps every digit */
    text = NULL;
    out = open_memstream(&text, &size);
    CHECK_INT_EQ(table_view_print(out, t, OUTPUT_CSV, 40), 0);
    fclose(out);
    CHECK(strstr(text, "1.3333333333333333") != NULL);
    free(text);
    table_free(t);
}

int main(void)
{
    test_digits();
    test_width();
    return check_done("test_table_view");
}
