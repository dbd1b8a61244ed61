/* plot_lua: the Lua function plot(rows, {...}) (docs/plots.md). A thin
 * binding: it reads the rows and options into a table and a plot_spec, and
 * render/ draws them; only the writing of the file below the current
 * directory is its own. */
#include "plot_lua.h"
#include "script_name.h"

#include <errno.h>
#include <lauxlib.h>
#include <lua.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/log.h"
#include "base/outfile.h"
#include "base/table.h"
#include "base/util.h"
#include "base/value.h"
#include "render/render.h"

/* Writes data to a path checked by plot_check_output_path, creating its
 * directories. No component may be a symbolic link, and the file itself is
 * replaced, not written into: with a relative path and no "..", that keeps
 * every byte under the current directory. */
static int write_inside_cwd(const char *path, const void *data, size_t size, char **err)
{
    char *dir = util_strdup(path);
    if (!dir)
        return util_fail(err, "out of memory");
    for (char *slash = strchr(dir, '/'); slash; slash = strchr(slash + 1, '/')) {
        struct stat st;
        *slash = '\0';
        if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
            util_fail(err, "%s: cannot create the directory: %s", dir, strerror(errno));
            free(dir);
            return -1;
        }
        int found = lstat(dir, &st) == 0;
        if (!found || !S_ISDIR(st.st_mode)) {
            util_fail(err, "%s: %s", dir,
                      found && S_ISLNK(st.st_mode)
                          ? "is a symbolic link; plots are written only below the current directory"
                          : "is not a directory");
            free(dir);
            return -1;
        }
        *slash = '/';
    }
    free(dir);
    struct stat target;
    if (lstat(path, &target) == 0 && S_ISLNK(target.st_mode))
        return util_fail(err, "%s: cannot write: it is a symbolic link", path);
    /* A new file renamed over the target: a hard link to a file elsewhere
     * is replaced, never written through. */
    return util_replace_file(path, data, size, err);
}

#define PLOT_BOX "runner.plot_table"

/* The table being built lives in a userdata box, so a Lua error raised
 * while reading the rows cannot leak it: the box's __gc frees it. */
static int box_gc(lua_State *L)
{
    table **box = luaL_checkudata(L, 1, PLOT_BOX);
    table_free(*box);
    *box = NULL;
    return 0;
}

static const char *const lua_option_names[] = {
    "x", "y", "by", "title", "xlabel", "ylabel", "output", "logx", "logy", "units", NULL,
};

/* Raises "plot: rows[i] has no field 'name'; its fields: a, b, ..." */
static int missing_field(lua_State *L, int row_idx, lua_Integer i, const char *name)
{
    lua_pushliteral(L, "");
    int list = lua_gettop(L);
    int n = 0;
    lua_pushnil(L);
    while (lua_next(L, row_idx)) {
        lua_pop(L, 1);
        if (lua_type(L, -1) != LUA_TSTRING)
            continue;
        lua_pushvalue(L, list);
        lua_pushstring(L, n++ ? ", " : "");
        lua_pushvalue(L, -3);
        lua_concat(L, 3);
        lua_replace(L, list);
    }
    return luaL_error(L, "plot: rows[%d] has no field '%s'; its fields: %s", (int)i, name,
                      lua_tostring(L, list));
}

/* Reads plot's options table (index 2) into strings (x, y, by, title,
 * xlabel, ylabel, output; kept alive by the table) and flags (logx, logy);
 * raises on an unknown or mistyped one. */
