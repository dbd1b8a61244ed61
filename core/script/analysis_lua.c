/* analysis_lua: sensitivity{} and runner.saltelli_unit. Bad arguments
 * raise; an analysis that refuses (not a Saltelli section, y constant)
 * returns nil and the message, as plot does, so a script may go on. */
#include "analysis_lua.h"

#include <lauxlib.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "base/util.h"
#include "rowview.h"
#include "script_int.h"
#include "store/store.h"

/* runner.saltelli_unit(n, d, seed): the unit-cube coordinates of a
 * Saltelli design (analysis/sensitivity.c) as d lists of n * (d + 2)
 * numbers, one per parameter; design.saltelli maps them. */
static int l_saltelli_unit(lua_State *L)
{
    lua_Integer n = luaL_checkinteger(L, 1), d = luaL_checkinteger(L, 2);
    lua_Integer seed = luaL_checkinteger(L, 3);
    if (n < 1 || d < 1)
        return luaL_error(L, "saltelli: n and d must be positive");
    double *points = NULL;
    char *err = NULL;
    if (sensitivity_design((size_t)n, (size_t)d, (uint64_t)seed, &points, &err) != 0) {
        lua_pushstring(L, err ? err : "out of memory");
        free(err);
        return lua_error(L);
    }
    size_t rows = (size_t)n * (size_t)(d + 2);
    lua_createtable(L, (int)d, 0);
    for (lua_Integer j = 0; j < d; j++) {
        lua_createtable(L, rows > 1u << 30 ? 0 : (int)rows, 0);
        for (size_t i = 0; i < rows; i++) {
            lua_pushnumber(L, points[i * (size_t)d + (size_t)j]);
            lua_rawseti(L, -2, (lua_Integer)i + 1);
        }
        lua_rawseti(L, -2, j + 1);
    }
    free(points);
    return 1;
}

/* The section a rows view reads: its database, sweep and section id. */
typedef struct rows_section {
    const char *db_path;
    int64_t sweep_id, section_id;
    int ordinal;
} rows_section;

/* Reads field `rows` of the options table at 1; raises unless it is what
 * sweep() returned. */
static void check_rows(lua_State *L, const char *function, rows_section *out)
{
    lua_getfield(L, 1, "rows");
    if (!rowview_identity(L, -1, &out->db_path, &out->sweep_id, &out->ordinal))
        luaL_error(L, "%s{rows = ...}: rows must be what sweep() returned, got a %s", function,
                   luaL_typename(L, -1));
    lua_pop(L, 1); /* the options table keeps the view alive */
}

static const char *text_field(lua_State *L, const char *function, const char *name, int required)
{
    lua_getfield(L, 1, name);
    if (lua_isnil(L, -1) && !required) {
        lua_pop(L, 1);
        return NULL;
    }
    if (lua_type(L, -1) != LUA_TSTRING)
        luaL_error(L, "%s{%s = ...}: %s must be a column name, got a %s", function, name, name,
                   luaL_typename(L, -1));
    const char *text = lua_tostring(L, -1);
    lua_pop(L, 1); /* the options table keeps it */
    return text;
}

static lua_Integer integer_field(lua_State *L, const char *function, const char *name,
                                 lua_Integer fallback, lua_Integer min, lua_Integer max)
{
    lua_getfield(L, 1, name);
    lua_Integer v = fallback;
    if (!lua_isnil(L, -1)) {
        if (!lua_isinteger(L, -1) || (v = lua_tointeger(L, -1)) < min || v > max)
            luaL_error(L, "%s{%s = ...}: expected an integer from %I to %I", function, name, min,
                       max);
    }
    lua_pop(L, 1);
    return v;
}

