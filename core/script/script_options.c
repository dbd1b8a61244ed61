/* script_options: options{...}, the script's declared knobs (sysbench
 * style: a name, a default, a description, a unit), and the --set NAME=VALUE
 * that override them. The values used are kept for the sweep's provenance. */
#include "script_int.h"
#include "script_name.h"

#include <errno.h>
#include <lauxlib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/units.h"

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static const char *override_for(const script_config *c, const char *name)
{
    size_t n = strlen(name);
    for (size_t i = 0; i < c->override_count; i++)
        if (strncmp(c->overrides[i], name, n) == 0 && c->overrides[i][n] == '=')
            return c->overrides[i] + n + 1;
    return NULL;
}

/* Pushes what a --set text for a number option stands for (units.h). */
static int push_override_number(lua_State *L, const char *name, const char *text, int as_integer,
                                const char *unit)
{
    units_setting setting;
    char reason[300];
    if (units_read_setting(text, as_integer, unit, &setting, reason, sizeof reason) != 0)
        return scripti_raise(L, FAIL_INPUT, "--set %s=%s: %s", name, text, reason);
    if (setting.kind == UNITS_SETTING_INTEGER)
        lua_pushinteger(L, (lua_Integer)setting.integer);
    else if (setting.kind == UNITS_SETTING_REAL)
        lua_pushnumber(L, setting.real);
    else
        lua_pushstring(L, text);
    return 0;
}

/* Pushes the override text parsed like the default at default_idx; unit is
 * the option's declared unit or NULL. */
static int push_override(lua_State *L, const char *name, const char *text, int default_idx,
                         const char *unit)
{
    char *end = NULL;
    switch (lua_type(L, default_idx)) {
    case LUA_TBOOLEAN:
        if (strcmp(text, "true") == 0 || strcmp(text, "false") == 0) {
            lua_pushboolean(L, text[0] == 't');
            return 0;
        }
        return scripti_raise(L, FAIL_INPUT, "--set %s=%s: expected true or false", name, text);
    case LUA_TNUMBER:
        return push_override_number(L, name, text, lua_isinteger(L, default_idx), unit);
    case LUA_TTABLE: {
        /* A list option takes comma-separated numbers (or words). */
        lua_newtable(L);
        char *copy = util_strdup(text), *save = NULL;
        int i = 0;
        for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
            errno = 0;
            double v = strtod(item, &end);
            const char *tail;
            double number;
            if (units_split(item, &number, &tail) == UNITS_WITH_UNIT) {
                /* as a single value would be: converted, or text for the parameter */
                units_setting setting;
                char reason[300];
                if (units_read_setting(item, 0, unit, &setting, reason, sizeof reason) != 0) {
                    char shown[400];
                    snprintf(shown, sizeof shown, "--set %s=%s: %s", name, text, reason);
                    free(copy); /* the raise below does not return */
                    return scripti_raise(L, FAIL_INPUT, "%s", shown);
                }
                if (setting.kind == UNITS_SETTING_REAL)
                    lua_pushnumber(L, setting.real);
                else
                    lua_pushstring(L, item);
            } else if (*item && !*end && errno == 0 && isfinite(v)) {
                if (v == floor(v) && fabs(v) < 9e15 && !strpbrk(item, ".eE"))
                    lua_pushinteger(L, (lua_Integer)v);
                else
                    lua_pushnumber(L, v);
            } else {
                lua_pushstring(L, item);
            }
            lua_rawseti(L, -2, ++i);
        }
        free(copy);
        if (i == 0)
            return scripti_raise(L, FAIL_INPUT, "--set %s=%s: expected a comma-separated list",
                                 name, text);
        return 0;
    }
    default: lua_pushstring(L, text); return 0;
    }
}

static json_t *lua_to_json(lua_State *L, int idx)
{
    idx = lua_absindex(L, idx);
    switch (lua_type(L, idx)) {
    case LUA_TNUMBER: {
        if (lua_isinteger(L, idx))
            return json_integer(lua_tointeger(L, idx));
        value real = value_real(lua_tonumber(L, idx));
        return value_to_json(&real); /* NaN and infinities as "NaN", "inf" */
    }
    case LUA_TBOOLEAN: return json_boolean(lua_toboolean(L, idx));
    case LUA_TSTRING: {
        size_t len;
        const char *text = lua_tolstring(L, idx, &len);
        return json_stringn(text, len); /* NULL when not UTF-8; keeps a NUL */
    }
    case LUA_TTABLE: {
        json_t *array = json_array();
        size_t n = lua_rawlen(L, idx);
        for (size_t i = 1; array && i <= n; i++) {
            lua_rawgeti(L, idx, (lua_Integer)i);
            json_t *item = lua_to_json(L, -1);
            lua_pop(L, 1);
            if (!item || json_array_append_new(array, item) != 0) {
                json_decref(array);
                return NULL; /* never a list with an element left out */
            }
        }
        return array;
    }
    default: return json_null();
    }
}

/* options { name = default, other = {default = v, doc = "..."} } returns a
 * table of the values in effect: the default, or what --set NAME=VALUE says
 * (parsed like the default). Unknown --set names are errors. */
