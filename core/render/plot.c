/* plot: draws a table's columns as lines through a gnuplot child process
 * (fork/exec, no shell): the rows go to a temporary data file, the commands
 * to gnuplot's stdin, and the image comes back on its stdout. */
#include "plot.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/strbuf.h"
#include "base/util.h"

#define DEFAULT_WIDTH 800
#define DEFAULT_HEIGHT 500
/* gnuplot draws a few hundred points in milliseconds; a minute means hung. */
#define GNUPLOT_TIMEOUT_S 60

/* ---- small helpers ---- */

void plot_image_free(plot_image *image)
{
    if (!image)
        return;
    free(image->data);
    memset(image, 0, sizeof *image);
}

static int ends_with_ci(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    if (n < m)
        return 0;
    for (size_t i = 0; i < m; i++) {
        char c = s[n - m + i];
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if (c != suffix[i])
            return 0;
    }
    return 1;
}

int plot_format_from_path(const char *path, plot_format *format)
{
    if (ends_with_ci(path, ".svg") && strlen(path) > 4) {
        *format = PLOT_SVG;
        return 0;
    }
    if (ends_with_ci(path, ".png") && strlen(path) > 4) {
        *format = PLOT_PNG;
        return 0;
    }
    return -1;
}

static int unit_shown(const table_column *c)
{
    return c->unit && *c->unit && strcmp(c->unit, c->name) != 0;
}

char *plot_axis_label(const table_column *c)
{
    return unit_shown(c) ? util_format("%s [%s]", c->name, c->unit) : util_strdup(c->name);
}

/* What an axis or a sorted group can be: a quantity, or a boolean drawn as
 * 0 and 1 (docs/plots.md). Wider than value_type_is_numeric() on purpose. */
static int is_drawable_type(runner_type type)
{
    return value_type_is_numeric(type) || type == RUNNER_BOOLEAN;
}

/* "a, b, c": the table's column names. malloc'd. */
static char *column_list(const table *t)
{
    strbuf b = { 0 };
    for (size_t i = 0; i < t->column_count; i++) {
        if (i)
            strbuf_add(&b, ", ", 2);
        strbuf_add(&b, t->columns[i].name, strlen(t->columns[i].name));
    }
    strbuf_add(&b, "", 0);
    if (b.oom) {
        free(b.data);
        return NULL;
    }
    return b.data;
}

static const char *closest_column(const table *t, const char *name)
{
    const char *best = NULL;
    size_t best_d = 3; /* suggest only near misses */
    for (size_t i = 0; i < t->column_count; i++) {
        size_t d = util_edit_distance(name, t->columns[i].name);
        if (d < best_d) {
            best_d = d;
            best = t->columns[i].name;
        }
    }
    return best;
}

static int check_column(const table *t, const char *name, int numeric, char **err)
{
    long c = table_find_column(t, name);
    if (c < 0) {
        char *list = column_list(t);
        const char *near = closest_column(t, name);
        char hint[160] = "";
        if (near)
            snprintf(hint, sizeof hint, " (did you mean '%s'?)", near);
        util_fail(err, "no column '%s'%s; its columns: %s", name, hint, list ? list : "");
        free(list);
        return -1;
    }
    if (numeric && !is_drawable_type(t->columns[c].type))
        return util_fail(err,
                         "column '%s' is %s; x and y need numbers (a text column can be "
                         "the 'by' column)",
                         name, value_type_name(t->columns[c].type));
    return 0;
}

int plot_check_spec(const table *t, const plot_spec *spec, char **err)
{
    if (check_column(t, spec->x, 1, err) != 0 || check_column(t, spec->y, 1, err) != 0)
        return -1;
    if (spec->by && check_column(t, spec->by, 0, err) != 0)
        return -1;
    return 0;
}

/* ---- the series: rows grouped by the by column, sorted by x ---- */

typedef struct series {
    value *groups; /* distinct by values, in drawing order */
    size_t group_count;
    plot_point *points;
    size_t count;
    unsigned char *repeats; /* per group: x repeats within the line (draw points only) */
} series;

static void series_free(series *s)
{
    for (size_t i = 0; i < s->group_count; i++)
        value_clear(&s->groups[i]);
    free(s->groups);
    free(s->points);
    free(s->repeats);
    memset(s, 0, sizeof *s);
}

static const value *sort_groups_base;

