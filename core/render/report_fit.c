/* report_fit: a section's stored fits on the report page (report_int.h):
 * the fitted curves over the points, and each fit's quantities with their
 * 95 % intervals, as `runner fit` printed them. */
#include "report_int.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/util.h"
#include "plot.h"
#include "plot_fit.h"
#include "report.h"
#include "plot_load.h"
#include "section_columns.h"

#define FIT_PLOT_WIDTH 900
#define FIT_PLOT_HEIGHT 420

#define H(text) report_escape_html(out, (text))

static void put_number(FILE *out, const value *v)
{
    char text[64];
    if (v->type == 0) {
        fputs("<td class=\"num\"></td>", out);
        return;
    }
    value_format(v, 6, text, sizeof text);
    fputs("<td class=\"num\">", out);
    H(text);
    fputs("</td>", out);
}

/* One fit's quantities: name, value, stderr, interval, unit. */
static int write_params(FILE *out, store *s, int64_t fit_id, const char *caption, char **err)
{
    table *t = NULL;
    if (store_fit_params(s, fit_id, &t, err) != 0)
        return -1;
    fputs("<table>\n<caption>", out);
    H(caption);
    fputs("</caption>\n<tr><th>quantity</th><th>value</th><th>stderr</th><th>ci95_low</th>"
          "<th>ci95_high</th><th>unit</th></tr>\n",
          out);
    for (size_t r = 0; r < t->row_count; r++) {
        const value *name = table_cell(t, r, 0), *unit = table_cell(t, r, 6);
        fputs("<tr><td>", out);
        H(name->type == RUNNER_TEXT ? name->as.text : "");
        fputs("</td>", out);
        for (size_t c = 2; c < 6; c++)
            put_number(out, table_cell(t, r, c));
        fputs("<td>", out);
        H(unit->type == RUNNER_TEXT ? unit->as.text : "");
        fputs("</td></tr>\n", out);
    }
    fputs("</table>\n", out);
    table_free(t);
    return 0;
}

static void write_plot(FILE *out, store *s, int64_t sweep_id, int64_t section_id,
                       const char *plugin, const table *head, const plot_fit_set *fits,
                       size_t ordinal, int *gnuplot_missing)
{
    if (*gnuplot_missing)
        return;
    plot_spec spec = { .x = fits->x,
                       .y = fits->y,
                       .by = fits->by,
                       .curves = fits->curves,
                       .curve_count = fits->count,
                       .width = FIT_PLOT_WIDTH,
                       .height = FIT_PLOT_HEIGHT };
    char *title = util_format("%s fit of %s against %s", fits->model, fits->y, fits->x);
    spec.title = title;
    plot_preload preload;
    table *t = NULL;
    plot_image image = { 0 };
    char *err = NULL;
    int rc = plot_load_section(s, section_id, plugin, head, &spec, &t, &preload, &err);
    spec.preload = &preload;
    if (rc == 0)
        rc = plot_render(t, &spec, PLOT_SVG, &image, &err);
    if (rc == PLOT_NO_GNUPLOT) {
        *gnuplot_missing = 1;
    } else if (rc != 0) {
        log_print(LOG_LEVEL_WARN, "runner: report: section %zu, fit %" PRId64 ": %s\n", ordinal,
                  fits->first_id, err ? err : "plot failed");
        fputs("<p class=\"note\">No plot of the fit: ", out);
        H(err);
        fputs("</p>\n", out);
    } else {
        char prefix[48];
        snprintf(prefix, sizeof prefix, "s%zu-f%" PRId64 "-", ordinal, fits->first_id);
        fputs("<figure>\n", out);
        report_put_svg(out, image.data, prefix);
        fprintf(out,
                "\n<figcaption>Dashed: the fitted curves. Redraw with <code>runner plot "
                "%" PRId64 " --fit %" PRId64 " -o fit.svg</code>.</figcaption>\n</figure>\n",
                sweep_id, fits->first_id);
    }
    plot_image_free(&image);
    table_free(t);
    free(title);
    free(err);
}

int report_write_fits(FILE *out, store *s, int64_t sweep_id, int64_t section_id, const char *plugin,
                      const table *head, size_t ordinal, int *gnuplot_missing, char **err)
{
    table *ids = NULL;
    if (store_section_fit_ids(s, section_id, &ids, err) != 0)
        return -1;
    int rc = 0;
    for (size_t i = 0; i < ids->row_count && rc == 0; i++) {
        int64_t id = (int64_t)value_number(table_cell(ids, i, 0));
        plot_fit_set fits;
        char *why = NULL;
        if (plot_fit_load(s, sweep_id, id, 0, &fits, &why) != 0) {
            /* A model this runner does not draw: its numbers still show. */
            fprintf(out, "<p class=\"note\">Fit %" PRId64 ": ", id);
            H(why);
            fputs("</p>\n", out);
            free(why);
            continue;
        }
        fprintf(out, "<h3 id=\"section-%zu-fit-%" PRId64 "\">Fit: ", ordinal, id);
        H(fits.model);
        fputs(" of ", out);
        H(fits.y);
        fputs(" against ", out);
        H(fits.x);
        if (fits.by) {
            fputs(", per ", out);
            H(fits.by);
        }
        fputs("</h3>\n", out);
        write_plot(out, s, sweep_id, section_id, plugin, head, &fits, ordinal, gnuplot_missing);
        for (size_t c = 0; c < fits.count && rc == 0; c++)
            rc = write_params(out, s, fits.ids[c], fits.curves[c].title, err);
        plot_fit_set_clear(&fits);
    }
    table_free(ids);
    return rc;
}
