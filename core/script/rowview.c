/* rowview: the rows sweep() returns, as a Lua userdata that reads them
 * back from the database when asked. Pages of ROWVIEW_PAGE_ROWS rows are
 * read through one cursor and the last ROWVIEW_CACHED_PAGES are kept; a
 * directory of each page's first key (16 bytes per page) makes rows[i] one
 * index seek, whatever i. See rowview.h. */
#include "rowview.h"
#include "script_name.h"

#include <lauxlib.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "store/store.h"

#define ROWVIEW_METATABLE "runner.rows"
#define ROWDB_METATABLE "runner.rows_db"
#define FILTER_METATABLE "runner.rows_filter"
#define WHERE_MAX 64

static const char rowdb_key = 'r'; /* its address keys the shared connection */

/* The read-only connection every view of a Lua state shares, opened at the
 * first read. Made before the first view, so Lua finalizes it after them. */
typedef struct rowdb {
    char *path;
    store *store;
} rowdb;

typedef struct rowview_page {
    size_t index;  /* which page */
    size_t rows;   /* rows it holds */
    value *cells;  /* ROWVIEW_PAGE_ROWS x column count */
    uint64_t used; /* last use (the clock); 0: empty */
} rowview_page;

typedef struct rowview {
    rowdb *db; /* kept alive by the view's user value */
    int64_t sweep_id;
    int ordinal;
    int64_t section_id;        /* 0 until the first read */
    table *columns;            /* names and types of the rows (owned, no rows) */
    char *plugin;              /* its result table */
    store_cursor *rows, *keys; /* opened at the first read */
    store_row_key *starts;     /* starts[p]: the key of page p's first row */
    size_t pages_known, starts_capacity;
    int64_t count; /* -1 until known */
    rowview_page cache[ROWVIEW_CACHED_PAGES];
    uint64_t clock;
} rowview;

void rowview_push_value(lua_State *L, const value *v)
{
    switch (v->type) {
    case RUNNER_INTEGER: lua_pushinteger(L, v->as.integer); break;
    case RUNNER_REAL: lua_pushnumber(L, v->as.real); break;
    case RUNNER_BOOLEAN: lua_pushboolean(L, v->as.boolean); break;
    case RUNNER_TEXT: lua_pushstring(L, v->as.text); break;
    default: lua_pushnil(L); break;
    }
}

/* Raises err (malloc'd) as a Lua error. */
static int raise(lua_State *L, char *err)
{
    lua_pushstring(L, err ? err : "cannot read the rows");
    free(err);
    return lua_error(L);
}

static void clear_cells(value *cells, size_t n)
{
    for (size_t i = 0; cells && i < n; i++)
        value_clear(&cells[i]);
}

/* Opens the shared connection and finds the section, once. */
static void ready(lua_State *L, rowview *v)
{
    if (v->section_id)
        return;
    char *err = NULL;
    if (!v->db->store && store_open_read(v->db->path, &v->db->store, &err) != 0)
        raise(L, err);
    if (store_section_find(v->db->store, v->sweep_id, v->ordinal, &v->section_id, &err) != 0)
        raise(L, err);
    if (!v->section_id)
        luaL_error(L, "%s: section %d of sweep %I is not stored", v->db->path, v->ordinal,
                   (lua_Integer)v->sweep_id);
    if ((!v->rows && store_cursor_open(v->db->store, v->section_id, v->plugin, v->columns, NULL,
                                       NULL, 0, &v->rows, &err) != 0) ||
        (!v->keys && store_cursor_open(v->db->store, v->section_id, v->plugin, NULL, NULL, NULL, 0,
                                       &v->keys, &err) != 0)) {
        v->section_id = 0;
        raise(L, err);
    }
}

