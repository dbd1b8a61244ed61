/* exec_lua: a script's `command` table to an exec_command (exec_lua.h). */
#include "exec_lua.h"

#include <lauxlib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/name_check.h"
#include "base/util.h"
#include "exec/exec.h"
#include "script_name.h"

struct exec_list {
    exec_command **items;
    size_t count;
};

exec_list *exec_list_new(void) { return calloc(1, sizeof(exec_list)); }

void exec_list_free(exec_list *list)
{
    if (!list)
        return;
    for (size_t i = 0; i < list->count; i++)
        exec_command_free(list->items[i]);
    free(list->items);
    free(list);
}

const loaded_plugin *exec_list_get(const exec_list *list, const char *name)
{
    for (size_t i = 0; list && i < list->count; i++) {
        const loaded_plugin *lp = exec_command_plugin(list->items[i]);
        if (strcmp(lp->desc->name, name) == 0)
            return lp;
    }
    return NULL;
}

static const char *const type_names[] = { "integer", "real", "text", "boolean", NULL };

static int read_type(lua_State *L, int idx, runner_type *type)
{
    const char *t = lua_type(L, idx) == LUA_TSTRING ? lua_tostring(L, idx) : "";
    for (int i = 0; type_names[i]; i++)
        if (strcmp(t, type_names[i]) == 0) {
            *type = (runner_type)(i + 1);
            return 0;
        }
    return -1;
}

/* A string field of the table at idx, or fallback when absent. -1 when it
 * is there but not a string. */
static int string_field(lua_State *L, int idx, const char *key, const char *fallback,
                        const char **out)
{
    lua_getfield(L, idx, key);
    int type = lua_type(L, -1);
    *out = type == LUA_TSTRING ? lua_tostring(L, -1) : fallback;
    lua_pop(L, 1); /* the string stays referenced by the table */
    return type == LUA_TNIL || type == LUA_TSTRING ? 0 : -1;
}

/* Whether the number at idx is exactly a double: bounds and defaults are
 * doubles in the plugin ABI, and a Lua integer past 2^53 would be rounded
 * (max = 2^53 + 1 would become 2^53). */
static int exact_double(lua_State *L, int idx)
{
    if (!lua_isinteger(L, idx))
        return 1;
    lua_Integer i = lua_tointeger(L, idx);
    return i >= -((lua_Integer)1 << 53) && i <= ((lua_Integer)1 << 53);
}

static int number_field(lua_State *L, int idx, const char *key, double fallback, double *out)
{
    lua_getfield(L, idx, key);
    int type = lua_type(L, -1);
    int exact = type != LUA_TNUMBER || exact_double(L, -1);
    *out = type == LUA_TNUMBER ? lua_tonumber(L, -1) : fallback;
    lua_pop(L, 1);
    return (type == LUA_TNIL || type == LUA_TNUMBER) && exact ? 0 : -1;
}

/* One parameter declaration, the table on top of the stack. */
static int read_param(lua_State *L, exec_command *c, const char *name, char *msg, size_t size)
{
    int t = lua_gettop(L);
    runner_param p = { .name = name, .min = -HUGE_VAL, .max = HUGE_VAL };
    lua_getfield(L, t, "type");
    int bad_type = read_type(L, -1, &p.type);
    lua_pop(L, 1);
    if (bad_type) {
        snprintf(msg, size,
                 "parameter '%s': type must be \"integer\", \"real\", \"text\" or "
                 "\"boolean\"",
                 name);
        return -1;
    }
    if (string_field(L, t, "unit", "", &p.unit) || string_field(L, t, "doc", "", &p.doc) ||
        number_field(L, t, "min", -HUGE_VAL, &p.min) ||
        number_field(L, t, "max", HUGE_VAL, &p.max)) {
        snprintf(msg, size,
                 "parameter '%s': unit and doc must be strings, min and max numbers within "
                 "[-2^53, 2^53] when whole",
                 name);
        return -1;
    }
    lua_getfield(L, t, "default");
    int dtype = lua_type(L, -1);
    int ok = dtype == LUA_TNIL || (p.type == RUNNER_TEXT && dtype == LUA_TSTRING) ||
             (p.type == RUNNER_BOOLEAN && dtype == LUA_TBOOLEAN) ||
             ((p.type == RUNNER_INTEGER || p.type == RUNNER_REAL) && dtype == LUA_TNUMBER &&
              exact_double(L, -1));
    if (p.type == RUNNER_TEXT)
        p.default_text = dtype == LUA_TSTRING ? lua_tostring(L, -1) : "";
    else if (p.type == RUNNER_BOOLEAN)
        p.default_number = lua_toboolean(L, -1);
    else if (dtype == LUA_TNUMBER)
        p.default_number = lua_tonumber(L, -1);
    else /* no default: 0, or the bound nearest to it */
        p.default_number = p.min > 0 ? p.min : p.max < 0 ? p.max : 0;
    lua_pop(L, 1);
    if (!ok) {
        snprintf(msg, size, "parameter '%s': default must be %s", name,
                 p.type == RUNNER_TEXT      ? "a string"
                 : p.type == RUNNER_BOOLEAN ? "true or false"
                                            : "a number (within [-2^53, 2^53] when whole)");
        return -1;
    }
    const char *choices[65] = { 0 };
    lua_getfield(L, t, "choices");
    if (lua_istable(L, -1)) {
        size_t n = lua_rawlen(L, -1);
        for (size_t i = 0; i < n && i < 64; i++) {
            lua_rawgeti(L, -1, (lua_Integer)i + 1);
            choices[i] = lua_tostring(L, -1);
            lua_pop(L, 1);
        }
        p.choices = choices;
    }
    int rc = exec_command_add_param(c, &p);
    lua_pop(L, 1);
    if (rc != 0)
        snprintf(msg, size, "out of memory");
    return rc;
}

