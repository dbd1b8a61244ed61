/* test_store_printed: the lines a sweep's script printed (sweep_printed,
 * store_printed.c): blank lines and trailing blanks dropped, order kept, a
 * long line cut at a UTF-8 boundary, lines past the limit left out, a
 * second set replacing the first, and each sweep its own. */
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "check.h"
#include "testdb.h"

static int64_t begin(store *s)
{
    store_sweep_info info = { .script_path = "printed.lua",
                              .script_text = "printf('x')\n",
                              .script_sha256 = "00ff",
                              .options_json = "{}",
                              .overrides_json = "{}",
                              .runner_version = "0.1.0",
                              .host = "testhost",
                              .command_line = "runner sweep printed.lua" };
    int64_t id = -1;
    char *err = NULL;
    CHECK_INT_EQ(store_sweep_begin(s, &info, &id, &err), 0);
    free(err);
    return id;
}

/* The sweep's lines joined by '|'; malloc'd. */
static char *read_back(store *s, int64_t sweep_id, size_t *count)
{
    char **lines = NULL, *err = NULL;
    CHECK_INT_EQ(store_sweep_printed(s, sweep_id, &lines, count, &err), 0);
    free(err);
    strbuf b = { 0 };
    for (size_t i = 0; i < *count; i++)
        strbuf_printf(&b, "%s%s", i ? "|" : "", lines[i]);
    store_sweep_printed_free(lines, *count);
    return b.data ? b.data : strdup("");
}

int main(void)
{
    store *s = testdb_open(testdb_fresh_path("printed.db"), NULL);
    if (!s)
        return check_done("test_store_printed");
    int64_t a = begin(s), b = begin(s);
    char *err = NULL, *got;
    size_t n = 0;

    CHECK_INT_EQ(store_sweep_printed_set(s, a, "=> one \n\n  \ntwo\r\nthree", &err), 0);
    got = read_back(s, a, &n);
    CHECK_STR_EQ(got, "=> one|two|three");
    free(got);
    got = read_back(s, b, &n);
    CHECK_INT_EQ((long)n, 0);
    free(got);

    /* A second run's lines replace the first's. */
    CHECK_INT_EQ(store_sweep_printed_set(s, a, "again\n", &err), 0);
    got = read_back(s, a, &n);
    CHECK_STR_EQ(got, "again");
    free(got);

    /* A long line is cut at STORE_PRINTED_MAX_BYTES, not inside a
     * character: 999 ASCII bytes then "é" (2 bytes) keeps the 999. */
    char long_line[STORE_PRINTED_MAX_BYTES + 8];
    memset(long_line, 'x', STORE_PRINTED_MAX_BYTES - 1);
    strcpy(long_line + STORE_PRINTED_MAX_BYTES - 1, "\xc3\xa9yz");
    CHECK_INT_EQ(store_sweep_printed_set(s, b, long_line, &err), 0);
    got = read_back(s, b, &n);
    CHECK_INT_EQ((long)strlen(got), STORE_PRINTED_MAX_BYTES - 1);
    free(got);

    /* Past STORE_PRINTED_MAX_LINES lines, the rest is left out. */
    strbuf many = { 0 };
    for (int i = 1; i <= STORE_PRINTED_MAX_LINES + 3; i++)
        strbuf_printf(&many, "line %d\n", i);
    CHECK_INT_EQ(store_sweep_printed_set(s, b, many.data, &err), 0);
    strbuf_free(&many);
    got = read_back(s, b, &n);
    CHECK_INT_EQ((long)n, STORE_PRINTED_MAX_LINES);
    CHECK(strstr(got, "|line 500") != NULL && strstr(got, "line 501") == NULL);
    free(got);
    free(err);
    store_close(s);
    return check_done("test_store_printed");
}
