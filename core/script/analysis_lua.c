/* analysis_lua: sensitivity{}, fit{}, pareto{} and runner.saltelli_unit.
 * Bad arguments raise; an analysis that refuses (not a Saltelli section, y
 * constant, too few rows, a model returning a non-number) returns nil and
 * the message, as plot does, so a script may go on. A Lua error inside a
 * fit's model function raises with its own file:line message. */
#include "analysis_lua.h"

#include <lauxlib.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "base/budget.h"
#include "base/name_check.h"
#include "base/util.h"
#include "rowview.h"
#include "script_int.h"
#include "script_name.h"
#include "store/store.h"

/* runner.saltelli_unit(n, d, seed): the unit-cube coordinates of a
 * Saltelli design (analysis/sensitivity.c) as d lists of n * (d + 2)
 * numbers, one per parameter; design.saltelli maps them. */
static int l_saltelli_unit(lua_State *L)
{
    lua_Integer n = luaL_checkinteger(L, 1), d = luaL_checkinteger(L, 2);
    lua_Integer seed = luaL_checkinteger(L, 3);
    if (n < 1 || d < 1)
        return luaL_error(L, "saltelli: n and d must be positive");
    double *points = NULL;
    char *err = NULL;
    if (sensitivity_design((size_t)n, (size_t)d, (uint64_t)seed, &points, &err) != 0) {
        lua_pushstring(L, err ? err : "out of memory");
        free(err);
        return lua_error(L);
    }
    size_t rows = (size_t)n * (size_t)(d + 2);
    lua_createtable(L, (int)d, 0);
    for (lua_Integer j = 0; j < d; j++) {
        lua_createtable(L, rows > 1u << 30 ? 0 : (int)rows, 0);
        for (size_t i = 0; i < rows; i++) {
            lua_pushnumber(L, points[i * (size_t)d + (size_t)j]);
            lua_rawseti(L, -2, (lua_Integer)i + 1);
        }
        lua_rawseti(L, -2, j + 1);
    }
    free(points);
    return 1;
}

/* The section a rows view reads: its database, sweep and section id. */
typedef struct rows_section {
    const char *db_path;
    int64_t sweep_id, section_id;
    int ordinal;
} rows_section;

/* Reads field `rows` of the options table at 1; raises unless it is what
 * sweep() returned. */
static void check_rows(lua_State *L, const char *function, rows_section *out)
{
    lua_getfield(L, 1, "rows");
    if (!rowview_identity(L, -1, &out->db_path, &out->sweep_id, &out->ordinal))
        luaL_error(L, "%s{rows = ...}: rows must be what sweep() returned, got a %s", function,
                   luaL_typename(L, -1));
    lua_pop(L, 1); /* the options table keeps the view alive */
}

static const char *text_field(lua_State *L, const char *function, const char *name, int required)
{
    lua_getfield(L, 1, name);
    if (lua_isnil(L, -1) && !required) {
        lua_pop(L, 1);
        return NULL;
    }
    if (lua_type(L, -1) != LUA_TSTRING)
        luaL_error(L, "%s{%s = ...}: %s must be a column name, got a %s", function, name, name,
                   luaL_typename(L, -1));
    char what[64];
    snprintf(what, sizeof what, "%s{%s = ...}:", function, name);
    const char *text = script_name_check(L, -1, what);
    lua_pop(L, 1); /* the options table keeps it */
    return text;
}

static lua_Integer integer_field(lua_State *L, const char *function, const char *name,
                                 lua_Integer fallback, lua_Integer min, lua_Integer max)
{
    lua_getfield(L, 1, name);
    lua_Integer v = fallback;
    if (!lua_isnil(L, -1)) {
        if (!lua_isinteger(L, -1) || (v = lua_tointeger(L, -1)) < min || v > max)
            luaL_error(L, "%s{%s = ...}: expected an integer from %I to %I", function, name, min,
                       max);
    }
    lua_pop(L, 1);
    return v;
}

/* Raises on an option the function does not know. */
static void check_known(lua_State *L, const char *function, const char *const *known)
{
    lua_pushnil(L);
    while (lua_next(L, 1)) {
        lua_pop(L, 1);
        const char *key = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
        int found = 0;
        for (size_t i = 0; key && known[i]; i++)
            found |= strcmp(known[i], key) == 0;
        if (!found)
            luaL_error(L, "%s{...}: unknown option '%s'", function, key ? key : "?");
    }
}

