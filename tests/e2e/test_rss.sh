# The natural script keeps memory bounded: sweep() returns a view of the
# stored rows, not a copy, so reading every row (ipairs, #rows, rows[i],
# report.find) at 2 x 10^5 points peaks at about the RSS of 2 x 10^4 points.
# Peak RSS is /usr/bin/time's %M (the kernel's maxrss), read at exit.
. tests/e2e/lib.sh

[ -x /usr/bin/time ] || { echo "skip: /usr/bin/time is not installed"; exit 77; }

# natural JITTERS: a script that sweeps 1000 x JITTERS points the way the
# examples do (no options) and reads every row back.
natural() {
    write_script "natural_$1.lua" <<LUA
local report = require("report")
local rows = sweep("speedup", {workers = range(1, 1000), jitter = linspace(0.5, 2, $1)})
local n, sum = 0, 0
for _, r in ipairs(rows) do n = n + 1 sum = sum + r.workers end
assert(n == #rows and math.type(rows[n].workers) == "integer")
printf("rows %d, sum %d, last %d\n", #rows, sum, rows[#rows].workers)
printf("found %d\n", report.find(rows, {workers = 500, jitter = 2.0}).workers)
LUA
}

# peak_kb JITTERS: runs the natural script and checks what it printed; sets
# peak to its peak RSS in kB. Not called inside $(...): its checks' failures
# would be counted in a subshell and lost.
peak_kb() {
    script=$(natural "$1")
    rm -f "$DB" "$DB-wal" "$DB-shm"
    run /usr/bin/time -f "%M" -o "$TMP/rss_$1" "$RUNNER" sweep "$script" --db "$DB" --jobs 1 \
        --quiet
    expect_status 0
    expect_stdout_contains "rows $(($1 * 1000)), sum $(($1 * 500500)), last 1000"
    expect_stdout_contains "found 500"
    # The printed table stays bounded too.
    expect_stdout_contains "... $(($1 * 1000 - 200)) more rows (all are stored: runner show prints them)"
    peak=$(tail -n 1 "$TMP/rss_$1")
}

peak_kb 20
small=$peak
peak_kb 200
large=$peak
echo "peak RSS: $small kB at 2e4 points, $large kB at 2e5 points"
# AddressSanitizer keeps freed memory in quarantine (256 MB by default) and
# adds shadow memory, so a sanitized build's RSS says nothing about runner's:
# there the functional checks above run, the bounds below are the normal
# build's.
if grep -qa __asan_init "$RUNNER"; then
    echo "RSS bounds not checked: $RUNNER is built with AddressSanitizer"
    finish
fi
# Before the view, 2e5 rows held in Lua peaked near 270 MB (10x the 2e4 run).
if [ $((large * 2)) -ge $((small * 3)) ]; then
    fail "peak RSS grew from $small kB to $large kB (more than 1.5x) for 10x the points"
fi
if [ "$large" -ge $((64 * 1024)) ]; then
    fail "peak RSS at 2e5 points is $large kB, not under 64 MB"
fi
finish