static int compare_group_index(const void *a, const void *b)
{
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    double x = value_number(&sort_groups_base[i]), y = value_number(&sort_groups_base[j]);
    if (x < y)
        return -1;
    if (x > y)
        return 1;
    return i < j ? -1 : i > j;
}

static int compare_points(const void *a, const void *b)
{
    const plot_point *p = a, *q = b;
    if (p->group != q->group)
        return p->group < q->group ? -1 : 1;
    if (p->x != q->x)
        return p->x < q->x ? -1 : 1;
    return p->order < q->order ? -1 : p->order > q->order;
}

/* Keeps the lines plot_reduce_lines chose, notes which repeat x, then
 * downsamples the points (plot_reduce.h). Returns 0 or -1 (no memory). */
static int reduce_series(const plot_spec *spec, series *s, plot_image *image)
{
    size_t kept[PLOT_MAX_LINES];
    plot_reduce_lines(s->points, &s->count, s->group_count, kept, &image->reduced);
    size_t drawn = image->reduced.lines_drawn;
    for (size_t g = 0, k = 0; g < s->group_count; g++) {
        if (k < drawn && kept[k] == g)
            s->groups[k++] = s->groups[g];
        else
            value_clear(&s->groups[g]);
    }
    s->group_count = drawn;
    if (!(s->repeats = calloc(drawn ? drawn : 1, 1)))
        return -1;
    /* Before downsampling: a column's low and high may share an x. */
    for (size_t i = 1; i < s->count; i++)
        if (s->points[i].group == s->points[i - 1].group && s->points[i].x == s->points[i - 1].x)
            s->repeats[s->points[i].group] = 1;
    int width = spec->width > 0 ? spec->width : DEFAULT_WIDTH;
    plot_reduce_points(s->points, &s->count, spec->logx, width, &image->reduced);
    return 0;
}

/* Builds the series and counts what it leaves out. Returns 0 or -1 (no memory). */
static int build_series(const table *t, const plot_spec *spec, series *s, plot_image *image)
{
    memset(s, 0, sizeof *s);
    long xc = table_find_column(t, spec->x), yc = table_find_column(t, spec->y);
    long bc = spec->by ? table_find_column(t, spec->by) : -1;
    size_t *rank = NULL, *order = NULL, last_group = 0;
    image->rows = t->row_count;
    s->points = calloc(t->row_count ? t->row_count : 1, sizeof *s->points);
    s->groups = calloc(t->row_count ? t->row_count : 1, sizeof *s->groups);
    if (!s->points || !s->groups)
        goto oom;
    for (size_t r = 0; r < t->row_count; r++) {
        double x = value_number(table_cell(t, r, (size_t)xc));
        double y = value_number(table_cell(t, r, (size_t)yc));
        if (!isfinite(x) || !isfinite(y)) {
            image->skipped_nonfinite++;
            continue;
        }
        if ((spec->logx && x <= 0) || (spec->logy && y <= 0)) {
            image->skipped_nonpositive++;
            continue;
        }
        size_t g = 0;
        if (bc >= 0) {
            const value *key = table_cell(t, r, (size_t)bc);
            /* Grid rows come in runs of one group: try the last one first,
             * or a million rows in a thousand groups take minutes. */
            if (last_group < s->group_count && value_equal(&s->groups[last_group], key))
                g = last_group;
            while (g < s->group_count && !value_equal(&s->groups[g], key))
                g++;
            if (g == s->group_count && value_copy(&s->groups[s->group_count++], key) != 0)
                goto oom;
            last_group = g;
        } else if (s->group_count == 0) {
            s->group_count = 1;
        }
        s->points[s->count++] = (plot_point){ .group = g, .order = r, .x = x, .y = y };
    }
    /* Numeric groups are drawn in ascending order, others as they come. */
    int numeric = bc >= 0 && is_drawable_type(t->columns[bc].type);
    if (numeric && s->group_count > 1) {
        rank = malloc(s->group_count * sizeof *rank);
        order = malloc(s->group_count * sizeof *order);
        value *sorted = malloc(s->group_count * sizeof *sorted);
        if (!rank || !order || !sorted) {
            free(sorted);
            goto oom;
        }
        for (size_t i = 0; i < s->group_count; i++)
            order[i] = i;
        sort_groups_base = s->groups;
        qsort(order, s->group_count, sizeof *order, compare_group_index);
        for (size_t i = 0; i < s->group_count; i++) {
            rank[order[i]] = i;
            sorted[i] = s->groups[order[i]];
        }
        memcpy(s->groups, sorted, s->group_count * sizeof *sorted);
        free(sorted);
        for (size_t i = 0; i < s->count; i++)
            s->points[i].group = rank[s->points[i].group];
    }
    qsort(s->points, s->count, sizeof *s->points, compare_points);
    free(rank);
    free(order);
    rank = order = NULL;
    if (reduce_series(spec, s, image) != 0)
        goto oom;
    const plot_preload *pre = spec->preload;
    if (pre) { /* the table is already cut: the counts are the section's */
        image->rows = pre->rows;
        image->skipped_nonfinite = pre->skipped_nonfinite;
        image->skipped_nonpositive = pre->skipped_nonpositive;
        image->reduced = pre->reduced;
        for (size_t g = 0; g < s->group_count && g < PLOT_MAX_LINES; g++)
            s->repeats[g] = pre->repeats[g];
    }
    image->plotted = s->count;
    image->lines = s->group_count;
    return 0;
oom:
    free(rank);
    free(order);
    series_free(s);
    return -1;
}

