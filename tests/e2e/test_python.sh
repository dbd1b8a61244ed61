# The Python module runner_db (python/runner_db, docs/python.md) on a real
# database: installed by cmake --install where Debian's python3 finds it and
# finding the runner installed beside it; selectors resolved by `runner
# sweeps --select` with runner's own refusals; a section as rows (without
# pandas) and as a DataFrame with units (Debian's python3-pandas); the
# provenance; the fit tables, checked against SQL.
. tests/e2e/lib.sh
PY=/usr/bin/python3 # Debian's, where python3-pandas installs
[ -x "$PY" ] || PY=$(command -v python3) || skip_missing python3 "no python3 (apt-get install python3)"
"$PY" -c 'import pandas' 2>/dev/null ||
    skip_missing python3-pandas "no pandas for $PY (apt-get install python3-pandas)"

run "$RUNNER" sweep scripts/jitter.lua --db "$DB" --quiet --name jit
expect_status 0
run "$RUNNER" fit last --db "$DB" --x workers --y round_s --model walkthrough --by jitter
expect_status 0

# runner sweeps --select: one sweep, as every SWEEP argument picks it.
run "$RUNNER" sweeps --db "$DB" --select jitter.lua --format csv
expect_status 0
expect_equal "sweeps --select's ids" "$(cut -d, -f1,2 "$TMP/out")" "id,name
1,jit"
run "$RUNNER" sweeps --db "$DB" --select 9
expect_status 2
expect_stderr "runner: $DB: no sweep 9; 'runner sweeps' lists them"
run "$RUNNER" sweeps --db "$DB" --select 'a b'
expect_status 2
expect_stderr_contains "runner: sweeps: 'a b' is not a sweep selector"

