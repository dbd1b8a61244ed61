# Lua's fit{} and pareto{} (docs/lua-api.md, docs/analysis.md): the same
# numbers and the same stored rows as `runner fit` and `runner pareto` on
# the same section; a model written in Lua (fit{model = function(x, p)})
# fitted to data drawn from a known expression with seeded noise, its
# intervals covering the truth; a model returning a non-number refuses
# (nil, message; nothing stored), a Lua error in it raises with its
# file:line, bad arguments raise.
. tests/e2e/lib.sh

# --- the same answers as the CLI ------------------------------------------
same=$(write_script same.lua <<'LUA'
local rows = sweep("straggler", { base = 30, jitter = 2, trials = 50,
                   workers = { 1, 2, 4, 8, 16, 32, 64, 128, 256, 512 } }, { print = false })
local f = assert(fit { rows = rows, x = "workers", y = "round_s", model = "walkthrough" })
for _, q in ipairs(f.quantities) do
  printf("fit %s %.17g %.17g %.17g %.17g %s\n", q.name, q.value, q.stderr, q.ci_low, q.ci_high,
         q.unit)
end
printf("fit id %d n %d r2 %.17g J %.17g\n", f.id, f.n, f.r2, f.J.value)
local front = assert(pareto { rows = rows, min = "round_s", max = { "workers" } })
for _, r in ipairs(front) do printf("front %d %.17g\n", r.workers, r.round_s) end
printf("front id %d rows %d excluded %d size %d\n", front.id, front.rows, front.excluded, #front)
LUA
)
run "$RUNNER" sweep "$same" --db "$DB" --quiet
expect_status 0
cp "$TMP/out" "$TMP/lua.txt"
# The CLI asked the same question on the same rows: Lua's fit 1 answers it
# (the same rows fitted, the same residual sum of squares to the bit).
run "$RUNNER" fit 1 --x workers --y round_s --model walkthrough --db "$DB"
expect_status 0
expect_stdout_contains "as stored in fit 1, which fitted the same rows"
# stored FIT: every stored figure of a fit, reals to 17 digits.
stored() {
    sql "SELECT n, printf('%.17g|%.17g', r2, rss), model, formula FROM fit WHERE id = $1"
    sql "SELECT position, name, printf('%.17g|%.17g|%.17g|%.17g', value, stderr, ci_low, ci_high),
        unit FROM fit_param WHERE fit_id = $1 ORDER BY position"
    sql "SELECT row_id, printf('%.17g|%.17g', fitted, residual) FROM fit_residual
        WHERE fit_id = $1 ORDER BY row_id"
}
stored 1 >"$TMP/lua_fit.txt"
# Fitted anew (--again): the CLI's fit 2 replaces it, every stored figure
# equal to Lua's, and equal to what Lua printed.
run "$RUNNER" fit 1 --x workers --y round_s --model walkthrough --db "$DB" --again
expect_status 0
expect_stdout_contains "stored as fit 2: "
expect_equal "the CLI's fit 2 against Lua's fit 1" "$(stored 2)" "$(cat "$TMP/lua_fit.txt")"
expect_equal "residual rows" "$(sql "SELECT count(*) FROM fit_residual WHERE fit_id = 2")" 10
expect_sql "SELECT count(*) FROM fit WHERE id = 1" "0"
# The CLI's same question on the same rows: Lua's front 1 answers it,
# nothing written; --again finds it anew (front 2, in its place).
lua_members=$(sql "SELECT group_concat(row_id) FROM (SELECT row_id FROM pareto_member
    WHERE pareto_id = 1 ORDER BY row_id)")
run "$RUNNER" pareto 1 --min round_s --max workers --db "$DB"
expect_status 0
expect_stdout_contains "as stored in pareto 1, which read the same rows"
expect_sql "SELECT group_concat(id) FROM pareto" "1"
run "$RUNNER" pareto 1 --min round_s --max workers --db "$DB" --format json --again
expect_status 0
expect_sql "SELECT group_concat(id) FROM pareto" "2"
# (Python reads SQLite's doubles exactly; %.17g gives Lua's back exactly.)
python3 - "$TMP/lua.txt" "$DB" <<'PY' || fail "Lua's printed fit differs from the stored one"
import sqlite3, sys
lua = [l.split() for l in open(sys.argv[1]) if l.startswith("fit ") and not l.startswith("fit id")]
db = sqlite3.connect(sys.argv[2])
stored = db.execute("SELECT name, value, stderr, ci_low, ci_high, unit FROM fit_param"
                    " WHERE fit_id = 2 ORDER BY position").fetchall()
assert len(lua) == len(stored) == 4, (lua, stored)
for l, s in zip(lua, stored):
    assert l[1] == s[0] and [float(v) for v in l[2:6]] == list(s[1:5]), (l, s)
    assert (l[6] if len(l) > 6 else "") == s[5], (l, s)
PY
expect_equal "fit id" "$(grep '^fit id' "$TMP/lua.txt" | cut -d' ' -f1-5)" "fit id 1 n 10"
# Lua's front 1 and the CLI's front 2: the same members, printed the same.
expect_sql "SELECT group_concat(row_id) FROM (SELECT row_id FROM pareto_member
    WHERE pareto_id = 2 ORDER BY row_id)" "$lua_members"
