/* cli_sensitivity: `runner sensitivity SWEEP --y COL`: which parameters
 * drive an output. Reads a section made by design.saltelli, estimates each
 * varying parameter's first-order and total Sobol index with bootstrap
 * intervals (analysis/sensitivity.c), stores them (sensitivity tables) and
 * prints one row per parameter, largest total first. */
#include "base/exit_status.h"
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "base/table.h"
#include "base/util.h"
#include "render/render.h"
#include "store/store.h"

/* The section: --section N, else the first whose columns hold y. */
static int pick_section(store *s, int64_t sweep_id, const int64_t *ids, size_t count,
                        const options_parsed *a, int64_t *section_id, size_t *ordinal)
{
    const option_value *given = &a->values[OPTION_SENS_SECTION];
    if (given->given && given->integer > count) {
        cli_error("sensitivity: sweep %lld has %zu section%s; --section %llu is out of "
                  "range",
                  (long long)sweep_id, count, count == 1 ? "" : "s",
                  (unsigned long long)given->integer);
        return EXIT_USAGE;
    }
    size_t chosen = given->given ? (size_t)given->integer - 1 : 0;
    for (size_t i = 0; !given->given && i < count; i++) {
        table *cols = NULL;
        char *plugin = NULL, *err = NULL;
        if (store_section_columns(s, ids[i], &cols, &plugin, &err) != 0)
            return cli_fail(err);
        int has = table_find_column(cols, a->values[OPTION_SENS_Y].text) >= 0;
        table_free(cols);
        free(plugin);
        if (has) {
            chosen = i;
            break;
        }
    }
    *section_id = ids[chosen];
    *ordinal = chosen + 1;
    return EXIT_OK;
}

typedef struct by_total {
    const sensitivity_index *x;
    size_t i;
} by_total;

static int compare_total(const void *pa, const void *pb)
{
    const by_total *a = pa, *b = pb;
    if (a->x->total != b->x->total)
        return a->x->total > b->x->total ? -1 : 1;
    return (a->i > b->i) - (a->i < b->i);
}

/* One row per parameter, largest total index first. */
static table *result_table(const sensitivity_answer *ans, const char *y, int64_t sweep_id,
                           size_t ordinal)
{
    char *title = util_format("sensitivity of %s (sweep %lld, section %zu): %zu blocks of %zu "
                              "points, %zu bootstrap resamples",
                              y, (long long)sweep_id, ordinal, ans->result.n_base, ans->data.d + 2,
                              ans->result.bootstrap);
    table *t = title ? table_new(title) : NULL;
    free(title);
    by_total *order = calloc(ans->data.d, sizeof *order);
    static const char *const names[] = { "first_order", "first_low", "first_high",
                                         "total",       "total_low", "total_high" };
    int ok = t && order && table_add_column(t, "parameter", "", RUNNER_TEXT, 1) == 0;
    for (size_t c = 0; ok && c < 6; c++) {
        ok = table_add_column(t, names[c], "", RUNNER_REAL, 0) == 0;
    }
    for (size_t i = 0; ok && i < ans->data.d; i++)
        order[i] = (by_total){ &ans->result.indices[i], i };
    if (ok)
        qsort(order, ans->data.d, sizeof *order, compare_total);
    for (size_t k = 0; ok && k < ans->data.d; k++) {
        const sensitivity_index *x = order[k].x;
        value row[7] = {
            value_text(ans->data.names[order[k].i]),
            value_real(x->first),
            value_real(x->first_low),
            value_real(x->first_high),
            value_real(x->total),
            value_real(x->total_low),
            value_real(x->total_high),
        };
        ok = table_append_row(t, row) == 0;
        for (size_t c = 0; c < 7; c++)
            value_clear(&row[c]);
    }
    free(order);
    if (!ok) {
        table_free(t);
        return NULL;
    }
    return t;
}

int cli_sensitivity(const options_parsed *a)
{
    const option_value *v = a->values;
    int64_t sweep_id, section_id = 0;
    int last;
    int status = options_resolve_sweep(a->command, a->positional, 1, &sweep_id, &last);
    if (status != EXIT_OK)
        return status;
    if (!v[OPTION_SENS_Y].text)
        return options_usage_error("%s", "sensitivity needs --y COLUMN");
    store *s = NULL;
    int64_t *ids = NULL;
    size_t count = 0, ordinal = 0;
    char *err = NULL;
    table *t = NULL;
    sensitivity_answer ans = { 0 };
    /* The indices are stored: opened for writing, like fit. */
    if ((status = cli_open_sweep_as(a, 1, &s, &sweep_id, &ids, &count)) != EXIT_OK)
        goto done;
    if ((status = pick_section(s, sweep_id, ids, count, a, &section_id, &ordinal)) != EXIT_OK)
        goto done;
    sensitivity_options options = { .bootstrap = (size_t)v[OPTION_SENS_BOOTSTRAP].integer,
                                    .seed = v[OPTION_SENS_SEED].integer };
    int again = v[OPTION_ANSWER_AGAIN].given ? STORE_ANSWER_AGAIN : STORE_ANSWER_KEEP;
    if (sensitivity_answer_section(s, sweep_id, section_id, v[OPTION_SENS_Y].text, &options, again,
                                   &ans, &err) != 0) {
        cli_error("sensitivity: sweep %lld, section %zu: %s", (long long)sweep_id, ordinal,
                  err ? err : "failed");
        free(err);
        status = EXIT_USAGE;
        goto done;
    }
    if (ans.data.excluded)
        cli_error("sensitivity: %zu block%s excluded (NaN, inf or empty %s)", ans.data.excluded,
                  ans.data.excluded == 1 ? "" : "s", v[OPTION_SENS_Y].text);
    output_format format = OUTPUT_TABLE;
    output_parse_format(v[OPTION_SENS_FORMAT].text, &format);
    if (!(t = result_table(&ans, v[OPTION_SENS_Y].text, sweep_id, ordinal))) {
        status = cli_fail(NULL);
        goto done;
    }
    if (table_view_print(stdout, t, format,
                         output_terminal_width(stdout, v[OPTION_SHOW_WIDE].given)) != 0) {
        status = cli_fail(util_format("cannot print the indices"));
        goto done;
    }
    if (format == OUTPUT_TABLE && ans.kept)
        printf("as stored in sensitivity %lld, which read the same rows (--again estimates "
               "anew and replaces it)\n",
               (long long)ans.id);
    else if (format == OUTPUT_TABLE)
        printf("stored as sensitivity %lld (sensitivity_index holds these; docs/analysis.md)\n",
               (long long)ans.id);
done:
    table_free(t);
    sensitivity_answer_clear(&ans);
    free(ids);
    store_close(s);
    return status;
}
