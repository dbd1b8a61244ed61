/* script_sandbox: the Lua state a script runs in. A bounded heap (an
 * allocator that refuses past --memory-limit), a bounded run time (a count
 * hook, and a watchdog thread for time spent where the hook cannot see), only
 * the safe libraries (no io, no os.execute, no load/loadfile/dofile, no C
 * modules), require from lib/ directories only, printf, and error messages
 * that name the script line. */
#include "script_int.h"
#include "store/store.h"

#include <errno.h>
#include <lauxlib.h>
#include <lualib.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/exit_status.h"
#include "base/install_layout.h"
#include "base/log.h"

/* The registry holds a pointer back to our state under this key. */
static const char state_key = 'S';
/* ... and Lua's own error(), which the script cannot replace there. */
static const char error_function_key = 'E';

script_state *scripti_state(lua_State *L)
{
    lua_rawgetp(L, LUA_REGISTRYINDEX, &state_key);
    script_state *s = lua_touserdata(L, -1);
    lua_pop(L, 1);
    return s;
}

void scripti_push_line(lua_State *L, int level)
{
    lua_Debug ar;
    for (; lua_getstack(L, level, &ar); level++)
        if (lua_getinfo(L, "Sl", &ar) && ar.currentline > 0) {
            lua_pushfstring(L, "%s:%d:", ar.short_src, ar.currentline);
            return;
        }
    lua_pushliteral(L, "");
}

int scripti_raise(lua_State *L, failure_kind kind, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    script_state *s = scripti_state(L);
    s->failure = kind;
    s->fatal |= kind != FAIL_INPUT;
    luaL_where(L, 1);
    lua_pushstring(L, buf);
    lua_concat(L, 2);
    return lua_error(L);
}

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
double scripti_clock_pause(script_state *s)
{
    s->clock_paused = 1;
    return util_monotonic();
}

double scripti_own_time_s(const script_state *s) { return script_own_time_s(s, util_monotonic()); }

void scripti_clock_resume(script_state *s, double paused_at)
{
    s->paused_time_us += (long long)((util_monotonic() - paused_at) * 1e6);
    s->clock_paused = 0;
}

/* Inside a hook, level 0 is the Lua function being run: its file:line is
 * where the script was when the limit struck. */
