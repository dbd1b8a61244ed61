/* test_plot: output names, axis labels, column checks, skip notes, and a
 * real gnuplot render (when gnuplot is installed). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "render/plot.h"

static void test_format_from_path(void)
{
    plot_format f = PLOT_PNG;
    CHECK_INT_EQ(plot_format_from_path("speedup.svg", &f), 0);
    CHECK_INT_EQ(f, PLOT_SVG);
    CHECK_INT_EQ(plot_format_from_path("plots/Speedup.PNG", &f), 0);
    CHECK_INT_EQ(f, PLOT_PNG);
    CHECK_INT_EQ(plot_format_from_path("speedup.jpg", &f), -1);
    CHECK_INT_EQ(plot_format_from_path("speedup", &f), -1);
    CHECK_INT_EQ(plot_format_from_path(".svg", &f), -1); /* no name before the dot */
}

static void test_output_path(void)
{
    char why[160];
    CHECK_INT_EQ(plot_check_output_path("speedup.svg", why, sizeof why), 0);
    CHECK_INT_EQ(plot_check_output_path("plots/sub/speedup.png", why, sizeof why), 0);
    CHECK_INT_EQ(plot_check_output_path("plots/..svg", why, sizeof why), 0); /* a name, not ".." */
    CHECK_INT_EQ(plot_check_output_path("/tmp/x.svg", why, sizeof why), -1);
    CHECK_STR_EQ(why, "must be a relative path under the current directory");
    CHECK_INT_EQ(plot_check_output_path("../x.svg", why, sizeof why), -1);
    CHECK_STR_EQ(why, "must not contain empty, '.' or '..' components");
    CHECK_INT_EQ(plot_check_output_path("plots/../../x.svg", why, sizeof why), -1);
    CHECK_INT_EQ(plot_check_output_path("./x.svg", why, sizeof why), -1);
    CHECK_INT_EQ(plot_check_output_path("plots//x.svg", why, sizeof why), -1);
    CHECK_INT_EQ(plot_check_output_path("plots/x.pdf", why, sizeof why), -1);
    CHECK_STR_EQ(why, "must end in .svg or .png");
    CHECK_INT_EQ(plot_check_output_path("plots/", why, sizeof why), -1);
    CHECK_INT_EQ(plot_check_output_path("", why, sizeof why), -1);
    CHECK_STR_EQ(why, "the path is empty");
}

static void test_axis_label(void)
{
    table_column with_unit = { .name = "wait_s", .unit = "s" };
    table_column same = { .name = "workers", .unit = "workers" };
    table_column none = { .name = "speedup", .unit = "" };
    char *a = plot_axis_label(&with_unit), *b = plot_axis_label(&same), *c = plot_axis_label(&none);
    CHECK_STR_EQ(a, "wait_s [s]");
    CHECK_STR_EQ(b, "workers");
    CHECK_STR_EQ(c, "speedup");
    free(a);
    free(b);
    free(c);
}

/* A speedup-like table: workers x jitter, wait_s and speedup outputs, and a
 * karp_flatt that is NaN at one worker. */
static table *speedup_table(void)
{
    static const int64_t workers[] = { 1, 8, 64, 512 };
    static const double jitters[] = { 2.0, 0.5 };
    table *t = table_new("speedup test");
    table_add_column(t, "base", "s", RUNNER_REAL, 1);
    table_add_column(t, "jitter", "s", RUNNER_REAL, 1);
    table_add_column(t, "workers", "workers", RUNNER_INTEGER, 1);
    table_add_column(t, "wait_s", "s", RUNNER_REAL, 0);
    table_add_column(t, "speedup", "", RUNNER_REAL, 0);
    table_add_column(t, "karp_flatt", "fraction", RUNNER_REAL, 0);
    table_add_column(t, "model", "", RUNNER_TEXT, 0);
    for (size_t j = 0; j < 2; j++) {
        for (size_t w = 0; w < 4; w++) {
            double k = (double)workers[w], J = jitters[j];
            double wait = J * k / (k + 1), t1 = 30 + J / 2;
            double s = t1 / (30 / k + wait);
            value row[7] = {
                value_real(30),
                value_real(J),
                value_integer(workers[w]),
                value_real(wait),
                value_real(s),
                value_real(k == 1 ? NAN : (1 / s - 1 / k) / (1 - 1 / k)),
                value_text("walkthrough"),
            };
            table_append_row(t, row);
        }
    }
    return t;
}

