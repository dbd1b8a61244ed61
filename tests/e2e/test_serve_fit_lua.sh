# A fit whose model is a Lua function (fit{model = function(x, p) ...})
# drawn over the dashboard's plot: the fit stores its curve (fit_curve, 200
# x over the fitted range, with its 95 % band), and GET
# /api/section/N/answers on a real `runner serve` returns those points,
# which are the function at the fitted parameters; the band equals the one
# the built-in model of the same formula gets from fit_band, point for
# point; `runner plot --fit` draws it too. A Lua fit that stored no curve
# (an older runner's) is named in the notes, not drawn; `runner rm` removes
# the stored curve with its fit.
. tests/e2e/lib.sh
. tests/e2e/serve_lib.sh
skip_without curl "curl drives the server"

script=$(write_script lua_fit.lua <<'LUA'
local rows = sweep("straggler", { base = 30, jitter = 2, trials = 50,
                   workers = { 1, 2, 4, 8, 16, 32, 64, 128, 256, 512 } }, { print = false })
local f = assert(fit { rows = rows, x = "workers", y = "round_s", name = "walk_lua",
  model = function(x, p) return p.base / x + p.J * x / (x + 1) end,
  params = { base = 20, J = 1 } })
printf("lua fit %d %.17g %.17g\n", f.id, f.base.value, f.J.value)
assert(fit { rows = rows, x = "workers", y = "round_s", model = "walkthrough" })
LUA
)
run "$RUNNER" sweep "$script" --db "$DB" --quiet
expect_status 0
lua_id=$(sql "SELECT id FROM fit WHERE model = 'walk_lua'")
section=$(sql "SELECT section_id FROM fit WHERE id = $lua_id")
# The curve: 200 x from the smallest to the largest fitted, log-spaced
# (1 to 512 spans more than a factor of 10); none for the built-in model.
expect_sql "SELECT count(*), min(position), max(position), min(x), max(x) FROM fit_curve
    WHERE fit_id = $lua_id" "200|1|200|1.0|512.0"
expect_sql "SELECT count(*) FROM fit_curve WHERE fit_id <> $lua_id" "0"
expect_sql "SELECT count(*) FROM fit_curve a JOIN fit_curve b ON b.fit_id = a.fit_id
    AND b.position = a.position + 1 WHERE NOT (b.x > a.x AND a.ci_low < a.fitted
    AND a.fitted < a.ci_high)" "0"

# runner plot --fit draws it too (it refused a Lua model before).
run "$RUNNER" plot 1 --db "$DB" --fit "$lua_id" --logx -o "$TMP/fit.svg"
expect_status 0
grep -q "walk_lua fit $lua_id" "$TMP/fit.svg" || fail "plot --fit: no walk_lua curve in the SVG"

start_serve
expect_code "api/section/$section/answers" 200
expect_equal "both fits listed" "$(python3 -c 'import json,sys; print(sorted(f["model"] for f in json.load(open(sys.argv[1]))["fits"]))' "$TMP/body")" \
    "['walk_lua', 'walkthrough']"
expect_code "api/section/$section/answers?x=workers&y=round_s" 200
python3 - "$TMP/body" >"$TMP/answers.out" <<'PY' || fail "the Lua fit's curve: $(cat "$TMP/answers.out")"
import json, math, sys
d = json.load(open(sys.argv[1]))
assert d["notes"] == [], d["notes"]
fits = {f["model"]: f for f in d["fits"]}
lua, builtin = fits["walk_lua"], fits["walkthrough"]
assert lua["formula"].startswith("Lua function at ") and lua["formula"].endswith("lua_fit.lua:4"), lua["formula"]
assert lua["band_note"] is None, lua["band_note"]
pts = lua["points"]
assert len(pts) == 200 and all(len(p) == 4 and lo < v < hi for p in pts for _, v, lo, hi in [p]), pts[:3]
p = {q["name"]: q["value"] for q in lua["params"]}
assert all(abs(v - (p["base"] / x + p["J"] * x / (x + 1))) <= 1e-9 * abs(v) for x, v, _, _ in pts)
# The built-in walkthrough's curve of the same rows, at 400 x on the same
# log scale, interpolated (in ln x) at the Lua curve's x: the same values
# and the same band (the Lua fit's gradients are central differences, its
# Jacobian GSL's forward differences).
b = builtin["points"]
assert len(b) == 400
def at(x, k):
    i = max(j for j in range(len(b) - 1) if b[j][0] <= x) if x < b[-1][0] else len(b) - 2
    (x0, *v0), (x1, *v1) = b[i], b[i + 1]
    w = (math.log(x) - math.log(x0)) / (math.log(x1) - math.log(x0))
    return v0[k] + w * (v1[k] - v0[k])
for x, v, lo, hi in pts:
    assert abs(v - at(x, 0)) <= 1e-4 * abs(v), (x, v, at(x, 0))
    half, builtin_half = (hi - lo) / 2, (at(x, 2) - at(x, 1)) / 2
    assert abs(half - builtin_half) <= 1e-3 * builtin_half, (x, half, builtin_half)
print("ok")
PY
stop_serve

# A Lua fit without a stored curve (as an older runner stored it): said in
# the notes, not drawn; the built-in fit still is.
sql "DELETE FROM fit_curve"
start_serve
expect_code "api/section/$section/answers?x=workers&y=round_s" 200
expect_equal "a Lua fit without its curve" "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print([f["model"] for f in d["fits"]], d["notes"])' "$TMP/body")" \
    "['walkthrough'] ['fit $lua_id: model walk_lua is not one this runner draws (amdahl, amdahl-time, gustafson, gustafson-time, usl, usl-time, walkthrough, alpha-beta, power or linear)']"
stop_serve

# runner rm takes the curve with the fit.
run "$RUNNER" sweep "$script" --db "$DB" --quiet
expect_status 0
expect_sql "SELECT count(*) FROM fit_curve" "200"
run "$RUNNER" rm 2 --db "$DB"
expect_status 0
expect_sql "SELECT count(*) FROM fit_curve" "0"
finish
