/* exec_parse: stdout to rows (see exec_parse.h). */
#include "exec_parse.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

#define QUOTED_LINE_MAX 160             /* of a line quoted in a message */
#define POSITIONS_CAP ((size_t)1 << 40) /* saturates the estimate */
#define PATTERN_DEPTH_MAX 256           /* of nested groups */

struct exec_parser {
    exec_output_kind kind;
    const runner_column *columns;
    size_t count;
    regex_t *patterns; /* count of them, EXEC_OUTPUT_PATTERN only */
};

/* ---- a pattern's size once glibc has expanded its repetitions ---- */

static size_t add_positions(size_t a, size_t b)
{
    return a + b > POSITIONS_CAP ? POSITIONS_CAP : a + b;
}

static size_t times_positions(size_t a, size_t b)
{
    return a && b > POSITIONS_CAP / a ? POSITIONS_CAP : a * b;
}

/* A bound {m}, {m,} or {m,n} at *p: how many copies glibc makes of the
 * atom before it (n, or m + 1 when open), *p moved past it. 0: not a bound
 * (then '{' is an ordinary character). */
static size_t bound_copies(const char **p)
{
    const char *q = *p + 1;
    size_t m = 0, n = 0;
    int comma = 0, digits = 0;
    for (; *q >= '0' && *q <= '9'; q++, digits++)
        m = m < 100000 ? m * 10 + (size_t)(*q - '0') : m;
    if (*q == ',') {
        comma = 1;
        for (q++; *q >= '0' && *q <= '9'; q++)
            n = n < 100000 ? n * 10 + (size_t)(*q - '0') : n;
    }
    if (!digits || *q != '}')
        return 0;
    *p = q + 1;
    size_t copies = comma ? (n ? n : m + 1) : m;
    return copies ? copies : 1;
}

/* Moves *p past a bracket expression [...] (classes like [:alpha:] in it). */
static void skip_bracket(const char **p)
{
    const char *q = *p + 1;
    if (*q == '^')
        q++;
    if (*q == ']')
        q++;
    while (*q && *q != ']') {
        if (q[0] == '[' && (q[1] == ':' || q[1] == '=' || q[1] == '.')) {
            char close = q[1];
            for (q += 2; *q && !(q[0] == close && q[1] == ']');)
                q++;
            q += *q ? 2 : 0;
        } else {
            q++;
        }
    }
    *p = *q ? q + 1 : q;
}

static size_t alternation_positions(const char **p, int depth);

static size_t atom_positions(const char **p, int depth)
{
    switch (**p) {
    case '(': {
        (*p)++;
        size_t inner = alternation_positions(p, depth + 1);
        if (**p == ')')
            (*p)++;
        return add_positions(inner, 1);
    }
    case '[': skip_bracket(p); return 1;
    case '\\':
        (*p)++;
        *p += **p ? 1 : 0;
        return 1;
    default: (*p)++; return 1;
    }
}

/* branch | branch ...: the sum of its pieces, each an atom times the copies
 * its repetitions make (+ is an atom and a starred copy). */
static size_t alternation_positions(const char **p, int depth)
{
    if (depth > PATTERN_DEPTH_MAX)
        return POSITIONS_CAP;
    size_t total = 0;
    for (;;) {
        while (**p && **p != '|' && !(**p == ')' && depth > 0)) {
            size_t atom = atom_positions(p, depth);
            for (;;) {
                size_t copies;
                if (**p == '*' || **p == '?')
                    (*p)++;
                else if (**p == '+')
                    (*p)++, atom = times_positions(atom, 2);
                else if (**p == '{' && (copies = bound_copies(p)) > 0)
                    atom = times_positions(atom, copies);
                else
                    break;
            }
            total = add_positions(total, atom);
        }
        if (**p != '|')
            return total;
        (*p)++;
        total = add_positions(total, 1);
    }
}