static int read_column(lua_State *L, exec_command *c, const char *name, char *msg, size_t size)
{
    int t = lua_gettop(L);
    runner_column col = { .name = name };
    if (!col.name && string_field(L, t, "name", NULL, &col.name) == 0 && !col.name) {
        snprintf(msg, size, "columns: each column needs a name");
        return -1;
    }
    lua_getfield(L, t, "type");
    int bad_type = read_type(L, -1, &col.type);
    lua_pop(L, 1);
    if (bad_type || string_field(L, t, "unit", "", &col.unit) ||
        string_field(L, t, "doc", "", &col.doc)) {
        snprintf(msg, size,
                 "column '%s': type must be \"integer\", \"real\", \"text\" or "
                 "\"boolean\", unit and doc strings",
                 col.name ? col.name : "?");
        return -1;
    }
    if (exec_command_add_column(c, &col) != 0) {
        snprintf(msg, size, "out of memory");
        return -1;
    }
    return 0;
}

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* params or columns: a list (in its order) of tables with a name field,
 * or a map name -> table (in name order, since Lua keeps none). */
static int read_declarations(lua_State *L, exec_command *c, int idx, const char *what,
                             int (*read)(lua_State *, exec_command *, const char *, char *, size_t),
                             char *msg, size_t size)
{
    lua_getfield(L, idx, what);
    int t = lua_gettop(L);
    int rc = 0;
    if (lua_isnil(L, t)) {
        lua_pop(L, 1);
        return 0;
    }
    if (!lua_istable(L, t)) {
        snprintf(msg, size, "%s must be a table", what);
        lua_pop(L, 1);
        return -1;
    }
    size_t n = lua_rawlen(L, t);
    for (size_t i = 1; i <= n && rc == 0; i++) {
        lua_rawgeti(L, t, (lua_Integer)i);
        const char *name = NULL;
        char *bad = NULL;
        if (lua_istable(L, -1)) {
            lua_getfield(L, -1, "name");
            name = script_name_get(L, -1, what, NAME_CHECK_NAME_MAX, &bad);
            lua_pop(L, 1); /* still referenced by the table */
        }
        if (bad) {
            snprintf(msg, size, "%s", bad);
            free(bad);
            rc = -1;
        } else if (!name) {
            snprintf(msg, size, "%s[%zu] must be a table with a name", what, i);
            rc = -1;
        } else {
            rc = read(L, c, name, msg, size);
        }
        lua_pop(L, 1);
    }
    if (n == 0 && rc == 0) {
        const char *names[256];
        size_t count = 0;
        lua_pushnil(L);
        char *bad = NULL;
        while (lua_next(L, t) && count < 256) {
            const char *name = script_name_get(L, -2, what, NAME_CHECK_NAME_MAX, &bad);
            if (name && !bad && lua_istable(L, -1))
                names[count++] = name;
            else if (rc == 0)
                rc = -1;
            lua_pop(L, 1);
        }
        if (rc != 0)
            snprintf(msg, size, "%s", bad ? bad : "");
        if (rc != 0 && !bad)
            snprintf(msg, size, "%s: each entry must be name = { type = ..., ... }", what);
        free(bad);
        qsort(names, count, sizeof *names, compare_strings);
        for (size_t i = 0; i < count && rc == 0; i++) {
            lua_getfield(L, t, names[i]);
            rc = read(L, c, names[i], msg, size);
            lua_pop(L, 1);
        }
    }
    lua_pop(L, 1);
    return rc;
}

