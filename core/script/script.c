/* script: the Lua side of runner. A fresh sandboxed state per script
 * (script_sandbox.c) with runner's functions: sweep, command, options
 * (script_options.c), zip, and the axis helpers (axis.c). A binding: it
 * converts what the script says and hands the sweep's life (begin,
 * sections, end, summary) to lifecycle.c. */
#include "script_int.h"

#include <errno.h>
#include <jansson.h>
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_lua.h"
#include "base/name_check.h"
#include "axis.h"
#include "base/exit_status.h"
#include "base/install_layout.h"
#include "base/log.h"
#include "base/quote.h"
#include "base/util.h"
#include "exec_lua.h"
#include "plot_lua.h"
#include "plugin/plugin.h"
#include "rowview.h"
#include "script_name.h"
#include "run/run.h"

#define ZIP_METATABLE "runner.zip"

/* ---- values between Lua and C ---- */

/* runner.default: in a list of values (a zip group's, mostly), "this
 * parameter's declared default at this point". Designs over conditional
 * spaces (scripts/lib/design.lua, cases{}) need it: a parameter that exists
 * only in some branches still needs a value at every point of the group. */
static const char default_marker = 0;

static int is_default_marker(lua_State *L, int idx)
{
    return lua_touserdata(L, idx) == &default_marker && lua_islightuserdata(L, idx);
}

/* Converts the scalar at idx into *out; returns 0, or -1 with a reason. */
static int lua_to_value(lua_State *L, int idx, value *out, char *msg, size_t size)
{
    switch (lua_type(L, idx)) {
    case LUA_TNUMBER:
        if (lua_isinteger(L, idx))
            *out = value_integer(lua_tointeger(L, idx));
        else
            *out = value_real(lua_tonumber(L, idx));
        return 0;
    case LUA_TBOOLEAN: *out = value_boolean(lua_toboolean(L, idx)); return 0;
    case LUA_TSTRING: {
        /* Values are C strings: a NUL would cut the text short, and two
         * values would share one identity ("a\0b" and "a\0c" as "a"). */
        size_t len;
        const char *text = lua_tolstring(L, idx, &len);
        if (strlen(text) != len) {
            char shown[64];
            snprintf(msg, size, "text contains a NUL byte after '%s'; text values cannot hold one",
                     util_printable(text, shown, sizeof shown));
            return -1;
        }
        *out = value_text(text);
        if (!out->type)
            snprintf(msg, size, "out of memory");
        return out->type ? 0 : -1;
    }
    default:
        snprintf(msg, size, "expected a number, string or boolean, got a %s",
                 luaL_typename(L, idx));
        return -1;
    }
}

/* Reads one parameter's setting (scalar or list) at idx into the grid.
 * Returns 0, or -1 with msg set. */
static int set_param(lua_State *L, grid *g, const runner_plugin *plugin, uint32_t param, int idx,
                     int zip_group, char *msg, size_t size)
{
    idx = lua_absindex(L, idx);
    const runner_param *spec = &plugin->params[param];
    size_t count = 1;
    int is_list = lua_type(L, idx) == LUA_TTABLE;
    if (is_list) {
        if (luaL_getmetafield(L, idx, "__name") != LUA_TNIL) {
            lua_pop(L, 1);
            snprintf(msg, size,
                     "%s: zip{...} goes in the list part of the sweep table, "
                     "not under a parameter name",
                     spec->name);
            return -1;
        }
        count = lua_rawlen(L, idx);
        size_t entries = 0;
        lua_pushnil(L);
        while (lua_next(L, idx)) {
            entries++;
            lua_pop(L, 1);
        }
        if (count == 0 || entries != count) {
            snprintf(msg, size, "%s: a list of values must be a non-empty sequence {v1, v2, ...}",
                     spec->name);
            return -1;
        }
    }
    value *values = calloc(count, sizeof *values);
    if (!values) {
        snprintf(msg, size, "out of memory");
        return -1;
    }
    char reason[400];
    for (size_t i = 0; i < count; i++) {
        if (is_list)
            lua_rawgeti(L, idx, (lua_Integer)i + 1);
        else
            lua_pushvalue(L, idx);
        int bad = 0;
        if (is_default_marker(L, -1))
            values[i] = param_default(spec);
        else
            bad = lua_to_value(L, -1, &values[i], reason, sizeof reason);
        lua_pop(L, 1);
        if (bad) {
            snprintf(msg, size, "%s: %s", spec->name, reason);
            goto fail;
        }
        if (param_check(spec, &values[i], reason, sizeof reason) != 0) {
            snprintf(msg, size, "%s", reason);
            goto fail;
        }
    }
    return grid_set(g, param, values, count, zip_group);
fail:
    for (size_t i = 0; i < count; i++)
        value_clear(&values[i]);
    free(values);
    return -1;
}

