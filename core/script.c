/* script: the Lua side of runner. A fresh sandboxed state per script (no io,
 * no os.execute, no load/loadfile/dofile, no C modules; require only from
 * lib/ directories; bounded heap and run time), plus runner's functions:
 * sweep, options, range, linspace, logspace, powers_of_two, zip, printf.
 * A binding: it converts what the script says and hands the sweep's life
 * (begin, sections, end, summary) to lifecycle.c. */
#include "script.h"

#include <errno.h>
#include <jansson.h>
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include "axis.h"
#include "exec_lua.h"
#include "exit_status.h"
#include "grid.h"
#include "install_layout.h"
#include "lifecycle.h"
#include "param.h"
#include "plot.h"
#include "rowview.h"
#include "plugin_loader.h"
#include "units.h"
#include "util.h"

#define ZIP_METATABLE "runner.zip"

typedef enum failure_kind {
    FAIL_INPUT = 0,    /* bad script or input: exit 2 */
    FAIL_INTERRUPTED,  /* Ctrl-C: exit 130 */
    FAIL_STOPPED,      /* the store failed: exit 2 */
    FAIL_FAST          /* --fail-fast after a failed point: exit 1 */
} failure_kind;

typedef struct script_state {
    const script_config *config;
    lua_State *L;
    size_t heap_used;
    double started;
    /* Time spent on the script's behalf outside Lua (points, waiting for the
     * database, delivering the summary) is not the script's own. */
    _Atomic long long paused_time_us;
    _Atomic int clock_paused;       /* such a call is running (the watchdog waits) */
    _Atomic int closing;            /* lua_close runs the finalizers left */
    double closing_time_limit_s;    /* own time the finalizers may reach */
    int stopped_before_closing;     /* that Ctrl-C was answered already */
    failure_kind failure;
    int fatal;                      /* an error pcall must not swallow was raised */
    char *late_call;                /* a runner function called after the sweep ended */
    pthread_t watchdog;
    int watchdog_running;
    _Atomic int watchdog_quit;
    /* The watchdog waits on this, so stopping it is immediate, not a
     * fifth of a second added to every run. */
    pthread_mutex_t watchdog_lock;
    pthread_cond_t watchdog_wake;
    plugin_registry *registry;
    exec_list *commands;      /* declared by `command` (exec_lua.c) */
    lifecycle *life;          /* the sweep the script drives */
    char *script_text;
    json_t *options_used;     /* the option values the script ran with */
    json_t *overrides;        /* what --set gave */
    int options_declared;
    int zip_groups;
} script_state;

/* The registry holds a pointer back to our state under this key. */
static const char state_key = 'S';
/* ... and Lua's own error(), which the script cannot replace there. */
static const char error_function_key = 'E';

static script_state *state_of(lua_State *L)
{
    lua_rawgetp(L, LUA_REGISTRYINDEX, &state_key);
    script_state *s = lua_touserdata(L, -1);
    lua_pop(L, 1);
    return s;
}

/* Pushes "file:line:" of the innermost script line at or above level (C
 * functions, pcall's say, have no line), or "" when there is none. */
static void push_script_line(lua_State *L, int level)
{
    lua_Debug ar;
    for (; lua_getstack(L, level, &ar); level++)
        if (lua_getinfo(L, "Sl", &ar) && ar.currentline > 0) {
            lua_pushfstring(L, "%s:%d:", ar.short_src, ar.currentline);
            return;
        }
    lua_pushliteral(L, "");
}

/* Raises a script error of the given kind at the caller's file:line. */
static int script_raise(lua_State *L, failure_kind kind, const char *fmt, ...)
    RUNNER_PRINTF(3, 4);
static int script_raise(lua_State *L, failure_kind kind, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    script_state *s = state_of(L);
    s->failure = kind;
    s->fatal |= kind != FAIL_INPUT;
    luaL_where(L, 1);
    lua_pushstring(L, buf);
    lua_concat(L, 2);
    return lua_error(L);
}

/* ---- sandbox: heap limit, time limit, restricted libraries ---- */

static void *bounded_alloc(void *ud, void *ptr, size_t old_size, size_t new_size)
{
    script_state *s = ud;
    if (!ptr)
        old_size = 0;
    if (new_size == 0) {
        free(ptr);
        s->heap_used -= old_size;
        return NULL;
    }
    if (new_size > old_size && s->heap_used + (new_size - old_size) > s->config->memory_limit_bytes)
        return NULL; /* Lua raises "not enough memory" */
    void *grown = realloc(ptr, new_size);
    if (grown)
        s->heap_used = s->heap_used - old_size + new_size;
    return grown;
}

/* The script's own run time so far: its clock stops while runner works on
 * its behalf (script_clock_pause). */
static double script_own_time_s(const script_state *s, double now)
{
    return now - s->started - (double)s->paused_time_us * 1e-6;
}

/* Stops the script's clock around a call made for the script that may wait
 * (points, the database's busy handler, the webhook): returns when it
 * stopped, for script_clock_resume. The watchdog looks away meanwhile. */
static double script_clock_pause(script_state *s)
{
    s->clock_paused = 1;
    return util_monotonic();
}