# Installed: the module lands in a directory Debian's python3 searches for
# this prefix, and finds the runner installed beside it without PATH.
run cmake --install "$RUNNER_BUILD" --prefix "$TMP/prefix"
expect_status 0
PYDIR=$(sed -n 's/^RUNNER_PYTHON_INSTALL_DIR:STRING=//p' "$RUNNER_BUILD/CMakeCache.txt")
[ -f "$TMP/prefix/$PYDIR/runner_db/__init__.py" ] || fail "runner_db not installed in $PYDIR"
PREFIX=$(sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p' "$RUNNER_BUILD/CMakeCache.txt")
if [ "$PY" = /usr/bin/python3 ] && { [ "$PREFIX" = /usr/local ] || [ "$PREFIX" = /usr ]; }; then
    "$PY" -c 'import sys; sys.exit(0 if sys.argv[1] in sys.path else 1)' "$PREFIX/$PYDIR" ||
        fail "$PREFIX/$PYDIR is not on $PY's sys.path"
fi
run env -u RUNNER_BIN PATH=/usr/bin:/bin PYTHONPATH="$TMP/prefix/$PYDIR" "$PY" -c '
import runner_db, sys
print(runner_db.find_runner())
print(runner_db.open(sys.argv[1]).sweep("jit").id)' "$DB"
expect_status 0
expect_equal "the installed module's runner and sweep" "$(cat "$TMP/out")" "$TMP/prefix/bin/runner
1"

# From the source tree, without a runner anywhere: one clear exception.
run env -u RUNNER_BIN PATH=/usr/bin:/bin PYTHONPATH=python "$PY" -c '
import runner_db, sys
try:
    runner_db.open(sys.argv[1]).sweep("last")
except runner_db.RunnerNotFound as e:
    print(e)' "$DB"
expect_status 0
expect_equal "no runner" "$(cat "$TMP/out")" "runner_db: cannot find the runner program (looked at runner on PATH); install runner, put it on PATH, set RUNNER_BIN or pass runner=PATH"

cat >"$TMP/check.py" <<'PY'
import math, sqlite3, sys
want_pandas = sys.argv[3] == "pandas"
if not want_pandas:
    sys.modules["pandas"] = None  # import pandas fails, as on a machine without it
import runner_db

db = runner_db.open(sys.argv[1], runner=sys.argv[2])
sql = sqlite3.connect(sys.argv[1])
sweep = db.sweep("jit")
assert sweep.id == 1 and sweep.info["script"] == "scripts/jitter.lua", sweep.info
assert db.sweep("last").id == 1 and db.sweep(1).id == 1 and db.sweep("jitter.lua").id == 1
for bad, line in (("nope", "runner: %s: no sweep matches 'nope'; 'runner sweeps' lists them" % sys.argv[1]),
                  ("a b", "runner: sweeps: 'a b' is not a sweep selector")):
    try:
        db.sweep(bad)
        raise AssertionError("sweep(%r) did not raise" % bad)
    except runner_db.RunnerError as e:
        assert str(e).startswith(line), str(e)

section = sweep.section(1)
assert section.plugin == "speedup" and section.point_count == 24, section
rows = section.rows()
stored = sql.execute("SELECT row_id, workers, round_s, karp_flatt FROM speedup ORDER BY row_id").fetchall()
assert [(r["row_id"], r["workers"], r["round_s"]) for r in rows] == [s[:3] for s in stored]
# NaN is stored as the text 'NaN' and comes back a float NaN.
assert stored[0][3] == "NaN" and math.isnan(rows[0]["karp_flatt"]), rows[0]
units = section.units()
assert units["round_s"] == "s" and units["workers"] == "workers" and units["speedup"] == ""
assert "sweep_id" not in rows[0] and list(rows[0])[:5] == ["row_id", "point_id", "base", "jitter", "workers"]

prov = sweep.provenance()
assert prov["script_path"] == "scripts/jitter.lua" and prov["status"] == "ok", prov
assert prov["plugins"][0]["plugin"] == "speedup" and len(prov["plugins"][0]["so_sha256"]) == 64
assert isinstance(prov["options"], dict) and prov["overrides"] == {}

fits = sweep.fits()
assert [f.id for f in fits] == [1, 2, 3] and fits[0].model == "walkthrough"
value, low, high = fits[1].value("J")
assert abs(value - 1.0) < 1e-9 and low <= 1.0 <= high, (value, low, high)
assert [p["name"] for p in fits[0].params()] == ["base", "J", "t1", "ceiling"]
assert len(fits[0].residuals()) == 8 and db.fit(2).info["by_value"] == 1.0
assert sweep.fits(section=2) == []

if want_pandas:
    frame = section.frame()
    assert frame.shape == (24, 25), frame.shape
    assert frame.attrs["units"]["round_s"] == "s" and frame.attrs["plugin"] == "speedup"
    assert frame["round_s"].tolist() == [s[2] for s in stored]
    assert frame["karp_flatt"].isna().sum() == 3
    params = fits[0].params_frame()
    assert params.loc[params["name"] == "ceiling", "value"].iloc[0] == fits[0].value("ceiling")[0]
    assert fits[0].residuals_frame().attrs["units"]["y"] == "s"
else:
    try:
        section.frame()
        raise AssertionError("frame() without pandas did not raise")
    except runner_db.RunnerError as e:
        assert str(e) == ("runner_db: pandas is not installed (apt-get install python3-pandas); "
                          "rows() gives the same data as dicts"), str(e)
print("ok", sys.argv[3])
PY
for mode in pandas rows; do
    run env PYTHONPATH=python "$PY" "$TMP/check.py" "$DB" "$RUNNER" "$mode"
    expect_status 0
    expect_equal "python checks ($mode)" "$(cat "$TMP/out")" "ok $mode"
done

# Read-only: the module never writes (the file is unchanged, even its mtime).
before=$(sha256sum "$DB")
run env PYTHONPATH=python RUNNER_BIN="$RUNNER" "$PY" -c 'import runner_db, sys; runner_db.open(sys.argv[1]).sweep("last").section(1).rows()' "$DB"
expect_status 0
expect_equal "the database after reading" "$(sha256sum "$DB")" "$before"
run env PYTHONPATH=python "$PY" -c '
import runner_db, sys
try:
    runner_db.open(sys.argv[1])
except runner_db.RunnerError as e:
    print(e)' "$TMP/missing.db"
expect_equal "a missing file" "$(cat "$TMP/out")" "runner_db: $TMP/missing.db: no such database file"

# runner_db.frame: one call, one or several sweeps stacked, sweep_id and
# sweep_name first, units in attrs; ids and names without the runner
# program (PATH without it, no RUNNER_BIN), the other selectors with it.
run "$RUNNER" sweep scripts/jitter.lua --db "$DB" --quiet --set jitters=2,0.25 --name quarter
expect_status 0
cat >"$TMP/frame.py" <<'PY'
import sqlite3, sys
import runner_db
db = sys.argv[1]
f = runner_db.frame(db, ["jit", 2])
con = sqlite3.connect(db)
want = con.execute("SELECT count(*) FROM speedup WHERE sweep_id IN (1, 2)").fetchone()[0]
assert len(f) == want == 40, (len(f), want)
assert list(f.columns[:4]) == ["sweep_id", "sweep_name", "row_id", "point_id"], list(f.columns)
assert list(f.groupby("sweep_id").size()) == [24, 16]
assert sorted(f["sweep_name"].unique()) == ["jit", "quarter"]
assert f.attrs["units"]["round_s"] == "s" and f.attrs["sweeps"] == [1, 2], f.attrs
assert f.loc[f.sweep_id == 2, "jitter"].nunique() == 2
assert len(runner_db.frame(db, "2", section=1)) == 16
with runner_db.open(db) as opened:
    assert len(opened.frame("quarter")) == 16
for bad, line in [("nope", "runner: %s: no sweep matches 'nope'; 'runner sweeps' lists them" % db),
                  (9, "runner: %s: no sweep 9; 'runner sweeps' lists them" % db)]:
    try:
        runner_db.frame(db, bad)
        raise AssertionError("frame(%r) did not raise" % bad)
    except runner_db.RunnerError as e:
        assert str(e) == line, str(e)
try:
    runner_db.frame(db, 1, section=2)
    raise AssertionError("section 2 did not raise")
except runner_db.RunnerError as e:
    assert str(e) == "runner_db: sweep 1 has no section 2 (it has 1)", str(e)
if sys.argv[2] == "without":
    try:
        runner_db.frame(db, "last")
        raise AssertionError("last without runner did not raise")
    except runner_db.RunnerNotFound as e:
        assert str(e).startswith("runner_db: 'last' is resolved by the runner program (an id "
                                 "or a name is not): cannot find the runner program"), str(e)
else:
    assert list(runner_db.frame(db, "last").sweep_id.unique()) == [2]
    assert len(runner_db.frame(db, {"script": "scripts/jitter.lua"})) == 40
print("ok")
PY
run env -u RUNNER_BIN PATH=/usr/bin:/bin PYTHONPATH=python "$PY" "$TMP/frame.py" "$DB" without
expect_status 0
expect_equal "frame without the runner program" "$(cat "$TMP/out")" "ok"
run env RUNNER_BIN="$RUNNER" PYTHONPATH=python "$PY" "$TMP/frame.py" "$DB" with
expect_status 0
expect_equal "frame with the runner program" "$(cat "$TMP/out")" "ok"
finish
