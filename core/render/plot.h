/* plot: line plots of a table's columns, drawn by a real gnuplot child
 * process (SVG or PNG), for `runner plot`, `runner report` and the Lua
 * function plot(rows, {...}) (script/plot_lua.c). The command itself is in
 * cli_show.c. */
#ifndef RUNNER_PLOT_H
#define RUNNER_PLOT_H

#include <stddef.h>
#include <stdint.h>
#include "base/table.h"
#include "base/value.h"
#include "plot_reduce.h"

/* plot_render's return value when no gnuplot executable is on PATH. */
#define PLOT_NO_GNUPLOT (-2)
/* The message for it, without the "runner: " prefix. */
#define PLOT_NO_GNUPLOT_MESSAGE                                                                    \
    "gnuplot not found; install it with: sudo apt-get install gnuplot-nox"

typedef enum plot_format {
    PLOT_SVG,
    PLOT_PNG
} plot_format;

/* A line drawn over the points: a fitted curve through n points (x, y),
 * in the colour of the line whose --by value is `by` (NULL: its own). */
typedef struct plot_curve {
    char *title;
    double *x, *y;
    size_t n;
    const value *by;
} plot_curve;

/* What a table cut down while it was read (plot_load.h) cannot tell
 * plot_render: the counts of the whole section, and per drawn line
 * whether an x repeats in it. */
typedef struct plot_preload {
    size_t rows;
    size_t skipped_nonfinite, skipped_nonpositive;
    plot_reduction reduced;
    unsigned char repeats[PLOT_MAX_LINES];
} plot_preload;

/* What to draw. Strings are borrowed. */
typedef struct plot_spec {
    const char *x, *y; /* numeric columns */
    const char *by;    /* one line per distinct value of this column; NULL: one line */
    int logx, logy;
    const char *title;  /* NULL: the table's title */
    const char *xlabel; /* NULL: "name [unit]" (just "name" when unit is "" or the name) */
    const char *ylabel;
    int width, height; /* pixels; 0: 800 x 500 */
    /* Drawn over the points, borrowed: fitted curves (runner plot --fit,
     * plot_fit.h), and the rows r of the table with marked[r] != 0 circled
     * (a Pareto front, --pareto) under the legend marked_title. */
    const plot_curve *curves;
    size_t curve_count;
    const unsigned char *marked;
    const char *marked_title;
    /* Not NULL: the table is plot_load_section's cut, described by this
     * (borrowed); marked must then be NULL. */
    const plot_preload *preload;
} plot_spec;

/* A rendered image and what was left out of it. */
typedef struct plot_image {
    char *data; /* malloc'd; SVG text (NUL-terminated) or PNG bytes */
    size_t size;
    size_t rows;                /* rows of the table */
    size_t plotted;             /* points drawn */
    size_t lines;               /* lines drawn (one per group, at most PLOT_MAX_LINES) */
    plot_reduction reduced;     /* lines and points left out of a big plot (plot_reduce_note) */
    size_t skipped_nonfinite;   /* x or y NaN or infinite */
    size_t skipped_nonpositive; /* finite but <= 0 on a log axis */
} plot_image;

/* Frees the image's data and zeroes it. Accepts NULL. */
void plot_image_free(plot_image *image);

/* PLOT_SVG for a name ending in ".svg", PLOT_PNG for ".png" (any case).
 * Returns 0, or -1 for any other name. */
int plot_format_from_path(const char *path, plot_format *format);

/* "name [unit]", or "name" when the unit is empty or repeats the name.
 * malloc'd (caller frees); NULL on no memory. */
char *plot_axis_label(const table_column *column);

/* Checks that spec's columns exist in t (x and y numeric). Returns 0, or -1
 * with *err (caller frees) naming the column and listing the available ones. */
int plot_check_spec(const table *t, const plot_spec *spec, char **err);

/* Draws t with gnuplot into image (which the caller frees with
 * plot_image_free). Rows whose x or y is NaN or infinite, or not positive on
 * a log axis, are left out and counted; big tables are cut down to what the
 * picture can show (plot_reduce.h), and the picture says so. Returns 0; PLOT_NO_GNUPLOT with *err
 * = PLOT_NO_GNUPLOT_MESSAGE; or -1 with *err (bad spec, nothing left to
 * draw, gnuplot failed with its first error line). *err is malloc'd. */
int plot_render(const table *t, const plot_spec *spec, plot_format format, plot_image *image,
                char **err);

/* A note on what plot_render left out ("skipped 3 of 24 rows where workers
 * or karp_flatt is NaN or infinite"), or NULL when nothing was. malloc'd. */
char *plot_skip_note(const plot_spec *spec, const plot_image *image);

/* Checks a Lua plot's output path: relative, no "." or ".." component, no
 * empty component, ending in .svg or .png. Returns 0, or -1 with why. */
int plot_check_output_path(const char *path, char *why, size_t why_size);

#endif
