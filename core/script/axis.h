/* axis: the axis helpers of sweep scripts (docs/lua-api.md): range(first,
 * last [, step]), linspace(first, last, n), logspace(first, last, n) and
 * powers_of_two(first, last), each returning a list of at most 1e8 values. */
#ifndef RUNNER_AXIS_H
#define RUNNER_AXIS_H

#include <lua.h>

/* Registers the helpers as globals in a script's Lua state. */
void axis_register_lua(lua_State *L);

#endif