/* ---- the gnuplot script ---- */

/* A gnuplot single-quoted string: '' stands for a quote; control characters
 * become spaces (a newline would end the command). */
static void put_quoted(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'')
            fputs("''", f);
        else if ((unsigned char)*s < 0x20 || *s == 0x7f)
            fputc(' ', f);
        else
            fputc(*s, f);
    }
    fputc('\'', f);
}

/* A gnuplot double-quoted string broken into lines of at most width
 * characters at spaces (and at newlines), so a long title is not clipped. */
static void put_wrapped(FILE *f, const char *s, size_t width)
{
    fputc('"', f);
    size_t column = 0;
    while (*s) {
        if (*s == '\n') {
            fputs("\\n", f);
            column = 0;
            s++;
            continue;
        }
        size_t word = strcspn(s, " \n");
        if (column > 0 && column + 1 + word > width) {
            fputs("\\n", f);
            column = 0;
        } else if (column > 0) {
            fputc(' ', f);
            column++;
        }
        for (size_t i = 0; i < word; i++) {
            unsigned char c = (unsigned char)s[i];
            if (c == '"' || c == '\\')
                fputc('\\', f);
            fputc(c < 0x20 || c == 0x7f ? ' ' : c, f);
        }
        column += word;
        s += word;
        while (*s == ' ')
            s++;
    }
    fputc('"', f);
}

/* 1 when every x is a positive power of two: then a base-2 log axis puts a
 * tic at each of them (1, 2, 4, ... workers). */
static int all_powers_of_two(const series *s)
{
    for (size_t i = 0; i < s->count; i++) {
        double x = s->points[i].x;
        int e;
        if (!(x >= 1) || frexp(x, &e) != 0.5)
            return 0;
    }
    return s->count > 0;
}

static char *line_title(const table *t, const plot_spec *spec, const series *s, size_t g)
{
    if (!spec->by) /* short: the axis already says the unit */
        return util_strdup(spec->y);
    const table_column *c = &t->columns[table_find_column(t, spec->by)];
    char text[256];
    value_format(&s->groups[g], 6, text, sizeof text);
    if (unit_shown(c))
        return util_format("%s = %s %s", c->name, text, c->unit);
    return util_format("%s = %s", c->name, text);
}

/* The line a curve shares its colour with (its --by group), or -1. */
static long curve_line(const series *s, const plot_curve *c)
{
    for (size_t g = 0; c->by && g < s->group_count; g++)
        if (value_equal(&s->groups[g], c->by) || value_number(&s->groups[g]) == value_number(c->by))
            return (long)g;
    return -1;
}

/* The fitted curves and the marked rows: data blocks after the lines'
 * (write_extras writes them in this order). */
static void put_extras(FILE *f, const plot_spec *spec, const series *s)
{
    size_t block = s->group_count;
    for (size_t c = 0; c < spec->curve_count; c++, block++) {
        long line = curve_line(s, &spec->curves[c]);
        fprintf(f, ", \\\n     '' index %zu using 1:2 with lines dashtype 2 linewidth 2", block);
        if (line >= 0)
            fprintf(f, " linecolor %ld", line + 1);
        fputs(" title ", f);
        put_quoted(f, spec->curves[c].title ? spec->curves[c].title : "fit");
    }
    if (spec->marked) {
        fprintf(f,
                ", \\\n     '' index %zu using 1:2 with points pointtype 6 pointsize 1.8"
                " linewidth 2 linecolor rgb '#000000' title ",
                block);
        put_quoted(f, spec->marked_title ? spec->marked_title : "marked");
    }
}