/* An analysis is the script's work: it runs on the script's clock and
 * within its heap's limit. Lua's hook and allocator see nothing of its C
 * loops, so they check a budget (base/budget.h) that ends where the
 * script's limits end. */
static void limits_enter(script_state *ss, budget *b)
{
    const script_config *c = ss->config;
    *b = (budget){ .memory_left_bytes = SIZE_MAX, .stop = c->sweep.stop };
    if (c->time_limit_s > 0) {
        double left = c->time_limit_s - scripti_own_time_s(ss);
        b->deadline_s = util_monotonic() + (left > 0 ? left : 0) + 1e-9;
    }
    if (c->memory_limit_bytes > 0)
        b->memory_left_bytes =
            c->memory_limit_bytes > ss->heap_used ? c->memory_limit_bytes - ss->heap_used : 0;
    budget_enter(b);
}

/* Ends the budget; when it ran out, raises the limit's error at the
 * script's line (after the caller freed what it holds). */
static budget_state limits_leave(void)
{
    budget_state state = budget_current_state();
    budget_leave();
    return state;
}

static int limits_raise(lua_State *L, budget_state state, const char *function)
{
    script_state *ss = scripti_state(L);
    if (state == BUDGET_STOPPED)
        return scripti_raise(L, FAIL_INTERRUPTED, "interrupted");
    ss->fatal = 1; /* a limit: pcall must not swallow it */
    if (state == BUDGET_TIME)
        return scripti_raise(L, FAIL_INPUT,
                             "the script ran for more than %g s of its own time "
                             "(--script-timeout) inside %s{}",
                             ss->config->time_limit_s, function);
    return scripti_raise(L, FAIL_INPUT,
                         "%s{} needed more memory than the script has left (--script-memory %zu "
                         "MiB)",
                         function, ss->config->memory_limit_bytes >> 20);
}

/* Opens the rows' database for writing (an answer is stored) and finds
 * the section. Returns the store, or NULL with *err. */
static store *open_section(rows_section *r, char **err)
{
    store *s = NULL;
    if (store_open(r->db_path, &s, err) != 0)
        return NULL;
    if (store_section_find(s, r->sweep_id, r->ordinal, &r->section_id, err) != 0) {
        store_close(s);
        return NULL;
    }
    return s;
}

static void set_number(lua_State *L, const char *name, double v)
{
    lua_pushnumber(L, v);
    lua_setfield(L, -2, name);
}

