/* script_name: names from Lua strings, checked whole (script_name.h). */
#include "script_name.h"

#include <lauxlib.h>
#include <stdlib.h>

#include "base/name_check.h"

const char *script_name_get(lua_State *L, int idx, const char *what, size_t max_bytes, char **err)
{
    *err = NULL;
    if (lua_type(L, idx) != LUA_TSTRING)
        return NULL;
    size_t len = 0;
    const char *name = lua_tolstring(L, idx, &len);
    return name_check(what, name, len, max_bytes, err) == 0 ? name : NULL;
}

const char *script_name_check(lua_State *L, int idx, const char *what)
{
    char *err = NULL;
    const char *name = script_name_get(L, idx, what, NAME_CHECK_NAME_MAX, &err);
    if (name || !err)
        return name;
    luaL_where(L, 1);
    lua_pushstring(L, err);
    free(err);
    lua_concat(L, 2);
    return lua_error(L), NULL;
}