static int unknown_param(const runner_plugin *plugin, const char *raw_name, char *msg, size_t size)
{
    char name[128];
    util_printable(raw_name, name, sizeof name);
    const char *suggestion = param_suggest(plugin, name);
    if (suggestion)
        snprintf(msg, size, "unknown parameter '%s' (did you mean '%s'?)", name, suggestion);
    else
        snprintf(msg, size, "unknown parameter '%s'; 'runner plugins %s' lists its parameters",
                 name, plugin->name);
    return -1;
}

/* Sets the parameter named by the key at -2 to the value at -1 (a list in
 * a zip group, group > 0), once: seen counts every setting. Returns 0, or -1
 * with msg. */
static int set_named_param(lua_State *L, grid *g, const runner_plugin *plugin, unsigned char *seen,
                           int group, char *msg, size_t size)
{
    char *bad = NULL;
    const char *name = script_name_get(L, -2, "parameter", NAME_CHECK_NAME_MAX, &bad);
    if (bad || !name) {
        snprintf(msg, size, "%s", bad ? bad : "a parameter's name must be a string");
        free(bad);
        return -1;
    }
    long param = param_find(plugin, name);
    if (param < 0)
        return unknown_param(plugin, name, msg, size);
    if (group && lua_type(L, -1) != LUA_TTABLE) {
        snprintf(msg, size, "zip{...}: '%s' needs a list of values", name);
        return -1;
    }
    if (seen[param]++) {
        snprintf(msg, size, "parameter '%s' is given twice (by name and in zip{...})", name);
        return -1;
    }
    return set_param(L, g, plugin, (uint32_t)param, -1, group, msg, size);
}

/* Sets every parameter of the zip{...} group at -1. Returns 0, or -1 with
 * msg (the stack is then left for the caller to reset). */
static int set_zip_group(lua_State *L, script_state *s, grid *g, const runner_plugin *plugin,
                         unsigned char *seen, char *msg, size_t size)
{
    int group = ++s->zip_groups;
    int zip = lua_absindex(L, -1);
    lua_pushnil(L);
    while (lua_next(L, zip)) {
        if (lua_type(L, -2) != LUA_TSTRING) {
            snprintf(msg, size, "zip{...} takes name = {values} pairs");
            return -1;
        }
        if (set_named_param(L, g, plugin, seen, group, msg, size) != 0)
            return -1;
        lua_pop(L, 1);
    }
    return 0;
}

/* Builds the grid from the sweep table at idx. Never raises for bad input:
 * returns -1 with msg so the caller can free the grid first. */
static int build_grid(lua_State *L, script_state *s, grid *g, const runner_plugin *plugin, int idx,
                      char *msg, size_t size)
{
    int top = lua_gettop(L);
    /* Which parameters were set: once by name or once in a zip group. On
     * the Lua stack, so an error path leaks nothing. */
    unsigned char *seen = lua_newuserdatauv(L, plugin->param_count + 1, 0);
    memset(seen, 0, plugin->param_count + 1);
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        int rc = 0;
        if (lua_type(L, -2) == LUA_TSTRING) {
            rc = set_named_param(L, g, plugin, seen, 0, msg, size);
        } else if (lua_type(L, -2) == LUA_TNUMBER && lua_type(L, -1) == LUA_TTABLE &&
                   luaL_testudata(L, -1, ZIP_METATABLE) == NULL &&
                   luaL_getmetafield(L, -1, "__name") != LUA_TNIL) {
            int is_zip = strcmp(lua_tostring(L, -1), ZIP_METATABLE) == 0;
            lua_pop(L, 1);
            rc = is_zip ? set_zip_group(L, s, g, plugin, seen, msg, size) : -1;
            if (!is_zip)
                snprintf(msg, size, "the list part of a sweep table holds only zip{...} groups");
        } else {
            rc = -1;
            snprintf(msg, size,
                     "sweep tables map parameter names to values; the list part "
                     "holds only zip{...} groups");
        }
        if (rc != 0) {
            lua_settop(L, top);
            return -1;
        }
        lua_pop(L, 1);
    }
    lua_settop(L, top); /* seen */
    return 0;
}