/* The data blocks put_extras names: each curve's points, then the marked
 * rows (those drawable on these axes). A block needs one point, so an
 * empty one holds a NaN (gnuplot skips it). */
static int write_extras(FILE *f, const table *t, const plot_spec *spec)
{
    for (size_t c = 0; c < spec->curve_count; c++) {
        const plot_curve *curve = &spec->curves[c];
        fputs("\n\n", f);
        size_t written = 0;
        for (size_t i = 0; i < curve->n; i++) {
            double x = curve->x[i], y = curve->y[i];
            if (!isfinite(x) || !isfinite(y) || (spec->logx && x <= 0) || (spec->logy && y <= 0))
                continue;
            fprintf(f, "%.17g\t%.17g\n", x, y);
            written++;
        }
        if (!written)
            fputs("NaN\tNaN\n", f);
    }
    if (spec->marked) {
        long xc = table_find_column(t, spec->x), yc = table_find_column(t, spec->y);
        size_t written = 0;
        fputs("\n\n", f);
        for (size_t r = 0; r < t->row_count; r++) {
            double x = value_number(table_cell(t, r, (size_t)xc));
            double y = value_number(table_cell(t, r, (size_t)yc));
            if (!spec->marked[r] || !isfinite(x) || !isfinite(y) || (spec->logx && x <= 0) ||
                (spec->logy && y <= 0))
                continue;
            fprintf(f, "%.17g\t%.17g\n", x, y);
            written++;
        }
        if (!written)
            fputs("NaN\tNaN\n", f);
    }
    return ferror(f) ? -1 : 0;
}