static int add_start(rowview *v, store_row_key key)
{
    if (v->pages_known == v->starts_capacity) {
        size_t capacity = v->starts_capacity ? 2 * v->starts_capacity : 64;
        store_row_key *grown = realloc(v->starts, capacity * sizeof *grown);
        if (!grown)
            return -1;
        v->starts = grown;
        v->starts_capacity = capacity;
    }
    v->starts[v->pages_known++] = key;
    return 0;
}

/* Makes starts[p] known by skipping forward over keys only (the index,
 * never the rows). Returns 1 if page p exists, 0 if it is past the end. */
static int find_start(lua_State *L, rowview *v, size_t p)
{
    if (p < v->pages_known)
        return 1;
    if (v->count >= 0 && (int64_t)p * ROWVIEW_PAGE_ROWS >= v->count)
        return 0;
    char *err = NULL;
    size_t last = v->pages_known - 1;
    store_row_key key;
    int64_t n = 0;
    int rc;
    if (store_cursor_seek(v->keys, v->starts[last], &err) != 0)
        return raise(L, err);
    while ((rc = store_cursor_next(v->keys, NULL, &key, &err)) == 1) {
        if (n > 0 && n % ROWVIEW_PAGE_ROWS == 0) {
            if (add_start(v, key) != 0) {
                store_cursor_rewind(v->keys);
                return luaL_error(L, "out of memory");
            }
            if (p < v->pages_known)
                break;
        }
        n++;
    }
    store_cursor_rewind(v->keys); /* no read transaction left open */
    if (rc < 0)
        return raise(L, err);
    if (rc == 0)
        v->count = (int64_t)last * ROWVIEW_PAGE_ROWS + n;
    return p < v->pages_known;
}

/* Reads page p (its start known) into slot; learns the next page's start,
 * or the row count at the end. */
static void load_page(lua_State *L, rowview *v, size_t p, rowview_page *slot)
{
    size_t width = v->columns->column_count;
    char *err = NULL;
    clear_cells(slot->cells, slot->rows * width);
    slot->rows = 0;
    slot->used = 0;
    if (!slot->cells &&
        !(slot->cells = calloc(ROWVIEW_PAGE_ROWS * (width ? width : 1), sizeof *slot->cells)))
        luaL_error(L, "out of memory");
    if (store_cursor_seek(v->rows, v->starts[p], &err) != 0)
        raise(L, err);
    int rc = 1;
    while (slot->rows < ROWVIEW_PAGE_ROWS &&
           (rc = store_cursor_next(v->rows, slot->cells + slot->rows * width, NULL, &err)) == 1)
        slot->rows++;
    store_row_key next;
    if (rc == 1)
        rc = store_cursor_next(v->rows, NULL, &next, &err);
    store_cursor_rewind(v->rows);
    if (rc < 0)
        raise(L, err);
    if (rc == 1 && p + 1 == v->pages_known && add_start(v, next) != 0)
        luaL_error(L, "out of memory");
    if (rc == 0)
        v->count = (int64_t)(p * ROWVIEW_PAGE_ROWS + slot->rows);
    slot->index = p;
    slot->used = ++v->clock;
}

/* Pushes the row at cells as a new {column = value} table. */
static void push_row(lua_State *L, const table *columns, const value *cells)
{
    lua_createtable(L, 0, (int)columns->column_count);
    for (size_t c = 0; c < columns->column_count; c++) {
        rowview_push_value(L, &cells[c]);
        lua_setfield(L, -2, columns->columns[c].name);
    }
}