/* Under --shard, --max-points bounds a shard's own points: count / N,
 * rounded up (shard.c: one point in each run of N). 1 with msg when a
 * shard would hold more. */
static int shard_over_limit(const shard_spec *shard, uint64_t count, uint64_t max_points, char *msg,
                            size_t size)
{
    if (!shard->count || !max_points)
        return 0;
    uint64_t per_shard = count / shard->count + (count % shard->count != 0);
    if (per_shard <= max_points)
        return 0;
    snprintf(msg, size,
             "the grid has %llu points, about %llu in each of %u shards, more than --max-points "
             "%llu",
             (unsigned long long)count, (unsigned long long)per_shard, shard->count,
             (unsigned long long)max_points);
    return 1;
}

/* ---- the sweep (lifecycle.c owns its life) ---- */

/* Begins the sweep once the first section is valid, recording the options
 * the script ran with. Returns 0, or -1 with *err. */
static int begin_sweep(script_state *s, char **err)
{
    if (lifecycle_begun(s->life))
        return 0;
    char *options = json_dumps(s->options_used, JSON_COMPACT | JSON_SORT_KEYS);
    char *overrides = json_dumps(s->overrides, JSON_COMPACT | JSON_SORT_KEYS);
    /* Opening and beginning wait for another writer's lock: not script time. */
    double paused_at = scripti_clock_pause(s);
    int rc = lifecycle_begin(s->life, options, overrides, err);
    scripti_clock_resume(s, paused_at);
    free(options);
    free(overrides);
    return rc;
}

/* The third argument of sweep: { title = "...", print = false,
 * columns = {"workers", "speedup"} } (columns: which to print; all are
 * stored). Strings stay owned by the options table on the Lua stack. */
static int read_sweep_options(lua_State *L, const runner_plugin *plugin, int idx,
                              const char **title, int *print_rows, int *keep_rows,
                              const char **shown, size_t *shown_count, char *msg, size_t size)
{
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        const char *key = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "";
        int type = lua_type(L, -1);
        const char *wanted = NULL;
        if (strcmp(key, "title") == 0) {
            char *bad = NULL;
            if (type == LUA_TSTRING &&
                !(*title = script_name_get(L, -1, "title", NAME_CHECK_TEXT_MAX, &bad))) {
                lua_pop(L, 2);
                snprintf(msg, size, "%s", bad ? bad : "out of memory");
                free(bad);
                return -1;
            }
            if (type != LUA_TSTRING)
                wanted = "a string";
        } else if (strcmp(key, "print") == 0 || strcmp(key, "keep_rows") == 0) {
            if (type == LUA_TBOOLEAN)
                *(key[0] == 'p' ? print_rows : keep_rows) = lua_toboolean(L, -1);
            else
                wanted = "true or false";
        } else if (strcmp(key, "columns") == 0 && type == LUA_TTABLE) {
            size_t n = lua_rawlen(L, -1);
            for (size_t i = 1; i <= n && *shown_count < 128; i++) {
                lua_rawgeti(L, -1, (lua_Integer)i);
                char *bad = NULL;
                const char *name = script_name_get(L, -1, "columns:", NAME_CHECK_NAME_MAX, &bad);
                lua_pop(L, 1); /* still referenced by the list */
                if (bad) {
                    lua_pop(L, 2);
                    snprintf(msg, size, "%s", bad);
                    free(bad);
                    return -1;
                }
                int known = name && param_find(plugin, name) >= 0;
                for (uint32_t c = 0; name && !known && c < plugin->column_count; c++)
                    known = strcmp(plugin->columns[c].name, name) == 0;
                if (!known) {
                    lua_pop(L, 2);
                    snprintf(msg, size,
                             "columns: '%s' is neither a parameter nor a column; "
                             "'runner plugins %s' lists them",
                             name ? name : "?", plugin->name);
                    return -1;
                }
                shown[(*shown_count)++] = name;
            }
        } else if (strcmp(key, "columns") == 0) {
            wanted = "a list of column names";
        } else {
            lua_pop(L, 2);
            snprintf(msg, size,
                     "unknown sweep option '%s' (expected title, print, keep_rows, "
                     "columns)",
                     key);
            return -1;
        }
        if (wanted) {
            snprintf(msg, size, "sweep option '%s' must be %s, got %s", key, wanted,
                     luaL_typename(L, -1));
            lua_pop(L, 2);
            return -1;
        }
        lua_pop(L, 1);
    }
    return 0;
}

