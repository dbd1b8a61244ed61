/* plot_reduce: fewer lines and fewer points for big plots. Min/max per
 * x-column rather than LTTB: it keeps every spike and the full y range of
 * each column (what a reader looks for in a sweep), costs one pass, and
 * works the same for lines and for point clouds with repeated x. */
#include "plot_reduce.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/util.h"
#include "render_int.h"

void plot_reduce_lines(plot_point *points, size_t *count, size_t group_count, size_t *kept,
                       plot_reduction *out)
{
    memset(out, 0, sizeof *out);
    out->lines_total = out->lines_drawn = group_count;
    if (group_count <= PLOT_MAX_LINES) {
        for (size_t g = 0; g < group_count; g++)
            kept[g] = g;
    } else {
        /* Evenly spaced ranks, first and last included: for a numeric by
         * this spans its whole range; strictly increasing since G > K. */
        size_t k_max = PLOT_MAX_LINES - 1;
        for (size_t i = 0; i < PLOT_MAX_LINES; i++)
            kept[i] = (i * (group_count - 1) + k_max / 2) / k_max;
        size_t w = 0, k = 0;
        for (size_t i = 0; i < *count; i++) {
            while (k < PLOT_MAX_LINES && kept[k] < points[i].group)
                k++;
            if (k < PLOT_MAX_LINES && kept[k] == points[i].group) {
                points[w] = points[i];
                points[w++].group = k;
            }
        }
        *count = w;
        out->lines_drawn = PLOT_MAX_LINES;
    }
    out->points_total = out->points_drawn = *count;
}

size_t plot_reduce_column_count(size_t lines_drawn, int width)
{
    size_t columns = PLOT_MAX_POINTS / (2 * lines_drawn);
    if (width > 0 && columns > (size_t)width)
        columns = (size_t)width;
    return columns ? columns : 1;
}

size_t plot_reduce_column_of(double x, int logx, double x_min, double span, size_t columns)
{
    if (!(span > 0))
        return 0;
    double at = ((logx ? log10(x) : x) - x_min) / span * (double)columns;
    return at >= (double)columns ? columns - 1 : (size_t)at;
}

void plot_reduce_points(plot_point *points, size_t *count, int logx, int width, plot_reduction *out)
{
    size_t n = *count;
    if (n <= PLOT_MAX_POINTS || out->lines_drawn == 0)
        return;
    size_t columns = plot_reduce_column_count(out->lines_drawn, width);
    double x_min = INFINITY, x_max = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        double x = logx ? log10(points[i].x) : points[i].x;
        x_min = fmin(x_min, x);
        x_max = fmax(x_max, x);
    }
    double span = x_max - x_min;
    size_t w = 0;
    for (size_t i = 0; i < n;) {
        size_t column = plot_reduce_column_of(points[i].x, logx, x_min, span, columns);
        size_t low = i, high = i, j = i + 1;
        for (; j < n && points[j].group == points[i].group &&
               plot_reduce_column_of(points[j].x, logx, x_min, span, columns) == column;
             j++) {
            if (points[j].y < points[low].y)
                low = j;
            if (points[j].y > points[high].y)
                high = j;
        }
        /* In x order, so a line still runs left to right. Both sit at or
         * after w: writing never overtakes reading. */
        plot_point first = points[low < high ? low : high],
                   second = points[low < high ? high : low];
        points[w++] = first;
        if (low != high)
            points[w++] = second;
        i = j;
    }
    *count = w;
    out->points_drawn = w;
    out->columns = columns;
}

char *plot_reduce_note(const plot_reduction *r, const char *by)
{
    char lines[160] = "", points[200] = "";
    if (r->lines_drawn < r->lines_total)
        snprintf(lines, sizeof lines, "%zu of %zu lines drawn (evenly spaced by %s)",
                 r->lines_drawn, r->lines_total, by ? by : "group");
    if (r->columns)
        snprintf(points, sizeof points,
                 "%zu of %zu points drawn (lowest and highest y in each "
                 "of %zu x-columns per line)",
                 r->points_drawn, r->points_total, r->columns);
    if (!*lines && !*points)
        return NULL;
    return util_format("%s%s%s", lines, *lines && *points ? "; " : "", points);
}
