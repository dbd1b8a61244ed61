/* cli_history: `runner history --y COL [filters]`: one column's values
 * across the matching sweeps, ordered by commit (git's order when the
 * recorded repository is at hand, else start time), with the change points
 * changepoint.c finds; exit 1 on a regression past --tolerance, so CI can
 * gate on it (docs/analysis.md, "History across commits"). The options are
 * read and the answer printed here; analysis/history.c computes it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "base/exit_status.h"
#include "base/table.h"
#include "base/util.h"
#include "cli.h"
#include "render/render.h"
#include "store/store.h"

/* --plot FILE: one line each for the median, low and high of every group,
 * oldest first, x its position; the medians where a change starts
 * circled. */
static int draw_history(const char *y, const history *h, int by_commit, const char *output)
{
    plot_format format;
    plot_format_from_path(output, &format); /* checked before reading */
    static const char *const lines[3] = { "median", "low (95 %)", "high (95 %)" };
    size_t groups = h->rows->row_count;
    table *t = table_new(NULL);
    unsigned char *marked = calloc(3 * groups, 1);
    int bad = !t || !marked || table_add_column(t, "position", NULL, RUNNER_INTEGER, 0) != 0 ||
              table_add_column(t, y, NULL, RUNNER_REAL, 0) != 0 ||
              table_add_column(t, "line", NULL, RUNNER_TEXT, 0) != 0;
    for (size_t k = 0; !bad && k < 3; k++)
        for (size_t i = 0; !bad && i < groups; i++) {
            /* the rows' median, low and high: columns 3, 4, 5 */
            value row[3] = { value_integer((int64_t)i + 1),
                             value_real(table_cell(h->rows, i, 3 + k)->as.real),
                             value_text(lines[k]) };
            if ((bad = table_append_row(t, row) != 0))
                value_clear(&row[2]);
        }
    for (size_t c = 0; !bad && c < h->found; c++)
        marked[h->changes[c].at] = 1; /* the median line's rows come first */
    const char *first = table_cell(h->rows, 0, 0)->as.text;
    const char *last = table_cell(h->rows, groups - 1, 0)->as.text;
    char *title = util_format("history of %s: %s .. %s", y, first, last);
    char *xlabel = util_format("%s, oldest first (%s)", by_commit ? "commit" : "sweep",
                               h->git ? "git's commit order" : "start time");
    int status;
    if (bad || !title || !xlabel) {
        status = cli_fail(NULL);
    } else {
        plot_spec spec = { .x = "position",
                           .y = y,
                           .by = "line",
                           .title = title,
                           .xlabel = xlabel,
                           .marked = h->found ? marked : NULL,
                           .marked_title = "change" };
        status = cli_plot_draw(t, &spec, format, output);
    }
    free(title);
    free(xlabel);
    free(marked);
    table_free(t);
    return status;
}

int cli_history(const options_parsed *a)
{
    const option_value *v = a->values;
    const char *y = v[OPTION_HISTORY_Y].text;
    if (!y)
        return options_usage_error("%s", "history needs --y COLUMN");
    const char *plot_path = v[OPTION_HISTORY_PLOT].text;
    plot_format plot_as;
    if (plot_path && plot_format_from_path(plot_path, &plot_as) != 0)
        return options_usage_error("history: --plot %s: expected a file name ending in .svg or "
                                   ".png",
                                   plot_path);
    history_query q = {
        .y = y,
        .section = (int)v[OPTION_HISTORY_SECTION].integer,
        .by_commit = !v[OPTION_HISTORY_BY].text || !strcmp(v[OPTION_HISTORY_BY].text, "git_commit"),
        .tolerance = v[OPTION_HISTORY_TOLERANCE].seconds,
    };
    store_sweep_filter f;
    char since[32], until[32], *err = NULL;
    int status = cli_sweep_filter(a, &f, since, until);
    if (status != EXIT_OK)
        return status;
    store *s = NULL;
    history h = { 0 };
    if ((status = cli_open_existing(a->db_path, &s, 0)) != EXIT_OK)
        return status;
    int rc = history_compute(s, &f, &q, &h, &err);
    store_close(s);
    if (rc != 0)
        return cli_fail(err);
    output_format format = OUTPUT_TABLE;
    output_parse_format(v[OPTION_HISTORY_FORMAT].text, &format);
    if (table_view_print(stdout, h.rows, format,
                         output_terminal_width(stdout, v[OPTION_SHOW_WIDE].given)) != 0) {
        status = cli_fail(util_format("cannot print the history"));
        goto done;
    }
    if (format == OUTPUT_TABLE) {
        printf("%zu sweeps ordered by %s; %zu change%s\n", h.sweeps,
               h.git ? "git's commit order" : "start time (no git repository at hand)", h.found,
               h.found == 1 ? "" : "s");
        printf("(Mann-Whitney at alpha %.2g, Bonferroni; bootstrap 95 %% ratio intervals)\n",
               HISTORY_ALPHA);
        for (size_t k = 0; k < h.found; k++)
            printf("%s\n", h.sentences[k]);
    }
    if (plot_path && (status = draw_history(y, &h, q.by_commit, plot_path)) != EXIT_OK)
        goto done;
    status = h.regression ? EXIT_REGRESSION : EXIT_OK;
done:
    history_clear(&h);
    return status;
}
