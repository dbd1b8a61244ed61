/* output: text, CSV and JSON renderings of a table. */
#include "output.h"

#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "base/realtext.h"
#include "base/strbuf.h"
#include "base/util.h"
#include "json_text.h"
#include "render_int.h"

int output_parse_format(const char *name, output_format *format)
{
    if (strcmp(name, "table") == 0)
        *format = OUTPUT_TABLE;
    else if (strcmp(name, "csv") == 0)
        *format = OUTPUT_CSV;
    else if (strcmp(name, "json") == 0)
        *format = OUTPUT_JSON;
    else
        return -1;
    return 0;
}

/* A cell as the text table shows it: text escaped for the terminal
 * (util_printable: a newline, an escape code or a byte that is not UTF-8
 * never breaks the layout or reaches the terminal raw). */
static size_t format_cell(const value *v, int digits, char *cell, size_t size)
{
    /* value_format's "%.6g" and "%" PRId64 bytes without printf (the table
     * formats every cell twice: widths, then the row) */
    if (v->type == RUNNER_REAL && isfinite(v->as.real) && size >= REALTEXT_SIZE)
        return realtext_g(v->as.real, digits, cell);
    if (v->type == RUNNER_INTEGER && size >= REALTEXT_SIZE)
        return realtext_int64(v->as.integer, cell);
    if (v->type != RUNNER_TEXT)
        value_format(v, 6, cell, size);
    else
        util_printable(v->as.text, cell, size);
    return strlen(cell);
}

/* A column's last cell and its text: a section's columns repeat their
 * values row after row (a parameter fixed for a while, a ceiling per
 * jitter), and the table formats every cell twice. */
struct output_cell_memo {
    runner_type type; /* 0: empty */
    uint64_t bits;    /* a number's bits: the text depends on nothing else */
    char key[32];     /* a text's bytes (shorter ones only) */
    size_t len;
    char text[64];
};

/* format_cell of row value v in column c (cell: 64 bytes), through the
 * column's memo. */
static size_t layout_cell(const output_text_layout *l, size_t c, const value *v, char *cell)
{
    struct output_cell_memo *m = &l->memo[c];
    int digits = l->digits ? l->digits[c] : OUTPUT_DIGITS;
    uint64_t bits = 0;
    if (v->type == RUNNER_REAL || v->type == RUNNER_INTEGER)
        memcpy(&bits, &v->as, sizeof bits);
    else if (v->type != RUNNER_TEXT || !v->as.text || strlen(v->as.text) >= sizeof m->key)
        return format_cell(v, digits, cell, sizeof m->text);
    if (m->type != v->type ||
        (v->type == RUNNER_TEXT ? strcmp(m->key, v->as.text) != 0 : m->bits != bits)) {
        m->len = format_cell(v, digits, m->text, sizeof m->text);
        m->type = v->type;
        m->bits = bits;
        if (v->type == RUNNER_TEXT)
            strcpy(m->key, v->as.text);
    }
    memcpy(cell, m->text, m->len + 1);
    return m->len;
}

/* "name [unit]"; the unit is left out when it only repeats the name
 * ("workers [workers]"). */
static void column_header(const table_column *c, char *buf, size_t size)
{
    char name[64], unit[64];
    util_printable(c->name, name, sizeof name);
    util_printable(c->unit, unit, sizeof unit);
    if (*c->unit && strcmp(c->unit, c->name) != 0)
        snprintf(buf, size, "%s [%s]", name, unit);
    else
        snprintf(buf, size, "%s", name);
}

void output_table_text(FILE *out, const table *t) { output_table_text_head(out, t, (size_t)-1); }