static void test_check_spec(void)
{
    table *t = speedup_table();
    char *err = NULL;
    plot_spec ok = { .x = "workers", .y = "speedup", .by = "jitter" };
    CHECK_INT_EQ(plot_check_spec(t, &ok, &err), 0);
    plot_spec typo = { .x = "workers", .y = "speedupp" };
    CHECK_INT_EQ(plot_check_spec(t, &typo, &err), -1);
    CHECK_STR_EQ(err, "no column 'speedupp' (did you mean 'speedup'?); its columns: base, "
                      "jitter, workers, wait_s, speedup, karp_flatt, model");
    free(err);
    err = NULL;
    plot_spec text = { .x = "model", .y = "speedup" };
    CHECK_INT_EQ(plot_check_spec(t, &text, &err), -1);
    CHECK_STR_EQ(err, "column 'model' is text; x and y need numbers (a text column can be the "
                      "'by' column)");
    free(err);
    err = NULL;
    plot_spec by_text = { .x = "workers", .y = "speedup", .by = "model" };
    CHECK_INT_EQ(plot_check_spec(t, &by_text, &err), 0);
    table_free(t);
}

static void test_skip_note(void)
{
    plot_spec spec = { .x = "workers", .y = "karp_flatt", .logx = 1 };
    plot_image image = { .rows = 24 };
    CHECK(plot_skip_note(&spec, &image) == NULL);
    image.skipped_nonfinite = 3;
    char *note = plot_skip_note(&spec, &image);
    CHECK_STR_EQ(note, "skipped 3 of 24 rows: 3 where workers or karp_flatt is NaN or infinite");
    free(note);
    image.skipped_nonpositive = 2;
    note = plot_skip_note(&spec, &image);
    CHECK_STR_EQ(note, "skipped 5 of 24 rows: 3 where workers or karp_flatt is NaN or infinite, "
                       "2 where workers is not positive (log scale)");
    free(note);
}

static int have_gnuplot(void) { return system("command -v gnuplot >/dev/null 2>&1") == 0; }

/* Set when the render checks were skipped: the program then exits 77
 * (ctest: skipped), or fails under `make test`, which installs gnuplot and
 * sets RUNNER_TEST_REQUIRE_TOOLS (tests/e2e/lib.sh skip_without). */
static int render_skipped;

static void test_render(void)
{
    table *t = speedup_table();
    plot_spec spec = { .x = "workers", .y = "karp_flatt", .by = "jitter", .logx = 1 };
    plot_image image;
    char *err = NULL;
    if (!have_gnuplot()) {
        const char *required = getenv("RUNNER_TEST_REQUIRE_TOOLS");
        if (required && *required) {
            fprintf(stderr, "test_plot: gnuplot is required under make test "
                            "(RUNNER_TEST_REQUIRE_TOOLS is set); render checks not run\n");
            CHECK(have_gnuplot());
        } else {
            printf("test_plot: gnuplot not installed; render checks skipped\n");
            render_skipped = 1;
        }
        table_free(t);
        return;
    }
    CHECK_INT_EQ(plot_render(t, &spec, PLOT_SVG, &image, &err), 0);
    CHECK(err == NULL);
    CHECK_INT_EQ(image.rows, 8);
    CHECK_INT_EQ(image.skipped_nonfinite, 2); /* NaN at one worker, per jitter */
    CHECK_INT_EQ(image.plotted, 6);
    CHECK_INT_EQ(image.lines, 2);
    CHECK(image.data && strstr(image.data, "<svg") != NULL);
    CHECK(image.data && strstr(image.data, "<text>karp_flatt [fraction]</text>") != NULL);
    CHECK(image.data && strstr(image.data, "<text>jitter = 0.5 s</text>") != NULL);
    CHECK(image.data && strstr(image.data, "<text>speedup test</text>") != NULL);
    plot_image_free(&image);
    CHECK(image.data == NULL);

    plot_spec png = { .x = "workers", .y = "speedup" };
    CHECK_INT_EQ(plot_render(t, &png, PLOT_PNG, &image, &err), 0);
    CHECK(image.size > 8 && memcmp(image.data, "\x89PNG\r\n\x1a\n", 8) == 0);
    plot_image_free(&image);

    /* Nothing left to draw is an error, not an empty picture. */
    plot_spec nothing = { .x = "workers", .y = "karp_flatt", .logy = 1 };
    table *one = table_new("one");
    table_add_column(one, "workers", "", RUNNER_INTEGER, 1);
    table_add_column(one, "karp_flatt", "", RUNNER_REAL, 0);
    value row[2] = { value_integer(1), value_real(NAN) };
    table_append_row(one, row);
    CHECK_INT_EQ(plot_render(one, &nothing, PLOT_SVG, &image, &err), -1);
    CHECK_STR_EQ(err, "nothing to plot: none of the 1 rows has a finite workers and karp_flatt "
                      "(positive on a log axis)");
    free(err);
    err = NULL;
    table_free(one);

    /* No gnuplot on PATH. */
    const char *path = getenv("PATH");
    char *saved = path ? strdup(path) : NULL;
    setenv("PATH", "/nonexistent", 1);
    CHECK_INT_EQ(plot_render(t, &spec, PLOT_SVG, &image, &err), PLOT_NO_GNUPLOT);
    CHECK_STR_EQ(err, PLOT_NO_GNUPLOT_MESSAGE);
    free(err);
    if (saved)
        setenv("PATH", saved, 1);
    free(saved);
    table_free(t);
}

