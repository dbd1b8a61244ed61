/* value: one typed cell (parameter value or result), as the host holds it.
 * Text is owned by the value: value_clear() frees it. */
#ifndef RUNNER_VALUE_H
#define RUNNER_VALUE_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include "runner/plugin.h"

typedef struct value {
    runner_type type; /* 0 means NULL (no value) */
    union {
        int64_t integer;
        double real;
        char *text; /* owned, NUL-terminated */
        int boolean;
    } as;
} value;

#define VALUE_NULL ((value){ 0 })

value value_integer(int64_t v);
value value_real(double v);
value value_boolean(int v);
/* Copies text; on allocation failure returns a NULL value. */
value value_text(const char *text);
/* Deep copy into *dst (dst need not be cleared). Returns 0 or -1 (no memory). */
int value_copy(value *dst, const value *src);
/* Frees owned text and resets to NULL. Accepts NULL pointers. */
void value_clear(value *v);
/* Numeric view of INTEGER, REAL, BOOLEAN; NaN for text and NULL. */
double value_number(const value *v);
/* Writes a human-readable rendering into buf: integers exactly, reals with
 * %.*g using `digits` significant digits (17 round-trips; values outside
 * 1..17 mean 17), "NaN", "inf", "-inf", "true"/"false", "" for NULL. Text
 * longer than size is truncated. */
void value_format(const value *v, int digits, char *buf, size_t size);
const char *value_type_name(runner_type type);
/* 1 for the types that hold a quantity, INTEGER and REAL; 0 for TEXT and
 * BOOLEAN. A boolean is a yes/no answer that runner shows as true/false
 * (tables, JSON, Lua), and a flag's min, max or NaN count is no
 * measurement: tables left-align booleans like words and summaries give
 * them no figures. Plots still draw a boolean as 0 and 1 (plot.c says so). */
int value_type_is_numeric(runner_type type);
/* 1 when both have the same type and value; NaN equals NaN here (stored
 * values are compared, not arithmetic results). */
int value_equal(const value *a, const value *b);
/* The value as a new JSON reference (the caller decrefs): NaN and
 * infinities, which JSON lacks, as the strings "NaN", "inf", "-inf"; NULL
 * as null. NULL when jansson refuses (no memory, text not UTF-8): exact,
 * for what must not change (a point's canonical parameters). */
json_t *value_to_json(const value *v);
/* The one encoder of text for JSON that runner prints or sends (show,
 * sweeps, webhook bodies): valid UTF-8 as it is, and each byte that is not
 * part of valid UTF-8 as U+FFFD, so a field is never dropped and the
 * document stays valid JSON (the database keeps the bytes; CSV prints
 * them). NULL text gives null. NULL only when out of memory. */
json_t *value_json_text(const char *text);
/* value_to_json with text through value_json_text: a cell of printed JSON. */
json_t *value_to_json_shown(const value *v);
/* Add v to an object or array, taking the reference even on failure (as
 * jansson's *_new calls do); a failure (v NULL, no memory) clears *ok, so
 * one flag per document says whether any member is missing: a document
 * with a member missing is never printed (values would shift columns). */
void value_json_put(json_t *object, const char *key, json_t *v, int *ok);
void value_json_push(json_t *array, json_t *v, int *ok);

#endif