/* About how many positions glibc's automaton has for the extended regular
 * expression re: what its matching time grows with. */
static size_t pattern_positions(const char *re)
{
    const char *p = re; /* at depth 0 a stray ')' is a character: all is read */
    return alternation_positions(&p, 0);
}

int exec_parser_new(exec_output_kind kind, const runner_column *columns, size_t count,
                    const char *const *patterns, exec_parser **out, char **err)
{
    exec_parser *p = calloc(1, sizeof *p);
    if (!p)
        return util_fail(err, "out of memory");
    p->kind = kind;
    p->columns = columns;
    p->count = count;
    if (kind == EXEC_OUTPUT_PATTERN) {
        p->patterns = calloc(count ? count : 1, sizeof *p->patterns);
        if (!p->patterns) {
            free(p);
            return util_fail(err, "out of memory");
        }
        for (size_t i = 0; i < count; i++) {
            const char *re = patterns && patterns[i] ? patterns[i] : NULL;
            size_t positions = re ? pattern_positions(re) : 0;
            /* checked before regcomp, which itself takes minutes on some */
            int rc = re && positions <= EXEC_PATTERN_MAX_POSITIONS
                         ? regcomp(&p->patterns[i], re, REG_EXTENDED | REG_NEWLINE)
                         : -1;
            if (rc == 0 && p->patterns[i].re_nsub == 1)
                continue;
            char why[200] = "it needs exactly one capture group ( )";
            if (!re)
                snprintf(why, sizeof why, "no pattern given for it");
            else if (positions > EXEC_PATTERN_MAX_POSITIONS)
                snprintf(why, sizeof why,
                         "too large once its repetitions are expanded (%zu%s positions, at "
                         "most %d): use *, + or smaller {m,n} bounds",
                         positions, positions == POSITIONS_CAP ? " or more" : "",
                         EXEC_PATTERN_MAX_POSITIONS);
            else if (rc != 0)
                regerror(rc, &p->patterns[i], why, sizeof why);
            if (rc == 0)
                regfree(&p->patterns[i]);
            for (size_t j = 0; j < i; j++)
                regfree(&p->patterns[j]);
            free(p->patterns);
            free(p);
            return util_fail(err, "output pattern for column '%s': %s", columns[i].name, why);
        }
    }
    *out = p;
    return 0;
}

void exec_parser_free(exec_parser *p)
{
    if (!p)
        return;
    for (size_t i = 0; p->patterns && i < p->count; i++)
        regfree(&p->patterns[i]);
    free(p->patterns);
    free(p);
}

int exec_parse_value(runner_type t, const char *text, value *out)
{
    char *end = NULL;
    errno = 0;
    switch (t) {
    case RUNNER_INTEGER: {
        long long v = strtoll(text, &end, 10);
        if (end == text || *end || errno)
            return -1;
        *out = value_integer(v);
        return 0;
    }
    case RUNNER_REAL: {
        double v = strtod(text, &end);
        if (end == text || *end || (errno && isfinite(v) && v != 0))
            return -1;
        *out = value_real(v == 0 ? 0.0 : v);
        return 0;
    }
    case RUNNER_BOOLEAN:
        if (strcmp(text, "true") == 0 || strcmp(text, "1") == 0)
            *out = value_boolean(1);
        else if (strcmp(text, "false") == 0 || strcmp(text, "0") == 0)
            *out = value_boolean(0);
        else
            return -1;
        return 0;
    case RUNNER_TEXT: *out = value_text(text); return out->type ? 0 : -1;
    }
    return -1;
}

static const char *article(runner_type t)
{
    return t == RUNNER_INTEGER   ? "an integer"
           : t == RUNNER_REAL    ? "a real"
           : t == RUNNER_BOOLEAN ? "a boolean"
                                 : "a text";
}

