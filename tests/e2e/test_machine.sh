#!/bin/sh
# The machine a sweep ran on: recorded per sweep (sweep_machine), shown by
# show --provenance and the dashboard's API, compared by diff, judged by
# runner machine and by a measured sweep's one-line warning. Two machines
# are simulated with RUNNER_MACHINE_ROOT (a tree posing as /proc and /sys;
# test only): A tuned (performance, turbo off, idle), B the same but on
# powersave and with another load.
. tests/e2e/lib.sh
. tests/e2e/serve_lib.sh

# make_machine DIR GOVERNOR LOADAVG
make_machine() {
    mkdir -p "$1/proc/sys/kernel" "$1/sys/devices/system/cpu/intel_pstate" \
        "$1/sys/devices/system/cpu/cpu0/cpufreq" "$1/sys/devices/system/cpu/cpu1/cpufreq"
    printf 'processor\t: 0\nmodel name\t: Test CPU @ 3.00GHz\n' >"$1/proc/cpuinfo"
    printf 'MemTotal:        8000000 kB\n' >"$1/proc/meminfo"
    printf '%s 1/100 4242\n' "$3" >"$1/proc/loadavg"
    echo Linux >"$1/proc/sys/kernel/ostype"
    echo 6.1.0-test >"$1/proc/sys/kernel/osrelease"
    echo 0 >"$1/proc/sys/kernel/randomize_va_space"
    echo 0-1 >"$1/sys/devices/system/cpu/online"
    echo "$2" >"$1/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"
    echo "$2" >"$1/sys/devices/system/cpu/cpu1/cpufreq/scaling_governor"
    echo 1 >"$1/sys/devices/system/cpu/intel_pstate/no_turbo"
}
make_machine "$TMP/a" performance "0.00 0.00 0.00"
make_machine "$TMP/b" powersave "0.10 0.05 0.01"

# runner machine: fit (exit 0), not fit (exit 1), bad input (exit 2).
run env RUNNER_MACHINE_ROOT="$TMP/a" "$RUNNER" machine
expect_status 0
expect_stdout_contains "governor         performance"
expect_stdout_contains "fit to measure on (give --jobs N to judge a sweep's)"
awk 'length > 80 { exit 1 }' "$TMP/out" || fail "runner machine prints a line past 80 columns"
run env RUNNER_MACHINE_ROOT="$TMP/a" "$RUNNER" machine --jobs 4
expect_status 1
expect_stdout_contains "noisy: --jobs 4 runs more points at once than the 2 cores online"
expect_stdout_contains "  do: --jobs 2 or fewer (a command's jobs = 1 runs its points alone)"
expect_stdout_contains "not fit to measure on: 1 thing above makes timings noisy"
run env RUNNER_MACHINE_ROOT="$TMP/b" "$RUNNER" machine
expect_status 1
expect_stdout_contains "noisy: the CPU frequency governor is powersave, not performance: the clock"
expect_stdout_contains "  do: sudo cpupower frequency-set -g performance"
awk 'length > 80 { exit 1 }' "$TMP/out" || fail "runner machine prints a line past 80 columns"
run "$RUNNER" machine extra
expect_status 2
expect_stderr "runner: machine: unexpected argument 'extra'; see 'runner --help'"
run "$RUNNER" machine --jobs 0
expect_status 2
expect_stderr "runner: --jobs 0: expected a number of threads between 1 and 1024; see 'runner --help'"

# Three sweeps of a measured command (repeats = 3), two sections each: on
# A, on B, on A again (only the load differs from the first).
script=$(write_script timed.lua <<'LUA'
command "timed" { argv = { "true" }, params = { k = { type = "integer" } }, repeats = 3 }
sweep("timed", { k = { 1, 2 } }, { print = false })
sweep("timed", { k = { 3 } }, { print = false })
LUA
)
run env RUNNER_MACHINE_ROOT="$TMP/a" "$RUNNER" sweep "$script" --db "$DB" --jobs 1
expect_status 0
expect_stderr "runner: sweep 1 stored in $DB: 3 points ok, 0 failed"
run env RUNNER_MACHINE_ROOT="$TMP/b" "$RUNNER" sweep "$script" --db "$DB" --jobs 1
expect_status 0
# warned once, at the first measured section, and the sweep went on
expect_equal "the warning" "$(head -n 1 "$TMP/err")" \
    "runner: warning: timings here may be noisy (governor powersave); 'runner machine' says what to do"
