/* rowview: what sweep() returns to Lua — a read-only view of a section's
 * stored rows, read back from the database a page at a time when the
 * script asks (rows[i], ipairs, #rows, pairs, rows:find, rows:filter), so
 * that memory does not grow with the section whatever the script does. */
#ifndef RUNNER_ROWVIEW_H
#define RUNNER_ROWVIEW_H

#include <lua.h>
#include <stdint.h>
#include "base/value.h"
#include "runner/plugin.h"

/* Rows read per statement and kept per cached page; pages cached. */
#define ROWVIEW_PAGE_ROWS 256
#define ROWVIEW_CACHED_PAGES 2

/* Creates the view's metatable in L. */
void rowview_register_lua(lua_State *L);

/* Pushes a view of the committed rows of section `ordinal` (1, 2, ...) of
 * sweep sweep_id in the database at db_path, with plugin's columns
 * (parameters, then outputs). The views of one Lua state share one
 * read-only connection, closed when the last view is collected. Returns 0,
 * or -1 with *err (malloc'd) and nothing pushed. */
int rowview_push(lua_State *L, const char *db_path, int64_t sweep_id, int ordinal,
                 const runner_plugin *plugin, char **err);

/* 1 when the value at idx is a view of rows, with its database path
 * (borrowed: alive while the view is), sweep and section number; else 0. */
int rowview_identity(lua_State *L, int idx, const char **db_path, int64_t *sweep_id, int *ordinal);

/* Pushes v as Lua holds it: integers as integers, reals as floats (NaN and
 * infinities included), text, booleans; NULL as nil. */
void rowview_push_value(lua_State *L, const value *v);

#endif