static int read_strings(lua_State *L, exec_command *c, int idx, const char *what,
                        int (*add)(exec_command *, const char *), char *msg, size_t size)
{
    lua_getfield(L, idx, what);
    int rc = 0;
    if (lua_type(L, -1) == LUA_TSTRING) {
        rc = add(c, lua_tostring(L, -1));
    } else if (lua_istable(L, -1)) {
        size_t n = lua_rawlen(L, -1);
        for (size_t i = 1; i <= n && rc == 0; i++) {
            lua_rawgeti(L, -1, (lua_Integer)i);
            int type = lua_type(L, -1);
            /* numbers are written as Lua prints them: argv = {"-n", 4} */
            rc = type == LUA_TSTRING || type == LUA_TNUMBER ? add(c, lua_tostring(L, -1)) : -2;
            lua_pop(L, 1);
        }
    } else if (!lua_isnil(L, -1)) {
        rc = -2;
    }
    lua_pop(L, 1);
    if (rc == -2)
        snprintf(msg, size, "%s must be a list of strings", what);
    else if (rc != 0)
        snprintf(msg, size, "out of memory");
    return rc ? -1 : 0;
}

static int read_output(lua_State *L, exec_command *c, int idx, char *msg, size_t size)
{
    exec_settings *s = exec_command_settings(c);
    lua_getfield(L, idx, "output");
    int rc = 0;
    char *bad = NULL;
    if (lua_type(L, -1) == LUA_TSTRING && strcmp(lua_tostring(L, -1), "jsonl") == 0) {
        s->output = EXEC_OUTPUT_JSONL;
    } else if (lua_type(L, -1) == LUA_TSTRING && strcmp(lua_tostring(L, -1), "keyvalue") == 0) {
        s->output = EXEC_OUTPUT_KEYVALUE;
    } else if (lua_istable(L, -1)) {
        s->output = EXEC_OUTPUT_PATTERN;
        lua_pushnil(L);
        while (rc == 0 && lua_next(L, -2)) {
            if (lua_type(L, -2) != LUA_TSTRING || lua_type(L, -1) != LUA_TSTRING ||
                !script_name_get(L, -2, "output", NAME_CHECK_NAME_MAX, &bad))
                rc = -1;
            else if (exec_command_set_pattern(c, lua_tostring(L, -2), lua_tostring(L, -1)) != 0)
                rc = -1;
            lua_pop(L, 1);
        }
        if (rc != 0)
            lua_pop(L, 1); /* the key lua_next left */
    } else if (!lua_isnil(L, -1)) {
        rc = -1;
    }
    lua_pop(L, 1);
    if (bad)
        snprintf(msg, size, "%s", bad);
    else if (rc != 0)
        snprintf(msg, size,
                 "output must be \"jsonl\", \"keyvalue\" or { column = \"regular "
                 "expression with one ( ) group\", ... }");
    free(bad);
    return rc;
}

/* clang-format off */
static const char *const known_keys[] = {
    "name", "argv", "params", "columns", "output", "repeats", "repeat", "warmup", "timeout",
    "shell", "artifacts", "output_max_bytes", "artifact_point_max_bytes",
    "artifact_sweep_max_bytes", "jobs", NULL,
};
/* clang-format on */

static int check_keys(lua_State *L, int idx, char *msg, size_t size)
{
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        const char *key = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "";
        int known = 0;
        for (int i = 0; known_keys[i] && !known; i++)
            known = strcmp(key, known_keys[i]) == 0;
        if (!known) {
            snprintf(msg, size,
                     "unknown field '%s' (expected name, argv, params, columns, "
                     "output, repeats, warmup, timeout, shell, jobs, artifacts, "
                     "output_max_bytes, artifact_point_max_bytes, artifact_sweep_max_bytes)",
                     key);
            lua_pop(L, 1);
            return -1;
        }
    }
    return 0;
}