/* sensitivity{rows = rows, y = "speedup" [, bootstrap = 1000, seed = 0]} */
static int l_sensitivity(lua_State *L)
{
    static const char *const known[] = { "rows", "y", "bootstrap", "seed", NULL };
    luaL_checktype(L, 1, LUA_TTABLE);
    check_known(L, "sensitivity", known);
    rows_section r = { 0 };
    check_rows(L, "sensitivity", &r);
    const char *y = text_field(L, "sensitivity", "y", 1);
    sensitivity_options options = {
        .bootstrap = (size_t)integer_field(L, "sensitivity", "bootstrap", 1000, 10, 1000000),
        .seed = (uint64_t)integer_field(L, "sensitivity", "seed", 0, 0, LUA_MAXINTEGER),
    };
    budget limits;
    limits_enter(scripti_state(L), &limits);
    char *err = NULL;
    sensitivity_answer ans = { 0 };
    store *s = open_section(&r, &err);
    int rc = s ? sensitivity_answer_section(s, r.sweep_id, r.section_id, y, &options,
                                            STORE_ANSWER_KEEP_ADD, &ans, &err)
               : -1;
    store_close(s);
    budget_state over = limits_leave();
    if (over != BUDGET_OK) {
        free(err);
        sensitivity_answer_clear(&ans);
        return limits_raise(L, over, "sensitivity");
    }
    if (rc != 0) {
        lua_pushnil(L);
        lua_pushfstring(L, "sensitivity: sweep %I, section %d: %s", (lua_Integer)r.sweep_id,
                        r.ordinal, err ? err : "failed");
        free(err);
        return 2;
    }
    lua_createtable(L, 0, 8);
    lua_pushinteger(L, ans.id);
    lua_setfield(L, -2, "id");
    lua_pushinteger(L, (lua_Integer)ans.result.n_base);
    lua_setfield(L, -2, "blocks");
    lua_pushinteger(L, (lua_Integer)ans.data.excluded);
    lua_setfield(L, -2, "excluded");
    set_number(L, "mean", ans.result.mean);
    set_number(L, "variance", ans.result.variance);
    /* indices: a list in name order, each also under its name */
    lua_createtable(L, (int)ans.data.d, (int)ans.data.d);
    for (size_t i = 0; i < ans.data.d; i++) {
        const sensitivity_index *x = &ans.result.indices[i];
        lua_createtable(L, 0, 7);
        lua_pushstring(L, ans.data.names[i]);
        lua_setfield(L, -2, "parameter");
        set_number(L, "first", x->first);
        set_number(L, "first_low", x->first_low);
        set_number(L, "first_high", x->first_high);
        set_number(L, "total", x->total);
        set_number(L, "total_low", x->total_low);
        set_number(L, "total_high", x->total_high);
        lua_pushvalue(L, -1);
        lua_setfield(L, -3, ans.data.names[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_setfield(L, -2, "indices");
    sensitivity_answer_clear(&ans);
    return 1;
}

/* --- fit{} ------------------------------------------------------------- */

/* A model written in Lua, evaluated for GSL through lua_model_eval. */
typedef struct lua_model {
    lua_State *L;
    int function;                      /* its stack index */
    size_t count;                      /* parameters */
    const char *names[FIT_MAX_PARAMS]; /* sorted; the params table keeps them */
    int raised;                        /* 1: the function raised (not a refusal) */
    char *message;                     /* then its error, as Lua gave it (owned) */
} lua_model;

/* fit_eval_fn: model(x, p) for every x, p a table of the parameters by
 * name. A Lua error is caught here (GSL's frames must not be jumped over)
 * and raised again by fit{} once the fit has cleaned up. */
static int lua_model_eval(void *ctx, const double *x, size_t n, const double *p, double *fitted,
                          char **err)
{
    lua_model *m = ctx;
    lua_State *L = m->L;
    if (!lua_checkstack(L, 4))
        return util_fail(err, "fit: the Lua stack is full");
    lua_createtable(L, 0, (int)m->count);
    for (size_t j = 0; j < m->count; j++) {
        lua_pushnumber(L, p[j]);
        lua_setfield(L, -2, m->names[j]);
    }
    int params = lua_gettop(L);
    for (size_t i = 0; i < n; i++) {
        lua_pushvalue(L, m->function);
        lua_pushnumber(L, x[i]);
        lua_pushvalue(L, params);
        if (lua_pcall(L, 2, 1, 0) != LUA_OK) {
            m->raised = 1;
            const char *message = lua_tostring(L, -1);
            free(m->message);
            m->message =
                util_strdup(message ? message : "fit: the model raised a non-string error");
            *err = util_strdup(m->message ? m->message : "out of memory");
            lua_pop(L, 2);
            return -1;
        }
        if (lua_type(L, -1) != LUA_TNUMBER) {
            util_fail(err, "the model returned a %s at x = %g, not a number", luaL_typename(L, -1),
                      x[i]);
            lua_pop(L, 2);
            return -1;
        }
        fitted[i] = lua_tonumber(L, -1);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    return 0;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The model of fit{model = function(x, p) ... end, params = {...}}: its
 * parameters in name order with their starting values. Raises on bad
 * params. The caller frees the model (fit_model_user_free). */
static fit_model *lua_model_new(lua_State *L, lua_model *m, int function, const char *name)
{
    double start[FIT_MAX_PARAMS];
    lua_getfield(L, 1, "params");
    if (!lua_istable(L, -1))
        luaL_error(L, "fit{params = ...}: a model function needs params, a table of starting "
                      "values by name (params = { a = 1.0, b = 0.5 })");
    lua_pushnil(L);
    while (lua_next(L, -2)) {
        if (lua_type(L, -2) != LUA_TSTRING || lua_type(L, -1) != LUA_TNUMBER)
            luaL_error(L, "fit{params = ...}: each entry must be name = starting value (a number)");
        if (m->count == FIT_MAX_PARAMS)
            luaL_error(L, "fit{params = ...}: at most %d parameters", FIT_MAX_PARAMS);
        m->names[m->count++] = script_name_check(L, -2, "fit{params = ...}:");
        lua_pop(L, 1);
    }
    if (m->count == 0)
        luaL_error(L, "fit{params = ...}: at least one parameter is needed");
    qsort(m->names, m->count, sizeof *m->names, compare_names);
    for (size_t j = 0; j < m->count; j++) {
        lua_getfield(L, -1, m->names[j]);
        start[j] = lua_tonumber(L, -1);
        lua_pop(L, 1);
    }
    lua_pop(L, 1); /* the options table keeps params and its names */
    m->L = L;
    m->function = function;
    /* the stored formula: where the function is defined */
    lua_Debug ar;
    lua_pushvalue(L, function);
    lua_getinfo(L, ">S", &ar);
    const char *source = ar.source && ar.source[0] == '@' ? ar.source + 1 : ar.short_src;
    char *formula = util_format("Lua function at %s:%d", source, ar.linedefined);
    char *err = NULL;
    fit_model *model =
        fit_model_user_new(name, formula, m->count, m->names, start, lua_model_eval, m, &err);
    free(formula); /* the model keeps its own copy */
    if (!model) {
        lua_pushstring(L, err ? err : "out of memory");
        free(err);
        lua_error(L);
    }
    return model;
}

/* One fit as a table: its figures and each quantity by name (also listed
 * in order under `quantities`). */
static void push_fit(lua_State *L, const fit_answer *a, size_t i, const char *by)
{
    const fit_result *r = &a->results[i];
    const fit_group *g = &a->groups.groups[i];
    lua_createtable(L, 0, 12);
    lua_pushinteger(L, a->ids[i]);
    lua_setfield(L, -2, "id");
    lua_pushstring(L, fit_model_name(r->model));
    lua_setfield(L, -2, "model");
    if (by) {
        rowview_push_value(L, &g->by);
        lua_setfield(L, -2, "by");
    }
    lua_pushinteger(L, (lua_Integer)r->n);
    lua_setfield(L, -2, "n");
    lua_pushinteger(L, (lua_Integer)g->excluded);
    lua_setfield(L, -2, "excluded");
    lua_pushinteger(L, (lua_Integer)r->dof);
    lua_setfield(L, -2, "dof");
    lua_pushinteger(L, (lua_Integer)r->iterations);
    lua_setfield(L, -2, "iterations");
    set_number(L, "r2", r->r2);
    set_number(L, "rss", r->rss);
    set_number(L, "residual_sd", r->residual_sd);
    lua_createtable(L, (int)r->estimate_count, 0);
    for (size_t k = 0; k < r->estimate_count; k++) {
        const fit_estimate *e = &r->estimates[k];
        lua_createtable(L, 0, 7);
        lua_pushstring(L, e->name);
        lua_setfield(L, -2, "name");
        set_number(L, "value", e->value);
        set_number(L, "stderr", e->std_error);
        set_number(L, "ci_low", e->ci_low);
        set_number(L, "ci_high", e->ci_high);
        char *unit = fit_unit_text(e->unit, a->groups.x_unit, a->groups.y_unit);
        lua_pushstring(L, unit ? unit : "");
        free(unit);
        lua_setfield(L, -2, "unit");
        lua_pushboolean(L, e->derived);
        lua_setfield(L, -2, "derived");
        lua_pushvalue(L, -1);
        lua_setfield(L, -4, e->name); /* fit.J, fit.ceiling, ... */
        lua_rawseti(L, -2, (lua_Integer)k + 1);
    }
    lua_setfield(L, -2, "quantities");
}

/* fit{rows = rows, x = "workers", y = "round_s", model = "walkthrough" |
 *     function(x, p) ... end [, params = {...}, name = "lua", by = COL,
 *     weights = COL, noise = "absolute" | "relative"]} */
static int l_fit(lua_State *L)
{
    static const char *const known[] = { "rows", "x",  "y",       "model", "params",
                                         "name", "by", "weights", "noise", NULL };
    luaL_checktype(L, 1, LUA_TTABLE);
    check_known(L, "fit", known);
    rows_section r = { 0 };
    check_rows(L, "fit", &r);
    fit_columns columns = { text_field(L, "fit", "x", 1), text_field(L, "fit", "y", 1),
                            text_field(L, "fit", "by", 0), text_field(L, "fit", "weights", 0) };
    const char *noise = text_field(L, "fit", "noise", 0);
    if (noise && strcmp(noise, "absolute") != 0 && strcmp(noise, "relative") != 0)
        luaL_error(L, "fit{noise = '%s'}: expected 'absolute' or 'relative'", noise);
    int relative = noise && strcmp(noise, "relative") == 0;
    if (relative && columns.weights)
        luaL_error(L, "fit{}: noise = 'relative' and weights both give each row's weight; give "
                      "one");
    lua_model user = { 0 };
    fit_model *owned = NULL;
    const fit_model *model = NULL;
    lua_getfield(L, 1, "model");
    int function = lua_gettop(L); /* stays on the stack during the fit */
    if (lua_isfunction(L, function)) {
        lua_getfield(L, 1, "name");
        size_t name_len = 3;
        const char *name = lua_isnil(L, -1) ? "lua" : lua_tolstring(L, -1, &name_len);
        if (!name || lua_type(L, -1) == LUA_TNUMBER)
            luaL_error(L, "fit{name = ...}: the model's name must be a string");
        char *bad_name = NULL; /* stored, shown, served: checked whole, NULs too */
        if (name_check("fit{name = ...}:", name, name_len, NAME_CHECK_NAME_MAX, &bad_name) != 0) {
            lua_pushstring(L, bad_name ? bad_name : "out of memory");
            free(bad_name);
            luaL_where(L, 1);
            lua_insert(L, -2);
            lua_concat(L, 2);
            return lua_error(L);
        }
        /* plot and report draw a stored fit by its model's name */
        if (fit_model_find(name))
            luaL_error(L,
                       "fit{name = '%s'}: that is a built-in model's name; give the function "
                       "another",
                       name);
        owned = lua_model_new(L, &user, function, name);
        lua_pop(L, 1);
        model = owned;
    } else if (lua_type(L, function) == LUA_TSTRING) {
        lua_getfield(L, 1, "params");
        if (!lua_isnil(L, -1))
            luaL_error(L, "fit{params = ...}: only a model function takes params");
        lua_pop(L, 1);
        if (!(model = fit_model_find(lua_tostring(L, function))))
            luaL_error(L, "fit{model = '%s'}: expected %s, or a function(x, p)",
                       lua_tostring(L, function), fit_model_names());
    } else {
        luaL_error(L, "fit{model = ...}: expected a model's name or a function(x, p), got a %s",
                   luaL_typename(L, function));
    }
    budget limits;
    limits_enter(scripti_state(L), &limits);
    char *err = NULL;
    fit_answer ans = { 0 };
    store *s = open_section(&r, &err);
    fit_question q = { r.sweep_id, r.section_id,         r.ordinal, model, columns,
                       relative,   STORE_ANSWER_KEEP_ADD };
    int rc = s ? fit_answer_section(s, &q, &ans, &err) : -1;
    store_close(s);
    budget_state over = limits_leave();
    if (over != BUDGET_OK) {
        free(err);
        free(user.message);
        fit_answer_clear(&ans);
        fit_model_user_free(owned);
        return limits_raise(L, over, "fit");
    }
    if (rc != 0)
        fit_model_user_free(owned); /* the answer's names point into it */
    if (rc != 0 && user.raised) {
        /* the model's own error, with its file:line, raised as it was */
        lua_pushstring(L, user.message ? user.message : "fit: the model raised an error");
        free(user.message);
        free(err);
        return lua_error(L);
    }
    free(user.message);
    if (rc != 0) {
        lua_pushnil(L);
        lua_pushfstring(L, "fit: %s", err ? err : "failed");
        free(err);
        return 2;
    }
    if (!columns.by) {
        push_fit(L, &ans, 0, NULL);
    } else {
        lua_createtable(L, (int)ans.groups.count, 0);
        for (size_t i = 0; i < ans.groups.count; i++) {
            push_fit(L, &ans, i, columns.by);
            lua_rawseti(L, -2, (lua_Integer)i + 1);
        }
    }
    fit_answer_clear(&ans);
    fit_model_user_free(owned);
    return 1;
}

/* --- pareto{} ---------------------------------------------------------- */

/* Appends the names of options[field] (a name or a list of names). */
static void objective_list(lua_State *L, const char *field, int maximize, const char **names,
                           int *directions, size_t *count, size_t max)
{
    lua_getfield(L, 1, field);
    if (lua_type(L, -1) == LUA_TSTRING) { /* the options table keeps the name alive */
        if (*count == max)
            luaL_error(L, "pareto{...}: at most %d objectives", (int)max);
        char what[32];
        snprintf(what, sizeof what, "pareto{%s = ...}:", field);
        names[*count] = script_name_check(L, -1, what);
        directions[(*count)++] = maximize;
        lua_pop(L, 1);
        return;
    }
    if (!lua_isnil(L, -1) && !lua_istable(L, -1))
        luaL_error(L, "pareto{%s = ...}: expected a column name or a list of them, got a %s", field,
                   luaL_typename(L, -1));
    lua_Integer n = lua_isnil(L, -1) ? 0 : (lua_Integer)lua_rawlen(L, -1);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, -1, i);
        if (lua_type(L, -1) != LUA_TSTRING)
            luaL_error(L, "pareto{%s = ...}: entry %I is a %s, not a column name", field, i,
                       luaL_typename(L, -1));
        if (*count == max)
            luaL_error(L, "pareto{...}: at most %d objectives", (int)max);
        char what[32];
        snprintf(what, sizeof what, "pareto{%s = ...}:", field);
        names[*count] = script_name_check(L, -1, what);
        directions[(*count)++] = maximize;
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
}

#define PARETO_MAX_OBJECTIVES 32

/* pareto{rows = rows, min = {"round_s"}, max = {"speedup"}}: the front as
 * a list of rows (best first), each a table by column name. */
static int l_pareto(lua_State *L)
{
    static const char *const known[] = { "rows", "min", "max", NULL };
    luaL_checktype(L, 1, LUA_TTABLE);
    check_known(L, "pareto", known);
    rows_section r = { 0 };
    check_rows(L, "pareto", &r);
    const char *names[PARETO_MAX_OBJECTIVES];
    int maximize[PARETO_MAX_OBJECTIVES];
    size_t k = 0;
    objective_list(L, "min", 0, names, maximize, &k, PARETO_MAX_OBJECTIVES);
    objective_list(L, "max", 1, names, maximize, &k, PARETO_MAX_OBJECTIVES);
    if (k < 2)
        luaL_error(L, "pareto{...}: two or more objectives are needed (min = {...}, max = {...})");
    budget limits;
    limits_enter(scripti_state(L), &limits);
    char *err = NULL;
    pareto_answer ans = { 0 };
    store *s = open_section(&r, &err);
    pareto_question q = { r.sweep_id, r.section_id,         r.ordinal, k, names,
                          maximize,   STORE_ANSWER_KEEP_ADD };
    int rc = s ? pareto_answer_section(s, &q, NULL, &ans, &err) : -1;
    store_close(s);
    budget_state over = limits_leave();
    if (over != BUDGET_OK) {
        free(err);
        pareto_answer_clear(&ans);
        return limits_raise(L, over, "pareto");
    }
    if (rc != 0) {
        lua_pushnil(L);
        lua_pushfstring(L, "pareto: sweep %I, section %d: %s", (lua_Integer)r.sweep_id, r.ordinal,
                        err ? err : "failed");
        free(err);
        return 2;
    }
    const table *t = ans.front;
    lua_createtable(L, (int)t->row_count, 4);
    for (size_t i = 0; i < t->row_count; i++) {
        lua_createtable(L, 0, (int)t->column_count + 2);
        for (size_t c = 0; c < t->column_count; c++) {
            rowview_push_value(L, table_cell(t, i, c));
            lua_setfield(L, -2, t->columns[c].name);
        }
        lua_pushinteger(L, ans.members[i].row_id);
        lua_setfield(L, -2, "row_id");
        lua_pushinteger(L, ans.members[i].point_id);
        lua_setfield(L, -2, "point_id");
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_pushinteger(L, ans.id);
    lua_setfield(L, -2, "id");
    lua_pushinteger(L, (lua_Integer)ans.rows);
    lua_setfield(L, -2, "rows");
    lua_pushinteger(L, (lua_Integer)ans.excluded);
    lua_setfield(L, -2, "excluded");
    pareto_answer_clear(&ans);
    return 1;
}

void analysis_lua_register(lua_State *L)
{
    lua_register(L, "sensitivity", l_sensitivity);
    lua_register(L, "fit", l_fit);
    lua_register(L, "pareto", l_pareto);
    lua_getglobal(L, "runner");
    lua_pushcfunction(L, l_saltelli_unit);
    lua_setfield(L, -2, "saltelli_unit");
    lua_pop(L, 1);
}
