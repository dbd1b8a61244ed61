/* test_section_view: the one rule for what a section shows first
 * (section_view.h), on tables built by hand: which columns are shown and in
 * what order, what is folded into one line, and the default plot. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "render/section_view.h"

/* The rule applied to every row of t. */
static int view_of(section_view *v, table_facts *facts, const table *t, const char *plugin)
{
    if (table_facts_of_table(facts, t) != 0)
        return -2;
    return section_view_init(v, t, facts, plugin);
}

/* The shown columns' names, space-separated, into buf. */
static const char *shown_names(const section_view *v, const table *t, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = 0;
    for (size_t i = 0; i < v->shown_count; i++)
        used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? " " : "",
                                 t->columns[v->shown[i]].name);
    return buf;
}

/* A speedup-like sweep: workers x jitter, constant base and trials, a
 * constant model text and a constant ceiling among the results. */
static table *speedup_table(void)
{
    static const int64_t workers[] = { 1, 8, 64, 512 };
    static const double jitters[] = { 2.0, 0.5 };
    table *t = table_new("speedup");
    table_add_column(t, "base", "s", RUNNER_REAL, 1);
    table_add_column(t, "jitter", "s", RUNNER_REAL, 1);
    table_add_column(t, "workers", "workers", RUNNER_INTEGER, 1);
    table_add_column(t, "trials", "rounds", RUNNER_INTEGER, 1);
    table_add_column(t, "wait_s", "s", RUNNER_REAL, 0);
    table_add_column(t, "ceiling", "", RUNNER_REAL, 0);
    table_add_column(t, "speedup", "", RUNNER_REAL, 0);
    table_add_column(t, "model", "", RUNNER_TEXT, 0);
    for (size_t j = 0; j < 2; j++) {
        for (size_t w = 0; w < 4; w++) {
            double k = (double)workers[w], J = jitters[j];
            double wait = J * k / (k + 1), t1 = 30 + J / 2;
            value row[8] = { value_real(30),
                             value_real(J),
                             value_integer(workers[w]),
                             value_integer(4000),
                             value_real(wait),
                             value_real(15.5),
                             value_real(t1 / (30 / k + wait)),
                             value_text("exact") };
            table_append_row(t, row);
        }
    }
    return t;
}

static void test_order_and_folding(void)
{
    table *t = speedup_table();
    table_facts facts;
    section_view v;
    char names[256];
    CHECK_INT_EQ(view_of(&v, &facts, t, "speedup"), 0);
    /* Varying parameters, then varying results, the plugin's own first. */
    CHECK_STR_EQ(shown_names(&v, t, names, sizeof names), "jitter workers speedup wait_s");
    char *line = section_view_folded_line(&v, t, &facts);
    CHECK_STR_EQ(line, "base = 30 s \xc2\xb7 trials = 4000 rounds \xc2\xb7 ceiling = 15.5 "
                       "\xc2\xb7 model = exact");
    free(line);
    section_view_clear(&v);
    table_facts_clear(&facts);

    /* A NULL (nothing recorded) is "none", without a unit. */
    value none = VALUE_NULL;
    char setting[64];
    section_view_setting(t, 4, &none, setting, sizeof setting);
    CHECK_STR_EQ(setting, "wait_s = none");

    /* Another plugin: results in table order. */
    CHECK_INT_EQ(view_of(&v, &facts, t, "other"), 0);
    CHECK_STR_EQ(shown_names(&v, t, names, sizeof names), "jitter workers wait_s speedup");
    section_view_clear(&v);
    table_facts_clear(&facts);
    table_free(t);
}