static void script_clock_resume(script_state *s, double paused_at)
{
    s->paused_time_us += (long long)((util_monotonic() - paused_at) * 1e6);
    s->clock_paused = 0;
}

/* Inside a hook, level 0 is the Lua function being run: its file:line is
 * where the script was when the limit struck. */
static void time_hook(lua_State *L, lua_Debug *ar)
{
    (void)ar;
    script_state *s = state_of(L);
    if (s->config->stop && *s->config->stop) {
        s->failure = FAIL_INTERRUPTED;
        s->fatal = 1;
        lua_pushstring(L, "interrupted");
        lua_error(L);
    }
    double own = script_own_time_s(s, util_monotonic());
    if (s->config->time_limit_s > 0 && own > s->config->time_limit_s) {
        s->failure = FAIL_INPUT;
        s->fatal = 1;
        char msg[128];
        snprintf(msg, sizeof msg, "the script ran for more than %g s of its own time "
                 "(--script-timeout)", s->config->time_limit_s);
        luaL_where(L, 0);
        lua_pushstring(L, msg);
        lua_concat(L, 2);
        lua_error(L);
    }
}

static int module_name_ok(const char *name)
{
    if (!*name || strlen(name) > 64)
        return 0;
    for (const char *p = name; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_' || *p == '.'))
            return 0;
    return name[0] != '.' && !strstr(name, "..");
}

/* Load errors that do not already say where (a binary chunk refused by the
 * text-only mode) get the file's name in front. */
static void name_chunk_error(lua_State *L, const char *path)
{
    const char *message = lua_tostring(L, -1);
    size_t n = strlen(path);
    if (message && !(strncmp(message, path, n) == 0 && message[n] == ':')) {
        lua_pushfstring(L, "%s: %s", path, message);
        lua_remove(L, -2);
    }
}

/* Lua ignores neither a byte-order mark nor a "#!" line in a buffer (only
 * luaL_loadfile does): skip the one, blank the other, keep line numbers. */
static const char *skip_script_prelude(char *text, size_t *len)
{
    if (*len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) {
        text += 3;
        *len -= 3;
    }
    if (*len > 0 && text[0] == '#')
        for (size_t i = 0; i < *len && text[i] != '\n'; i++)
            text[i] = ' ';
    return text;
}

/* require(name): Lua modules from <script dir>/lib, then runner's own
 * scripts/lib (source tree, then install). Text chunks only, cached. */
static int l_require(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);
    lua_getfield(L, LUA_REGISTRYINDEX, "runner.loaded");
    lua_getfield(L, -1, name);
    if (!lua_isnil(L, -1))
        return 1;
    lua_pop(L, 1);
    if (!module_name_ok(name))
        return script_raise(L, FAIL_INPUT, "require '%s': module names are lower-case words "
                     "separated by dots", name);
    script_state *s = state_of(L);
    char relative[160];
    snprintf(relative, sizeof relative, "%s", name);
    for (char *p = relative; *p; p++)
        if (*p == '.')
            *p = '/';
    char *script_dir = util_strdup(s->config->script_path);
    char *slash = strrchr(script_dir, '/');
    if (slash)
        *slash = '\0';
    else
        strcpy(script_dir, ".");
    char *own_lib = install_layout_script_lib_dir();  /* runner's scripts/lib */
    const char *dirs[] = { script_dir, own_lib };
    char *text = NULL, *path = NULL;
    size_t len = 0;
    for (size_t i = 0; i < 2 && !text; i++) {
        free(path);
        path = i == 0 ? util_format("%s/lib/%s.lua", dirs[i], relative)
                      : util_format("%s/%s.lua", dirs[i], relative);
        if (path && util_read_file(path, &text, &len) != 0)
            text = NULL;
    }
    free(script_dir);
    free(own_lib);
    if (!text) {
        free(path);
        return script_raise(L, FAIL_INPUT, "require '%s': no module lib/%s.lua next to the script or "
                     "in runner's scripts/lib", name, relative);
    }
    char *chunkname = util_format("@%s", path);
    free(path);
    int rc = luaL_loadbufferx(L, text, len, chunkname, "t");
    free(text);
    if (rc != LUA_OK) {
        name_chunk_error(L, chunkname + 1);
        free(chunkname);
        return lua_error(L);
    }
    free(chunkname);
    lua_pushstring(L, name);
    lua_call(L, 1, 1);
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        lua_pushboolean(L, 1);
    }
    lua_pushvalue(L, -1);
    lua_setfield(L, -3, name);
    return 1;
}

static int l_printf(lua_State *L)
{
    int n = lua_gettop(L);
    lua_getglobal(L, "string");
    lua_getfield(L, -1, "format");
    lua_insert(L, 1);
    lua_pop(L, 1);
    lua_call(L, n, 1);
    size_t len;
    const char *text = lua_tolstring(L, -1, &len);
    fwrite(text, 1, len, stdout);
    return 0;
}

/* pcall and xpcall must not swallow what stops the script (the time limit,
 * Ctrl-C, a failed store): once such an error was raised, it is raised
 * again as soon as the protected call returns. */
static int guarded_call_done(lua_State *L, int status, lua_KContext ctx)
{
    (void)status;
    (void)ctx;
    script_state *s = state_of(L);
    if (s->fatal && lua_gettop(L) >= 1 && lua_toboolean(L, 1) == 0) {
        lua_settop(L, 2);
        return lua_error(L); /* the original message, with its file:line */
    }
    if (s->fatal)
        return luaL_error(L, "the script was stopped");
    return lua_gettop(L);
}

