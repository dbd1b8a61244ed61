/* plot_reduce: cuts a big series down to what a picture can show, for
 * plot.c: at most PLOT_MAX_LINES lines (evenly spaced through the groups'
 * drawing order, first and last kept), and at most about PLOT_MAX_POINTS
 * points (the lowest and highest y of each x-column of every line). Below
 * both limits nothing changes. */
#ifndef RUNNER_PLOT_REDUCE_H
#define RUNNER_PLOT_REDUCE_H

#include <stddef.h>

/* More lines than this and a legend stops being readable. */
#define PLOT_MAX_LINES 12
/* Points drawn at most (SVG: about 100 bytes each, so well under 1 MB). */
#define PLOT_MAX_POINTS 6000

typedef struct plot_point {
    size_t group; /* line, 0 .. group_count - 1 */
    size_t order; /* row index, to keep the sort stable */
    double x, y;
} plot_point;

/* What plot_reduce left out, for the note on the picture. */
typedef struct plot_reduction {
    size_t lines_total; /* lines before; lines_drawn after */
    size_t lines_drawn;
    size_t points_total; /* points of the drawn lines before downsampling */
    size_t points_drawn;
    size_t columns; /* x-columns per line; 0: not downsampled */
} plot_reduction;

/* Keeps at most PLOT_MAX_LINES of group_count lines in points[0 .. *count)
 * (sorted by group, then x), compacting them in place. kept (room for
 * PLOT_MAX_LINES entries) receives the original index of each line still
 * drawn, and groups are renumbered 0 .. out->lines_drawn - 1. Fills out. */
void plot_reduce_lines(plot_point *points, size_t *count, size_t group_count, size_t *kept,
                       plot_reduction *out);

/* Then, when more than PLOT_MAX_POINTS are left, keeps the lowest and highest
 * y of each x-column of each line (columns: as many as the budget allows, at
 * most width, the picture's width in pixels; on a log scale when logx). */
void plot_reduce_points(plot_point *points, size_t *count, int logx, int width,
                        plot_reduction *out);

/* "12 of 200 lines drawn (evenly spaced by jitter), and 6000 of 200000
 * points (lowest and highest y in each of 250 x-columns per line)", or NULL
 * when nothing was reduced. by names the grouping column (NULL: none).
 * malloc'd (caller frees). */
char *plot_reduce_note(const plot_reduction *r, const char *by);

#endif
