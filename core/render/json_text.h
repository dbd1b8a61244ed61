/* json_text: runner's values as JSON text without building jansson
 * objects, for the rows `runner show --format json` streams (jansson
 * writes the rest). The bytes are jansson's for the same values
 * (json_dumps with JSON_ENCODE_ANY: strings escaped as jansson escapes
 * them, integers as %lld, reals in its style: "30.0", "1e20", "1e-5"),
 * except reals, which take the shortest of 15, 16 or 17 significant
 * digits that reads back as the same double (0.1, not
 * 0.10000000000000001). */
#ifndef RUNNER_JSON_TEXT_H
#define RUNNER_JSON_TEXT_H

#include <stddef.h>

#include "base/strbuf.h"
#include "base/value.h"

/* Room for any real's JSON text, with its NUL. */
#define JSON_TEXT_REAL_SIZE 40

/* Writes a finite x as a JSON number into buf (at least
 * JSON_TEXT_REAL_SIZE bytes); NaN and the infinities as the strings "NaN",
 * "inf", "-inf" (as value_to_json stores them). Returns the length. */
size_t json_text_real(double x, char *buf);

/* Appends text as a JSON string, quotes included; bytes that start no
 * UTF-8 character become U+FFFD (as value_json_text shows them). */
void json_text_string(strbuf *b, const char *text);

/* Appends one cell: value_to_json_shown's value as JSON text (NULL: null). */
void json_text_value(strbuf *b, const value *v);

#endif