/* The line for a message: one line, printable, cut. */
static const char *quote(const char *line, size_t len, char *buf, size_t size)
{
    char cut[QUOTED_LINE_MAX + 4];
    size_t n = len < QUOTED_LINE_MAX ? len : QUOTED_LINE_MAX;
    memcpy(cut, line, n);
    strcpy(cut + n, len > n ? "..." : "");
    return util_printable(cut, buf, size);
}

static int wrong_type(char **err, const runner_column *c, const char *got, size_t line_no,
                      const char *line, size_t len)
{
    char shown[2 * QUOTED_LINE_MAX];
    return util_fail(err, "column '%s': expected %s, got %s in line %zu: %s", c->name,
                     article(c->type), got, line_no, quote(line, len, shown, sizeof shown));
}

static int missing(char **err, const runner_column *c, size_t line_no, const char *line, size_t len)
{
    char shown[2 * QUOTED_LINE_MAX];
    return util_fail(err, "column '%s' is missing from line %zu: %s", c->name, line_no,
                     quote(line, len, shown, sizeof shown));
}

/* A JSON member as column c's value. */
static int json_cell(const runner_column *c, json_t *j, value *out)
{
    switch (c->type) {
    case RUNNER_INTEGER:
        if (!json_is_integer(j))
            return -1;
        *out = value_integer(json_integer_value(j));
        return 0;
    case RUNNER_REAL:
        if (json_is_number(j)) {
            double v = json_number_value(j);
            *out = value_real(v == 0 ? 0.0 : v);
            return 0;
        }
        /* NaN and infinities, which JSON lacks, as runner writes them */
        return json_is_string(j) && (strcmp(json_string_value(j), "NaN") == 0 ||
                                     strcmp(json_string_value(j), "inf") == 0 ||
                                     strcmp(json_string_value(j), "-inf") == 0)
                   ? exec_parse_value(RUNNER_REAL, json_string_value(j), out)
                   : -1;
    case RUNNER_BOOLEAN:
        if (!json_is_boolean(j))
            return -1;
        *out = value_boolean(json_is_true(j));
        return 0;
    case RUNNER_TEXT:
        if (!json_is_string(j))
            return -1;
        *out = value_text(json_string_value(j));
        return out->type ? 0 : -1;
    }
    return -1;
}

static const char *json_kind(json_t *j)
{
    switch (json_typeof(j)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a real";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    case JSON_NULL: return "null";
    }
    return "something else";
}

typedef struct row_buffer {
    value *rows;
    size_t count, capacity, width;
} row_buffer;

/* A new row of NULL cells at the end, or NULL (no memory). */
static value *row_add(row_buffer *b)
{
    if (b->count == b->capacity) {
        size_t cap = b->capacity ? b->capacity * 2 : 4;
        value *grown = realloc(b->rows, cap * (b->width ? b->width : 1) * sizeof *grown);
        if (!grown)
            return NULL;
        b->rows = grown;
        b->capacity = cap;
    }
    value *row = b->rows + b->count++ * b->width;
    memset(row, 0, b->width * sizeof *row);
    return row;
}

static void row_buffer_free(row_buffer *b)
{
    for (size_t i = 0; i < b->count * b->width; i++)
        value_clear(&b->rows[i]);
    free(b->rows);
    memset(b, 0, sizeof *b);
}

static int jsonl_line(const exec_parser *p, row_buffer *b, const char *line, size_t len,
                      size_t line_no, char **err)
{
    char shown[2 * QUOTED_LINE_MAX];
    json_error_t jerr;
    json_t *obj = json_loadb(line, len, JSON_DECODE_ANY, &jerr);
    if (!obj || !json_is_object(obj)) {
        json_decref(obj);
        return util_fail(err, "line %zu is not a JSON object (%s): %s", line_no,
                         obj ? "not an object" : jerr.text, quote(line, len, shown, sizeof shown));
    }
    value *row = row_add(b);
    int rc = row ? 0 : util_fail(err, "out of memory");
    for (size_t i = 0; rc == 0 && i < p->count; i++) {
        json_t *j = json_object_get(obj, p->columns[i].name);
        if (!j)
            rc = missing(err, &p->columns[i], line_no, line, len);
        else if (json_cell(&p->columns[i], j, &row[i]) != 0)
            rc = wrong_type(err, &p->columns[i], json_kind(j), line_no, line, len);
    }
    json_decref(obj);
    return rc;
}

