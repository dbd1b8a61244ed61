/* exec_lua: the Lua side of command experiments: reads a script's
 * `command` table into an exec_command and keeps the script's commands
 * (docs/command-experiments.md, docs/lua-api.md). */
#ifndef RUNNER_EXEC_LUA_H
#define RUNNER_EXEC_LUA_H

#include <lua.h>
#include <stddef.h>

#include "plugin/plugin.h"

typedef struct exec_list exec_list;

exec_list *exec_list_new(void);       /* NULL when out of memory */
void exec_list_free(exec_list *list); /* accepts NULL; frees every command */
/* The declared command called name, or NULL. */
const loaded_plugin *exec_list_get(const exec_list *list, const char *name);

/* Declares command name (NULL: the table's name field) from the table at
 * idx and adds it to list. A name taken by a plugin (reg) or an earlier
 * command is refused. Returns 0, or -1 with msg ("command 'x': ..."). */
int exec_lua_declare(lua_State *L, exec_list *list, const plugin_registry *reg, const char *name,
                     int idx, char *msg, size_t size);

#endif
