/* script_int.h: what the files of the Lua binding share (script.c: runner's
 * functions and a script's run; script_sandbox.c: the Lua state, its limits
 * and errors; script_options.c: options{} and --set). Private to them;
 * script.h is the public header. Shared functions are scripti_*. */
#ifndef RUNNER_SCRIPT_INT_H
#define RUNNER_SCRIPT_INT_H

#include <jansson.h>
#include <lua.h>
#include <pthread.h>
#include <stddef.h>

#include "base/strbuf.h"
#include "base/util.h"
#include "exec_lua.h"
#include "plugin/plugin.h"
#include "run/run.h"
#include "script.h"

typedef enum failure_kind {
    FAIL_INPUT = 0,   /* bad script or input: exit 2 */
    FAIL_INTERRUPTED, /* Ctrl-C: exit 130 */
    FAIL_STOPPED,     /* the store failed: exit 2 */
    FAIL_FAST         /* failed points stopped the sweep (--fail-fast): exit 1 */
} failure_kind;

typedef struct script_state {
    const script_config *config;
    lua_State *L;
    size_t heap_used;
    double started;
    /* Time spent on the script's behalf outside Lua (points, waiting for the
     * database, delivering the summary) is not the script's own. */
    _Atomic long long paused_time_us;
    _Atomic int clock_paused;    /* such a call is running (the watchdog waits) */
    _Atomic int closing;         /* lua_close runs the finalizers left */
    double closing_time_limit_s; /* own time the finalizers may reach */
    int stopped_before_closing;  /* that Ctrl-C was answered already */
    failure_kind failure;
    int fatal;       /* an error pcall must not swallow was raised */
    char *late_call; /* a runner function called after the sweep ended */
    pthread_t watchdog;
    int watchdog_running;
    _Atomic int watchdog_quit;
    /* The watchdog waits on this, so stopping it is immediate, not a
     * fifth of a second added to every run. */
    pthread_mutex_t watchdog_lock;
    pthread_cond_t watchdog_wake;
    plugin_registry *registry;
    exec_list *commands; /* declared by `command` (exec_lua.c) */
    lifecycle *life;     /* the sweep the script drives */
    char *script_text;
    json_t *options_used; /* the option values the script ran with */
    json_t *overrides;    /* what --set gave */
    strbuf printed;       /* what printf wrote, kept with the sweep (bounded) */
    int options_declared;
    int zip_groups;
} script_state;

/* The state a Lua state belongs to (script_sandbox.c keeps the pointer). */
script_state *scripti_state(lua_State *L);
/* Pushes "file:line:" of the innermost script line at or above level (C
 * functions, pcall's say, have no line), or "" when there is none. */
void scripti_push_line(lua_State *L, int level);
/* Raises a script error of the given kind at the caller's file:line. */
int scripti_raise(lua_State *L, failure_kind kind, const char *fmt, ...) RUNNER_PRINTF(3, 4);
/* The script's own run time so far (what --script-timeout limits). */
double scripti_own_time_s(const script_state *s);

/* sweep() and options{} act on the sweep (store points, record what it ran
 * with): once it ended they refuse (script_sandbox.c), in a __gc finalizer that
 * lua_close runs, say, and the first refusal is kept for script_run. */
void scripti_refuse_after_end(lua_State *L, const char *function);

/* script_sandbox.c: a Lua state with a bounded heap and run time and only
 * the safe libraries (plus require from lib/ and printf); NULL when out of
 * memory. The caller adds runner's functions. */
lua_State *scripti_new_state(script_state *s);
/* Time outside Lua on the script's behalf (points, the database, the
 * summary) does not count against its time limit: pause around it. */
double scripti_clock_pause(script_state *s);
void scripti_clock_resume(script_state *s, double paused_at);
void scripti_watchdog_start(script_state *s);
void scripti_watchdog_stop(script_state *s);
/* Loads and runs the script's len bytes. Returns the Lua status; on an
 * error its message is on top of the stack. */
int scripti_run_chunk(script_state *s, size_t len);
/* Closes the Lua state under the limits (its finalizers are the script's
 * code too), then says if one called runner after the sweep ended. Returns
 * the exit status, status unless such a call turned a success into 2. */
int scripti_close_state(script_state *s, int status);

/* script_options.c: options{...} (sysbench style), and the check of --set
 * (each NAME=VALUE, each name once; -1 after saying why on stderr). */
int scripti_l_options(lua_State *L);
int scripti_check_overrides(const script_config *config);

#endif
