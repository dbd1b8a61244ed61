/* test_wire: the bytes isolate.c and the MPI ranks exchange. Every cell type
 * and NULL round-trip exactly (NaN, infinities, -0.0, empty and UTF-8 text);
 * short or corrupt input is refused without reading past its end. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "base/wire.h"

static void test_numbers_and_text(void)
{
    wire_writer w = { 0 };
    wire_put_u8(&w, 7);
    wire_put_u32(&w, 4000000000u);
    wire_put_u64(&w, 0xfedcba9876543210ULL);
    wire_put_f64(&w, -0.0);
    wire_put_text(&w, "gr\xc3\xa4"
                      "dient");
    wire_put_text(&w, NULL);
    CHECK(!w.failed);
    wire_reader r = wire_reader_of(w.data, w.len);
    CHECK_INT_EQ(wire_get_u8(&r), 7);
    CHECK(wire_get_u32(&r) == 4000000000u);
    CHECK(wire_get_u64(&r) == 0xfedcba9876543210ULL);
    double zero = wire_get_f64(&r);
    CHECK(zero == 0.0 && signbit(zero));
    char *text = wire_get_text(&r), *empty = wire_get_text(&r);
    CHECK_STR_EQ(text, "gr\xc3\xa4"
                       "dient");
    CHECK_STR_EQ(empty, "");
    CHECK(!r.failed && r.pos == r.len);
    /* Past the end: zeros, and the reader says so from then on. */
    CHECK_INT_EQ(wire_get_u32(&r), 0);
    CHECK(r.failed);
    CHECK(wire_get_text(&r) == NULL);
    free(text);
    free(empty);
    wire_writer_free(&w);
}

static void test_cells(void)
{
    value cells[8] = {
        value_integer(-9007199254740993LL),
        value_real(NAN),
        value_real(INFINITY),
        value_real(-INFINITY),
        value_boolean(1),
        value_text("shard 3"),
        VALUE_NULL,
        value_text(""),
    };
    wire_writer w = { 0 };
    wire_put_cells(&w, cells, 8);
    value back[8];
    wire_reader r = wire_reader_of(w.data, w.len);
    CHECK_INT_EQ(wire_get_cells(&r, back, 8), 0);
    CHECK(r.pos == r.len);
    for (int i = 0; i < 8; i++)
        CHECK(value_equal(&cells[i], &back[i])); /* NaN equals NaN here */
    for (int i = 0; i < 8; i++) {
        value_clear(&cells[i]);
        value_clear(&back[i]);
    }
    /* Every shorter prefix fails cleanly, owning nothing afterwards. */
    int refused = 0;
    for (size_t len = 0; len < w.len; len++) {
        wire_reader cut = wire_reader_of(w.data, len);
        refused += wire_get_cells(&cut, back, 8) == -1;
    }
    CHECK_INT_EQ(refused, (int)w.len);
    /* An unknown type byte is corrupt input. */
    w.data[0] = 9;
    wire_reader bad = wire_reader_of(w.data, w.len);
    CHECK_INT_EQ(wire_get_cells(&bad, back, 8), -1);
    wire_writer_free(&w);
}

static void test_outcome(void)
{
    value rows[4] = { value_real(1.5), value_text("a"), value_real(2.5), value_text("b") };
    wire_writer w = { 0 };
    wire_put_outcome(&w, 0, NULL, rows, 2, 2);
    wire_put_outcome(&w, 1, "asked to fail", rows, 2, 2); /* a failure carries no rows */
    wire_reader r = wire_reader_of(w.data, w.len);
    int failed;
    char *error;
    value *back;
    size_t row_count;
    CHECK_INT_EQ(wire_get_outcome(&r, 2, &failed, &error, &back, &row_count), 0);
    CHECK(!failed && error == NULL && row_count == 2);
    if (back && row_count == 2) {
        for (int i = 0; i < 4; i++) {
            CHECK(value_equal(&rows[i], &back[i]));
            value_clear(&back[i]);
        }
    }
    free(back);
    CHECK_INT_EQ(wire_get_outcome(&r, 2, &failed, &error, &back, &row_count), 0);
    CHECK(failed && back == NULL && row_count == 0);
    CHECK_STR_EQ(error, "asked to fail");
    free(error);
    CHECK(r.pos == r.len);
    /* A row count larger than the bytes could hold is refused before any
     * allocation. */
    wire_writer huge = { 0 };
    wire_put_u8(&huge, 0);
    wire_put_text(&huge, NULL);
    wire_put_u64(&huge, UINT64_MAX / 4);
    wire_reader h = wire_reader_of(huge.data, huge.len);
    CHECK_INT_EQ(wire_get_outcome(&h, 2, &failed, &error, &back, &row_count), -1);
    CHECK(error == NULL && back == NULL);
    wire_writer_free(&huge);
    wire_writer_free(&w);
    for (int i = 0; i < 4; i++)
        value_clear(&rows[i]);
}

/* Sizes that would wrap size_t mark the writer failed before any copy or
 * allocation; a failed writer stays failed. */
static void test_writer_overflow(void)
{
    wire_writer w = { 0 };
    wire_put_u32(&w, 7);
    wire_put(&w, "x", SIZE_MAX - 2);
    CHECK(w.failed && w.len == 4);
    wire_put_u8(&w, 1);
    CHECK(w.len == 4);
    wire_writer_free(&w);
    CHECK(!w.failed && w.data == NULL);

    wire_writer huge = { .data = NULL, .len = SIZE_MAX - 1, .cap = 0 };
    wire_put_u64(&huge, 1);
    CHECK(huge.failed && huge.data == NULL);
    wire_writer_free(&huge);
}

int main(void)
{
    test_numbers_and_text();
    test_cells();
    test_outcome();
    test_writer_overflow();
    return check_done("test_wire");
}