static void test_default_plot(void)
{
    table *t = speedup_table();
    table_facts facts;
    section_view v;
    plot_spec spec = { 0 };
    CHECK_INT_EQ(view_of(&v, &facts, t, "speedup"), 0);
    CHECK_INT_EQ(section_view_plot(&v, t, &spec), 0);
    CHECK_STR_EQ(spec.x, "workers"); /* 4 values against jitter's 2 */
    CHECK_STR_EQ(spec.y, "speedup"); /* the first varying result */
    CHECK_STR_EQ(spec.by, "jitter"); /* the next varying parameter */
    CHECK_INT_EQ(spec.logx, 1);      /* 1 .. 512: more than two decades */
    CHECK_INT_EQ(spec.logy, 0);      /* 1 .. 15 */
    section_view_clear(&v);
    table_facts_clear(&facts);
    table_free(t);

    /* Two decades exactly is log; less is not; a zero never is. */
    static const double spans[][3] = { { 1, 10, 100 }, { 1, 10, 99 }, { 0, 10, 1000 } };
    for (size_t s = 0; s < 3; s++) {
        table *d = table_new("decades");
        table_add_column(d, "n", "", RUNNER_REAL, 1);
        table_add_column(d, "y", "", RUNNER_REAL, 0);
        for (size_t r = 0; r < 3; r++) {
            value row[2] = { value_real(spans[s][r]), value_real(spans[s][r]) };
            table_append_row(d, row);
        }
        CHECK_INT_EQ(view_of(&v, &facts, d, NULL), 0);
        CHECK_INT_EQ(v.logx, s == 0);
        CHECK_INT_EQ(v.logy, s == 0);
        section_view_clear(&v);
        table_facts_clear(&facts);
        table_free(d);
    }
}

/* comm-like: one parameter varies; a text result splits each x in two. */
static void test_by_text_result(void)
{
    table *comm = table_new("comm");
    table_add_column(comm, "workers", "workers", RUNNER_INTEGER, 1);
    table_add_column(comm, "scheme", "", RUNNER_TEXT, 0);
    table_add_column(comm, "bytes_per_round", "bytes", RUNNER_INTEGER, 0);
    static const int64_t k[] = { 8, 64 };
    for (size_t i = 0; i < 2; i++) {
        value ps[3] = { value_integer(k[i]), value_text("ps"), value_integer(8000000 * k[i]) };
        value ring[3] = { value_integer(k[i]), value_text("ring"),
                          value_integer(8000000 * (k[i] - 1) / k[i]) };
        table_append_row(comm, ps);
        table_append_row(comm, ring);
    }
    table_facts facts;
    section_view v;
    plot_spec spec = { 0 };
    CHECK_INT_EQ(view_of(&v, &facts, comm, "comm"), 0);
    CHECK_INT_EQ(section_view_plot(&v, comm, &spec), 0);
    CHECK_STR_EQ(spec.x, "workers");
    CHECK_STR_EQ(spec.y, "bytes_per_round");
    CHECK_STR_EQ(spec.by, "scheme");
    CHECK_INT_EQ(spec.logx, 0); /* 8 .. 64 */
    section_view_clear(&v);
    table_facts_clear(&facts);
    table_free(comm);
}

/* A parameter with more values is x even when it comes later. */
static void test_x_most_values(void)
{
    table *t = table_new("grid");
    table_add_column(t, "a", "", RUNNER_INTEGER, 1);
    table_add_column(t, "b", "s", RUNNER_REAL, 1);
    table_add_column(t, "c", "", RUNNER_INTEGER, 1);
    table_add_column(t, "out", "", RUNNER_REAL, 0);
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 5; b++) {
            value row[4] = { value_integer(a), value_real(b * 0.5), value_integer(7),
                             value_real(a + b) };
            table_append_row(t, row);
        }
    table_facts facts;
    section_view v;
    CHECK_INT_EQ(view_of(&v, &facts, t, NULL), 0);
    CHECK_STR_EQ(t->columns[v.x].name, "b");
    CHECK_STR_EQ(t->columns[v.y].name, "out");
    CHECK_STR_EQ(t->columns[v.by].name, "a");
    CHECK_INT_EQ(v.folded_count, 1);
    CHECK_STR_EQ(t->columns[v.folded[0]].name, "c");
    section_view_clear(&v);
    table_facts_clear(&facts);
    table_free(t);
}

/* Appends (law, k, wait). */
static void add_law(table *t, const char *law, int64_t k, double wait)
{
    value row[3] = { value_text(law), value_integer(k), value_real(wait) };
    table_append_row(t, row);
}