static char *build_script(const table *t, const plot_spec *spec, plot_format format,
                          const char *data_path, const series *s, const plot_reduction *reduced)
{
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    if (!f)
        return NULL;
    int width = spec->width > 0 ? spec->width : DEFAULT_WIDTH;
    int height = spec->height > 0 ? spec->height : DEFAULT_HEIGHT;
    fputs("set encoding utf8\n", f);
    if (format == PLOT_SVG) {
        fprintf(f, "set terminal svg size %d,%d noenhanced font 'sans,12' background '#ffffff'\n",
                width, height);
    } else {
        /* gnuplot-nox has pngcairo (anti-aliased); plain png (libgd) is the fallback. */
        fprintf(
            f,
            "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
            "  set terminal pngcairo size %d,%d noenhanced font 'sans,11' background '#ffffff'\n"
            "} else {\n"
            "  set terminal png size %d,%d noenhanced background '#ffffff'\n"
            "}\n",
            width, height, width, height);
    }
    char *xlabel = spec->xlabel ? util_strdup(spec->xlabel)
                                : plot_axis_label(&t->columns[table_find_column(t, spec->x)]);
    char *ylabel = spec->ylabel ? util_strdup(spec->ylabel)
                                : plot_axis_label(&t->columns[table_find_column(t, spec->y)]);
    const char *title = spec->title ? spec->title : t->title;
    if (title) {
        fputs("set title ", f);
        put_wrapped(f, title, (size_t)width / 11);
        fputc('\n', f);
    }
    fputs("set xlabel ", f);
    put_quoted(f, xlabel ? xlabel : spec->x);
    fputs("\nset ylabel ", f);
    put_quoted(f, ylabel ? ylabel : spec->y);
    fputc('\n', f);
    free(xlabel);
    free(ylabel);
    fputs(
        "set key outside right top box opaque Left reverse\nset grid\nset border 3\nset tics nomirror\n",
        f);
    if (spec->logx)
        fprintf(f, "set logscale x %d\n", all_powers_of_two(s) ? 2 : 10);
    if (spec->logy)
        fputs("set logscale y 10\n", f);
    char *note = plot_reduce_note(reduced, spec->by);
    if (note) { /* on the picture itself, so a copy of it says so too */
        fputs("set bmargin 6\nset label 1 ", f);
        put_wrapped(f, note, (size_t)width / 7);
        fputs(" at screen 0.01, screen 0.045 left font ',9' textcolor '#555555'\n", f);
        free(note);
    }
    fputs("plot ", f);
    for (size_t g = 0; g < s->group_count; g++) {
        /* Repeated x within a line (another parameter varies too): points
         * only; downsampled lines without markers, which would be a smear. */
        const char *with = s->repeats[g] ? "points" : reduced->columns ? "lines" : "linespoints";
        char *lt = line_title(t, spec, s, g);
        if (g == 0)
            put_quoted(f, data_path);
        else
            fputs(", \\\n     ''", f);
        fprintf(f, " index %zu using 1:2 with %s pointtype 7 pointsize 0.7 linewidth 1.5 title ", g,
                with);
        put_quoted(f, lt ? lt : "");
        free(lt);
    }
    if (reduced->lines_drawn < reduced->lines_total)
        fprintf(f, ", \\\n     keyentry with points pointtype -1 title '... and %zu more'",
                reduced->lines_total - reduced->lines_drawn);
    put_extras(f, spec, s);
    fputc('\n', f);
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

static int write_data(FILE *f, const series *s)
{
    for (size_t i = 0; i < s->count; i++) {
        if (i > 0 && s->points[i].group != s->points[i - 1].group)
            fputs("\n\n", f); /* two blank lines: the next gnuplot "index" */
        fprintf(f, "%.17g\t%.17g\n", s->points[i].x, s->points[i].y);
    }
    return ferror(f) ? -1 : 0;
}

/* ---- running gnuplot ---- */

/* The gnuplot executable on PATH, malloc'd; NULL when there is none. */
static char *find_gnuplot(void)
{
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/bin:/bin";
    while (1) {
        size_t n = strcspn(path, ":");
        char *candidate = util_format("%.*s/gnuplot", (int)n, n ? path : ".");
        struct stat st;
        if (candidate && stat(candidate, &st) == 0 && S_ISREG(st.st_mode) &&
            access(candidate, X_OK) == 0)
            return candidate;
        free(candidate);
        if (!path[n])
            return NULL;
        path += n + 1;
    }
}

static void close_pair(int fds[2])
{
    for (int i = 0; i < 2; i++)
        if (fds[i] >= 0) {
            close(fds[i]);
            fds[i] = -1;
        }
}

static int cloexec_pipe(int fds[2])
{
    if (pipe(fds) != 0) {
        fds[0] = fds[1] = -1;
        return -1;
    }
    fcntl(fds[0], F_SETFD, FD_CLOEXEC);
    fcntl(fds[1], F_SETFD, FD_CLOEXEC);
    return 0;
}

/* The last non-empty line of gnuplot's stderr: where it says what failed. */
static char *last_line(const strbuf *b)
{
    if (!b->data)
        return util_strdup("no message");
    size_t end = b->len;
    while (end > 0 && (b->data[end - 1] == '\n' || b->data[end - 1] == ' '))
        end--;
    size_t start = end;
    while (start > 0 && b->data[start - 1] != '\n')
        start--;
    while (start < end && b->data[start] == ' ')
        start++;
    return util_format("%.*s", (int)(end - start), b->data + start);
}

/* Runs exe with script on stdin; *out gets stdout. Returns 0, or -1 with *err. */
/* The child: gnuplot with its stdin, stdout and stderr on the pipes. */
static void exec_gnuplot(const char *exe, const int in[2], const int o[2], const int e[2])
{
    dup2(in[0], 0);
    dup2(o[1], 1);
    dup2(e[1], 2);
    long max_fd = sysconf(_SC_OPEN_MAX);
    if (max_fd < 0 || max_fd > 4096)
        max_fd = 4096;
    for (int fd = 3; fd < max_fd; fd++)
        close(fd);
    char *const argv[] = { "gnuplot", NULL };
    execv(exe, argv);
    dprintf(2, "cannot run %s: %s\n", exe, strerror(errno));
    _exit(127);
}

/* Writes script to gnuplot's stdin (in[1]) while reading its stdout (o[0])
 * into out and its stderr (e[0]) into errbuf, until both close or the time
 * is up. Closes what it finishes with (-1). Returns 0, or -1 with *err
 * (gnuplot killed). */
static int exchange_with_gnuplot(pid_t pid, const char *script, int in[2], int o[2], int e[2],
                                 strbuf *out, strbuf *errbuf, char **err)
{
    size_t script_len = strlen(script), written = 0;
    double deadline = util_monotonic() + GNUPLOT_TIMEOUT_S;
    while (o[0] >= 0 || e[0] >= 0) {
        struct pollfd fds[3];
        int n = 0, in_at = -1, out_at = -1, err_at = -1;
        if (in[1] >= 0) {
            in_at = n;
            fds[n++] = (struct pollfd){ .fd = in[1], .events = POLLOUT };
        }
        if (o[0] >= 0) {
            out_at = n;
            fds[n++] = (struct pollfd){ .fd = o[0], .events = POLLIN };
        }
        if (e[0] >= 0) {
            err_at = n;
            fds[n++] = (struct pollfd){ .fd = e[0], .events = POLLIN };
        }
        double left = deadline - util_monotonic();
        if (left <= 0) {
            kill(pid, SIGKILL);
            return util_fail(err, "gnuplot did not finish within %d s", GNUPLOT_TIMEOUT_S);
        }
        int ready = poll(fds, (nfds_t)n, (int)(left * 1000) + 1);
        if (ready < 0) {
            if (errno == EINTR)
                continue;
            kill(pid, SIGKILL);
            return util_fail(err, "gnuplot: poll: %s", strerror(errno));
        }
        if (in_at >= 0 && fds[in_at].revents) {
            ssize_t w = write(in[1], script + written, script_len - written);
            if (w > 0)
                written += (size_t)w;
            if ((w < 0 && errno != EAGAIN && errno != EINTR) || written == script_len) {
                close(in[1]);
                in[1] = -1;
            }
        }
        int *readers[2] = { &o[0], &e[0] };
        int at[2] = { out_at, err_at };
        strbuf *sinks[2] = { out, errbuf };
        for (int k = 0; k < 2; k++) {
            if (at[k] < 0 || !fds[at[k]].revents)
                continue;
            char chunk[65536];
            ssize_t r = read(*readers[k], chunk, sizeof chunk);
            if (r > 0)
                strbuf_add(sinks[k], chunk, (size_t)r);
            else if (r == 0 || (errno != EINTR && errno != EAGAIN)) {
                close(*readers[k]);
                *readers[k] = -1;
            }
        }
    }
    return 0;
}

/* gnuplot's exit status and output as one verdict: 0, or -1 with *err
 * naming the last line gnuplot wrote on stderr. */
static int gnuplot_verdict(int status, const strbuf *out, const strbuf *errbuf, char **err)
{
    if (out->oom || errbuf->oom)
        return util_fail(err, "gnuplot: out of memory");
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && out->len > 0)
        return 0;
    char *line = last_line(errbuf);
    if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
        util_fail(err, "gnuplot failed (exit status %d): %s", WEXITSTATUS(status),
                  line ? line : "");
    else if (!WIFEXITED(status))
        util_fail(err, "gnuplot was killed by signal %d", WTERMSIG(status));
    else
        util_fail(err, "gnuplot produced no image: %s", line ? line : "");
    free(line);
    return -1;
}