/* Stops the script with message as it is (no file:line: it is not the
 * script's fault); frees message, which may be NULL. */
static int script_stop(lua_State *L, failure_kind kind, char *message, const char *fallback)
{
    script_state *s = scripti_state(L);
    s->failure = kind;
    s->fatal = 1;
    lua_pushstring(L, message ? message : fallback);
    free(message);
    return lua_error(L);
}

/* Under --shard a section stores only the shard's points, so its rows are
 * no result to compute with: a script that reads them (an adaptive search,
 * a grid made from rows) would give each shard other sections. Reading
 * them stops the script. */
static int l_shard_rows(lua_State *L)
{
    const shard_spec *shard = &scripti_state(L)->config->sweep.shard;
    return scripti_raise(L, FAIL_INPUT,
                         "this sweep runs shard %u/%u: a section's rows are only "
                         "this shard's, so a script that reads them (an adaptive search, a grid "
                         "made from rows) cannot be sharded; run it without --shard "
                         "(docs/slurm.md)",
                         shard->index, shard->count);
}

static int push_shard_rows(lua_State *L)
{
    lua_newtable(L);
    if (luaL_newmetatable(L, "runner.shard_rows")) {
        static const luaL_Reg refuse[] = {
            { "__index", l_shard_rows },
            { "__len", l_shard_rows },
            { "__pairs", l_shard_rows },
            { "__newindex", l_shard_rows },
            { NULL, NULL },
        };
        luaL_setfuncs(L, refuse, 0);
    }
    lua_setmetatable(L, -2);
    return 1;
}

/* sweep() and options{} act on the sweep (store points, record what it ran
 * with): once it ended they refuse, in a __gc finalizer that lua_close runs,
 * say. Lua turns an error in a finalizer into a warning nobody sees, so the
 * first refusal is also kept for script_run to report. */
