/* exec_parse: JSON lines, key=value and patterns to rows; messages name the
 * column and quote the line. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "exec/exec_parse.h"

static const runner_column columns[] = {
    { "step", RUNNER_INTEGER, "", "" },
    { "loss", RUNNER_REAL, "", "" },
    { "ok", RUNNER_BOOLEAN, "", "" },
    { "tag", RUNNER_TEXT, "", "" },
};

static void free_rows(value *rows, size_t n)
{
    for (size_t i = 0; i < n * 4; i++)
        value_clear(&rows[i]);
    free(rows);
}

static void parse_fails(exec_parser *p, const char *text, const char *expected)
{
    value *rows = NULL;
    size_t n = 0;
    char *err = NULL;
    CHECK_INT_EQ(exec_parse(p, text, &rows, &n, &err), -1);
    CHECK_STR_EQ(err, expected);
    free(err);
}

static void test_jsonl(void)
{
    exec_parser *p = NULL;
    char *err = NULL;
    CHECK_INT_EQ(exec_parser_new(EXEC_OUTPUT_JSONL, columns, 4, NULL, &p, &err), 0);
    value *rows = NULL;
    size_t n = 0;
    CHECK_INT_EQ(exec_parse(p,
                            "log line\n{\"step\": 1, \"loss\": 2, \"ok\": true, \"tag\": \"a b\", "
                            "\"extra\": 0}\n  {\"step\": 2, \"loss\": \"NaN\", \"ok\": false, "
                            "\"tag\": \"\"}\r\n",
                            &rows, &n, &err),
                 0);
    CHECK_INT_EQ(n, 2);
    CHECK_INT_EQ(rows[0].as.integer, 1);
    CHECK_NEAR(rows[1].as.real, 2.0, 0);
    CHECK_INT_EQ(rows[2].as.boolean, 1);
    CHECK_STR_EQ(rows[3].as.text, "a b");
    CHECK(isnan(rows[5].as.real));
    free_rows(rows, n);
    parse_fails(p, "{\"step\": 1.5, \"loss\": 1, \"ok\": true, \"tag\": \"\"}",
                "column 'step': expected an integer, got a real in line 1: {\"step\": 1.5, "
                "\"loss\": 1, \"ok\": true, \"tag\": \"\"}");
    parse_fails(p, "\n{\"step\": 1, \"ok\": true, \"tag\": \"\"}",
                "column 'loss' is missing from line 2: {\"step\": 1, \"ok\": true, \"tag\": \"\"}");
    parse_fails(p, "{\"step\": 1,",
                "line 1 is not a JSON object (string or '}' expected near "
                "end of file): {\"step\": 1,");
    exec_parser_free(p);
}

static void test_keyvalue(void)
{
    exec_parser *p = NULL;
    char *err = NULL;
    CHECK_INT_EQ(exec_parser_new(EXEC_OUTPUT_KEYVALUE, columns, 4, NULL, &p, &err), 0);
    value *rows = NULL;
    size_t n = 0;
    /* A key seen again starts a row; so does a blank line. */
    CHECK_INT_EQ(exec_parse(p,
                            "step=1\nloss = 0.5\nok=true\ntag=x y\nstep=2\nloss=1e3\nok=0\n"
                            "tag=\nignored line\n",
                            &rows, &n, &err),
                 0);
    CHECK_INT_EQ(n, 2);
    CHECK_STR_EQ(rows[3].as.text, "x y");
    CHECK_NEAR(rows[5].as.real, 1000, 0);
    CHECK_INT_EQ(rows[6].as.boolean, 0);
    free_rows(rows, n);
    parse_fails(p, "step=one\n",
                "column 'step': expected an integer, got \"one\" in line 1: "
                "step=one");
    parse_fails(p, "step=1\nloss=2\nok=1\n", "column 'tag' is missing from row 1 of the output");
    exec_parser_free(p);
}