int scripti_l_options(lua_State *L)
{
    script_state *s = scripti_state(L);
    scripti_refuse_after_end(L, "options");
    lua_settop(L, 1); /* options takes one table; the stack layout below relies on it */
    if (lua_type(L, 1) != LUA_TTABLE)
        return scripti_raise(L, FAIL_INPUT,
                             "options needs a table: options { name = default, ... }");
    if (s->options_declared)
        return scripti_raise(L, FAIL_INPUT, "options{...} may be declared only once per script");
    s->options_declared = 1;
    size_t n = 0;
    lua_pushnil(L);
    while (lua_next(L, 1)) {
        if (lua_type(L, -2) != LUA_TSTRING) {
            lua_pop(L, 2);
            return scripti_raise(L, FAIL_INPUT, "options{...}: keys must be option names");
        }
        n++;
        lua_pop(L, 1);
    }
    /* The name list lives on the Lua stack (collected even when a bad --set
     * value raises an error below), not in malloc'd memory that would leak. */
    const char **names = lua_newuserdatauv(L, (n ? n : 1) * sizeof *names, 0);
    size_t k = 0;
    lua_pushnil(L);
    while (lua_next(L, 1) && names) {
        /* kept alive by the table; a non-string key is refused below */
        names[k++] = lua_type(L, -2) == LUA_TSTRING ? script_name_check(L, -2, "options{...}:")
                                                    : lua_tostring(L, -2);
        lua_pop(L, 1);
    }
    qsort(names, k, sizeof *names, compare_names);
    /* Every --set must name a declared option. */
    for (size_t i = 0; i < s->config->override_count; i++) {
        const char *o = s->config->overrides[i];
        size_t len = strcspn(o, "=");
        int known = 0;
        const char *closest = NULL;
        size_t closest_d = (size_t)-1;
        char name[128];
        snprintf(name, sizeof name, "%.*s", (int)len, o);
        for (size_t j = 0; j < k; j++) {
            if (strcmp(names[j], name) == 0)
                known = 1;
            size_t d = util_edit_distance(name, names[j]);
            if (d < closest_d) {
                closest_d = d;
                closest = names[j];
            }
        }
        if (!known) {
            char hint[160] = "";
            if (closest && closest_d <= 2)
                snprintf(hint, sizeof hint, " (did you mean '%s'?)", closest);
            return scripti_raise(L, FAIL_INPUT, "--set %s: the script has no option '%s'%s", name,
                                 name, hint);
        }
    }
    lua_newtable(L); /* the result */
    int result_idx = lua_gettop(L);
    for (size_t i = 0; i < k; i++) {
        lua_getfield(L, 1, names[i]);
        const char *unit = NULL; /* {default = ..., unit = "s"}: --set converts into it */
        if (lua_istable(L, -1) && luaL_getmetafield(L, -1, "__name") == LUA_TNIL) {
            lua_getfield(L, -1, "default");
            if (!lua_isnil(L, -1)) {
                int unit_type = lua_getfield(L, -2, "unit");
                if (unit_type != LUA_TNIL && unit_type != LUA_TSTRING)
                    return scripti_raise(L, FAIL_INPUT,
                                         "options{...}: %s: unit must be a string "
                                         "such as \"s\" or \"bytes\", got %s",
                                         names[i], lua_typename(L, unit_type));
                unit = lua_tostring(L, -1); /* NULL for nil */
                lua_pop(L, 1);              /* still held by the option's table, at 1 */
                lua_remove(L, -2);
            } else {
                lua_pop(L, 1); /* a plain list default */
            }
        }
        int default_idx = lua_gettop(L);
        const char *text = override_for(s->config, names[i]);
        if (text) {
            push_override(L, names[i], text, default_idx, unit);
            json_object_set_new(s->overrides, names[i], json_string(text));
        } else {
            lua_pushvalue(L, default_idx);
        }
        /* Stored with the sweep, so never dropped: text JSON cannot hold
         * (--set values are checked before, in check_overrides) is refused. */
        json_t *used = lua_to_json(L, -1);
        if (!used || json_object_set_new(s->options_used, names[i], used) != 0) {
            char shown[128];
            return scripti_raise(L, FAIL_INPUT, "options{...}: %s: text is not valid UTF-8",
                                 util_printable(names[i], shown, sizeof shown));
        }
        lua_setfield(L, result_idx, names[i]);
        lua_pop(L, 1);
    }
    return 1;
}

/* Each --set is NAME=VALUE and names an option once. Returns 0, or -1
 * after saying why on stderr. */
int scripti_check_overrides(const script_config *config)
{
    for (size_t i = 0; i < config->override_count; i++) {
        char shown[256];
        util_printable(config->overrides[i], shown, sizeof shown);
        if (!strchr(config->overrides[i], '=') || config->overrides[i][0] == '=') {
            log_print(LOG_LEVEL_ERROR, "runner: --set %s: expected NAME=VALUE\n", shown);
            return -1;
        }
        /* Options are stored as JSON text: bytes it cannot hold would be
         * dropped, and a resume would run with the default instead. */
        if (!util_utf8_valid(config->overrides[i])) {
            log_print(LOG_LEVEL_ERROR,
                      "runner: --set %s: not valid UTF-8; runner keeps options as UTF-8 "
                      "text\n",
                      shown);
            return -1;
        }
        size_t name_len = strcspn(config->overrides[i], "=");
        for (size_t j = 0; j < i; j++)
            if (strncmp(config->overrides[j], config->overrides[i], name_len + 1) == 0) {
                log_print(LOG_LEVEL_ERROR,
                          "runner: --set %.*s: given twice; give each option once\n",
                          (int)strcspn(shown, "="), shown);
                return -1;
            }
    }
    return 0;
}