static int run_sweep(lua_State *L, const char *plugin_name, int params_idx, int opts_idx)
{
    script_state *s = scripti_state(L);
    char *err = NULL;
    char msg[1024];
    scripti_refuse_after_end(L, "sweep");
    const loaded_plugin *lp = exec_list_get(s->commands, plugin_name);
    if (!lp)
        lp = plugin_registry_get(s->registry, plugin_name, &err);
    if (!lp) {
        snprintf(msg, sizeof msg, "%s", err ? err : "unknown plugin");
        free(err);
        return scripti_raise(L, FAIL_INPUT, "%s", msg);
    }
    if (!s->options_declared && s->config->override_count > 0) {
        const char *eq = strchr(s->config->overrides[0], '=');
        int len = eq ? (int)(eq - s->config->overrides[0]) : (int)strlen(s->config->overrides[0]);
        return scripti_raise(L, FAIL_INPUT,
                             "--set %.*s: the script declares no options (declare them "
                             "with options{...} before the first sweep)",
                             len, s->config->overrides[0]);
    }
    lifecycle_section section = { .plugin = lp, .print_rows = 1 };
    int keep_rows = 1;
    const char *shown[128];
    section.shown = shown;
    if (opts_idx &&
        read_sweep_options(L, lp->desc, opts_idx, &section.title, &section.print_rows, &keep_rows,
                           shown, &section.shown_count, msg, sizeof msg) != 0)
        return scripti_raise(L, FAIL_INPUT, "%s: %s", lp->desc->name, msg);
    lua_Debug ar;
    if (lua_getstack(L, 1, &ar) && lua_getinfo(L, "l", &ar))
        section.script_line = ar.currentline;

    grid *g = grid_new(lp->desc);
    if (!g)
        return luaL_error(L, "out of memory");
    uint64_t count = 0;
    const shard_spec *shard = &s->config->sweep.shard;
    if (build_grid(L, s, g, lp->desc, params_idx, msg, sizeof msg) != 0 ||
        grid_finish(g, shard->count ? 0 : s->config->max_points, &count, msg, sizeof msg) != 0 ||
        shard_over_limit(shard, count, s->config->max_points, msg, sizeof msg)) {
        grid_free(g);
        return scripti_raise(L, FAIL_INPUT, "%s: %s", lp->desc->name, msg);
    }
    if (s->config->dry_run) {
        grid_free(g);
        if (shard->count)
            return push_shard_rows(L);
        lua_newtable(L);
        return 1;
    }
    /* Everything is valid: only now touch the database. */
    if (begin_sweep(s, &err) != 0) {
        grid_free(g);
        return script_stop(L, FAIL_STOPPED, err, "cannot begin the sweep");
    }
    section.grid = g;
    lifecycle_section_result result;
    double paused_at = scripti_clock_pause(s);
    int rc = lifecycle_run_section(s->life, &section, NULL, &result, &err);
    scripti_clock_resume(s, paused_at);
    grid_free(g);
    if (rc != 0)
        return script_stop(L, FAIL_STOPPED, err, "storing failed");
    if (result.interrupted)
        return script_stop(L, FAIL_INTERRUPTED, NULL, "interrupted");
    if (result.failures_stopped)
        return scripti_raise(L, FAIL_FAST, "%s", result.failures_stopped);
    if (!keep_rows) {
        lua_newtable(L);
        return 1;
    }
    if (s->config->sweep.shard.count)
        return push_shard_rows(L);
    /* A view of the committed rows, read back when the script asks. */
    if (rowview_push(L, s->config->sweep.db_path, lifecycle_sweep_id(s->life),
                     result.section_ordinal, lp->desc, &err) != 0)
        return script_stop(L, FAIL_STOPPED, err, "cannot read the rows back");
    return 1;
}

/* sweep "plugin" { ... } — the curried form. */
static int l_sweep_curried(lua_State *L)
{
    const char *name = lua_tostring(L, lua_upvalueindex(1));
    if (lua_type(L, 1) != LUA_TTABLE)
        return scripti_raise(L, FAIL_INPUT,
                             "sweep \"%s\" needs a table of parameters: "
                             "sweep \"%s\" { name = value, ... }",
                             name, name);
    return run_sweep(L, name, 1, lua_istable(L, 2) ? 2 : 0);
}

/* sweep(plugin, params [, opts]) or sweep "plugin" {params}. */
static int l_sweep(lua_State *L)
{
    if (lua_type(L, 1) != LUA_TSTRING)
        return scripti_raise(L, FAIL_INPUT, "sweep needs a plugin name: sweep \"speedup\" { ... }");
    script_name_check(L, 1, "sweep: plugin");
    if (lua_gettop(L) == 1) {
        lua_pushvalue(L, 1);
        lua_pushcclosure(L, l_sweep_curried, 1);
        return 1;
    }
    if (lua_type(L, 2) != LUA_TTABLE)
        return scripti_raise(L, FAIL_INPUT, "sweep(\"%s\", params): params must be a table",
                             lua_tostring(L, 1));
    return run_sweep(L, lua_tostring(L, 1), 2, lua_istable(L, 3) ? 3 : 0);
}

/* command "name" { ... } or command { name = "...", ... }: a program as an
 * experiment (exec_lua.c, docs/command-experiments.md). */
