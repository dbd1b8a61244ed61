/* plot_lua: the Lua function plot(rows, {x =, y =, by =, logx =, logy =,
 * title =, xlabel =, ylabel =, units = {column = "unit"}, output =}) of
 * sweep scripts (docs/plots.md); render/plot.c draws. */
#ifndef RUNNER_PLOT_LUA_H
#define RUNNER_PLOT_LUA_H

#include <lua.h>

/* Registers the global plot in a script's Lua state. Bad arguments raise; a
 * picture that cannot be made (no gnuplot, file not writable) returns nil
 * and a message; success returns the output path. */
void plot_lua_register(lua_State *L);

#endif
