/* test_util: the shared helpers: edit distance (behind every "did you mean"),
 * identifier rules (plugin, parameter and column names), whole-file reads
 * and formatted allocation. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "base/util.h"

static char tmp_dir[512];

static void test_edit_distance(void)
{
    CHECK_INT_EQ(util_edit_distance("kitten", "sitting"), 3);
    CHECK_INT_EQ(util_edit_distance("sitting", "kitten"), 3); /* symmetric */
    CHECK_INT_EQ(util_edit_distance("", ""), 0);
    CHECK_INT_EQ(util_edit_distance("", "abc"), 3); /* three insertions */
    CHECK_INT_EQ(util_edit_distance("abc", ""), 3); /* three deletions */
    CHECK_INT_EQ(util_edit_distance("jitter", "jitter"), 0);
    CHECK_INT_EQ(util_edit_distance("jiter", "jitter"), 1);    /* one insertion */
    CHECK_INT_EQ(util_edit_distance("workers", "wrokers"), 2); /* a swap is two edits */
    CHECK_INT_EQ(util_edit_distance("flaw", "lawn"), 2);
}

static void test_is_identifier(void)
{
    CHECK(util_is_identifier("jitter"));
    CHECK(util_is_identifier("a_1"));
    CHECK(util_is_identifier("x"));
    CHECK(util_is_identifier("round_s"));

    CHECK(!util_is_identifier(NULL));
    CHECK(!util_is_identifier(""));
    CHECK(!util_is_identifier("1a")); /* must start with a letter */
    CHECK(!util_is_identifier("_a"));
    CHECK(!util_is_identifier("Jitter")); /* lower case only */
    CHECK(!util_is_identifier("jitTer"));
    CHECK(!util_is_identifier("a-b"));
    CHECK(!util_is_identifier("a b"));
    CHECK(!util_is_identifier("a.b"));

    /* At most 63 characters. */
    char name[65];
    memset(name, 'a', 64);
    name[64] = '\0';
    CHECK(!util_is_identifier(name));
    name[63] = '\0';
    CHECK(util_is_identifier(name));
}

static void write_file(const char *path, const char *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (!f)
        return;
    CHECK_INT_EQ(fwrite(data, 1, len, f), len);
    fclose(f);
}

static void test_read_file(void)
{
    char path[600];
    snprintf(path, sizeof path, "%s/util_read.txt", tmp_dir);
    write_file(path, "line one\nline two\n", 18);
    char *text = NULL;
    size_t len = 0;
    CHECK_INT_EQ(util_read_file(path, &text, &len), 0);
    CHECK_STR_EQ(text, "line one\nline two\n");
    CHECK_INT_EQ(len, 18);
    free(text);

    /* Embedded NUL bytes count in the length; the buffer is still terminated. */
    write_file(path, "a\0b", 3);
    text = NULL;
    CHECK_INT_EQ(util_read_file(path, &text, &len), 0);
    CHECK_INT_EQ(len, 3);
    CHECK(text && memcmp(text, "a\0b", 4) == 0);
    free(text);

    /* The length pointer is optional. */
    text = NULL;
    CHECK_INT_EQ(util_read_file(path, &text, NULL), 0);
    free(text);

    /* An empty file reads as "". */
    write_file(path, "", 0);
    text = NULL;
    len = 99;
    CHECK_INT_EQ(util_read_file(path, &text, &len), 0);
    CHECK_STR_EQ(text, "");
    CHECK_INT_EQ(len, 0);
    free(text);

    /* Larger than the first buffer (4096 bytes), so the buffer has to grow. */
    size_t big_len = 10000;
    char *big = malloc(big_len);
    CHECK(big != NULL);
    if (big) {
        for (size_t i = 0; i < big_len; i++)
            big[i] = (char)('a' + i % 26);
        write_file(path, big, big_len);
        text = NULL;
        CHECK_INT_EQ(util_read_file(path, &text, &len), 0);
        CHECK_INT_EQ(len, big_len);
        CHECK(text && memcmp(text, big, big_len) == 0 && text[big_len] == '\0');
        free(text);
        free(big);
    }
    remove(path);

    /* A missing file: -1 with errno saying why, and *text untouched. */
    snprintf(path, sizeof path, "%s/util_no_such_file.txt", tmp_dir);
    char sentinel[] = "untouched";
    text = sentinel;
    errno = 0;
    CHECK_INT_EQ(util_read_file(path, &text, &len), -1);
    CHECK_INT_EQ(errno, ENOENT);
    CHECK(text == sentinel);
}

static void test_format(void)
{
    char *s = util_format("%s: %d of %zu at %.2f", "point", 3, (size_t)10, 0.5);
    CHECK_STR_EQ(s, "point: 3 of 10 at 0.50");
    free(s);

    s = util_format("%s", "");
    CHECK_STR_EQ(s, "");
    free(s);

    /* Longer than any fixed buffer a caller might have guessed. */
    char long_text[3001];
    memset(long_text, 'x', 3000);
    long_text[3000] = '\0';
    s = util_format("[%s]", long_text);
    CHECK(s && strlen(s) == 3002 && s[0] == '[' && s[3001] == ']');
    free(s);
}

static void test_fail_and_strdup(void)
{
    char *err = NULL;
    CHECK_INT_EQ(util_fail(&err, "plugin '%s' not found", "comm"), -1);
    CHECK_STR_EQ(err, "plugin 'comm' not found");
    free(err);
    CHECK_INT_EQ(util_fail(NULL, "nobody reads this"), -1); /* err may be NULL */

    const char *original = "shard";
    char *copy = util_strdup(original);
    CHECK_STR_EQ(copy, "shard");
    CHECK(copy != original);
    free(copy);
    CHECK(util_strdup(NULL) == NULL);
}

/* util_printable: one line, and no byte that is not UTF-8 reaches a
 * terminal raw; valid UTF-8 is kept, and never cut in the middle. */
static void test_printable(void)
{
    char buf[64];
    CHECK_STR_EQ(util_printable("a\nb\tc\033[31m", buf, sizeof buf), "a\\nb\\tc\\x1b[31m");
    CHECK_STR_EQ(util_printable("caf\xe9 caf\xc3\xa9", buf, sizeof buf), "caf\\xe9 caf\xc3\xa9");
    CHECK_STR_EQ(util_printable("\xed\xa0\x80", buf, sizeof buf), "\\xed\\xa0\\x80");
    CHECK_STR_EQ(util_printable("\xe2\x82\xac\xe2\x82\xac", buf, 7), "\xe2\x82\xac"); /* no half */
    CHECK_STR_EQ(util_printable(NULL, buf, sizeof buf), "");
    CHECK_INT_EQ(util_utf8_valid("caf\xc3\xa9"), 1);
    CHECK_INT_EQ(util_utf8_valid("caf\xe9"), 0);
    CHECK_INT_EQ((int)util_utf8_sequence("\xf0\x9f\x98\x80"), 4);
    CHECK_INT_EQ((int)util_utf8_sequence(""), 0);
}

int main(void)
{
    test_printable();
    const char *tmp = getenv("RUNNER_TEST_TMP");
    snprintf(tmp_dir, sizeof tmp_dir, "%s", tmp && *tmp ? tmp : "/tmp");

    test_edit_distance();
    test_is_identifier();
    test_read_file();
    test_format();
    test_fail_and_strdup();
    return check_done("test_util");
}