static int read_settings(lua_State *L, exec_command *c, int idx, char *msg, size_t size)
{
    exec_settings *s = exec_command_settings(c);
    double repeats, repeat, warmup, timeout, out_max, point_max, sweep_max, jobs;
    if (number_field(L, idx, "repeats", 1, &repeats) || number_field(L, idx, "jobs", 0, &jobs) ||
        number_field(L, idx, "repeat", 1, &repeat) || number_field(L, idx, "warmup", 0, &warmup) ||
        number_field(L, idx, "timeout", 0, &timeout) ||
        number_field(L, idx, "output_max_bytes", (double)s->output_max_bytes, &out_max) ||
        number_field(L, idx, "artifact_point_max_bytes", (double)s->artifact_point_max_bytes,
                     &point_max) ||
        number_field(L, idx, "artifact_sweep_max_bytes", (double)s->artifact_sweep_max_bytes,
                     &sweep_max)) {
        snprintf(msg, size,
                 "repeats, warmup, timeout, jobs and the *_max_bytes fields must be numbers");
        return -1;
    }
    lua_getfield(L, idx, "jobs");
    int jobs_given = !lua_isnil(L, -1); /* jobs = 0 is refused, not "no cap" */
    lua_pop(L, 1);
    if (jobs_given && !(jobs == floor(jobs) && jobs >= 1 && jobs <= 1024)) {
        snprintf(msg, size,
                 "jobs must be a whole number from 1 to 1024 (how many of its points may run "
                 "at once)");
        return -1;
    }
    if (repeat != 1)
        repeats = repeat;
    if (repeats != floor(repeats) || warmup != floor(warmup) || repeats > 1e6 || warmup > 1e6 ||
        !(out_max >= 1) || !(point_max >= 0) || !(sweep_max >= 0)) {
        snprintf(msg, size,
                 "repeats and warmup must be whole numbers, the *_max_bytes fields "
                 "positive");
        return -1;
    }
    s->repeats = (int)repeats;
    s->warmup = (int)warmup;
    s->timeout_s = timeout;
    s->max_jobs = (int)jobs;
    s->output_max_bytes = (uint64_t)out_max;
    s->artifact_point_max_bytes = (uint64_t)point_max;
    s->artifact_sweep_max_bytes = (uint64_t)sweep_max;
    lua_getfield(L, idx, "shell");
    int shell_type = lua_type(L, -1);
    s->shell = lua_toboolean(L, -1);
    lua_pop(L, 1);
    if (shell_type != LUA_TNIL && shell_type != LUA_TBOOLEAN) {
        snprintf(msg, size, "shell must be true or false");
        return -1;
    }
    return 0;
}

static int declare(lua_State *L, exec_command *c, int idx, char *msg, size_t size)
{
    char *err = NULL;
    if (check_keys(L, idx, msg, size) != 0 || read_settings(L, c, idx, msg, size) != 0 ||
        read_strings(L, c, idx, "argv", exec_command_add_argv, msg, size) != 0 ||
        read_strings(L, c, idx, "artifacts", exec_command_add_artifact, msg, size) != 0 ||
        read_declarations(L, c, idx, "params", read_param, msg, size) != 0 ||
        read_declarations(L, c, idx, "columns", read_column, msg, size) != 0 ||
        read_output(L, c, idx, msg, size) != 0)
        return -1;
    if (exec_command_finish(c, &err) != 0) {
        snprintf(msg, size, "%s", err ? err : "out of memory");
        free(err);
        return -1;
    }
    return 0;
}

int exec_lua_declare(lua_State *L, exec_list *list, const plugin_registry *reg, const char *name,
                     int idx, char *msg, size_t size)
{
    char why[900];
    if (!name) {
        lua_getfield(L, idx, "name");
        char *bad = NULL;
        name = script_name_get(L, -1, "command", NAME_CHECK_NAME_MAX, &bad);
        lua_pop(L, 1); /* still referenced by the table */
        if (bad) {
            snprintf(msg, size, "%s", bad);
            free(bad);
            return -1;
        }
    }
    if (!name) {
        snprintf(msg, size, "command needs a name: command \"name\" { argv = {...}, ... }");
        return -1;
    }
    char *ignored = NULL;
    if (exec_list_get(list, name) || plugin_registry_get(reg, name, &ignored)) {
        free(ignored);
        snprintf(msg, size, "command '%s': the name is taken by %s", name,
                 exec_list_get(list, name) ? "an earlier command" : "a plugin");
        return -1;
    }
    free(ignored);
    exec_command *c = exec_command_new(name);
    exec_command **grown = c ? realloc(list->items, (list->count + 1) * sizeof *grown) : NULL;
    if (!grown) {
        exec_command_free(c);
        snprintf(msg, size, "out of memory");
        return -1;
    }
    list->items = grown;
    if (declare(L, c, idx, why, sizeof why) != 0) {
        exec_command_free(c);
        snprintf(msg, size, "command '%s': %s", name, why);
        return -1;
    }
    list->items[list->count++] = c;
    return 0;
}