void output_table_text_head(FILE *out, const table *t, size_t max_rows)
{
    size_t shown_rows = t->row_count < max_rows ? t->row_count : max_rows;
    output_text_layout layout;
    if (output_text_layout_init(&layout, t) != 0)
        return;
    for (size_t r = 0; r < t->row_count; r++)
        output_text_layout_note(&layout, table_cell(t, r, 0));
    for (size_t r = 0; r < shown_rows; r++)
        output_text_layout_widen(&layout, table_cell(t, r, 0));
    output_text_layout_print_head(out, &layout);
    for (size_t r = 0; r < shown_rows; r++)
        output_text_layout_print_row(out, &layout, table_cell(t, r, 0));
    if (shown_rows < t->row_count)
        output_text_more_rows(out, t->row_count - shown_rows);
    output_text_layout_clear(&layout);
}

/* --- aligned text, a row at a time ---------------------------------------- */

int output_text_layout_init(output_text_layout *l, const table *columns)
{
    size_t n = columns->column_count ? columns->column_count : 1;
    *l = (output_text_layout){ .columns = columns };
    l->first = calloc(n, sizeof *l->first);
    l->varies = calloc(n, sizeof *l->varies);
    l->shown = calloc(n, sizeof *l->shown);
    l->width = calloc(n, sizeof *l->width);
    l->memo = calloc(n, sizeof *l->memo);
    if (l->first && l->varies && l->shown && l->width && l->memo)
        return 0;
    output_text_layout_clear(l);
    return -1;
}

void output_text_layout_clear(output_text_layout *l)
{
    for (size_t c = 0; l->first && c < l->columns->column_count; c++)
        value_clear(&l->first[c]);
    free(l->first);
    free(l->varies);
    free(l->shown);
    free(l->width);
    free(l->memo);
    *l = (output_text_layout){ 0 };
}

void output_text_layout_note(output_text_layout *l, const value *row)
{
    for (size_t c = 0; c < l->columns->column_count; c++) {
        if (l->row_count == 0)
            value_copy(&l->first[c], &row[c]);
        else if (!l->varies[c] && !value_equal(&row[c], &l->first[c]))
            l->varies[c] = 1;
    }
    l->row_count++;
}

void output_text_layout_widen(output_text_layout *l, const value *row)
{
    char cell[64];
    for (size_t c = 0; c < l->columns->column_count; c++) {
        size_t n = layout_cell(l, c, &row[c], cell);
        if (n > l->width[c])
            l->width[c] = n;
    }
}

void output_text_layout_set_digits(output_text_layout *l, const int *digits,
                                   const table_facts_seen_fn seen, void *ctx)
{
    char cell[64];
    l->digits = digits;
    for (size_t c = 0; c < l->columns->column_count; c++) {
        if (digits[c] >= OUTPUT_DIGITS)
            continue;
        l->width[c] = 0;
        const value *v;
        for (size_t i = 0; (v = seen(ctx, c, i)) != NULL; i++) {
            size_t n = layout_cell(l, c, v, cell);
            if (n > l->width[c])
                l->width[c] = n;
        }
    }
}

size_t output_terminal_width(FILE *out, int wide)
{
    if (wide || !isatty(fileno(out)))
        return 0;
    const char *columns = getenv("COLUMNS");
    char *end = NULL;
    long n = columns ? strtol(columns, &end, 10) : 0;
    if (columns && end != columns && *end == 0 && n > 0)
        return (size_t)n;
    struct winsize size;
    if (ioctl(fileno(out), TIOCGWINSZ, &size) == 0 && size.ws_col > 0)
        return size.ws_col;
    return 80;
}

void output_text_layout_set_view(output_text_layout *l, const size_t *order, size_t order_count,
                                 const char *const *folded, size_t folded_count, size_t max_width)
{
    l->order = order;
    l->order_count = order_count;
    l->folded = folded;
    l->folded_count = folded_count;
    l->max_width = max_width;
    l->fitted = order_count;
}

/* Characters a terminal shows for UTF-8 text: its bytes less the
 * continuation bytes (util_printable has made the rest printable). */
static size_t shown_width(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xc0) != 0x80;
    return n;
}

/* The folded settings on lines of at most max_width characters (0: one
 * line), each line indented by two spaces. */