static table *law_table(const char *title)
{
    table *t = table_new(title);
    table_add_column(t, "law", "", RUNNER_TEXT, 1);
    table_add_column(t, "k", "", RUNNER_INTEGER, 1);
    table_add_column(t, "wait", "s", RUNNER_REAL, 0);
    return t;
}

/* Big grids: distinct values are counted up to a cap, so two parameters
 * can tie; an integer one (workers) is x before a real one. */
static void test_x_tie(void)
{
    table *t = table_new("big");
    table_add_column(t, "jitter", "s", RUNNER_REAL, 1);
    table_add_column(t, "workers", "", RUNNER_INTEGER, 1);
    table_add_column(t, "speedup", "", RUNNER_REAL, 0);
    for (int j = 0; j < 20; j++)
        for (int w = 1; w <= 20; w++) {
            value row[3] = { value_real(0.1 * (j + 1)), value_integer(w),
                             value_real(w / (1 + 0.1 * j * w)) };
            table_append_row(t, row);
        }
    table_facts facts;
    section_view v;
    CHECK_INT_EQ(view_of(&v, &facts, t, "speedup"), 0);
    CHECK_STR_EQ(t->columns[v.x].name, "workers");
    CHECK_INT_EQ(v.by, -1); /* 20 jitters: more lines than a legend can take */
    section_view_clear(&v);
    table_facts_clear(&facts);
    table_free(t);
}

/* Nothing to plot, and a sentence saying why. */
static void test_no_plot(void)
{
    table_facts facts;
    section_view v;
    plot_spec spec = { 0 };
    char names[256];

    /* Only a text parameter varies (stragglers' law). */
    table *laws = law_table("laws");
    add_law(laws, "uniform", 64, 1.9);
    add_law(laws, "pareto", 64, 4.7);
    CHECK_INT_EQ(view_of(&v, &facts, laws, NULL), 0);
    CHECK_INT_EQ(section_view_plot(&v, laws, &spec), -1);
    CHECK_STR_EQ(v.why, "no numeric parameter varies (law: not numbers)");
    CHECK_STR_EQ(shown_names(&v, laws, names, sizeof names), "law wait");
    section_view_clear(&v);
    table_facts_clear(&facts);

    /* One row: every column shown, nothing folded. */
    table *one = law_table("one");
    add_law(one, "uniform", 64, 1.9);
    CHECK_INT_EQ(view_of(&v, &facts, one, NULL), 0);
    CHECK_STR_EQ(shown_names(&v, one, names, sizeof names), "law k wait");
    CHECK_INT_EQ(v.folded_count, 0);
    CHECK_STR_EQ(v.why, "one row: nothing to compare");
    char *line = section_view_folded_line(&v, one, &facts);
    CHECK_STR_EQ(line, "");
    free(line);
    section_view_clear(&v);
    table_facts_clear(&facts);

    /* Two equal rows: everything folded, nothing shown. */
    add_law(one, "uniform", 64, 1.9);
    CHECK_INT_EQ(view_of(&v, &facts, one, NULL), 0);
    CHECK_INT_EQ(v.shown_count, 0);
    CHECK_INT_EQ(v.folded_count, 3);
    CHECK_STR_EQ(v.why, "nothing varies across the 2 rows");
    section_view_clear(&v);
    table_facts_clear(&facts);

    /* Parameters vary but no numeric result does. */
    table *flat = law_table("flat");
    add_law(flat, "uniform", 64, 1.9);
    add_law(flat, "pareto", 8, 1.9);
    CHECK_INT_EQ(view_of(&v, &facts, flat, NULL), 0);
    CHECK_INT_EQ(section_view_plot(&v, flat, &spec), -1);
    CHECK_STR_EQ(v.why, "no numeric result varies across the 2 rows");
    section_view_clear(&v);
    table_facts_clear(&facts);
    table_free(flat);
    table_free(one);
    table_free(laws);
}

int main(void)
{
    test_order_and_folding();
    test_default_plot();
    test_by_text_result();
    test_x_most_values();
    test_x_tie();
    test_no_plot();
    return check_done("test_section_view");
}