/* key=value: the current row is open while *open; a key seen again starts
 * the next row. */
static int keyvalue_line(const exec_parser *p, row_buffer *b, int *open, const char *line,
                         size_t len, size_t line_no, char **err)
{
    const char *eq = memchr(line, '=', len);
    if (!eq) {
        if (len == 0)
            *open = 0;
        return 0;
    }
    const char *key = line, *key_end = eq;
    while (key < key_end && (*key == ' ' || *key == '\t'))
        key++;
    while (key_end > key && (key_end[-1] == ' ' || key_end[-1] == '\t'))
        key_end--;
    size_t col = p->count;
    for (size_t i = 0; i < p->count; i++)
        if (strlen(p->columns[i].name) == (size_t)(key_end - key) &&
            memcmp(p->columns[i].name, key, (size_t)(key_end - key)) == 0)
            col = i;
    if (col == p->count)
        return 0; /* not a declared column */
    if (*open && b->rows[(b->count - 1) * b->width + col].type)
        *open = 0;
    if (!*open) {
        if (!row_add(b))
            return util_fail(err, "out of memory");
        *open = 1;
    }
    const char *v = eq + 1, *v_end = line + len;
    while (v < v_end && (*v == ' ' || *v == '\t'))
        v++;
    while (v_end > v && (v_end[-1] == ' ' || v_end[-1] == '\t' || v_end[-1] == '\r'))
        v_end--;
    char *text = util_format("%.*s", (int)(v_end - v), v);
    if (!text)
        return util_fail(err, "out of memory");
    value *cell = &b->rows[(b->count - 1) * b->width + col];
    int rc = exec_parse_value(p->columns[col].type, text, cell);
    if (rc != 0) {
        char got[64];
        snprintf(got, sizeof got, "\"%.40s\"", text);
        rc = wrong_type(err, &p->columns[col], got, line_no, line, len);
    }
    free(text);
    return rc;
}

/* 0 while the parse may go on; -1 with *err once bounds say stop. */
static int within(const exec_parse_bounds *bounds, char **err)
{
    if (!bounds)
        return 0;
    if (bounds->stop && *bounds->stop)
        return util_fail(err, "stopped by a stop request while parsing stdout");
    if (bounds->deadline > 0 && util_monotonic() > bounds->deadline)
        return util_fail(err,
                         "parsing stdout took longer than %g s (the command's timeout, or %g s "
                         "without one); simplify the output patterns or print less",
                         bounds->limit_s, EXEC_PARSE_DEFAULT_MAX_S);
    return 0;
}

/* Column i's pattern against each line in turn, up to the first match: its
 * capture in *got (malloc'd) and the line and its number; 1 found, 0 not
 * (*skipped counts the lines too long to search), -1 with *err. */
static int first_match(const regex_t *re, const char *text, const exec_parse_bounds *bounds,
                       char **got, const char **line_at, size_t *line_len, size_t *line_no,
                       size_t *skipped, char **err)
{
    char line[EXEC_PATTERN_LINE_MAX_BYTES + 1];
    size_t no = 0;
    for (const char *at = text; *at;) {
        size_t len = strcspn(at, "\n");
        no++;
        if (within(bounds, err) != 0)
            return -1;
        if (len > EXEC_PATTERN_LINE_MAX_BYTES) {
            (*skipped)++;
        } else {
            regmatch_t m[2];
            memcpy(line, at, len);
            line[len] = '\0';
            if (regexec(re, line, 2, m, 0) == 0 && m[1].rm_so >= 0) {
                *got = util_format("%.*s", (int)(m[1].rm_eo - m[1].rm_so), line + m[1].rm_so);
                if (!*got)
                    return util_fail(err, "out of memory");
                *line_at = at, *line_len = len, *line_no = no;
                return 1;
            }
        }
        at += len + (at[len] == '\n');
    }
    return 0;
}