static void print_folded(FILE *out, const output_text_layout *l)
{
    static const char separator[] = " \xc2\xb7 ";
    size_t used = 0;
    for (size_t i = 0; i < l->folded_count; i++) {
        char setting[512];
        util_printable(l->folded[i], setting, sizeof setting);
        size_t w = shown_width(setting);
        if (i == 0) {
            fputs("  ", out);
            used = 2;
        } else if (l->max_width && used + 3 + w + 2 > l->max_width) { /* room for " ·" */
            fputs(" \xc2\xb7\n  ", out);
            used = 2;
        } else {
            fputs(separator, out);
            used += 3;
        }
        fputs(setting, out);
        used += w;
    }
    if (l->folded_count)
        fputc('\n', out);
}

void output_wrapped(FILE *out, const char *text, size_t max_width)
{
    size_t used = 0;
    while (*text) {
        size_t space = strspn(text, " ");
        size_t word = strcspn(text + space, " ");
        size_t w = 0;
        for (size_t i = 0; i < word; i++)
            w += ((unsigned char)text[space + i] & 0xc0) != 0x80;
        if (max_width && used > 0 && used + space + w > max_width) {
            fputs("\n  ", out);
            used = 2;
        } else {
            fwrite(text, 1, space, out);
            used += space;
        }
        fwrite(text + space, 1, word, out);
        used += w;
        text += space + word;
    }
    fputc('\n', out);
}

/* The view's head: title, folded line, the columns left out, the header. */
static void print_view_head(FILE *out, output_text_layout *l)
{
    const table *t = l->columns;
    char header[160], title[256];
    if (t->title)
        output_wrapped(out, util_printable(t->title, title, sizeof title), l->max_width);
    print_folded(out, l);
    if (l->order_count == 0) {
        fprintf(out, "  (the %zu rows are the same)\n", l->row_count);
        return;
    }
    size_t used = 0;
    for (size_t i = 0; i < l->order_count; i++) {
        size_t c = l->order[i];
        column_header(&t->columns[c], header, sizeof header);
        if (strlen(header) > l->width[c])
            l->width[c] = strlen(header);
        size_t need = (i ? 2 : 0) + l->width[c];
        if (l->max_width && i > 0 && used + need > l->max_width) {
            l->fitted = i;
            break;
        }
        used += need;
    }
    if (l->fitted < l->order_count) {
        size_t left = l->order_count - l->fitted;
        int n = fprintf(out, "  (%zu more column%s, %s shows %s:", left, left == 1 ? "" : "s",
                        l->wide_hint ? l->wide_hint : "--wide", left == 1 ? "it" : "them");
        size_t line = n > 0 ? (size_t)n : 0;
        for (size_t i = l->fitted; i < l->order_count; i++) {
            util_printable(t->columns[l->order[i]].name, header, sizeof header);
            /* The names as far as the line goes: after each, room kept for
             * ")" when it is the last, else for ", …)"; past that, " …)". */
            size_t comma = i > l->fitted, after = i + 1 < l->order_count ? 4 : 1;
            if (l->max_width && line + comma + 1 + shown_width(header) + after > l->max_width) {
                fputs(comma ? ", \xe2\x80\xa6" : " \xe2\x80\xa6", out);
                break;
            }
            fprintf(out, "%s %s", comma ? "," : "", header);
            line += comma + 1 + shown_width(header);
        }
        fputs(")\n", out);
    }
    const char *sep = "";
    for (size_t i = 0; i < l->fitted; i++) {
        size_t c = l->order[i];
        column_header(&t->columns[c], header, sizeof header);
        fprintf(out, value_type_is_numeric(t->columns[c].type) ? "%s%*s" : "%s%-*s", sep,
                (int)l->width[c], header);
        sep = "  ";
    }
    fputc('\n', out);
}

