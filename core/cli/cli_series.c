/* cli_series: runner plot --series NAME, a series recorded during the
 * points (docs/plots.md): its value by step, one line per point. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/exit_status.h"
#include "base/strbuf.h"
#include "base/util.h"
#include "cli.h"

/* "loss, lr, sys.cpu_cores" from store_series_names' table. */
static char *names_text(const table *names)
{
    strbuf b = { 0 };
    for (size_t r = 0; r < names->row_count; r++) {
        const value *v = table_cell(names, r, 0);
        strbuf_printf(&b, "%s%s", r ? ", " : "", v->type == RUNNER_TEXT ? v->as.text : "");
    }
    return b.oom ? NULL : b.data;
}

int cli_series_table(store *s, int64_t sweep_id, const char *name, table **out, plot_spec *spec)
{
    *out = NULL;
    table *names = NULL, *values = NULL, *t = NULL;
    char *err = NULL;
    int status = EXIT_USAGE;
    if (store_series_names(s, sweep_id, &names, &err) != 0 ||
        store_series_values(s, sweep_id, name, &values, &err) != 0) {
        status = cli_fail(err);
        goto done;
    }
    if (values->row_count == 0) {
        char *known = names_text(names);
        if (names->row_count == 0)
            fprintf(stderr,
                    "runner: sweep %lld has no series (a command prints RUNNER_SERIES lines, a "
                    "plugin calls host->series; see docs/command-experiments.md)\n",
                    (long long)sweep_id);
        else
            fprintf(stderr, "runner: sweep %lld has no series '%s' (it has: %s)\n",
                    (long long)sweep_id, name, known ? known : "");
        free(known);
        goto done;
    }
    /* point, step, value: one line per point. */
    t = table_new(name);
    if (!t || table_add_column(t, "point", "", RUNNER_INTEGER, 1) != 0 ||
        table_add_column(t, "step", "", RUNNER_REAL, 0) != 0 ||
        table_add_column(t, name, "", RUNNER_REAL, 0) != 0) {
        status = cli_fail(NULL);
        goto done;
    }
    for (size_t r = 0; r < values->row_count; r++) {
        const value *ordinal = table_cell(values, r, 1), *step = table_cell(values, r, 2),
                    *v = table_cell(values, r, 3);
        value row[3] = {
            value_integer(ordinal->type == RUNNER_INTEGER ? ordinal->as.integer : 0),
            value_real(step->type == RUNNER_REAL ? step->as.real : (double)step->as.integer),
            v->type == RUNNER_REAL      ? value_real(v->as.real)
            : v->type == RUNNER_INTEGER ? value_real((double)v->as.integer)
                                        : value_real(NAN),
        };
        if (table_append_row(t, row) != 0) {
            status = cli_fail(NULL);
            goto done;
        }
    }
    spec->x = "step";
    spec->y = name;
    spec->by = "point";
    *out = t;
    t = NULL;
    status = EXIT_OK;
done:
    table_free(names);
    table_free(values);
    table_free(t);
    return status;
}
