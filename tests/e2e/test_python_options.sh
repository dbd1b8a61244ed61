# The Python module passes on as command-line flags only the options it
# documents (docs/python.md): db.sweeps(...) and frame(db, {...}) take the
# `runner sweeps` filters name, script, tag, status, plugin, since, until;
# any other keyword raises TypeError naming it, and runner is not run.
. tests/e2e/lib.sh
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3) || skip_missing python3 "no python3 (apt-get install python3)"
script=$(write_script p.lua <<'LUA'
sweep("speedup", { workers = { 1, 2 } }, { print = false })
LUA
)
"$RUNNER" sweep "$script" --db "$DB" --name base --quiet 2>/dev/null || fail "sweep failed"
# A runner that records being run: none of the refused calls may reach it.
cat >"$TMP/spy" <<SPY
#!/bin/sh
echo "\$@" >>"$TMP/spied"
exec "$PWD/$RUNNER" "\$@"
SPY
case $RUNNER in /*) sed -i "s|$PWD/$RUNNER|$RUNNER|" "$TMP/spy" ;; esac
chmod +x "$TMP/spy"
for kw in "db='$TMP/other.db'" "format='csv'" "select='1'" "wide=True" "help=True" "Name='x'"; do
    run env PYTHONPATH="$PWD/python" RUNNER_BIN="$TMP/spy" "$PY" -c "
import runner_db
db = runner_db.open('$DB')
try:
    db.sweeps($kw)
except TypeError as e:
    print(e)
try:
    runner_db.frame(db, dict([('${kw%%=*}', ${kw#*=})]))
except TypeError as e:
    print(e)"
    expect_status 0
    expect_equal "sweeps($kw)" "$(head -n 1 "$TMP/out")" \
        "sweeps() got an unexpected keyword argument '${kw%%=*}' (the filters are name, script, tag, status, plugin, since, until)"
    expect_equal "frame(db, {$kw})" "$(sed -n 2p "$TMP/out")" "$(head -n 1 "$TMP/out")"
done
# history(...) takes the same filters, and refuses the rest the same way.
run env PYTHONPATH="$PWD/python" RUNNER_BIN="$TMP/spy" "$PY" -c "
import runner_db
try:
    runner_db.history('$DB', 'speedup', format='csv')
except TypeError as e:
    print(e)"
expect_status 0
expect_equal "history(format=)" "$(cat "$TMP/out")" "history() got an unexpected keyword argument 'format' (the filters are name, script, tag, status, plugin, since, until)"
[ ! -e "$TMP/spied" ] || fail "runner was run with: $(cat "$TMP/spied")"
run env PYTHONPATH="$PWD/python" RUNNER_BIN="$TMP/spy" "$PY" -c "
import runner_db
print([s['name'] for s in runner_db.open('$DB').sweeps(name='base', status='ok')])"
expect_status 0
expect_equal "sweeps(name=, status=)" "$(cat "$TMP/out")" "['base']"
grep -q -- "--name base --status ok" "$TMP/spied" || fail "the filters were not passed on"
finish