static void read_lua_options(lua_State *L, const char *strings[7], int flags[2])
{
    lua_pushnil(L);
    while (lua_next(L, 2)) {
        const char *key = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "?";
        int k = 0;
        while (lua_option_names[k] && strcmp(lua_option_names[k], key) != 0)
            k++;
        if (!lua_option_names[k])
            luaL_error(L,
                       "plot: unknown option '%s' (expected x, y, by, logx, logy, "
                       "title, xlabel, ylabel, units, output)",
                       key);
        if (k == 9) {
            if (lua_type(L, -1) != LUA_TTABLE)
                luaL_error(L,
                           "plot: option 'units' must be a table such as "
                           "{ wait_s = \"s\" }, got a %s",
                           luaL_typename(L, -1));
        } else if (k < 7) {
            if (lua_type(L, -1) != LUA_TSTRING)
                luaL_error(L, "plot: option '%s' must be a string, got a %s", key,
                           luaL_typename(L, -1));
            /* x, y and by name columns: checked whole (a NUL would cut
             * "x\0y" to another column's name) */
            strings[k] = k < 3 ? script_name_check(L, -1, "plot:") : lua_tostring(L, -1);
        } else {
            if (lua_type(L, -1) != LUA_TBOOLEAN)
                luaL_error(L, "plot: option '%s' must be true or false, got a %s", key,
                           luaL_typename(L, -1));
            flags[k - 7] = lua_toboolean(L, -1);
        }
        lua_pop(L, 1);
    }
}

/* Cell c of row i (the row table at row_idx) as a value; raises on a
 * missing field or a wrong type. */
static value lua_row_cell(lua_State *L, int row_idx, lua_Integer i, const char *name, int c)
{
    value v = VALUE_NULL;
    int type = lua_getfield(L, row_idx, name);
    if (type == LUA_TNIL)
        missing_field(L, row_idx, i, name);
    if (c < 2 && type != LUA_TNUMBER)
        luaL_error(L, "plot: rows[%d].%s is a %s; x and y must be numbers", (int)i, name,
                   luaL_typename(L, -1));
    if (type == LUA_TNUMBER)
        v = c < 2 || !lua_isinteger(L, -1) ? value_real(lua_tonumber(L, -1))
                                           : value_integer(lua_tointeger(L, -1));
    else if (type == LUA_TBOOLEAN)
        v = value_boolean(lua_toboolean(L, -1));
    else if (type == LUA_TSTRING)
        v = value_text(lua_tostring(L, -1)); /* the last Lua call for this row */
    else
        luaL_error(L, "plot: rows[%d].%s is a %s; by needs numbers, strings or booleans", (int)i,
                   name, luaL_typename(L, -1));
    lua_pop(L, 1);
    return v;
}

/* Copies x, y (and by) of rows[1 .. n] (index 1) into the table in box;
 * the by column is added at the first row, typed after its value. */
static void fill_lua_rows(lua_State *L, table **box, lua_Integer n, const char *const names[3],
                          const char *by_unit)
{
    int columns = names[2] ? 3 : 2;
    for (lua_Integer i = 1; i <= n; i++) {
        value row[3] = { VALUE_NULL, VALUE_NULL, VALUE_NULL };
        if (lua_geti(L, 1, i) != LUA_TTABLE)
            luaL_error(L,
                       "plot: rows[%d] is a %s; rows must be tables such as sweep "
                       "returns",
                       (int)i, luaL_typename(L, -1));
        int row_idx = lua_gettop(L);
        for (int c = 0; c < columns; c++)
            row[c] = lua_row_cell(L, row_idx, i, names[c], c);
        if (names[2] && (*box)->column_count == 2 &&
            table_add_column(*box, names[2], by_unit, row[2].type ? row[2].type : RUNNER_TEXT, 1) !=
                0) {
            value_clear(&row[2]);
            luaL_error(L, "plot: out of memory");
        }
        if (table_append_row(*box, row) != 0) {
            value_clear(&row[2]);
            luaL_error(L, "plot: out of memory");
        }
        lua_pop(L, 1);
    }
}

/* Draws the table in box to output and frees it; pushes the results:
 * output, or nil and the message. Notes go to stderr with the caller's line. */