static int declare_command(lua_State *L, const char *name, int idx)
{
    script_state *s = scripti_state(L);
    char msg[1024];
    scripti_refuse_after_end(L, "command");
    if (!s->commands && !(s->commands = exec_list_new()))
        return luaL_error(L, "out of memory");
    double paused_at = scripti_clock_pause(s); /* hashing the program is runner's time */
    int rc = exec_lua_declare(L, s->commands, s->registry, name, idx, msg, sizeof msg);
    scripti_clock_resume(s, paused_at);
    if (rc != 0)
        return scripti_raise(L, FAIL_INPUT, "%s", msg);
    return 0;
}

static int l_command_curried(lua_State *L)
{
    const char *name = lua_tostring(L, lua_upvalueindex(1));
    if (lua_type(L, 1) != LUA_TTABLE)
        return scripti_raise(L, FAIL_INPUT,
                             "command \"%s\" needs a table: command \"%s\" "
                             "{ argv = {...}, ... }",
                             name, name);
    return declare_command(L, name, 1);
}

static int l_command(lua_State *L)
{
    if (lua_type(L, 1) == LUA_TSTRING && lua_gettop(L) == 1) {
        script_name_check(L, 1, "command");
        lua_pushvalue(L, 1);
        lua_pushcclosure(L, l_command_curried, 1);
        return 1;
    }
    if (lua_type(L, 1) != LUA_TTABLE)
        return scripti_raise(L, FAIL_INPUT,
                             "command needs a name and a table: command \"name\" "
                             "{ argv = {...}, ... }");
    return declare_command(L, NULL, 1);
}

/* ---- zip groups (the axis helpers are in axis.c) ---- */

/* zip { a = {...}, b = {...} }: axes that advance together. */
static int l_zip(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 1);
    luaL_setmetatable(L, ZIP_METATABLE);
    return 1;
}

static const luaL_Reg runner_globals[] = {
    { "sweep", l_sweep }, { "options", scripti_l_options },
    { "zip", l_zip },     { "command", l_command },
    { NULL, NULL },
};

/* ---- running a script ---- */

static void push_runner_table(lua_State *L, const script_config *c)
{
    lua_newtable(L);
    lua_pushlightuserdata(L, (void *)&default_marker);
    lua_setfield(L, -2, "default");
    lua_pushstring(L, RUNNER_VERSION);
    lua_setfield(L, -2, "version");
    lua_pushstring(L, c->script_path);
    lua_setfield(L, -2, "script");
    lua_pushstring(L, c->sweep.db_path);
    lua_setfield(L, -2, "db");
    lua_pushinteger(L, (lua_Integer)c->sweep.seed);
    lua_setfield(L, -2, "seed");
    /* Under --shard, {index, count, note}: a script skips reading its rows
     * and prints the note instead (docs/slurm.md). */
    if (c->sweep.shard.count) {
        lua_createtable(L, 0, 3);
        lua_pushinteger(L, c->sweep.shard.index);
        lua_setfield(L, -2, "index");
        lua_pushinteger(L, c->sweep.shard.count);
        lua_setfield(L, -2, "count");
        lua_pushfstring(L,
                        "shard %d/%d: the summary needs every shard's rows: 'runner merge' "
                        "the shards, then 'runner show' or 'runner report' the merged sweep",
                        (int)c->sweep.shard.index, (int)c->sweep.shard.count);
        lua_setfield(L, -2, "note");
        lua_setfield(L, -2, "shard");
    }
    /* The programs runner ships (dp_logreg): a command's argv names them by
     * path where another program starts them (mpirun). */
    char *libexec = install_layout_libexec_dir();
    lua_pushstring(L, libexec); /* nil when out of memory */
    lua_setfield(L, -2, "libexec");
    free(libexec);
    lua_setglobal(L, "runner");
}

/* The sweep the script drives, not begun yet. NULL when out of memory. */
static lifecycle *new_lifecycle(const script_config *c, const char *text, size_t len)
{
    lifecycle_config life = {
        .script_path = c->script_path,
        .script_text = text,
        .script_text_len = len,
        .options = &c->sweep,
        .lua_version = script_lua_version(),
    };
    return lifecycle_new(&life);
}