static int run_gnuplot(const char *exe, const char *script, strbuf *out, char **err)
{
    int in[2] = { -1, -1 }, o[2] = { -1, -1 }, e[2] = { -1, -1 };
    strbuf errbuf = { 0 };
    struct sigaction ignore, old_pipe;
    int restore_pipe = 0, rc = -1;

    if (cloexec_pipe(in) || cloexec_pipe(o) || cloexec_pipe(e)) {
        util_fail(err, "cannot start gnuplot: pipe: %s", strerror(errno));
        goto done;
    }
    pid_t pid = fork();
    if (pid < 0) {
        util_fail(err, "cannot start gnuplot: fork: %s", strerror(errno));
        goto done;
    }
    if (pid == 0)
        exec_gnuplot(exe, in, o, e);
    close(in[0]);
    close(o[1]);
    close(e[1]);
    in[0] = o[1] = e[1] = -1;
    /* gnuplot may exit before reading everything: EPIPE, not SIGPIPE. */
    memset(&ignore, 0, sizeof ignore);
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    restore_pipe = sigaction(SIGPIPE, &ignore, &old_pipe) == 0;
    fcntl(in[1], F_SETFL, fcntl(in[1], F_GETFL) | O_NONBLOCK);
    rc = exchange_with_gnuplot(pid, script, in, o, e, out, &errbuf, err);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (rc == 0)
        rc = gnuplot_verdict(status, out, &errbuf, err);
done:
    if (restore_pipe)
        sigaction(SIGPIPE, &old_pipe, NULL);
    close_pair(in);
    close_pair(o);
    close_pair(e);
    free(errbuf.data);
    return rc;
}