/* Raises on an option the function does not know. */
static void check_known(lua_State *L, const char *function, const char *const *known)
{
    lua_pushnil(L);
    while (lua_next(L, 1)) {
        lua_pop(L, 1);
        const char *key = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
        int found = 0;
        for (size_t i = 0; key && known[i]; i++)
            found |= strcmp(known[i], key) == 0;
        if (!found)
            luaL_error(L, "%s{...}: unknown option '%s'", function, key ? key : "?");
    }
}

/* Opens the rows' database for writing (an answer is stored) and finds
 * the section. Returns the store, or NULL with *err. */
static store *open_section(rows_section *r, char **err)
{
    store *s = NULL;
    if (store_open(r->db_path, &s, err) != 0)
        return NULL;
    if (store_section_find(s, r->sweep_id, r->ordinal, &r->section_id, err) != 0) {
        store_close(s);
        return NULL;
    }
    return s;
}

static void set_number(lua_State *L, const char *name, double v)
{
    lua_pushnumber(L, v);
    lua_setfield(L, -2, name);
}

/* sensitivity{rows = rows, y = "speedup" [, bootstrap = 1000, seed = 0]} */
static int l_sensitivity(lua_State *L)
{
    static const char *const known[] = { "rows", "y", "bootstrap", "seed", NULL };
    luaL_checktype(L, 1, LUA_TTABLE);
    check_known(L, "sensitivity", known);
    rows_section r = { 0 };
    check_rows(L, "sensitivity", &r);
    const char *y = text_field(L, "sensitivity", "y", 1);
    sensitivity_options options = {
        .bootstrap = (size_t)integer_field(L, "sensitivity", "bootstrap", 1000, 10, 1000000),
        .seed = (uint64_t)integer_field(L, "sensitivity", "seed", 0, 0, LUA_MAXINTEGER),
    };
    script_state *ss = scripti_state(L);
    double paused = scripti_clock_pause(ss);
    char *err = NULL;
    sensitivity_answer ans = { 0 };
    store *s = open_section(&r, &err);
    int rc =
        s ? sensitivity_answer_section(s, r.sweep_id, r.section_id, y, &options, &ans, &err) : -1;
    store_close(s);
    scripti_clock_resume(ss, paused);
    if (rc != 0) {
        lua_pushnil(L);
        lua_pushfstring(L, "sensitivity: sweep %I, section %d: %s", (lua_Integer)r.sweep_id,
                        r.ordinal, err ? err : "failed");
        free(err);
        return 2;
    }
    lua_createtable(L, 0, 8);
    lua_pushinteger(L, ans.id);
    lua_setfield(L, -2, "id");
    lua_pushinteger(L, (lua_Integer)ans.result.n_base);
    lua_setfield(L, -2, "blocks");
    lua_pushinteger(L, (lua_Integer)ans.data.excluded);
    lua_setfield(L, -2, "excluded");
    set_number(L, "mean", ans.result.mean);
    set_number(L, "variance", ans.result.variance);
    /* indices: a list in name order, each also under its name */
    lua_createtable(L, (int)ans.data.d, (int)ans.data.d);
    for (size_t i = 0; i < ans.data.d; i++) {
        const sensitivity_index *x = &ans.result.indices[i];
        lua_createtable(L, 0, 7);
        lua_pushstring(L, ans.data.names[i]);
        lua_setfield(L, -2, "parameter");
        set_number(L, "first", x->first);
        set_number(L, "first_low", x->first_low);
        set_number(L, "first_high", x->first_high);
        set_number(L, "total", x->total);
        set_number(L, "total_low", x->total_low);
        set_number(L, "total_high", x->total_high);
        lua_pushvalue(L, -1);
        lua_setfield(L, -3, ans.data.names[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_setfield(L, -2, "indices");
    sensitivity_answer_clear(&ans);
    return 1;
}

void analysis_lua_register(lua_State *L)
{
    lua_register(L, "sensitivity", l_sensitivity);
    lua_getglobal(L, "runner");
    lua_pushcfunction(L, l_saltelli_unit);
    lua_setfield(L, -2, "saltelli_unit");
    lua_pop(L, 1);
}