static int l_guarded_call(lua_State *L)
{
    int n = lua_gettop(L);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_callk(L, n, LUA_MULTRET, 0, guarded_call_done);
    return guarded_call_done(L, LUA_OK, 0);
}

static void guard_protected_calls(lua_State *L)
{
    static const char *const names[] = { "pcall", "xpcall", NULL };
    for (const char *const *name = names; *name; name++) {
        lua_getglobal(L, *name);
        lua_pushcclosure(L, l_guarded_call, 1);
        lua_setglobal(L, *name);
    }
}

/* The count hook cannot stop a script stuck in one long library call (a
 * pathological string.find), nor a __gc finalizer (Lua runs those with
 * hooks off): a watchdog thread ends the process then. The database is
 * safe: nothing is half-written, and --resume continues. It watches until
 * the Lua state is closed, since lua_close runs the finalizers left. */
#define WATCHDOG_GRACE_S 3.0

/* While lua_close runs finalizers the sweep is already stored and no hook
 * can act: the limits strike at once (a script the limit or a Ctrl-C
 * already stopped gets the grace the close itself may need). Returns only
 * when neither did. */
static void watchdog_check_closing(const script_state *s, double own)
{
    double limit = s->config->time_limit_s;
    if (limit > 0 && own > s->closing_time_limit_s) {
        fprintf(stderr, "runner: %s: the script ran for more than %g s of its own time "
                "(--script-timeout) in a __gc finalizer at exit; stopped\n",
                s->config->script_path, limit);
        _exit(EXIT_USAGE);
    }
    if (s->config->stop && *s->config->stop && !s->stopped_before_closing) {
        fprintf(stderr, "runner: interrupted in a __gc finalizer at exit; the sweep was "
                "already stored\n");
        _exit(EXIT_INTERRUPTED);
    }
}

static void *watchdog_main(void *arg)
{
    script_state *s = arg;
    double stop_seen = 0;
    for (;;) {
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_nsec += 200000000;
        if (until.tv_nsec >= 1000000000) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000;
        }
        pthread_mutex_lock(&s->watchdog_lock);
        while (!s->watchdog_quit &&
               pthread_cond_timedwait(&s->watchdog_wake, &s->watchdog_lock, &until) == 0)
            ;
        pthread_mutex_unlock(&s->watchdog_lock);
        if (s->watchdog_quit)
            break;
        if (s->clock_paused)
            continue;
        double now = util_monotonic();
        double own = script_own_time_s(s, now);
        if (s->closing)
            watchdog_check_closing(s, own);
        double limit = s->config->time_limit_s;
        if (limit > 0 && own > limit + WATCHDOG_GRACE_S) {
            fprintf(stderr, "runner: %s: the script ran for more than %g s of its own time "
                    "(--script-timeout) inside one library call; stopped\n",
                    s->config->script_path, limit);
            _exit(EXIT_USAGE);
        }
        if (s->config->stop && *s->config->stop) {
            if (!stop_seen)
                stop_seen = now;
            else if (now - stop_seen > WATCHDOG_GRACE_S) {
                fprintf(stderr, "runner: interrupted inside a library call; finished points "
                        "are stored (continue with --resume)\n");
                _exit(EXIT_INTERRUPTED);
            }
        }
    }
    return NULL;
}

static void start_watchdog(script_state *s)
{
    s->watchdog_quit = 0;
    pthread_condattr_t attr;
    s->watchdog_running = 0;
    if (pthread_condattr_init(&attr) != 0)
        return;
    int ready = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC) == 0 &&
                pthread_cond_init(&s->watchdog_wake, &attr) == 0;
    pthread_condattr_destroy(&attr);
    if (!ready)
        return;
    if (pthread_mutex_init(&s->watchdog_lock, NULL) != 0) {
        pthread_cond_destroy(&s->watchdog_wake);
        return;
    }
    s->watchdog_running = pthread_create(&s->watchdog, NULL, watchdog_main, s) == 0;
    if (!s->watchdog_running) {
        pthread_mutex_destroy(&s->watchdog_lock);
        pthread_cond_destroy(&s->watchdog_wake);
    }
}

static void stop_watchdog(script_state *s)
{
    if (!s->watchdog_running)
        return;
    pthread_mutex_lock(&s->watchdog_lock);
    s->watchdog_quit = 1;
    pthread_cond_signal(&s->watchdog_wake);
    pthread_mutex_unlock(&s->watchdog_lock);
    pthread_join(s->watchdog, NULL);
    pthread_mutex_destroy(&s->watchdog_lock);
    pthread_cond_destroy(&s->watchdog_wake);
    s->watchdog_running = 0;
}