/* A sandboxed Lua state with runner's functions, or NULL (out of memory). */
static lua_State *new_lua_state(script_state *s)
{
    lua_State *L = scripti_new_state(s);
    if (!L)
        return NULL;
    luaL_newmetatable(L, ZIP_METATABLE);
    lua_pop(L, 1);
    for (const luaL_Reg *f = runner_globals; f->name; f++)
        lua_register(L, f->name, f->func);
    axis_register_lua(L);
    plot_lua_register(L);
    rowview_register_lua(L);
    push_runner_table(L, s->config);
    analysis_lua_register(L);
    return L;
}

/* Says on stderr why a script that raised an error stopped, and how the
 * sweep ended. */
/* One error line; names and values in it are escaped for the terminal. */
static void print_error(const char *message)
{
    char *shown = quote_terminal(message ? message : "script failed");
    log_print(LOG_LEVEL_ERROR, "runner: %s\n", shown ? shown : "out of memory");
    free(shown);
}

static lifecycle_ending report_failure(const script_state *s)
{
    const char *message = lua_tostring(s->L, -1);
    switch (s->failure) {
    case FAIL_INTERRUPTED:
        log_print(LOG_LEVEL_ERROR, "runner: interrupted; finished points are stored (continue with "
                                   "--resume)\n");
        return LIFECYCLE_INTERRUPTED;
    case FAIL_FAST: print_error(message); return LIFECYCLE_FAILED_FAST;
    case FAIL_STOPPED: print_error(message); return LIFECYCLE_STORE_FAILED;
    default: print_error(message); return LIFECYCLE_INPUT_ERROR;
    }
}

int script_run(const script_config *config)
{
    script_state s = { .config = config };
    int status = EXIT_USAGE;
    char *err = NULL;
    size_t len = 0;
    s.options_used = json_object();
    s.overrides = json_object();
    if (scripti_check_overrides(config) != 0)
        goto done;
    if (config->script_text) {
        s.script_text = util_strdup(config->script_text);
        len = s.script_text ? strlen(s.script_text) : 0;
    } else if (util_read_file(config->script_path, &s.script_text, &len) != 0) {
        char *shown = quote_terminal(config->script_path); /* the path as typed */
        log_print(LOG_LEVEL_ERROR, "runner: %s: cannot read the script: %s\n",
                  shown ? shown : config->script_path, strerror(errno));
        free(shown);
        goto done;
    }
    s.life = new_lifecycle(config, s.script_text, len);
    if (!s.life) {
        log_print(LOG_LEVEL_ERROR, "runner: out of memory\n");
        goto done;
    }
    if (plugin_registry_open(config->plugin_dirs, &s.registry, &err) != 0) {
        log_print(LOG_LEVEL_ERROR, "runner: %s\n", err);
        goto done;
    }
    s.L = new_lua_state(&s);
    if (!s.L) {
        log_print(LOG_LEVEL_ERROR, "runner: cannot create a Lua state (out of memory)\n");
        goto done;
    }
    s.started = util_monotonic();
    scripti_watchdog_start(&s);
    int rc = scripti_run_chunk(&s, len);
    lifecycle_ending ending = rc == LUA_OK ? LIFECYCLE_FINISHED : report_failure(&s);
    if (s.printed.len > 0 && !s.printed.oom && lifecycle_keep_printed(s.life, s.printed.data) != 0)
        fprintf(stderr, "runner: warning: out of memory keeping what the script printed\n");
    double paused_at = scripti_clock_pause(&s);
    status = lifecycle_end(s.life, ending);
    scripti_clock_resume(&s, paused_at);
    status = scripti_close_state(&s, status);
done:
    if (s.L)
        lua_close(s.L);
    scripti_watchdog_stop(&s);
    lifecycle_free(s.life);
    plugin_registry_free(s.registry);
    exec_list_free(s.commands); /* after lua_close: row views borrow their descriptors */
    free(s.script_text);
    free(s.late_call);
    free(err);
    json_decref(s.options_used);
    json_decref(s.overrides);
    strbuf_free(&s.printed);
    return status;
}

const char *script_lua_version(void) { return LUA_RELEASE; }