int plot_render(const table *t, const plot_spec *spec, plot_format format, plot_image *image,
                char **err)
{
    memset(image, 0, sizeof *image);
    if (plot_check_spec(t, spec, err) != 0)
        return -1;
    char *exe = find_gnuplot();
    if (!exe) {
        util_fail(err, "%s", PLOT_NO_GNUPLOT_MESSAGE);
        return PLOT_NO_GNUPLOT;
    }
    series s;
    char *data_path = NULL, *script = NULL;
    strbuf out = { 0 };
    int fd = -1, rc = -1;
    FILE *f = NULL;
    if (build_series(t, spec, &s, image) != 0) {
        util_fail(err, "out of memory");
        goto done;
    }
    if (s.count == 0) {
        util_fail(err, "nothing to plot: none of the %zu rows has a finite %s and %s%s",
                  image->rows, spec->x, spec->y,
                  spec->logx || spec->logy ? " (positive on a log axis)" : "");
        goto done;
    }
    const char *tmp = getenv("TMPDIR");
    data_path = util_format("%s/runner-plot-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!data_path || (fd = mkstemp(data_path)) < 0) {
        util_fail(err, "cannot create a temporary file for gnuplot's data in %s: %s",
                  tmp && *tmp ? tmp : "/tmp", strerror(errno));
        free(data_path);
        data_path = NULL;
        goto done;
    }
    if (!(f = fdopen(fd, "w"))) {
        util_fail(err, "%s: %s", data_path, strerror(errno));
        close(fd);
        goto done;
    }
    int bad = write_data(f, &s) || write_extras(f, t, spec);
    if (fclose(f) != 0 || bad) {
        util_fail(err, "%s: cannot write gnuplot's data: %s", data_path, strerror(errno));
        goto done;
    }
    if (!(script = build_script(t, spec, format, data_path, &s, &image->reduced))) {
        util_fail(err, "out of memory");
        goto done;
    }
    if (run_gnuplot(exe, script, &out, err) != 0)
        goto done;
    image->data = out.data;
    image->size = out.len;
    out.data = NULL;
    rc = 0;
done:
    if (data_path)
        unlink(data_path);
    free(data_path);
    free(script);
    free(out.data);
    free(exe);
    series_free(&s);
    return rc;
}

char *plot_skip_note(const plot_spec *spec, const plot_image *image)
{
    if (image->skipped_nonfinite == 0 && image->skipped_nonpositive == 0)
        return NULL;
    char finite[256] = "", positive[256] = "";
    if (image->skipped_nonfinite)
        snprintf(finite, sizeof finite, "%zu where %s or %s is NaN or infinite",
                 image->skipped_nonfinite, spec->x, spec->y);
    if (image->skipped_nonpositive) {
        const char *axis = spec->logx && spec->logy ? "x or y" : spec->logx ? spec->x : spec->y;
        snprintf(positive, sizeof positive, "%zu where %s is not positive (log scale)",
                 image->skipped_nonpositive, axis);
    }
    return util_format("skipped %zu of %zu rows: %s%s%s",
                       image->skipped_nonfinite + image->skipped_nonpositive, image->rows, finite,
                       *finite && *positive ? ", " : "", positive);
}

/* ---- Lua: plot(rows, {...}) ---- */

int plot_check_output_path(const char *path, char *why, size_t why_size)
{
    plot_format format;
    if (!*path) {
        snprintf(why, why_size, "the path is empty");
        return -1;
    }
    if (path[0] == '/') {
        snprintf(why, why_size, "must be a relative path under the current directory");
        return -1;
    }
    for (const char *p = path; *p;) {
        size_t n = strcspn(p, "/");
        if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.')) {
            snprintf(why, why_size, "must not contain empty, '.' or '..' components");
            return -1;
        }
        p += n;
        if (*p == '/')
            p++;
        else
            break;
    }
    if (path[strlen(path) - 1] == '/' || plot_format_from_path(path, &format) != 0) {
        snprintf(why, why_size, "must end in .svg or .png");
        return -1;
    }
    return 0;
}
