/* analysis_lua: the Lua side of runner's answers (docs/lua-api.md,
 * "Answers"): sensitivity{} on a section's rows, and the Saltelli design
 * behind design.saltelli. Thin: arguments in, analysis/ does the work and
 * stores the rows as the CLI does, a table out. */
#ifndef RUNNER_ANALYSIS_LUA_H
#define RUNNER_ANALYSIS_LUA_H

#include <lua.h>

/* Registers sensitivity as a global and runner.saltelli_unit (the global
 * table runner must exist). */
void analysis_lua_register(lua_State *L);

#endif