static int draw_lua_rows(lua_State *L, table **box, const plot_spec *spec, plot_format format,
                         const char *output)
{
    /* From here on no Lua call until the results are pushed. */
    plot_image image;
    char *err = NULL;
    int rc = plot_render(*box, spec, format, &image, &err);
    if (rc == 0 && write_inside_cwd(output, image.data, image.size, &err) != 0)
        rc = -1;
    char *notes[2] = { rc == 0 ? plot_skip_note(spec, &image) : NULL,
                       rc == 0 ? plot_reduce_note(&image.reduced, spec->by) : NULL };
    plot_image_free(&image);
    table_free(*box);
    *box = NULL;
    for (size_t i = 0; i < 2; i++) {
        if (notes[i]) {
            luaL_where(L, 1);
            log_print(LOG_LEVEL_INFO, "runner: %splot: %s\n", lua_tostring(L, -1), notes[i]);
            lua_pop(L, 1);
            free(notes[i]);
        }
    }
    if (rc != 0) {
        lua_pushnil(L);
        lua_pushfstring(L, "plot: %s", err ? err : "failed");
        free(err);
        return 2;
    }
    lua_pushstring(L, output);
    return 1;
}

static int l_plot(lua_State *L)
{
    /* rows: a list of row tables, or the view sweep() returns (rowview.c). */
    if (!lua_istable(L, 1) && !lua_isuserdata(L, 1))
        luaL_checktype(L, 1, LUA_TTABLE);
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_settop(L, 2);
    const char *strings[7] = { NULL }; /* x, y, by, title, xlabel, ylabel, output */
    int flags[2] = { 0, 0 };           /* logx, logy */
    read_lua_options(L, strings, flags);
    const char *x = strings[0], *y = strings[1], *by = strings[2], *output = strings[6];
    if (!x || !y || !output)
        return luaL_error(L, "plot: needs x = \"column\", y = \"column\" and output = "
                             "\"plots/name.svg\"");
    char why[160];
    if (plot_check_output_path(output, why, sizeof why) != 0)
        return luaL_error(L, "plot: output '%s' %s", output, why);
    plot_format format;
    plot_format_from_path(output, &format);
    lua_Integer n = luaL_len(L, 1);
    if (n == 0)
        return luaL_error(L, "plot: no rows to plot (rows must be a list of row tables, as "
                             "sweep returns)");

    table **box = lua_newuserdatauv(L, sizeof *box, 0); /* index 3 */
    *box = NULL;
    if (luaL_newmetatable(L, PLOT_BOX)) {
        lua_pushcfunction(L, box_gc);
        lua_setfield(L, -2, "__gc");
    }
    lua_setmetatable(L, -2);
    const char *default_title = NULL;
    if (!strings[3])
        default_title = lua_pushfstring(L, "%s vs %s", y, x); /* index 4 */
    const char *names[3] = { x, y, by };
    const char *units[3] = { "", "", "" };
    if (lua_getfield(L, 2, "units") == LUA_TTABLE) {
        for (int c = 0; c < (by ? 3 : 2); c++) {
            if (lua_getfield(L, -1, names[c]) == LUA_TSTRING)
                units[c] = lua_tostring(L, -1); /* kept alive by the units table */
            else if (!lua_isnil(L, -1))
                return luaL_error(L, "plot: units.%s must be a string", names[c]);
            lua_pop(L, 1);
        }
    }
    lua_pop(L, 1);
    *box = table_new(strings[3] ? strings[3] : default_title);
    if (!*box || table_add_column(*box, x, units[0], RUNNER_REAL, 1) != 0 ||
        table_add_column(*box, y, units[1], RUNNER_REAL, 0) != 0)
        return luaL_error(L, "plot: out of memory");
    fill_lua_rows(L, box, n, names, units[2]);
    plot_spec spec = {
        .x = x,
        .y = y,
        .by = by,
        .logx = flags[0],
        .logy = flags[1],
        .xlabel = strings[4],
        .ylabel = strings[5],
    };
    return draw_lua_rows(L, box, &spec, format, output);
}

void plot_lua_register(lua_State *L) { lua_register(L, "plot", l_plot); }