static void open_sandbox(lua_State *L)
{
    static const luaL_Reg safe_libs[] = {
        { LUA_GNAME, luaopen_base },       { LUA_TABLIBNAME, luaopen_table },
        { LUA_STRLIBNAME, luaopen_string }, { LUA_MATHLIBNAME, luaopen_math },
        { LUA_UTF8LIBNAME, luaopen_utf8 },  { LUA_COLIBNAME, luaopen_coroutine },
        { LUA_OSLIBNAME, luaopen_os },      { NULL, NULL },
    };
    for (const luaL_Reg *lib = safe_libs; lib->func; lib++) {
        luaL_requiref(L, lib->name, lib->func, 1);
        lua_pop(L, 1);
    }
    lua_getglobal(L, "error");
    lua_rawsetp(L, LUA_REGISTRYINDEX, &error_function_key);
    /* Loading code from files or strings would bypass require's rules. */
    static const char *const removed_globals[] = { "dofile", "loadfile", "load", NULL };
    for (const char *const *g = removed_globals; *g; g++) {
        lua_pushnil(L);
        lua_setglobal(L, *g);
    }
    lua_getglobal(L, "string");
    lua_pushnil(L);
    lua_setfield(L, -2, "dump");
    lua_pop(L, 1);
    /* os keeps only clocks and dates: no execute, exit, remove, rename,
     * tmpname, getenv or setlocale. */
    lua_newtable(L);
    static const char *const kept_os[] = { "clock", "time", "date", "difftime", NULL };
    lua_getglobal(L, "os");
    for (const char *const *f = kept_os; *f; f++) {
        lua_getfield(L, -1, *f);
        lua_setfield(L, -3, *f);
    }
    lua_pop(L, 1);
    lua_setglobal(L, "os");
    lua_newtable(L);
    lua_setfield(L, LUA_REGISTRYINDEX, "runner.loaded");
    lua_register(L, "require", l_require);
    lua_register(L, "printf", l_printf);
    guard_protected_calls(L);
}

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
    case LUA_TBOOLEAN:
        *out = value_boolean(lua_toboolean(L, idx));
        return 0;
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
static int set_param(lua_State *L, grid *g, const runner_plugin *plugin, uint32_t param,
                     int idx, int zip_group, char *msg, size_t size)
{
    idx = lua_absindex(L, idx);
    const runner_param *spec = &plugin->params[param];
    size_t count = 1;
    int is_list = lua_type(L, idx) == LUA_TTABLE;
    if (is_list) {
        if (luaL_getmetafield(L, idx, "__name") != LUA_TNIL) {
            lua_pop(L, 1);
            snprintf(msg, size, "%s: zip{...} goes in the list part of the sweep table, "
                     "not under a parameter name", spec->name);
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
static int set_named_param(lua_State *L, grid *g, const runner_plugin *plugin,
                           unsigned char *seen, int group, char *msg, size_t size)
{
    const char *name = lua_tostring(L, -2);
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
static int build_grid(lua_State *L, script_state *s, grid *g, const runner_plugin *plugin,
                      int idx, char *msg, size_t size)
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
            snprintf(msg, size, "sweep tables map parameter names to values; the list part "
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
    double paused_at = script_clock_pause(s);
    int rc = lifecycle_begin(s->life, options, overrides, err);
    script_clock_resume(s, paused_at);
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
            if (type == LUA_TSTRING)
                *title = lua_tostring(L, -1);
            else
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
                const char *name = lua_tostring(L, -1);
                lua_pop(L, 1); /* still referenced by the list */
                int known = name && param_find(plugin, name) >= 0;
                for (uint32_t c = 0; name && !known && c < plugin->column_count; c++)
                    known = strcmp(plugin->columns[c].name, name) == 0;
                if (!known) {
                    lua_pop(L, 2);
                    snprintf(msg, size, "columns: '%s' is neither a parameter nor a column; "
                             "'runner plugins %s' lists them", name ? name : "?", plugin->name);
                    return -1;
                }
                shown[(*shown_count)++] = name;
            }
        } else if (strcmp(key, "columns") == 0) {
            wanted = "a list of column names";
        } else {
            lua_pop(L, 2);
            snprintf(msg, size, "unknown sweep option '%s' (expected title, print, keep_rows, "
                     "columns)", key);
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
    script_state *s = state_of(L);
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
    const shard_spec *shard = &state_of(L)->config->shard;
    return script_raise(L, FAIL_INPUT, "this sweep runs shard %u/%u: a section's rows are only "
                        "this shard's, so a script that reads them (an adaptive search, a grid "
                        "made from rows) cannot be sharded; run it without --shard "
                        "(docs/slurm.md)", shard->index, shard->count);
}

static int push_shard_rows(lua_State *L)
{
    lua_newtable(L);
    if (luaL_newmetatable(L, "runner.shard_rows")) {
        static const luaL_Reg refuse[] = {
            { "__index", l_shard_rows }, { "__len", l_shard_rows }, { "__pairs", l_shard_rows },
            { "__newindex", l_shard_rows }, { NULL, NULL },
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
static void refuse_after_end(lua_State *L, const char *function)
{
    script_state *s = state_of(L);
    char *reason = NULL;
    if (lifecycle_check_open(s->life, &reason) == 0)
        return;
    char msg[256];
    snprintf(msg, sizeof msg, "%s: %s; a __gc finalizer run at exit comes after the sweep "
             "ended and cannot sweep or declare options", function,
             reason ? reason : "the sweep is closed");
    free(reason);
    push_script_line(L, 1);
    lua_pushstring(L, *lua_tostring(L, -1) ? " " : "");
    lua_pushstring(L, msg);
    lua_concat(L, 3);
    if (!s->late_call)
        s->late_call = util_strdup(lua_tostring(L, -1));
    s->fatal = 1; /* a pcall in the finalizer does not hide it */
    lua_error(L);
}

static int run_sweep(lua_State *L, const char *plugin_name, int params_idx, int opts_idx)
{
    script_state *s = state_of(L);
    char *err = NULL;
    char msg[1024];
    refuse_after_end(L, "sweep");
    const loaded_plugin *lp = exec_list_get(s->commands, plugin_name);
    if (!lp)
        lp = plugin_registry_get(s->registry, plugin_name, &err);
    if (!lp) {
        snprintf(msg, sizeof msg, "%s", err ? err : "unknown plugin");
        free(err);
        return script_raise(L, FAIL_INPUT, "%s", msg);
    }
    if (!s->options_declared && s->config->override_count > 0) {
        const char *eq = strchr(s->config->overrides[0], '=');
        int len = eq ? (int)(eq - s->config->overrides[0]) : (int)strlen(s->config->overrides[0]);
        return script_raise(L, FAIL_INPUT, "--set %.*s: the script declares no options (declare them "
                     "with options{...} before the first sweep)", len, s->config->overrides[0]);
    }
    lifecycle_section section = { .plugin = lp, .print_rows = 1 };
    int keep_rows = 1;
    const char *shown[128];
    section.shown = shown;
    if (opts_idx && read_sweep_options(L, lp->desc, opts_idx, &section.title,
                                       &section.print_rows, &keep_rows, shown,
                                       &section.shown_count, msg, sizeof msg) != 0)
        return script_raise(L, FAIL_INPUT, "%s: %s", lp->desc->name, msg);
    lua_Debug ar;
    if (lua_getstack(L, 1, &ar) && lua_getinfo(L, "l", &ar))
        section.script_line = ar.currentline;

    grid *g = grid_new(lp->desc);
    if (!g)
        return luaL_error(L, "out of memory");
    uint64_t count = 0;
    if (build_grid(L, s, g, lp->desc, params_idx, msg, sizeof msg) != 0 ||
        grid_finish(g, s->config->max_points, &count, msg, sizeof msg) != 0) {
        grid_free(g);
        return script_raise(L, FAIL_INPUT, "%s: %s", lp->desc->name, msg);
    }
    /* Everything is valid: only now touch the database. */
    if (begin_sweep(s, &err) != 0) {
        grid_free(g);
        return script_stop(L, FAIL_STOPPED, err, "cannot begin the sweep");
    }
    section.grid = g;
    lifecycle_section_result result;
    double paused_at = script_clock_pause(s);
    int rc = lifecycle_run_section(s->life, &section, NULL, &result, &err);
    script_clock_resume(s, paused_at);
    grid_free(g);
    if (rc != 0)
        return script_stop(L, FAIL_STOPPED, err, "storing failed");
    if (result.interrupted)
        return script_stop(L, FAIL_INTERRUPTED, NULL, "interrupted");
    if (s->config->fail_fast && result.points_failed > 0)
        return script_raise(L, FAIL_FAST, "stopped at the first failed point (--fail-fast)");
    if (!keep_rows) {
        lua_newtable(L);
        return 1;
    }
    if (s->config->shard.count)
        return push_shard_rows(L);
    /* A view of the committed rows, read back when the script asks. */
    if (rowview_push(L, s->config->db_path, lifecycle_sweep_id(s->life), result.section_ordinal,
                     lp->desc, &err) != 0)
        return script_stop(L, FAIL_STOPPED, err, "cannot read the rows back");
    return 1;
}

/* sweep "plugin" { ... } — the curried form. */
static int l_sweep_curried(lua_State *L)
{
    const char *name = lua_tostring(L, lua_upvalueindex(1));
    if (lua_type(L, 1) != LUA_TTABLE)
        return script_raise(L, FAIL_INPUT, "sweep \"%s\" needs a table of parameters: "
                     "sweep \"%s\" { name = value, ... }", name, name);
    return run_sweep(L, name, 1, lua_istable(L, 2) ? 2 : 0);
}

/* sweep(plugin, params [, opts]) or sweep "plugin" {params}. */
static int l_sweep(lua_State *L)
{
    if (lua_type(L, 1) != LUA_TSTRING)
        return script_raise(L, FAIL_INPUT, "sweep needs a plugin name: sweep \"speedup\" { ... }");
    if (lua_gettop(L) == 1) {
        lua_pushvalue(L, 1);
        lua_pushcclosure(L, l_sweep_curried, 1);
        return 1;
    }
    if (lua_type(L, 2) != LUA_TTABLE)
        return script_raise(L, FAIL_INPUT, "sweep(\"%s\", params): params must be a table",
                     lua_tostring(L, 1));
    return run_sweep(L, lua_tostring(L, 1), 2, lua_istable(L, 3) ? 3 : 0);
}

/* command "name" { ... } or command { name = "...", ... }: a program as an
 * experiment (exec_lua.c, docs/command-experiments.md). */
static int declare_command(lua_State *L, const char *name, int idx)
{
    script_state *s = state_of(L);
    char msg[1024];
    refuse_after_end(L, "command");
    if (!s->commands && !(s->commands = exec_list_new()))
        return luaL_error(L, "out of memory");
    double paused_at = script_clock_pause(s);  /* hashing the program is runner's time */
    int rc = exec_lua_declare(L, s->commands, s->registry, name, idx, msg, sizeof msg);
    script_clock_resume(s, paused_at);
    if (rc != 0)
        return script_raise(L, FAIL_INPUT, "%s", msg);
    return 0;
}

static int l_command_curried(lua_State *L)
{
    const char *name = lua_tostring(L, lua_upvalueindex(1));
    if (lua_type(L, 1) != LUA_TTABLE)
        return script_raise(L, FAIL_INPUT, "command \"%s\" needs a table: command \"%s\" "
                            "{ argv = {...}, ... }", name, name);
    return declare_command(L, name, 1);
}

static int l_command(lua_State *L)
{
    if (lua_type(L, 1) == LUA_TSTRING && lua_gettop(L) == 1) {
        lua_pushvalue(L, 1);
        lua_pushcclosure(L, l_command_curried, 1);
        return 1;
    }
    if (lua_type(L, 1) != LUA_TTABLE)
        return script_raise(L, FAIL_INPUT, "command needs a name and a table: command \"name\" "
                            "{ argv = {...}, ... }");
    return declare_command(L, NULL, 1);
}

/* ---- options (sysbench style) ---- */

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
static int push_override_number(lua_State *L, const char *name, const char *text,
                                int as_integer, const char *unit)
{
    units_setting setting;
    char reason[300];
    if (units_read_setting(text, as_integer, unit, &setting, reason, sizeof reason) != 0)
        return script_raise(L, FAIL_INPUT, "--set %s=%s: %s", name, text, reason);
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
        return script_raise(L, FAIL_INPUT, "--set %s=%s: expected true or false", name, text);
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
                    free(copy);  /* the raise below does not return */
                    return script_raise(L, FAIL_INPUT, "%s", shown);
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
            return script_raise(L, FAIL_INPUT, "--set %s=%s: expected a comma-separated list", name, text);
        return 0;
    }
    default:
        lua_pushstring(L, text);
        return 0;
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
        return value_to_json(&real);  /* NaN and infinities as "NaN", "inf" */
    }
    case LUA_TBOOLEAN:
        return json_boolean(lua_toboolean(L, idx));
    case LUA_TSTRING: {
        size_t len;
        const char *text = lua_tolstring(L, idx, &len);
        return json_stringn(text, len);  /* NULL when not UTF-8; keeps a NUL */
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
                return NULL;  /* never a list with an element left out */
            }
        }
        return array;
    }
    default:
        return json_null();
    }
}

/* options { name = default, other = {default = v, doc = "..."} } returns a
 * table of the values in effect: the default, or what --set NAME=VALUE says
 * (parsed like the default). Unknown --set names are errors. */
static int l_options(lua_State *L)
{
    script_state *s = state_of(L);
    refuse_after_end(L, "options");
    lua_settop(L, 1); /* options takes one table; the stack layout below relies on it */
    if (lua_type(L, 1) != LUA_TTABLE)
        return script_raise(L, FAIL_INPUT, "options needs a table: options { name = default, ... }");
    if (s->options_declared)
        return script_raise(L, FAIL_INPUT, "options{...} may be declared only once per script");
    s->options_declared = 1;
    size_t n = 0;
    lua_pushnil(L);
    while (lua_next(L, 1)) {
        if (lua_type(L, -2) != LUA_TSTRING) {
            lua_pop(L, 2);
            return script_raise(L, FAIL_INPUT, "options{...}: keys must be option names");
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
        names[k++] = lua_tostring(L, -2); /* kept alive by the table */
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
            return script_raise(L, FAIL_INPUT, "--set %s: the script has no option '%s'%s", name, name,
                         hint);
        }
    }
    lua_newtable(L); /* the result */
    int result_idx = lua_gettop(L);
    for (size_t i = 0; i < k; i++) {
        lua_getfield(L, 1, names[i]);
        const char *unit = NULL;  /* {default = ..., unit = "s"}: --set converts into it */
        if (lua_istable(L, -1) && luaL_getmetafield(L, -1, "__name") == LUA_TNIL) {
            lua_getfield(L, -1, "default");
            if (!lua_isnil(L, -1)) {
                int unit_type = lua_getfield(L, -2, "unit");
                if (unit_type != LUA_TNIL && unit_type != LUA_TSTRING)
                    return script_raise(L, FAIL_INPUT, "options{...}: %s: unit must be a string "
                                        "such as \"s\" or \"bytes\", got %s", names[i],
                                        lua_typename(L, unit_type));
                unit = lua_tostring(L, -1);  /* NULL for nil */
                lua_pop(L, 1);  /* still held by the option's table, at 1 */
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
            return script_raise(L, FAIL_INPUT, "options{...}: %s: text is not valid UTF-8",
                                util_printable(names[i], shown, sizeof shown));
        }
        lua_setfield(L, result_idx, names[i]);
        lua_pop(L, 1);
    }
    return 1;
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
    { "sweep", l_sweep }, { "options", l_options }, { "zip", l_zip },
    { "command", l_command }, { NULL, NULL },
};

/* ---- running a script ---- */

/* 1 if the function running at level (in a message handler, 1 is the one
 * that raised the error) is C code other than Lua's error(). */
static int raised_in_library(lua_State *L, int level)
{
    lua_Debug ar;
    if (!lua_getstack(L, level, &ar) || !lua_getinfo(L, "Sf", &ar))
        return 0;
    lua_rawgetp(L, LUA_REGISTRYINDEX, &error_function_key);
    int by_error = lua_rawequal(L, -1, -2);
    lua_pop(L, 2);
    return strcmp(ar.what, "C") == 0 && !by_error;
}

/* Lua raises some errors inside a library function without saying where
 * (a "C stack overflow" in string.gsub's callback, a bad comparison in
 * table.sort): the message at 1 gets the innermost script line in front,
 * like every other script error. Left as they are: error(msg, 0), what
 * runner raises to stop the script, and messages that already name a line
 * (luaL_error's) or a Lua file (require's). */
static void add_script_position(lua_State *L)
{
    if (lua_type(L, 1) != LUA_TSTRING || state_of(L)->fatal || !raised_in_library(L, 1))
        return;
    const char *message = lua_tostring(L, 1);
    const char *colon = strchr(message, ':');
    if (colon && colon - message >= 4 && strncmp(colon - 4, ".lua", 4) == 0)
        return;
    push_script_line(L, 2);
    const char *where = lua_tostring(L, -1);
    if (*where && strncmp(message, where, strlen(where)) != 0) {
        lua_pushfstring(L, "%s %s", where, message);
        lua_replace(L, 1);
    }
    lua_pop(L, 1);
}

static int message_handler(lua_State *L)
{
    add_script_position(L);
    if (!lua_isstring(L, 1)) {
        if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING)
            return 1;
        lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
    }
    return 1;
}

static void push_runner_table(lua_State *L, const script_config *c)
{
    lua_newtable(L);
    lua_pushlightuserdata(L, (void *)&default_marker);
    lua_setfield(L, -2, "default");
    lua_pushstring(L, RUNNER_VERSION);
    lua_setfield(L, -2, "version");
    lua_pushstring(L, c->script_path);
    lua_setfield(L, -2, "script");
    lua_pushstring(L, c->db_path);
    lua_setfield(L, -2, "db");
    lua_pushinteger(L, (lua_Integer)c->seed);
    lua_setfield(L, -2, "seed");
    /* Under --shard, {index, count, note}: a script skips reading its rows
     * and prints the note instead (docs/slurm.md). */
    if (c->shard.count) {
        lua_createtable(L, 0, 3);
        lua_pushinteger(L, c->shard.index);
        lua_setfield(L, -2, "index");
        lua_pushinteger(L, c->shard.count);
        lua_setfield(L, -2, "count");
        lua_pushfstring(L, "shard %d/%d: the summary needs every shard's rows: 'runner merge' "
                        "the shards, then 'runner show' or 'runner report' the merged sweep",
                        (int)c->shard.index, (int)c->shard.count);
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

/* Each --set is NAME=VALUE and names an option once. Returns 0, or -1
 * after saying why on stderr. */
static int check_overrides(const script_config *config)
{
    for (size_t i = 0; i < config->override_count; i++) {
        char shown[256];
        util_printable(config->overrides[i], shown, sizeof shown);
        if (!strchr(config->overrides[i], '=') || config->overrides[i][0] == '=') {
            fprintf(stderr, "runner: --set %s: expected NAME=VALUE\n", shown);
            return -1;
        }
        /* Options are stored as JSON text: bytes it cannot hold would be
         * dropped, and a resume would run with the default instead. */
        if (!util_utf8_valid(config->overrides[i])) {
            fprintf(stderr, "runner: --set %s: not valid UTF-8; runner keeps options as UTF-8 "
                    "text\n", shown);
            return -1;
        }
        size_t name_len = strcspn(config->overrides[i], "=");
        for (size_t j = 0; j < i; j++)
            if (strncmp(config->overrides[j], config->overrides[i], name_len + 1) == 0) {
                fprintf(stderr, "runner: --set %.*s: given twice; give each option once\n",
                        (int)strcspn(shown, "="), shown);
                return -1;
            }
    }
    return 0;
}

/* The sweep the script drives, not begun yet. NULL when out of memory. */
static lifecycle *new_lifecycle(const script_config *c, const char *text, size_t len)
{
    lifecycle_config life = {
        .script_path = c->script_path, .script_text = text, .script_text_len = len,
        .db_path = c->db_path, .command_line = c->command_line, .seed = c->seed,
        .resume = c->resume, .resume_sweep_id = c->resume_sweep_id, .force = c->force, .stop = c->stop,
        .shard = c->shard,
        .quiet = c->quiet, .jobs = c->jobs, .fail_fast = c->fail_fast, .isolate = c->isolate,
        .point_timeout_s = c->point_timeout_s, .webhook = c->webhook,
        .webhook_format = c->webhook_format, .webhook_strict = c->webhook_strict,
        .reuse = c->reuse,
        .sweep_name = c->sweep_name, .sweep_note = c->sweep_note, .sweep_tags = c->sweep_tags,
        .sweep_tag_count = c->sweep_tag_count,
    };
    return lifecycle_new(&life);
}

/* A sandboxed Lua state with runner's functions, or NULL (out of memory). */
static lua_State *new_lua_state(script_state *s)
{
    lua_State *L = lua_newstate(bounded_alloc, s);
    if (!L)
        return NULL;
    lua_pushlightuserdata(L, s);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &state_key);
    open_sandbox(L);
    luaL_newmetatable(L, ZIP_METATABLE);
    lua_pop(L, 1);
    for (const luaL_Reg *f = runner_globals; f->name; f++)
        lua_register(L, f->name, f->func);
    axis_register_lua(L);
    plot_register_lua(L);
    rowview_register_lua(L);
    push_runner_table(L, s->config);
    lua_sethook(L, time_hook, LUA_MASKCOUNT, 10000);
    return L;
}

/* Loads and runs the script's len bytes. Returns the Lua
 * status; on an error its message is on top of the stack. */
static int run_chunk(script_state *s, size_t len)
{
    lua_State *L = s->L;
    lua_pushcfunction(L, message_handler);
    char *chunkname = util_format("@%s", s->config->script_path);
    /* The stored text and its hash stay as written; Lua gets a copy. */
    char *code = util_strdup(s->script_text);
    size_t code_len = len;
    const char *code_start = code ? skip_script_prelude(code, &code_len) : s->script_text;
    int rc = luaL_loadbufferx(L, code_start, code_len, chunkname, "t");
    free(code);
    if (rc != LUA_OK)
        name_chunk_error(L, s->config->script_path);
    free(chunkname);
    if (rc == LUA_OK)
        rc = lua_pcall(L, 0, 0, 1);
    return rc;
}

/* Says on stderr why a script that raised an error stopped, and how the
 * sweep ended. */
static lifecycle_ending report_failure(const script_state *s)
{
    const char *message = lua_tostring(s->L, -1);
    switch (s->failure) {
    case FAIL_INTERRUPTED:
        fprintf(stderr, "runner: interrupted; finished points are stored (continue with "
                "--resume)\n");
        return LIFECYCLE_INTERRUPTED;
    case FAIL_FAST:
        fprintf(stderr, "runner: %s\n", message);
        return LIFECYCLE_FAILED_FAST;
    case FAIL_STOPPED:
        fprintf(stderr, "runner: %s\n", message ? message : "script failed");
        return LIFECYCLE_STORE_FAILED;
    default:
        fprintf(stderr, "runner: %s\n", message ? message : "script failed");
        return LIFECYCLE_INPUT_ERROR;
    }
}

/* Closes the Lua state under the limits (its finalizers are the script's
 * code too), then says if one called runner after the sweep ended. Returns
 * the exit status, status unless such a call turned a success into 2. */
static int close_lua_state(script_state *s, int status)
{
    double own = script_own_time_s(s, util_monotonic());
    double limit = s->config->time_limit_s;
    s->closing_time_limit_s = own < limit ? limit : own + WATCHDOG_GRACE_S;
    s->stopped_before_closing = s->config->stop && *s->config->stop;
    s->closing = 1;
    lua_close(s->L);
    s->L = NULL;
    if (!s->late_call)
        return status;
    fprintf(stderr, "runner: %s\n", s->late_call);
    return status == EXIT_OK ? EXIT_USAGE : status;
}

int script_run(const script_config *config)
{
    script_state s = { .config = config };
    int status = EXIT_USAGE;
    char *err = NULL;
    size_t len = 0;
    s.options_used = json_object();
    s.overrides = json_object();
    if (check_overrides(config) != 0)
        goto done;
    if (config->script_text) {
        s.script_text = util_strdup(config->script_text);
        len = s.script_text ? strlen(s.script_text) : 0;
    } else if (util_read_file(config->script_path, &s.script_text, &len) != 0) {
        fprintf(stderr, "runner: %s: cannot read the script: %s\n", config->script_path,
                strerror(errno));
        goto done;
    }
    s.life = new_lifecycle(config, s.script_text, len);
    if (!s.life) {
        fprintf(stderr, "runner: out of memory\n");
        goto done;
    }
    if (plugin_registry_open(config->plugin_dirs, &s.registry, &err) != 0) {
        fprintf(stderr, "runner: %s\n", err);
        goto done;
    }
    s.L = new_lua_state(&s);
    if (!s.L) {
        fprintf(stderr, "runner: cannot create a Lua state (out of memory)\n");
        goto done;
    }
    s.started = util_monotonic();
    start_watchdog(&s);
    int rc = run_chunk(&s, len);
    lifecycle_ending ending = rc == LUA_OK ? LIFECYCLE_FINISHED : report_failure(&s);
    double paused_at = script_clock_pause(&s);
    status = lifecycle_end(s.life, ending);
    script_clock_resume(&s, paused_at);
    status = close_lua_state(&s, status);
done:
    if (s.L)
        lua_close(s.L);
    stop_watchdog(&s);
    lifecycle_free(s.life);
    plugin_registry_free(s.registry);
    exec_list_free(s.commands);  /* after lua_close: row views borrow their descriptors */
    free(s.script_text);
    free(s.late_call);
    free(err);
    json_decref(s.options_used);
    json_decref(s.overrides);
    return status;
}