expect_equal "warnings" "$(grep -c 'warning' "$TMP/err")" 1
printf '0.15 0.50 0.20 1/100 4242\n' >"$TMP/a/proc/loadavg"
run env RUNNER_MACHINE_ROOT="$TMP/a" "$RUNNER" sweep "$script" --db "$DB" --jobs 1
expect_status 0
expect_stderr "runner: sweep 3 stored in $DB: 3 points ok, 0 failed"

# Stored: every field, load at the start and the end.
expect_sql "SELECT value FROM sweep_machine WHERE sweep_id = 1 AND field = 'governor'" performance
expect_sql "SELECT value FROM sweep_machine WHERE sweep_id = 2 AND field = 'governor'" powersave
expect_sql "SELECT value FROM sweep_machine WHERE sweep_id = 2 AND field = 'load_start'" "0.10 0.05 0.01"
expect_sql "SELECT value FROM sweep_machine WHERE sweep_id = 2 AND field = 'load_end'" "0.10 0.05 0.01"
expect_sql "SELECT group_concat(field, ',') FROM (SELECT field FROM sweep_machine WHERE sweep_id = 1 ORDER BY rowid)" \
    "cpu_model,cpus_online,governor,turbo,kernel,arch,libc,compiler,build_flags,memory_kib,aslr,sqlite,lua,gsl,libcurl_headers,load_start,load_end"
expect_sql "SELECT value FROM sweep_machine WHERE sweep_id = 1 AND field = 'sqlite'" \
    "$(sqlite3 :memory: 'SELECT sqlite_version()')"
expect_sql "SELECT value FROM sweep_machine WHERE sweep_id = 1 AND field = 'cpu_model'" "Test CPU @ 3.00GHz"

# show --provenance: the record, the plugin, the machine.
run "$RUNNER" show 2 --provenance --db "$DB"
expect_status 0
expect_stdout_contains "  governor         powersave"
expect_stdout_contains "  kernel           Linux 6.1.0-test"
expect_stdout_contains "  timed  command /"
run "$RUNNER" show 2 --provenance --db "$DB" --format csv
expect_status 0
expect_stdout_contains "machine,governor,powersave"
expect_stdout_contains "machine,load_end,0.10 0.05 0.01"
run "$RUNNER" show 2 --provenance --section 1 --db "$DB"
expect_status 2
expect_stderr "runner: show: --provenance prints the sweep's record, not a section's rows; drop --section; see 'runner --help'"

# diff names the differing fields; the load alone is no other machine.
run "$RUNNER" diff 1 2 --db "$DB" --tolerance 100
expect_status 0
expect_equal "diff's note" "$(tail -n 1 "$TMP/out")" \
    "note: sweeps 1 and 2 ran on different machines or settings: governor"
run "$RUNNER" diff 1 3 --db "$DB" --tolerance 100
expect_status 0
grep -q '^note:' "$TMP/out" && fail "diff 1 3 notes another machine: $(grep '^note:' "$TMP/out")"
run "$RUNNER" diff 1 2 --db "$DB" --stat
[ "$status" -le 1 ] || fail "diff --stat: exit $status: $(cat "$TMP/err")"
expect_equal "diff --stat's note" "$(tail -n 1 "$TMP/out")" \
    "note: sweeps 1 and 2 ran on different machines or settings: governor"
run "$RUNNER" diff 1 2 --db "$DB" --format csv --tolerance 100
expect_status 0
expect_stderr "note: sweeps 1 and 2 ran on different machines or settings: governor"
# A sweep of an older runner recorded nothing: diff says it cannot tell.
sql "DELETE FROM sweep_machine WHERE sweep_id = 3"
run "$RUNNER" diff 1 3 --db "$DB" --tolerance 100
expect_equal "diff's note" "$(tail -n 1 "$TMP/out")" \
    "note: sweep 3 recorded no machine (an older runner ran it): whether the two ran alike is not known"

# The dashboard's API: the facts in order, and what made timings noisy.
start_serve
http api/sweep/2
expect_equal "HTTP status" "$code" 200
expect_equal "the machine's governor" \
    "$(python3 -c 'import json,sys; m=json.load(open(sys.argv[1]))["machine"]; print([f["value"] for f in m["facts"] if f["field"] == "governor"][0], m["findings"][0]["noisy"], m["findings"][0]["advice"])' "$TMP/body")" \
    "powersave True sudo cpupower frequency-set -g performance"
http api/sweep/3
expect_equal "no machine recorded" \
    "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["machine"])' "$TMP/body")" \
    "{'facts': [], 'findings': []}"
stop_serve
finish