/* Pushes row i (1-based), or nil past the end. */
static void push_row_at(lua_State *L, rowview *v, lua_Integer i)
{
    if (i < 1 || (v->count >= 0 && i > v->count)) {
        lua_pushnil(L);
        return;
    }
    ready(L, v);
    size_t p = (size_t)(i - 1) / ROWVIEW_PAGE_ROWS, r = (size_t)(i - 1) % ROWVIEW_PAGE_ROWS;
    rowview_page *slot = NULL;
    for (int k = 0; k < ROWVIEW_CACHED_PAGES && !slot; k++)
        if (v->cache[k].used && v->cache[k].index == p)
            slot = &v->cache[k];
    if (!slot) {
        if (!find_start(L, v, p)) {
            lua_pushnil(L);
            return;
        }
        slot = &v->cache[0];
        for (int k = 1; k < ROWVIEW_CACHED_PAGES; k++)
            if (v->cache[k].used < slot->used)
                slot = &v->cache[k];
        load_page(L, v, p, slot);
    }
    slot->used = ++v->clock;
    if (r >= slot->rows)
        lua_pushnil(L);
    else
        push_row(L, v->columns, slot->cells + r * v->columns->column_count);
}

static int64_t row_count(lua_State *L, rowview *v)
{
    if (v->count < 0) {
        ready(L, v);
        char *err = NULL;
        if (store_section_row_count(v->db->store, v->section_id, v->plugin, &v->count, &err) != 0)
            raise(L, err);
    }
    return v->count;
}

/* --- rows:find(where), rows:filter(where): the condition runs in SQL ----- */

/* What a filter holds while it reads, freed by its __gc even when a Lua
 * error cuts the read short. */
typedef struct rowview_filter {
    store_cursor *cursor;
    value where[WHERE_MAX];
    const char *names[WHERE_MAX];
    size_t where_count;
    value *row;
    size_t width;
} rowview_filter;

static int filter_gc(lua_State *L)
{
    rowview_filter *f = luaL_checkudata(L, 1, FILTER_METATABLE);
    store_cursor_close(f->cursor);
    f->cursor = NULL;
    clear_cells(f->where, f->where_count);
    clear_cells(f->row, f->width);
    free(f->row);
    f->row = NULL;
    f->where_count = f->width = 0;
    return 0;
}

/* The condition `row[name] == the Lua value at idx` as a value of the
 * column's type; 0 when no row can meet it (Lua's == never makes a number
 * equal a string, nor a boolean anything but a boolean). */
static int where_value(lua_State *L, int idx, runner_type column, value *out)
{
    switch (lua_type(L, idx)) {
    case LUA_TNUMBER:
        if (!value_type_is_numeric(column))
            return 0;
        *out = lua_isinteger(L, idx) ? value_integer(lua_tointeger(L, idx))
                                     : value_real(lua_tonumber(L, idx));
        return 1;
    case LUA_TBOOLEAN:
        if (column != RUNNER_BOOLEAN)
            return 0;
        *out = value_boolean(lua_toboolean(L, idx));
        return 1;
    case LUA_TSTRING:
        if (column != RUNNER_TEXT)
            return 0;
        *out = value_text(lua_tostring(L, idx));
        if (!out->type)
            luaL_error(L, "out of memory");
        return 1;
    default: return 0;
    }
}

/* Reads the where table (index 2) into f; 0 when no row can match. */
static int read_where(lua_State *L, const rowview *v, rowview_filter *f)
{
    int possible = 1;
    lua_pushnil(L);
    while (lua_next(L, 2)) {
        long c = lua_type(L, -2) == LUA_TSTRING
                     ? table_find_column(v->columns, script_name_check(L, -2, "rows:find/filter:"))
                     : -1;
        if (f->where_count == WHERE_MAX)
            luaL_error(L, "rows:find/filter: at most %d conditions", WHERE_MAX);
        if (c < 0 || !where_value(L, -1, v->columns->columns[c].type, &f->where[f->where_count]))
            possible = 0;
        else
            f->names[f->where_count++] = v->columns->columns[c].name;
        lua_pop(L, 1);
    }
    return possible;
}

