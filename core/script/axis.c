/* axis: the value lists a sweep script builds its axes from (docs/lua-api.md):
 * range, linspace, logspace and powers_of_two, registered as Lua globals.
 * Bad arguments raise an error at the script's file:line. */
#include "axis.h"

#include <lauxlib.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include "base/util.h"

/* An axis holds at most this many values. */
#define AXIS_VALUES_MAX 100000000

/* Raises the formatted message at the caller's file:line (luaL_error
 * cannot format %lld). */
static int axis_raise(lua_State *L, const char *fmt, ...) RUNNER_PRINTF(2, 3);
static int axis_raise(lua_State *L, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    luaL_where(L, 1);
    lua_pushstring(L, buf);
    lua_concat(L, 2);
    return lua_error(L);
}

static int push_sequence_checked(lua_State *L, lua_Integer n)
{
    if (n < 1 || n > AXIS_VALUES_MAX)
        return axis_raise(L, "an axis needs between 1 and 1e8 values, got %lld", (long long)n);
    lua_createtable(L, (int)n, 0);
    return 0;
}

/* range(first, last [, step]): first, first+step, ... up to last inclusive. */
static int l_range(lua_State *L)
{
    if (lua_isinteger(L, 1) && lua_isinteger(L, 2) &&
        (lua_isnoneornil(L, 3) || lua_isinteger(L, 3))) {
        lua_Integer first = lua_tointeger(L, 1), last = lua_tointeger(L, 2);
        lua_Integer step = luaL_optinteger(L, 3, 1);
        if (step == 0 || (last - first) / step < 0)
            return axis_raise(L, "range(%lld, %lld, %lld): the step never reaches the end",
                              (long long)first, (long long)last, (long long)step);
        lua_Integer n = (last - first) / step + 1;
        push_sequence_checked(L, n);
        for (lua_Integer i = 0; i < n; i++) {
            lua_pushinteger(L, first + i * step);
            lua_rawseti(L, -2, i + 1);
        }
        return 1;
    }
    double first = luaL_checknumber(L, 1), last = luaL_checknumber(L, 2);
    double step = luaL_optnumber(L, 3, 1);
    if (!isfinite(first) || !isfinite(last) || !isfinite(step) || step == 0 ||
        (last - first) / step < 0) {
        char a[32], b[32], c[32];
        return axis_raise(L, "range(%s, %s, %s): the step never reaches the end",
                          util_number(first, a), util_number(last, b), util_number(step, c));
    }
    /* Count with a tolerance so range(0, 1, 0.1) includes 1. */
    lua_Integer n = (lua_Integer)floor((last - first) / step + 1e-9) + 1;
    push_sequence_checked(L, n);
    for (lua_Integer i = 0; i < n; i++) {
        lua_pushnumber(L, first + (double)i * step);
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

/* linspace(first, last, n): n evenly spaced values, both ends included. */
static int l_linspace(lua_State *L)
{
    double first = luaL_checknumber(L, 1), last = luaL_checknumber(L, 2);
    lua_Integer n = luaL_checkinteger(L, 3);
    if (!isfinite(first) || !isfinite(last))
        return axis_raise(L, "linspace: ends must be finite");
    push_sequence_checked(L, n);
    for (lua_Integer i = 0; i < n; i++) {
        double x = n == 1 ? first : first + (last - first) * (double)i / (double)(n - 1);
        if (i == n - 1)
            x = last;
        lua_pushnumber(L, x);
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

/* logspace(first, last, n): n values evenly spaced in log scale. */
static int l_logspace(lua_State *L)
{
    double first = luaL_checknumber(L, 1), last = luaL_checknumber(L, 2);
    lua_Integer n = luaL_checkinteger(L, 3);
    if (!(first > 0) || !(last > 0) || !isfinite(first) || !isfinite(last)) {
        char a[32], b[32];
        return axis_raise(L, "logspace(%s, %s, %lld): ends must be positive and finite",
                          util_number(first, a), util_number(last, b), (long long)n);
    }
    push_sequence_checked(L, n);
    double ratio = n == 1 ? 1 : log(last / first) / (double)(n - 1);
    for (lua_Integer i = 0; i < n; i++) {
        double x = i == n - 1 ? last : first * exp(ratio * (double)i);
        lua_pushnumber(L, x);
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

/* powers_of_two(first, last): the powers of two from first to last. */
static int l_powers_of_two(lua_State *L)
{
    lua_Integer first = luaL_checkinteger(L, 1), last = luaL_checkinteger(L, 2);
    if (first < 1 || last < first || (first & (first - 1)) != 0 || (last & (last - 1)) != 0)
        return axis_raise(L,
                          "powers_of_two(%lld, %lld): both ends must be powers of two, "
                          "first <= last",
                          (long long)first, (long long)last);
    lua_newtable(L);
    lua_Integer i = 0;
    for (lua_Integer v = first; v <= last && v > 0; v *= 2) {
        lua_pushinteger(L, v);
        lua_rawseti(L, -2, ++i);
        if (v > LUA_MAXINTEGER / 2)
            break;
    }
    return 1;
}

void axis_register_lua(lua_State *L)
{
    static const luaL_Reg axis_globals[] = {
        { "range", l_range },
        { "linspace", l_linspace },
        { "logspace", l_logspace },
        { "powers_of_two", l_powers_of_two },
        { NULL, NULL },
    };
    for (const luaL_Reg *f = axis_globals; f->name; f++)
        lua_register(L, f->name, f->func);
}
