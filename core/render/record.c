/* record: aligned name and value lines, wrapped to the terminal. */
#include "record.h"

#include <stdlib.h>
#include <string.h>

#include "base/quote.h"

void record_wrap(FILE *out, const char *text, size_t column, size_t indent, size_t width)
{
    char *shown = quote_terminal(text ? text : "");
    const char *p = shown ? shown : "";
    int line_empty = 1;
    while (*p) {
        p += strspn(p, " ");
        size_t word = strcspn(p, " ");
        if (!word)
            break;
        if (!line_empty && width && column + 1 + word > width) {
            fprintf(out, "\n%*s", (int)indent, "");
            column = indent;
            line_empty = 1;
        }
        if (!line_empty) {
            fputc(' ', out);
            column++;
        }
        fprintf(out, "%.*s", (int)word, p);
        column += word;
        line_empty = 0;
        p += word;
    }
    fputc('\n', out);
    free(shown);
}

void record_print(FILE *out, const table *t, size_t width)
{
    size_t name_width = 0;
    for (size_t r = 0; r < t->row_count; r++) {
        const value *name = table_cell(t, r, 0);
        size_t len = name->type == RUNNER_TEXT ? strlen(name->as.text) : 0;
        name_width = len > name_width ? len : name_width;
    }
    if (t->title && *t->title)
        fprintf(out, "%s\n", t->title);
    for (size_t r = 0; r < t->row_count; r++) {
        const value *name = table_cell(t, r, 0), *v = table_cell(t, r, 1);
        fprintf(out, "  %-*s  ", (int)name_width, name->type == RUNNER_TEXT ? name->as.text : "");
        char number[64];
        value_format(v, 17, number, sizeof number);
        const char *text = v->type == RUNNER_TEXT ? v->as.text : v->type ? number : "-";
        record_wrap(out, text, name_width + 4, name_width + 4, width);
    }
}