static int filter_rows(lua_State *L, int first_only)
{
    rowview *v = luaL_checkudata(L, 1, ROWVIEW_METATABLE);
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_settop(L, 2);
    rowview_filter *f = lua_newuserdatauv(L, sizeof *f, 0); /* index 3 */
    memset(f, 0, sizeof *f);
    luaL_setmetatable(L, FILTER_METATABLE);
    if (!first_only)
        lua_newtable(L); /* index 4: the matches */
    if (!read_where(L, v, f)) {
        if (first_only)
            lua_pushnil(L);
        return 1;
    }
    ready(L, v);
    char *err = NULL;
    f->width = v->columns->column_count;
    if (!(f->row = calloc(f->width ? f->width : 1, sizeof *f->row)))
        return luaL_error(L, "out of memory");
    if (store_cursor_open(v->db->store, v->section_id, v->plugin, v->columns, f->names, f->where,
                          f->where_count, &f->cursor, &err) != 0)
        return raise(L, err);
    lua_Integer found = 0;
    int rc;
    while ((rc = store_cursor_next(f->cursor, f->row, NULL, &err)) == 1) {
        push_row(L, v->columns, f->row);
        clear_cells(f->row, f->width);
        if (first_only)
            break;
        lua_rawseti(L, 4, ++found);
    }
    store_cursor_close(f->cursor);
    f->cursor = NULL;
    if (rc < 0)
        return raise(L, err);
    if (first_only && rc == 0)
        lua_pushnil(L);
    return 1;
}

static int l_find(lua_State *L) { return filter_rows(L, 1); }

static int l_filter(lua_State *L) { return filter_rows(L, 0); }

/* --- metamethods ----------------------------------------------------------- */

static int l_index(lua_State *L)
{
    rowview *v = luaL_checkudata(L, 1, ROWVIEW_METATABLE);
    if (lua_type(L, 2) == LUA_TNUMBER) {
        int integral = 0;
        lua_Integer i = lua_tointegerx(L, 2, &integral); /* 2.0 is row 2; 1.5 no row */
        push_row_at(L, v, integral ? i : 0);
        return 1;
    }
    const char *key = lua_tostring(L, 2);
    if (lua_type(L, 2) == LUA_TSTRING && strcmp(key, "find") == 0)
        lua_pushcfunction(L, l_find);
    else if (lua_type(L, 2) == LUA_TSTRING && strcmp(key, "filter") == 0)
        lua_pushcfunction(L, l_filter);
    else
        lua_pushnil(L);
    return 1;
}

static int l_len(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)row_count(L, luaL_checkudata(L, 1, ROWVIEW_METATABLE)));
    return 1;
}

static int l_newindex(lua_State *L)
{
    return luaL_error(L, "the rows sweep returns are read-only (they are read from the "
                         "database); copy what you change into a table of your own");
}

/* pairs(rows) walks 1..#rows like ipairs. */
static int l_pairs_next(lua_State *L)
{
    rowview *v = luaL_checkudata(L, 1, ROWVIEW_METATABLE);
    lua_Integer i = luaL_checkinteger(L, 2) + 1;
    push_row_at(L, v, i);
    if (lua_isnil(L, -1))
        return 1;
    lua_pushinteger(L, i);
    lua_insert(L, -2);
    return 2;
}

static int l_pairs(lua_State *L)
{
    luaL_checkudata(L, 1, ROWVIEW_METATABLE);
    lua_pushcfunction(L, l_pairs_next);
    lua_pushvalue(L, 1);
    lua_pushinteger(L, 0);
    return 3;
}

static int l_tostring(lua_State *L)
{
    rowview *v = luaL_checkudata(L, 1, ROWVIEW_METATABLE);
    lua_pushfstring(L, "rows of section %d of sweep %I", v->ordinal, (lua_Integer)v->sweep_id);
    return 1;
}

