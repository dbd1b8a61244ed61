/* script_name: a name a script hands runner (a parameter, a column, a
 * command, an option, a section's title, a column it looks up) read whole
 * from its Lua string and checked by the one validator (base/name_check.h):
 * a string "a\0b" is refused, never cut to "a" and taken for another name. */
#ifndef RUNNER_SCRIPT_NAME_H
#define RUNNER_SCRIPT_NAME_H

#include <lua.h>
#include <stddef.h>

/* The string at idx when it is a name of at most max_bytes; otherwise NULL
 * with *err (the caller frees) "WHAT 'shown' <why> (names are ...)". A value
 * that is not a string is the caller's to refuse: NULL with *err NULL. */
const char *script_name_get(lua_State *L, int idx, const char *what, size_t max_bytes, char **err);
/* The same for a name (NAME_CHECK_NAME_MAX), raising the error at the
 * script's line instead (from a C function Lua called). */
const char *script_name_check(lua_State *L, int idx, const char *what);

#endif