static void time_hook(lua_State *L, lua_Debug *ar)
{
    (void)ar;
    script_state *s = scripti_state(L);
    if (s->config->sweep.stop && *s->config->sweep.stop) {
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
        snprintf(msg, sizeof msg,
                 "the script ran for more than %g s of its own time "
                 "(--script-timeout)",
                 s->config->time_limit_s);
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
        return scripti_raise(L, FAIL_INPUT,
                             "require '%s': module names are lower-case words "
                             "separated by dots",
                             name);
    script_state *s = scripti_state(L);
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
    char *own_lib = install_layout_script_lib_dir(); /* runner's scripts/lib */
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
        return scripti_raise(L, FAIL_INPUT,
                             "require '%s': no module lib/%s.lua next to the script or "
                             "in runner's scripts/lib",
                             name, relative);
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
    /* kept for the sweep (lifecycle_keep_printed); beyond what the store
     * keeps of it, no longer gathered */
    strbuf *printed = &scripti_state(L)->printed;
    if (printed->len < (size_t)STORE_PRINTED_MAX_LINES * STORE_PRINTED_MAX_BYTES)
        strbuf_add(printed, text, len);
    return 0;
}

/* pcall and xpcall must not swallow what stops the script (the time limit,
 * Ctrl-C, a failed store): once such an error was raised, it is raised
 * again as soon as the protected call returns. */
static int guarded_call_done(lua_State *L, int status, lua_KContext ctx)
{
    (void)status;
    (void)ctx;
    script_state *s = scripti_state(L);
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

/* The one way the watchdog ends the process (its line is printed). */
static _Noreturn void watchdog_exit(const script_state *s, int status)
{
    if (s->config->on_watchdog_exit)
        s->config->on_watchdog_exit(status);
    _exit(status);
}

/* While lua_close runs finalizers the sweep is already stored and no hook
 * can act: the limits strike at once (a script the limit or a Ctrl-C
 * already stopped gets the grace the close itself may need). Returns only
 * when neither did. */
static void watchdog_check_closing(const script_state *s, double own)
{
    double limit = s->config->time_limit_s;
    if (limit > 0 && own > s->closing_time_limit_s) {
        log_print(LOG_LEVEL_ERROR,
                  "runner: %s: the script ran for more than %g s of its own time "
                  "(--script-timeout) in a __gc finalizer at exit; stopped\n",
                  s->config->script_path, limit);
        watchdog_exit(s, EXIT_USAGE);
    }
    if (s->config->sweep.stop && *s->config->sweep.stop && !s->stopped_before_closing) {
        log_print(LOG_LEVEL_ERROR, "runner: interrupted in a __gc finalizer at exit; the sweep was "
                                   "already stored\n");
        watchdog_exit(s, EXIT_INTERRUPTED);
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
            log_print(LOG_LEVEL_ERROR,
                      "runner: %s: the script ran for more than %g s of its own time "
                      "(--script-timeout) inside one library call; stopped\n",
                      s->config->script_path, limit);
            watchdog_exit(s, EXIT_USAGE);
        }
        if (s->config->sweep.stop && *s->config->sweep.stop) {
            if (!stop_seen)
                stop_seen = now;
            else if (now - stop_seen > WATCHDOG_GRACE_S) {
                log_print(LOG_LEVEL_ERROR,
                          "runner: interrupted inside a library call; finished points "
                          "are stored (continue with --resume)\n");
                watchdog_exit(s, EXIT_INTERRUPTED);
            }
        }
    }
    return NULL;
}

void scripti_watchdog_start(script_state *s)
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

void scripti_watchdog_stop(script_state *s)
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
        { LUA_GNAME, luaopen_base },        { LUA_TABLIBNAME, luaopen_table },
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
    if (lua_type(L, 1) != LUA_TSTRING || scripti_state(L)->fatal || !raised_in_library(L, 1))
        return;
    const char *message = lua_tostring(L, 1);
    const char *colon = strchr(message, ':');
    if (colon && colon - message >= 4 && strncmp(colon - 4, ".lua", 4) == 0)
        return;
    scripti_push_line(L, 2);
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

/* A sandboxed Lua state for s, or NULL (out of memory). */
lua_State *scripti_new_state(script_state *s)
{
    lua_State *L = lua_newstate(bounded_alloc, s);
    if (!L)
        return NULL;
    lua_pushlightuserdata(L, s);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &state_key);
    open_sandbox(L);
    lua_sethook(L, time_hook, LUA_MASKCOUNT, 10000);
    return L;
}

int scripti_run_chunk(script_state *s, size_t len)
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

int scripti_close_state(script_state *s, int status)
{
    double own = script_own_time_s(s, util_monotonic());
    double limit = s->config->time_limit_s;
    s->closing_time_limit_s = own < limit ? limit : own + WATCHDOG_GRACE_S;
    /* Only a Ctrl-C the script already answered (its line is printed); one
     * that came after the chunk ended is the finalizers' to answer. */
    s->stopped_before_closing = s->failure == FAIL_INTERRUPTED;
    s->closing = 1;
    lua_close(s->L);
    s->L = NULL;
    if (!s->late_call)
        return status;
    log_print(LOG_LEVEL_ERROR, "runner: %s\n", s->late_call);
    return status == EXIT_OK ? EXIT_USAGE : status;
}

void scripti_refuse_after_end(lua_State *L, const char *function)
{
    script_state *s = scripti_state(L);
    char *reason = NULL;
    if (lifecycle_check_open(s->life, &reason) == 0)
        return;
    char msg[256];
    snprintf(msg, sizeof msg,
             "%s: %s; a __gc finalizer run at exit comes after the sweep "
             "ended and cannot sweep or declare options",
             function, reason ? reason : "the sweep is closed");
    free(reason);
    scripti_push_line(L, 1);
    lua_pushstring(L, *lua_tostring(L, -1) ? " " : "");
    lua_pushstring(L, msg);
    lua_concat(L, 3);
    if (!s->late_call)
        s->late_call = util_strdup(lua_tostring(L, -1));
    s->fatal = 1; /* a pcall in the finalizer does not hide it */
    lua_error(L);
}