static void test_patterns(void)
{
    exec_parser *p = NULL;
    char *err = NULL;
    const char *bad[] = { "took ([0-9]+", NULL, NULL, NULL };
    CHECK_INT_EQ(exec_parser_new(EXEC_OUTPUT_PATTERN, columns, 1, bad, &p, &err), -1);
    CHECK(err && strncmp(err, "output pattern for column 'step': ", 34) == 0);
    free(err);
    err = NULL;
    const char *none[] = { "took [0-9]+", NULL, NULL, NULL };
    CHECK_INT_EQ(exec_parser_new(EXEC_OUTPUT_PATTERN, columns, 1, none, &p, &err), -1);
    CHECK_STR_EQ(err, "output pattern for column 'step': it needs exactly one capture group ( )");
    free(err);
    err = NULL;
    const char *good[] = { "^step ([0-9]+)$", "loss=([^ ]+)", NULL, NULL };
    CHECK_INT_EQ(exec_parser_new(EXEC_OUTPUT_PATTERN, columns, 2, good, &p, &err), 0);
    value *rows = NULL;
    size_t n = 0;
    CHECK_INT_EQ(exec_parse(p, "hello\nstep 7\nx loss=0.25 y\n", &rows, &n, &err), 0);
    CHECK_INT_EQ(n, 1);
    CHECK_INT_EQ(rows[0].as.integer, 7);
    CHECK_NEAR(rows[1].as.real, 0.25, 0);
    value_clear(&rows[0]), value_clear(&rows[1]);
    free(rows);
    parse_fails(p, "step 7\n", "column 'loss': no line of the output matches its pattern");
    parse_fails(p, "a\nstep 7\nloss=abc\n",
                "column 'loss': expected a real, got \"abc\" in "
                "line 3: loss=abc");
    exec_parser_free(p);
}

/* Bounded work: a pattern too large once expanded is refused before
 * regcomp (which alone takes minutes on some), a line too long to search
 * is skipped and said, and a parse stops at its deadline or a stop
 * request. */
static void test_bounds(void)
{
    exec_parser *p = NULL;
    char *err = NULL;
    const char *huge[] = { "(((a{1,100}){1,100}){1,100})x", NULL, NULL, NULL };
    CHECK_INT_EQ(exec_parser_new(EXEC_OUTPUT_PATTERN, columns, 1, huge, &p, &err), -1);
    CHECK_STR_EQ(err, "output pattern for column 'step': too large once its repetitions are "
                      "expanded (1010102 positions, at most 256): use *, + or smaller {m,n} "
                      "bounds");
    free(err);
    err = NULL;
    /* 120 + 120 + the group: within the cap; + doubles an atom */
    const char *edge[] = { "(a{1,120}a{1,120})", "(b+){1,100}x([0-9])", NULL, NULL };
    CHECK_INT_EQ(exec_parser_new(EXEC_OUTPUT_PATTERN, columns, 1, edge, &p, &err), 0);
    exec_parser_free(p);
    CHECK_INT_EQ(exec_parser_new(EXEC_OUTPUT_PATTERN, columns, 2, edge, &p, &err), -1);
    CHECK_STR_EQ(err, "output pattern for column 'loss': too large once its repetitions are "
                      "expanded (303 positions, at most 256): use *, + or smaller {m,n} bounds");
    free(err);
    err = NULL;

    const char *step[] = { "step ([0-9]+)", NULL, NULL, NULL };
    CHECK_INT_EQ(exec_parser_new(EXEC_OUTPUT_PATTERN, columns, 1, step, &p, &err), 0);
    size_t long_len = EXEC_PATTERN_LINE_MAX_BYTES + 1;
    char *text = malloc(long_len + 32);
    memset(text, 'x', long_len);
    memcpy(text, "step 1 ", 7);
    strcpy(text + long_len, "\nstep 2\n");
    value *rows = NULL;
    size_t n = 0;
    CHECK_INT_EQ(exec_parse(p, text, &rows, &n, &err), 0); /* the long line is passed over */
    CHECK_INT_EQ(rows[0].as.integer, 2);
    free(rows);
    text[long_len] = '\0';
    parse_fails(p, text,
                "column 'step': no line of the output matches its pattern (1 line longer than "
                "4096 bytes not searched)");
    free(text);

    volatile sig_atomic_t stop = 1;
    exec_parse_bounds stopped = { 0, 0, &stop };
    CHECK_INT_EQ(exec_parse_within(p, "step 1\n", &stopped, &rows, &n, &err), -1);
    CHECK_STR_EQ(err, "stopped by a stop request while parsing stdout");
    free(err);
    err = NULL;
    exec_parse_bounds late = { 1e-9, 2, NULL }; /* a deadline long past */
    CHECK_INT_EQ(exec_parse_within(p, "step 1\n", &late, &rows, &n, &err), -1);
    CHECK_STR_EQ(err, "parsing stdout took longer than 2 s (the command's timeout, or 60 s "
                      "without one); simplify the output patterns or print less");
    free(err);
    exec_parser_free(p);
}

int main(void)
{
    test_jsonl();
    test_keyvalue();
    test_patterns();
    test_bounds();
    return check_done("test_exec_parse");
}