expect_equal "Lua's front = the CLI's" "$(grep '^front [0-9]' "$TMP/lua.txt")" "$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
names = [c["name"] for c in d["columns"]]
for r in d["rows"]:
    r = dict(zip(names, r))
    print("front %d %.17g" % (r["workers"], r["round_s"]))
' "$TMP/out")"
expect_equal "front head" "$(grep '^front id' "$TMP/lua.txt")" \
    "front id 1 rows 10 excluded 0 size $(sql "SELECT front_size FROM pareto WHERE id = 2")"

# --- a model written in Lua ------------------------------------------------
# y = 3 exp(-0.5 x) + noise (sd 0.05: the mean of 12 uniforms), seeded by
# the point: ten replicates of 30 x values, one fit per replicate (by).
cat >"$TMP/decay.awk" <<'AWK'
BEGIN {
    srand(seed % 2147483647)
    u = 0
    for (k = 0; k < 12; k++) u += rand()
    printf "y=%.12f\n", 3 * exp(-0.5 * x) + 0.05 * (u - 6)
}
AWK
decay=$(write_script decay.lua <<LUA
command { name = "decay", argv = { "awk", "-v", "x={x}", "-v", "seed={seed}", "-f", "$TMP/decay.awk" },
  params = { x = { type = "real" }, rep = { type = "integer", default = 1 } },
  columns = { { name = "y", type = "real" } }, output = "keyvalue" }
local xs = {}
for i = 1, 30 do xs[i] = i * 0.25 end
local rows = sweep("decay", { rep = range(1, 10), x = xs }, { print = false })
local fits = assert(fit { rows = rows, x = "x", y = "y", by = "rep", name = "decay",
  model = function(x, p) return p.a * math.exp(-p.b * x) end, params = { a = 1.0, b = 0.1 } })
local covered = 0
for _, f in ipairs(fits) do
  local a, b = f.a, f.b
  if a.ci_low <= 3 and 3 <= a.ci_high and b.ci_low <= 0.5 and 0.5 <= b.ci_high then
    covered = covered + 1
  end
end
printf("decay fits %d covered %d names %s %s\n", #fits, covered, fits[1].quantities[1].name,
       fits[1].quantities[2].name)
-- a model that returns a non-number refuses: nil and one line
local none, msg = fit { rows = rows, x = "x", y = "y",
  model = function(x, p) return "fast" end, params = { a = 1 } }
printf("refused %s: %s\n", tostring(none), msg)
-- a Lua error inside the model raises with its own file:line
fit { rows = rows, x = "x", y = "y", model = function(x, p) error("no model here") end,
      params = { a = 1 } }
LUA
)
before=$(sql "SELECT max(id) FROM fit")
run "$RUNNER" sweep "$decay" --db "$DB" --quiet
expect_status 2
expect_stdout_contains "decay fits 10 covered "
covered=$(sed -n 's/^decay fits 10 covered \([0-9]*\) .*/\1/p' "$TMP/out")
# both intervals hold the truth in about 90 % of fits (0.95^2): 7 of 10 or
# more (seeded, so the count is the same on every run)
[ "${covered:-0}" -ge 7 ] || fail "the Lua model's intervals covered the truth in $covered of 10 fits"
expect_stdout_contains "names a b"
expect_stdout_contains "refused nil: fit: sweep 2, section 1: the model returned a string at x = 0.25, not a number"
expect_stderr_contains "runner: $decay:23: no model here"
# the ten fits stored like the others (model "decay", the function's line
# as formula, no derived quantities); the refusal and the error stored
# nothing
expect_sql "SELECT count(*), min(model), min(formula), min(n), sum(excluded)
    FROM fit WHERE id > $before" "10|decay|Lua function at $decay:8|30|0"
