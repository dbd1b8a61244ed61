/* units: numbers written with a unit ("2min", "1.5GiB", "10 Gbit/s") and
 * their conversion into the unit a plugin declares for a parameter; and the
 * one rule that says when a number is an exact integer, so that --set and
 * script values are read alike. docs/cli.md has the table of units. */
#ifndef RUNNER_UNITS_H
#define RUNNER_UNITS_H

#include <stddef.h>
#include <stdint.h>

typedef enum units_form {
    UNITS_NOT_A_NUMBER = -1, /* does not start with a decimal number */
    UNITS_BARE = 0,          /* a decimal number and nothing else */
    UNITS_WITH_UNIT = 1      /* a decimal number, then a known unit */
} units_form;

/* Reads text as a decimal number ([+-]digits[.digits][e[+-]digits]; no hex,
 * inf or nan), optional spaces, and a unit. *number gets the number (it may
 * be infinite when the digits overflow a double: callers check); *unit points
 * into text at the unit ("" when bare). A tail that is not a known unit
 * gives UNITS_NOT_A_NUMBER, and *unit then points at that tail. */
units_form units_split(const char *text, double *number, const char **unit);

/* Converts text, a number with a unit or a bare number (which means the
 * declared unit), into declared_unit ("s", "bytes/s", "workers", "").
 * Returns 0 with *out, or -1 with a one-line reason in msg that names both
 * units ("'2GiB': GiB (bytes) does not convert to s (time)"). */
int units_convert(const char *text, const char *declared_unit, double *out, char *msg,
                  size_t msg_size);

/* The exact-integer rule: x is an integer when it is finite, whole and
 * within +-2^53 (beyond that a double no longer holds every integer).
 * Returns 0 with *out, or -1 with a reason in msg ("expected an integer,
 * got 1.3e-09"). */
int units_integer(double x, int64_t *out, char *msg, size_t msg_size);

/* Converts text as units_convert does, into an integer in declared_unit,
 * exactly: the decimal digits and the unit's factor are multiplied as
 * integers, never through a double (9007199254740993B is 9007199254740993
 * bytes, not ...992). The result must lie within +-2^53 (the exact-integer
 * rule). Returns 0 with *out; -1 with msg when the text does not convert
 * (units_convert's reasons) or is out of range; -2 when the exact value is
 * not a whole number: *approx then holds it and msg says "'1.5B' is 1.5
 * bytes, not a whole number". */
int units_convert_integer(const char *text, const char *declared_unit, int64_t *out, double *approx,
                          char *msg, size_t msg_size);

/* What a --set text for a number option stands for. */
typedef enum units_setting_kind {
    UNITS_SETTING_INTEGER,
    UNITS_SETTING_REAL,
    UNITS_SETTING_TEXT /* the text itself: a unit for the parameter to convert */
} units_setting_kind;

typedef struct units_setting {
    units_setting_kind kind;
    int64_t integer;
    double real;
} units_setting;

/* Reads text given with --set for an option whose default is a number (an
 * integer when as_integer) and that declares unit (NULL: none), by the rules
 * a script's values follow: an integer is any decimal number that is an
 * exact integer (1.3e9; plain digits exactly, past 2^53 too); a count prefix
 * (2.5k) converts for any option; another unit converts into the option's
 * unit, or, when it declares none, keeps the text for the parameter it
 * reaches to convert. Returns 0 with *out, or -1 with a reason in msg
 * ("expected an integer, got 1.3e-09"). */
int units_read_setting(const char *text, int as_integer, const char *unit, units_setting *out,
                       char *msg, size_t msg_size);

/* x in the fewest %g digits that read back as x (3.5, 1.3e-09). */
const char *units_number(double x, char buf[32]);

#endif