/* One row: column i from the first line its pattern matches. */
static int pattern_rows(const exec_parser *p, row_buffer *b, const char *text,
                        const exec_parse_bounds *bounds, char **err)
{
    value *row = row_add(b);
    if (!row)
        return util_fail(err, "out of memory");
    for (size_t i = 0; i < p->count; i++) {
        char *got = NULL;
        const char *line = NULL;
        size_t len = 0, line_no = 0, skipped = 0;
        int found =
            first_match(&p->patterns[i], text, bounds, &got, &line, &len, &line_no, &skipped, err);
        if (found < 0)
            return -1;
        if (!found)
            return skipped
                       ? util_fail(err,
                                   "column '%s': no line of the output matches its pattern "
                                   "(%zu line%s longer than %d bytes not searched)",
                                   p->columns[i].name, skipped, skipped == 1 ? "" : "s",
                                   EXEC_PATTERN_LINE_MAX_BYTES)
                       : util_fail(err, "column '%s': no line of the output matches its pattern",
                                   p->columns[i].name);
        int rc = exec_parse_value(p->columns[i].type, got, &row[i]);
        if (rc != 0) {
            char shown[64];
            snprintf(shown, sizeof shown, "\"%.40s\"", got);
            rc = wrong_type(err, &p->columns[i], shown, line_no, line, len);
        }
        free(got);
        if (rc != 0)
            return -1;
    }
    return 0;
}

/* A key=value row must be whole: -1 with *err naming the first row and
 * column without a value. */
static int check_whole(const exec_parser *p, const row_buffer *b, char **err)
{
    for (size_t r = 0; r < b->count; r++)
        for (size_t i = 0; i < p->count; i++)
            if (!b->rows[r * b->width + i].type)
                return util_fail(err, "column '%s' is missing from row %zu of the output",
                                 p->columns[i].name, r + 1);
    return 0;
}

int exec_parse(const exec_parser *p, const char *text, value **rows, size_t *row_count, char **err)
{
    return exec_parse_within(p, text, NULL, rows, row_count, err);
}

int exec_parse_within(const exec_parser *p, const char *text, const exec_parse_bounds *bounds,
                      value **rows, size_t *row_count, char **err)
{
    row_buffer b = { .width = p->count };
    int rc = 0, open = 0;
    if (p->kind == EXEC_OUTPUT_PATTERN) {
        rc = pattern_rows(p, &b, text, bounds, err);
    } else {
        size_t line_no = 0;
        for (const char *line = text; rc == 0 && *line;) {
            size_t len = strcspn(line, "\n");
            line_no++;
            if ((rc = within(bounds, err)) != 0)
                break;
            size_t trimmed = len;
            while (trimmed && line[trimmed - 1] == '\r')
                trimmed--;
            if (p->kind == EXEC_OUTPUT_KEYVALUE)
                rc = keyvalue_line(p, &b, &open, line, trimmed, line_no, err);
            else {
                size_t lead = strspn(line, " \t");
                if (lead < trimmed && line[lead] == '{')
                    rc = jsonl_line(p, &b, line, trimmed, line_no, err);
            }
            line += len + (line[len] == '\n');
        }
        if (rc == 0 && p->kind == EXEC_OUTPUT_KEYVALUE)
            rc = check_whole(p, &b, err);
    }
    if (rc != 0) {
        row_buffer_free(&b);
        return -1;
    }
    *rows = b.rows;
    *row_count = b.count;
    return 0;
}