expect_sql "SELECT group_concat(name) FROM (SELECT DISTINCT name FROM fit_param
    WHERE fit_id > $before ORDER BY name)" "a,b"
expect_sql "SELECT count(*) FROM fit_residual WHERE fit_id > $before" "300"

# --- bad arguments raise ---------------------------------------------------
bad() {
    script=$(write_script bad.lua <<LUA
local rows = sweep("straggler", { base = 30, jitter = 2, trials = 5, workers = { 1, 2, 4 } },
                   { print = false })
$1
LUA
)
    rm -f "$TMP/bad.db"
    run "$RUNNER" sweep "$script" --db "$TMP/bad.db" --quiet
    expect_status 2
    expect_stderr_contains "$2"
}
bad 'fit { rows = rows, x = "workers", y = "round_s", model = 42 }' \
    "fit{model = ...}: expected a model's name or a function(x, p), got a number"
bad 'fit { rows = rows, x = "workers", y = "round_s", model = "cubic" }' \
    "fit{model = 'cubic'}: expected amdahl, amdahl-time, gustafson, gustafson-time, usl, usl-time, walkthrough, alpha-beta, power or linear, or a function(x, p)"
bad 'fit { rows = rows, x = "workers", y = "round_s", model = function(x, p) return x end }' \
    "fit{params = ...}: a model function needs params"
bad 'fit { rows = rows, x = "workers", y = "round_s", model = "linear", params = { a = 1 } }' \
    "fit{params = ...}: only a model function takes params"
bad 'fit { rows = rows, x = "workers", y = "round_s", name = "linear", model = function(x, p) return p.a * x end, params = { a = 1 } }' \
    "fit{name = 'linear'}: that is a built-in model's name; give the function another"
bad 'fit { rows = rows, x = "workers", y = "round_s", model = "linear", colour = 1 }' \
    "fit{...}: unknown option 'colour'"
bad 'pareto { rows = rows, min = "round_s" }' \
    "pareto{...}: two or more objectives are needed (min = {...}, max = {...})"
bad 'pareto { rows = rows, min = { 1 }, max = "workers" }' \
    "pareto{min = ...}: entry 1 is a number, not a column name"
# refusals return nil and the message; nothing is stored
bad 'print(pareto { rows = rows, min = "nope", max = "workers" }); print(fit { rows = rows, x = "workers", y = "nope", model = "linear" }); error("done")' \
    "done"
expect_stdout_contains "nil	pareto: sweep 1, section 1: column 'nope' of section 1 of sweep 1: no such column"
expect_stdout_contains "nil	fit: sweep 1, section 1: --y nope: the section has no such column"
expect_equal "refusals store nothing" "$(sqlite3 "$TMP/bad.db" "SELECT (SELECT count(*) FROM fit) + (SELECT count(*) FROM pareto)")" "0"
finish
