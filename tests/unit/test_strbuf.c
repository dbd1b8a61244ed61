/* test_strbuf: text appended, formatted and reset, always NUL-terminated;
 * sizes that would wrap size_t are refused (oom, sticky) before any
 * allocation; the shared growth rule never returns less than asked. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "base/strbuf.h"

static void test_append(void)
{
    strbuf b = { 0 };
    strbuf_str(&b, "speedup");
    strbuf_add(&b, ", ", 2);
    strbuf_printf(&b, "%d workers, %.1f s", 8, 2.5);
    CHECK(!b.oom);
    CHECK_STR_EQ(b.data, "speedup, 8 workers, 2.5 s");
    CHECK(b.len == strlen(b.data));
    strbuf_reset(&b);
    CHECK(b.len == 0 && b.data[0] == '\0');
    /* Past the first 256 bytes: grows and stays terminated. */
    for (int i = 0; i < 100; i++)
        strbuf_str(&b, "abcdefghij");
    CHECK(!b.oom && b.len == 1000 && b.cap >= 1001 && b.data[1000] == '\0');
    strbuf_free(&b);
    CHECK(b.data == NULL && b.len == 0 && b.cap == 0);
}

static void test_growth_rule(void)
{
    CHECK(strbuf_grown_capacity(0, 1) == 256);
    CHECK(strbuf_grown_capacity(0, 257) == 512);
    CHECK(strbuf_grown_capacity(256, 256) == 256);
    CHECK(strbuf_grown_capacity(256, 1000) == 1024);
    /* Doubling would wrap: exactly what was asked, never less. */
    CHECK(strbuf_grown_capacity(SIZE_MAX / 2 + 1, SIZE_MAX) == SIZE_MAX);
    CHECK(strbuf_grown_capacity(SIZE_MAX / 4 * 3, SIZE_MAX / 4 * 3 + 1) == SIZE_MAX / 4 * 3 + 1);
}

static void test_sizes_that_wrap(void)
{
    /* len + n + 1 would wrap: refused without reading the bytes. */
    strbuf b = { 0 };
    strbuf_str(&b, "ab");
    strbuf_add(&b, "x", SIZE_MAX - 2);
    CHECK(b.oom);
    CHECK_STR_EQ(b.data, "ab");
    strbuf_str(&b, "c"); /* sticky: later appends do nothing */
    CHECK_STR_EQ(b.data, "ab");
    strbuf_free(&b);
    CHECK(!b.oom);

    /* A buffer that claims to be nearly SIZE_MAX long cannot take 2 more. */
    strbuf huge = { .data = NULL, .len = SIZE_MAX - 2, .cap = 0 };
    strbuf_add(&huge, "yz", 2);
    CHECK(huge.oom && huge.data == NULL);
    strbuf_printf(&huge, "%s", "more");
    CHECK(huge.data == NULL);
    strbuf_free(&huge);
}

int main(void)
{
    test_append();
    test_growth_rule();
    test_sizes_that_wrap();
    return check_done("test_strbuf");
}