void output_text_layout_print_head(FILE *out, output_text_layout *l)
{
    if (l->order) {
        print_view_head(out, l);
        return;
    }
    const table *t = l->columns;
    size_t n = t->column_count;
    char cell[64], header[160], title[256], name[64], unit[64];
    if (t->title)
        fprintf(out, "%s\n", util_printable(t->title, title, sizeof title));
    /* Parameters fixed for the whole section go on one line, not in columns. */
    int fixed_printed = 0;
    for (size_t c = 0; c < n; c++) {
        l->shown[c] = !(t->columns[c].is_param && l->row_count > 1 && !l->varies[c]);
        if (!l->shown[c]) {
            format_cell(&l->first[c], OUTPUT_DIGITS, cell, sizeof cell);
            fprintf(out, "%s%s = %s%s%s", fixed_printed ? ", " : "  ",
                    util_printable(t->columns[c].name, name, sizeof name), cell,
                    *t->columns[c].unit ? " " : "",
                    util_printable(t->columns[c].unit, unit, sizeof unit));
            fixed_printed = 1;
        }
    }
    if (fixed_printed)
        fputc('\n', out);
    const char *sep = "";
    for (size_t c = 0; c < n; c++) {
        if (!l->shown[c])
            continue;
        column_header(&t->columns[c], header, sizeof header);
        if (strlen(header) > l->width[c])
            l->width[c] = strlen(header);
        /* Quantities right-aligned, words (text, true/false) left-aligned. */
        fprintf(out, value_type_is_numeric(t->columns[c].type) ? "%s%*s" : "%s%-*s", sep,
                (int)l->width[c], header);
        sep = "  ";
    }
    fputc('\n', out);
}

/* One cell of a row into line (cap bytes, len used): right-aligned when
 * numeric, left-aligned otherwise, to width; fprintf's "%s%*s" bytes. */
static size_t put_cell(FILE *out, char *line, size_t cap, size_t len, const char *sep,
                       size_t seplen, const char *cell, size_t n, size_t width, int numeric)
{
    size_t pad = width > n ? width - n : 0;
    if (len + seplen + n + pad > cap) {
        fwrite(line, 1, len, out);
        len = 0;
        if (seplen + n + pad > cap) { /* wider than the buffer: as before */
            fprintf(out, numeric ? "%s%*s" : "%s%-*s", sep, (int)width, cell);
            return 0;
        }
    }
    memcpy(line + len, sep, seplen);
    len += seplen;
    if (numeric) {
        memset(line + len, ' ', pad);
        memcpy(line + len + pad, cell, n);
    } else {
        memcpy(line + len, cell, n);
        memset(line + len + n, ' ', pad);
    }
    return len + n + pad;
}

void output_text_layout_print_row(FILE *out, const output_text_layout *l, const value *row)
{
    const table *t = l->columns;
    char cell[64], line[4096];
    size_t len = 0, seplen = 0;
    if (l->order && l->order_count == 0)
        return;
    size_t count = l->order ? l->fitted : t->column_count;
    for (size_t i = 0; i < count; i++) {
        size_t c = l->order ? l->order[i] : i;
        if (!l->order && !l->shown[c])
            continue;
        size_t n = layout_cell(l, c, &row[c], cell);
        len = put_cell(out, line, sizeof line - 1, len, seplen ? "  " : "", seplen, cell, n,
                       l->width[c], value_type_is_numeric(t->columns[c].type));
        seplen = 2;
    }
    line[len++] = '\n';
    fwrite(line, 1, len, out);
}

void output_text_more_rows(FILE *out, size_t more)
{
    fprintf(out, "... %zu more rows (all are stored: runner show prints them)\n", more);
}

static void csv_field(FILE *out, const char *text)
{
    if (strpbrk(text, ",\"\n\r") == NULL) {
        fputs(text, out);
        return;
    }
    fputc('"', out);
    for (const char *p = text; *p; p++) {
        if (*p == '"')
            fputc('"', out);
        fputc(*p, out);
    }
    fputc('"', out);
}

void output_table_csv(FILE *out, const table *t)
{
    output_csv_header(out, t);
    for (size_t r = 0; r < t->row_count; r++)
        output_csv_row(out, t, table_cell(t, r, 0));
}

