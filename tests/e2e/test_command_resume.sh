# Command experiments stop and resume like plugin sweeps: Ctrl-C kills the
# running commands' process groups and leaves the sweep resumable; after
# kill -9 a resume runs only the points that were not stored.
. tests/e2e/lib.sh
cat >"$TMP/slow.sh" <<SH
#!/bin/sh
# Point i: waits for $TMP/go.i when it exists as a gate, else goes on.
sleep 300 &
echo \$! >"$TMP/child.\$1"
# A slow point makes its batch older than the writer's 0.2 s bound
# (store_write.c), so the batch commits when the point is written. This is
# not a wait for a state: a loaded machine only makes the batch older, and
# the test then waits on the committed points themselves (wait_until).
[ -e "$TMP/slow.\$1" ] && sleep 0.3
[ -e "$TMP/gate.\$1" ] && while [ ! -e "$TMP/go.\$1" ]; do sleep 0.02; done
kill \$! 2>/dev/null
echo "{\"v\": \$((\$1 * 10))}"
SH
chmod +x "$TMP/slow.sh"
script=$(write_script slow.lua <<LUA
command "slow" { argv = { "$TMP/slow.sh", "{i}" },
  params = { i = { type = "integer", min = 0, max = 100 } },
  columns = { { name = "v", type = "integer" } } }
sweep("slow", { i = range(0, 7) }, { print = false })
LUA
)

# Ctrl-C while point 3 waits at its gate: runner kills its group and exits
# 130; the sweep is interrupted, points 0-2 are stored, point 3 is not.
touch "$TMP/gate.3"
"$RUNNER" sweep "$script" --db "$DB" --quiet --jobs 1 >/dev/null 2>"$TMP/err" &
pid=$!
wait_until "point 3 to start" '[ -s "$TMP/child.3" ] || ! alive $pid'
child=$(cat "$TMP/child.3")
kill -INT $pid
wait_exit $pid
status=$?
expect_status 130
wait_until "point 3's process group to die" '! alive $child'
expect_sql "SELECT status FROM sweep" "interrupted"
expect_sql "SELECT group_concat(i) FROM slow" "0,1,2"
touch "$TMP/go.3"
run "$RUNNER" sweep "$script" --db "$DB" --resume --quiet
expect_status 0
expect_stderr_contains "5 points ok, 0 failed, 3 already stored"
expect_sql "SELECT count(*), status FROM sweep" "1|ok"
expect_sql "SELECT group_concat(v) FROM (SELECT v FROM slow ORDER BY i)" "0,10,20,30,40,50,60,70"

# kill -9 once point 5 waits at its gate (points 0-4 committed: point 4
# is slow, and a slow point commits its batch at once), then resume: 0-4
# are not run again.
rm -f "$DB" "$DB-wal" "$DB-shm" "$TMP"/child.* "$TMP"/gate.* "$TMP"/go.*
touch "$TMP/gate.5" "$TMP/slow.4"
"$RUNNER" sweep "$script" --db "$DB" --quiet --jobs 1 >/dev/null 2>&1 &
pid=$!
wait_until "point 5 to start" '[ -s "$TMP/child.5" ] || ! alive $pid'
wait_until "points 0 to 4 committed" \
    '[ "$(db_count "$DB" "SELECT count(*) FROM point")" -ge 5 ] || ! alive $pid'
kill -9 $pid
wait_exit $pid 2>/dev/null
# A process group that outlives runner's kill -9 is the user's to clean:
# runner cannot act after SIGKILL. Kill it here so the test leaves nothing.
kill -9 -"$(ps -o pgid= -p "$(cat "$TMP/child.5")" | tr -d ' ')" 2>/dev/null
rm -f "$TMP"/child.*
touch "$TMP/go.5"
run "$RUNNER" sweep "$script" --db "$DB" --resume --quiet
expect_status 0
expect_stderr_contains "3 points ok, 0 failed, 5 already stored"
for i in 0 1 2 3 4; do
    [ ! -e "$TMP/child.$i" ] || fail "point $i ran again after the resume"
done
expect_sql "SELECT count(*), sum(status = 'ok') FROM point" "8|8"
expect_sql "SELECT group_concat(v) FROM (SELECT v FROM slow ORDER BY i)" "0,10,20,30,40,50,60,70"
finish
