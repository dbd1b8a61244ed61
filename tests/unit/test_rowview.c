/* test_rowview: the rows sweep() returns, read back from a real database in
 * RUNNER_TEST_TMP. A section of 1000 points (four pages of rows, more than
 * the cache holds) is stored through the lifecycle; a Lua state then reads
 * it through the view: #rows, rows[i] in any order, ipairs and pairs, the
 * types of every value (integers stay integers, NaN and inf, booleans,
 * text), find and filter in SQL, and the refusal to write. */
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "demo_plugin.h"
#include "testdb.h"
#include "run/lifecycle.h"
#include "script/rowview.h"

#define POINTS 1000

static volatile sig_atomic_t stop_flag;

static const runner_param demo_params[] = {
    RUNNER_PARAM_INTEGER("workers", "", "number of workers", 1, 1, 100000),
};

enum {
    COL_DOUBLED,
    COL_HALF,
    COL_TAG,
    COL_EVEN,
    COL_NAN,
    COL_INF
};
static const runner_column demo_columns[] = {
    [COL_DOUBLED] = RUNNER_COLUMN("doubled", RUNNER_INTEGER, "", "twice the workers"),
    [COL_HALF] = RUNNER_COLUMN("half", RUNNER_REAL, "", "half the workers"),
    [COL_TAG] = RUNNER_COLUMN("tag", RUNNER_TEXT, "", "w<workers>"),
    [COL_EVEN] = RUNNER_COLUMN("even", RUNNER_BOOLEAN, "", "workers is even"),
    [COL_NAN] = RUNNER_COLUMN("nan", RUNNER_REAL, "", "always NaN"),
    [COL_INF] = RUNNER_COLUMN("inf", RUNNER_REAL, "", "always -inf"),
};

static int demo_run(const runner_host *host, runner_point *point)
{
    int64_t workers = host->param_integer(point, 0);
    char tag[32];
    snprintf(tag, sizeof tag, "w%lld", (long long)workers);
    host->set_integer(point, COL_DOUBLED, 2 * workers);
    host->set_real(point, COL_HALF, (double)workers / 2);
    host->set_text(point, COL_TAG, tag);
    host->set_boolean(point, COL_EVEN, workers % 2 == 0);
    host->set_real(point, COL_NAN, 0.0 / 0.0);
    host->set_real(point, COL_INF, -1.0 / 0.0);
    host->emit_row(point);
    return RUNNER_OK;
}

static const runner_plugin demo =
    DEMO_PLUGIN_NAMED("rowview_demo", "1.0.0", demo_params, demo_columns, demo_run);

static loaded_plugin demo_loaded = {
    .desc = &demo,
    .path = "(linked into test_rowview)",
    .file_stem = "rowview_demo",
    .sha256 = "0000000000000000000000000000000000000000000000000000000000000000",
};

/* What the script checks; it raises an error naming the first mismatch. */
static const char checks[] =
    "assert(#rows == 1000, 'count ' .. #rows)\n"
    "assert(rows[0] == nil and rows[1001] == nil and rows[1.5] == nil and rows.nope == nil)\n"
    /* backwards first: the directory is built by a skip, not a read */
    "for _, i in ipairs({1000, 777, 3, 256, 257, 512, 513, 1, 999}) do\n"
    "  local r = rows[i]\n"
    "  assert(r.workers == i and r.doubled == 2 * i, 'row ' .. i)\n"
    "  assert(math.type(r.workers) == 'integer' and math.type(r.doubled) == 'integer')\n"
    "  assert(math.type(r.half) == 'float' and r.half == i / 2)\n"
    "  assert(r.tag == 'w' .. i and r.even == (i % 2 == 0))\n"
    "  assert(r.nan ~= r.nan and r.inf == -math.huge)\n"
    "end\n"
    "local sum, n = 0, 0\n"
    "for i, r in ipairs(rows) do assert(r.workers == i) sum = sum + r.workers end\n"
    "assert(sum == 500500, 'ipairs sum ' .. sum)\n"
    "for i, r in pairs(rows) do assert(r.workers == i) n = n + 1 end\n"
    "assert(n == 1000, 'pairs ' .. n)\n"
    "assert(rows[5] ~= rows[5], 'each read makes a fresh table')\n"
    "assert(rows:find({ tag = 'w640' }).workers == 640)\n"
    "assert(rows:find({ workers = 640.0, even = true }).workers == 640)\n"
    "assert(rows:find({ workers = '640' }) == nil and rows:find({ nope = 1 }) == nil)\n"
    "assert(rows:find({ nan = 0/0 }) == nil and rows:find({ inf = -math.huge }).workers == 1)\n"
    "local evens = rows:filter({ even = true })\n"
    "assert(#evens == 500 and evens[1].workers == 2 and evens[500].workers == 1000)\n"
    "assert(#rows:filter({ workers = 5000 }) == 0)\n"
    "local ok, err = pcall(function() rows[1] = {} end)\n"
    "assert(not ok and err:find('read%-only'), err)\n"
    "return true\n";

int main(void)
{
    const char *db_path = testdb_fresh_path("rowview.db");
    sweep_options options = {
        .db_path = db_path,
        .seed = 1,
        .stop = &stop_flag,
        .quiet = 1,
        .jobs = 1,
    };
    lifecycle_config config = {
        .script_path = "demo.lua",
        .script_text = "-- demo",
        .script_text_len = 7,
        .options = &options,
    };
    lifecycle *lc = lifecycle_new(&config);
    char *err = NULL;
    CHECK(lc && lifecycle_begin(lc, NULL, NULL, &err) == 0);

    grid *g = grid_new(&demo);
    value *values = calloc(POINTS, sizeof *values);
    for (int i = 0; i < POINTS; i++)
        values[i] = value_integer(i + 1);
    uint64_t points = 0;
    char msg[256];
    CHECK(g && grid_set(g, 0, values, POINTS, 0) == 0 &&
          grid_finish(g, 0, &points, msg, sizeof msg) == 0);
    lifecycle_section section = { .plugin = &demo_loaded, .grid = g };
    lifecycle_section_result result;
    CHECK_INT_EQ(lifecycle_run_section(lc, &section, NULL, &result, &err), 0);
    CHECK_INT_EQ(result.section_ordinal, 1);

    lua_State *L = luaL_newstate();
    luaL_openlibs(L);
    rowview_register_lua(L);
    CHECK_INT_EQ(rowview_push(L, db_path, lifecycle_sweep_id(lc), 1, &demo, &err), 0);
    lua_setglobal(L, "rows");
    int rc = luaL_dostring(L, checks);
    if (rc != LUA_OK)
        fprintf(stderr, "  %s\n", lua_tostring(L, -1));
    CHECK_INT_EQ(rc, LUA_OK);

    /* A section that is not stored is an error at the first read, not a crash. */
    CHECK_INT_EQ(rowview_push(L, db_path, lifecycle_sweep_id(lc), 7, &demo, &err), 0);
    lua_setglobal(L, "missing");
    CHECK(luaL_dostring(L, "return #missing") != LUA_OK);
    CHECK(strstr(lua_tostring(L, -1), "section 7 of sweep 1 is not stored") != NULL);
    lua_close(L);

    CHECK_INT_EQ(lifecycle_end(lc, LIFECYCLE_FINISHED), 0);
    lifecycle_free(lc);
    grid_free(g);
    free(err);
    return check_done("test_rowview");
}