void output_csv_header(FILE *out, const table *columns)
{
    for (size_t c = 0; c < columns->column_count; c++) {
        if (c)
            fputc(',', out);
        csv_field(out, columns->columns[c].name);
    }
    fputc('\n', out);
}

/* A row is put together in line[] and written once; reals go through
 * realtext (value_format's "%.17g" bytes, several times faster): `runner
 * show` spends most of its time here. */
void output_csv_row(FILE *out, const table *columns, const value *row)
{
    char line[2048];
    size_t len = 0;
    for (size_t c = 0; c < columns->column_count; c++) {
        const value *v = &row[c];
        if (len + REALTEXT_SIZE + 2 > sizeof line) {
            fwrite(line, 1, len, out);
            len = 0;
        }
        if (c)
            line[len++] = ',';
        if (v->type == RUNNER_TEXT) {
            size_t n = strlen(v->as.text);
            int quoted = strpbrk(v->as.text, ",\"\n\r") != NULL;
            if (len + n < sizeof line - 1 && !quoted) {
                memcpy(line + len, v->as.text, n);
                len += n;
                continue;
            }
            if (quoted && len + 2 * n + 2 < sizeof line - 1) {
                /* csv_field's bytes, without a stdio call per byte (a
                 * point's parameters are JSON, commas and quotes) */
                line[len++] = '"';
                for (const char *p = v->as.text; *p; p++) {
                    if (*p == '"')
                        line[len++] = '"';
                    line[len++] = *p;
                }
                line[len++] = '"';
                continue;
            }
            fwrite(line, 1, len, out);
            len = 0;
            csv_field(out, v->as.text);
        } else if (v->type == RUNNER_INTEGER) {
            len += realtext_int64(v->as.integer, line + len);
        } else if (v->type == RUNNER_REAL && isfinite(v->as.real)) {
            len += realtext_g17(v->as.real, line + len);
        } else {
            value_format(v, 17, line + len, REALTEXT_SIZE);
            len += strlen(line + len);
        }
    }
    line[len++] = '\n';
    fwrite(line, 1, len, out);
}

/* output_table_json's document head: title and columns as jansson writes
 * them, up to the rows' "[" (exclusive). 0, or -1 out of memory. */
static int json_head(FILE *out, const table *t)
{
    json_t *doc = json_object(), *columns = json_array(), *rows = json_array();
    int ok = doc && columns && rows;
    for (size_t c = 0; ok && c < t->column_count; c++) {
        json_t *col = json_object();
        if (col) {
            value_json_put(col, "name", value_json_text(t->columns[c].name), &ok);
            value_json_put(col, "unit", value_json_text(t->columns[c].unit), &ok);
            value_json_put(col, "type", json_string(value_type_name(t->columns[c].type)), &ok);
            value_json_put(col, "role", json_string(t->columns[c].is_param ? "param" : "output"),
                           &ok);
        }
        value_json_push(columns, col, &ok);
    }
    if (ok) {
        value_json_put(doc, "title", value_json_text(t->title), &ok);
        value_json_put(doc, "columns", columns, &ok);
        value_json_put(doc, "rows", rows, &ok);
        columns = rows = NULL;
    }
    /* The document without rows ends in "[]" (the rows), "\n}": the head is
     * everything before the "[]". All or nothing: a document missing a
     * member would misplace values. */
    char *text = ok ? json_dumps(doc, JSON_PRESERVE_ORDER | JSON_INDENT(2)) : NULL;
    size_t size = text ? strlen(text) : 0;
    int rc = -1;
    if (size >= 4 && strcmp(text + size - 4, "[]\n}") == 0) {
        fwrite(text, 1, size - 4, out);
        rc = 0;
    }
    free(text);
    json_decref(doc);
    json_decref(columns);
    json_decref(rows);
    return rc;
}

int output_table_json(FILE *out, const table *t)
{
    if (output_json_begin(out, t) != 0)
        return -1;
    for (size_t r = 0; r < t->row_count; r++)
        if (output_json_row(out, t, table_cell(t, r, 0), r) != 0)
            return -1;
    output_json_end(out, t->row_count);
    return 0;
}

