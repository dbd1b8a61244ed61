/* name_check: the one validator for a name or short text runner stores and
 * shows back (a fit's model name, a sweep's note; tags and sweep names have
 * their stricter selector words on top): valid UTF-8, no NUL (a Lua string
 * "a\0b" is refused, not cut to "a"), no control character, at most
 * max_bytes. Applied where the text enters, whoever sends it (CLI, Lua,
 * Python through the CLI). */
#ifndef RUNNER_BASE_NAME_CHECK_H
#define RUNNER_BASE_NAME_CHECK_H

#include <stddef.h>

#define NAME_CHECK_NAME_MAX 256  /* a name */
#define NAME_CHECK_TEXT_MAX 4096 /* a note */
#define NAME_CHECK_SHOWN 128     /* bytes of a refused name its message shows */

/* 0 when text[0..len) is acceptable; else -1 with *err (the caller frees)
 * "WHAT: <reason>", the text shown escaped and cut. */
int name_check(const char *what, const char *text, size_t len, size_t max_bytes, char **err);

#endif
