/* wire: a compact byte format for what crosses a process boundary — a
 * point's parameters going out, its outcome and rows coming back — used by
 * isolate.c (a pipe to a child) and sweep.c (MPI messages between ranks).
 * Both ends are always the same runner binary, so numbers travel in the
 * machine's own byte order and layout; it is not a file or network format.
 *
 * wire_writer is a byte buffer, not strbuf: a message is binary, has no
 * terminator and is sent with its exact length; both grow by
 * strbuf_grown_capacity() and check `len + n` before adding it.
 *
 * Errors are sticky: a writer that runs out of memory (or is asked for more
 * bytes than size_t holds), or a reader that runs past its end or meets a
 * malformed cell, sets its flag and every later call does nothing (readers
 * return zeros), so a caller checks once at the end. */
#ifndef RUNNER_WIRE_H
#define RUNNER_WIRE_H

#include <stddef.h>
#include <stdint.h>
#include "value.h"

typedef struct wire_writer {
    char *data; /* malloc'd; the caller frees it (wire_writer_free) */
    size_t len, cap;
    int failed; /* out of memory: data is incomplete */
} wire_writer;

void wire_put(wire_writer *w, const void *bytes, size_t len);
void wire_put_u8(wire_writer *w, uint8_t v);
void wire_put_u32(wire_writer *w, uint32_t v);
void wire_put_u64(wire_writer *w, uint64_t v);
void wire_put_f64(wire_writer *w, double v);
/* A u32 length and the bytes; NULL travels as "". */
void wire_put_text(wire_writer *w, const char *text);
/* Each cell as a type byte (0: NULL) and its bytes. */
void wire_put_cells(wire_writer *w, const value *cells, size_t count);
void wire_writer_free(wire_writer *w); /* frees data; the writer may be reused */

typedef struct wire_reader {
    const char *data; /* borrowed */
    size_t len, pos;
    int failed; /* short or malformed input */
} wire_reader;

wire_reader wire_reader_of(const void *data, size_t len);
uint8_t wire_get_u8(wire_reader *r);
uint32_t wire_get_u32(wire_reader *r);
uint64_t wire_get_u64(wire_reader *r);
double wire_get_f64(wire_reader *r);
/* A malloc'd copy of the text (caller frees), or NULL when the reader failed
 * or memory ran out (then the reader is marked failed). */
char *wire_get_text(wire_reader *r);
/* Reads count cells into out (count values, overwritten: clear them first if
 * they own text). Text is malloc'd into the values. On failure every cell
 * read so far is cleared and -1 is returned; otherwise 0. */
int wire_get_cells(wire_reader *r, value *out, size_t count);

/* A point's outcome: failed or not, its error (NULL: none), and its rows
 * (row_count rows of `columns` cells; a failed point sends none). */
void wire_put_outcome(wire_writer *w, int failed, const char *error, const value *rows,
                      size_t row_count, size_t columns);
/* Reads what wire_put_outcome wrote with the same `columns`: *error is
 * malloc'd, or NULL when it was empty; *rows is malloc'd (row_count *
 * columns values owning their text, at least one slot) or NULL when there
 * are none. Returns 0, or -1 with nothing allocated. */
int wire_get_outcome(wire_reader *r, size_t columns, int *failed, char **error, value **rows,
                     size_t *row_count);

#endif