/* Lines: 30 groups keep 12, evenly spaced with first and last; points: a
 * line of 10 000 keeps the lowest and highest y of each column, in x order;
 * small inputs are left alone. */
static void test_reduce(void)
{
    size_t count = 30 * 10, kept[PLOT_MAX_LINES];
    plot_point *points = calloc(count, sizeof *points);
    for (size_t i = 0; i < count; i++)
        points[i] = (plot_point){ .group = i / 10, .order = i, .x = (double)(i % 10), .y = 1 };
    plot_reduction r;
    plot_reduce_lines(points, &count, 30, kept, &r);
    CHECK_INT_EQ(r.lines_drawn, PLOT_MAX_LINES);
    CHECK_INT_EQ(count, PLOT_MAX_LINES * 10);
    CHECK_INT_EQ(kept[0], 0);
    CHECK_INT_EQ(kept[1], 3); /* 29 / 11 = 2.6, rounded */
    CHECK_INT_EQ(kept[PLOT_MAX_LINES - 1], 29);
    CHECK_INT_EQ(points[count - 1].group, PLOT_MAX_LINES - 1);
    plot_reduce_points(points, &count, 0, 800, &r);
    CHECK_INT_EQ(r.columns, 0); /* 120 points: under the budget */
    char *note = plot_reduce_note(&r, "jitter");
    CHECK_STR_EQ(note, "12 of 30 lines drawn (evenly spaced by jitter)");
    free(note);
    free(points);

    count = 10000;
    points = calloc(count, sizeof *points);
    for (size_t i = 0; i < count; i++)
        points[i] =
            (plot_point){ .order = i, .x = (double)i, .y = i == 4321 ? 1e9 : (double)(i % 7) };
    plot_reduce_lines(points, &count, 1, kept, &r);
    plot_reduce_points(points, &count, 0, 100, &r);
    CHECK_INT_EQ(r.columns, 100); /* the width caps the budget's 3000 */
    CHECK_INT_EQ(count, 200);
    int spike = 0, sorted = 1;
    for (size_t i = 0; i < count; i++) {
        spike |= points[i].y == 1e9;
        if (i > 0 && points[i].x < points[i - 1].x)
            sorted = 0;
    }
    CHECK(spike);
    CHECK(sorted);
    note = plot_reduce_note(&r, NULL);
    CHECK_STR_EQ(
        note, "200 of 10000 points drawn (lowest and highest y in each of 100 x-columns per line)");
    free(note);
    free(points);
    CHECK(plot_reduce_note(&(plot_reduction){ .lines_total = 3, .lines_drawn = 3 }, "x") == NULL);
}

int main(void)
{
    test_format_from_path();
    test_output_path();
    test_axis_label();
    test_check_spec();
    test_skip_note();
    test_render();
    test_reduce();
    int failures = check_done("test_plot");
    return failures == 0 && render_skipped ? 77 : failures;
}