static int l_gc(lua_State *L)
{
    rowview *v = luaL_checkudata(L, 1, ROWVIEW_METATABLE);
    size_t width = v->columns ? v->columns->column_count : 0;
    for (int k = 0; k < ROWVIEW_CACHED_PAGES; k++) {
        clear_cells(v->cache[k].cells, v->cache[k].rows * width);
        free(v->cache[k].cells);
        v->cache[k].cells = NULL;
        v->cache[k].rows = 0;
    }
    store_cursor_close(v->rows);
    store_cursor_close(v->keys);
    v->rows = v->keys = NULL;
    table_free(v->columns);
    v->columns = NULL;
    free(v->plugin);
    v->plugin = NULL;
    free(v->starts);
    v->starts = NULL;
    return 0;
}

static int rowdb_gc(lua_State *L)
{
    rowdb *db = luaL_checkudata(L, 1, ROWDB_METATABLE);
    store_close(db->store);
    db->store = NULL;
    free(db->path);
    db->path = NULL;
    return 0;
}

void rowview_register_lua(lua_State *L)
{
    static const luaL_Reg view[] = {
        { "__index", l_index }, { "__len", l_len },           { "__newindex", l_newindex },
        { "__pairs", l_pairs }, { "__tostring", l_tostring }, { "__gc", l_gc },
        { NULL, NULL },
    };
    luaL_newmetatable(L, ROWVIEW_METATABLE);
    luaL_setfuncs(L, view, 0);
    lua_pushliteral(L, "rows");
    lua_setfield(L, -2, "__metatable"); /* getmetatable(rows) cannot change it */
    lua_pop(L, 1);
    luaL_newmetatable(L, ROWDB_METATABLE);
    lua_pushcfunction(L, rowdb_gc);
    lua_setfield(L, -2, "__gc");
    lua_pop(L, 1);
    luaL_newmetatable(L, FILTER_METATABLE);
    lua_pushcfunction(L, filter_gc);
    lua_setfield(L, -2, "__gc");
    lua_pop(L, 1);
}

/* Pushes the state's shared connection for db_path, made on first use. */
static rowdb *push_rowdb(lua_State *L, const char *db_path, char **err)
{
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &rowdb_key) == LUA_TUSERDATA) {
        rowdb *db = lua_touserdata(L, -1);
        if (db->path && strcmp(db->path, db_path) == 0)
            return db;
    }
    lua_pop(L, 1);
    rowdb *db = lua_newuserdatauv(L, sizeof *db, 0);
    *db = (rowdb){ .path = util_strdup(db_path) };
    luaL_setmetatable(L, ROWDB_METATABLE);
    if (!db->path) {
        lua_pop(L, 1);
        util_fail(err, "out of memory");
        return NULL;
    }
    lua_pushvalue(L, -1);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &rowdb_key);
    return db;
}

int rowview_push(lua_State *L, const char *db_path, int64_t sweep_id, int ordinal,
                 const runner_plugin *plugin, char **err)
{
    rowdb *db = push_rowdb(L, db_path, err);
    if (!db)
        return -1;
    rowview *v = lua_newuserdatauv(L, sizeof *v, 1);
    memset(v, 0, sizeof *v);
    luaL_setmetatable(L, ROWVIEW_METATABLE);
    lua_pushvalue(L, -2);
    lua_setiuservalue(L, -2, 1); /* the view keeps the connection */
    lua_remove(L, -2);
    *v = (rowview){ .db = db, .sweep_id = sweep_id, .ordinal = ordinal, .count = -1 };
    v->columns = store_plugin_columns(plugin, NULL);
    v->plugin = util_strdup(plugin->name);
    if (!v->columns || !v->plugin || add_start(v, (store_row_key){ INT64_MIN, INT64_MIN }) != 0) {
        lua_pop(L, 1);
        return util_fail(err, "out of memory");
    }
    return 0;
}

int rowview_identity(lua_State *L, int idx, const char **db_path, int64_t *sweep_id, int *ordinal)
{
    rowview *v = luaL_testudata(L, idx, ROWVIEW_METATABLE);
    if (!v)
        return 0;
    *db_path = v->db->path;
    *sweep_id = v->sweep_id;
    *ordinal = v->ordinal;
    return 1;
}