/* --- JSON, a row at a time ------------------------------------------------ */

int output_json_begin(FILE *out, const table *columns)
{
    if (json_head(out, columns) != 0)
        return -1;
    fputc('[', out);
    return 0;
}

/* A row as json_dumpf indents it two levels down (json_text.h: the cells'
 * bytes), written whole or not at all. In line[] when every cell fits
 * there as json_text_cell writes it, else through a strbuf. */
int output_json_row(FILE *out, const table *columns, const value *row, size_t index)
{
    static const char first[] = "\n    [", next[] = ",\n    [", cell_sep[] = ",\n      ";
    char line[4096];
    size_t len = index ? sizeof next - 1 : sizeof first - 1;
    memcpy(line, index ? next : first, len);
    size_t c = 0;
    for (; c < columns->column_count; c++) {
        if (len + sizeof cell_sep + 16 > sizeof line)
            break;
        memcpy(line + len, c ? cell_sep : cell_sep + 1, sizeof cell_sep - (c ? 1 : 2));
        len += sizeof cell_sep - (c ? 1 : 2);
        size_t n = json_text_cell(&row[c], line + len, sizeof line - len - 8);
        if (n == 0)
            break;
        len += n;
    }
    if (c == columns->column_count) {
        const char *end = c ? "\n    ]" : "]";
        size_t n = strlen(end);
        memcpy(line + len, end, n);
        fwrite(line, 1, len + n, out);
        return 0;
    }
    strbuf slow = { 0 };
    strbuf_str(&slow, index ? next : first);
    for (c = 0; c < columns->column_count; c++) {
        strbuf_str(&slow, c ? cell_sep : cell_sep + 1);
        json_text_value(&slow, &row[c]);
    }
    strbuf_str(&slow, columns->column_count ? "\n    ]" : "]");
    int rc = slow.oom ? -1 : 0;
    if (rc == 0)
        fwrite(slow.data, 1, slow.len, out);
    strbuf_free(&slow);
    return rc;
}

void output_json_end(FILE *out, size_t rows_written)
{
    fputs(rows_written ? "\n  ]\n}\n" : "]\n}\n", out);
}

int output_rows(FILE *out, const table *columns, output_format format, size_t count,
                output_row_fn row, void *ctx)
{
    value *cells = calloc(columns->column_count + 1, sizeof *cells);
    if (!cells)
        return -1;
    int rc = 0;
    if (format == OUTPUT_TABLE) {
        /* output_table_text's steps: every row noted and widened, then
         * the head and the rows */
        output_text_layout layout;
        if (output_text_layout_init(&layout, columns) == 0) {
            for (size_t r = 0; r < count; r++) {
                row(ctx, r, cells);
                output_text_layout_note(&layout, cells);
                output_text_layout_widen(&layout, cells);
            }
            output_text_layout_print_head(out, &layout);
            for (size_t r = 0; r < count; r++) {
                row(ctx, r, cells);
                output_text_layout_print_row(out, &layout, cells);
            }
            output_text_layout_clear(&layout);
        }
    } else if (format == OUTPUT_CSV) {
        output_csv_header(out, columns);
        for (size_t r = 0; r < count; r++) {
            row(ctx, r, cells);
            output_csv_row(out, columns, cells);
        }
    } else if ((rc = output_json_begin(out, columns)) == 0) {
        for (size_t r = 0; rc == 0 && r < count; r++) {
            row(ctx, r, cells);
            rc = output_json_row(out, columns, cells, r);
        }
        if (rc == 0)
            output_json_end(out, count);
    }
    free(cells);
    return rc;
}

int output_table(FILE *out, const table *t, output_format format)
{
    switch (format) {
    case OUTPUT_TABLE: output_table_text(out, t); break;
    case OUTPUT_CSV: output_table_csv(out, t); break;
    case OUTPUT_JSON: return output_table_json(out, t);
    }
    return 0;
}
