# A short fuzz run for CI (`make fuzz-smoke`): each libFuzzer harness of a
# RUNNER_FUZZ build fuzzes for SECONDS, both at once (one per core). The
# corpus in tests/fuzz/corpus/<harness>/ is read, never written: new inputs
# and crash artifacts go to BUILD/tests/fuzz/smoke/<harness>/. Exits non-zero
# when a harness found something, printing its report and the input to keep.
#
# usage: sh tests/fuzz/smoke.sh BUILD [SECONDS]
set -u
build=$(cd "$1" && pwd) || exit 2
seconds=${2:-60}
src=$(cd "$(dirname "$0")" && pwd)
out="$build/tests/fuzz/smoke"
harnesses="fuzz_script fuzz_param"

rm -rf "$out"
# fuzz_script's databases: in memory when /dev/shm is there, and removed
# afterwards even when a harness crashed.
scratch=$(mktemp -d /dev/shm/runner-fuzz-smoke.XXXXXX 2>/dev/null || mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export TMPDIR="$scratch"
for h in $harnesses; do
    mkdir -p "$out/$h/new" "$out/$h/artifacts" "$out/$h/cwd"
    # fuzz_script prints the runner's one-line errors on stderr for most
    # inputs: close it (libFuzzer keeps its own and the sanitizers' reports).
    quiet=""
    [ "$h" = fuzz_script ] && quiet="-close_fd_mask=2"
    dict=""
    [ -f "$src/$h.dict" ] && dict="-dict=$src/$h.dict"
    # fuzz_script also starts from the repository's own scripts, read in
    # place rather than copied into the corpus.
    seeds=""
    [ "$h" = fuzz_script ] && seeds="$src/../../scripts $src/../../docs/examples/amdahl"
    # From a scratch directory: plot() writes below the current one. Exit
    # status 86 is fuzz_script's "runner's watchdog ended a stuck input"
    # (documented behaviour, the input kept as artifacts/stuck-*): fuzz on
    # in a new process for the time left, from the corpus grown so far.
    (cd "$out/$h/cwd" || exit
     start=$(date +%s)
     left=$seconds
     restarts=0
     while :; do
         "$build/tests/fuzz/$h" -max_total_time="$left" -timeout=30 -rss_limit_mb=2048 \
             -print_final_stats=1 -artifact_prefix="$out/$h/artifacts/" $quiet $dict \
             "$out/$h/new" "$src/corpus/$h" $seeds >>"$out/$h/log" 2>&1
         status=$?
         left=$((seconds - ($(date +%s) - start)))
         [ "$status" = 86 ] && [ "$left" -gt 5 ] && [ "$restarts" -lt 20 ] || break
         restarts=$((restarts + 1))
     done
     [ "$status" = 86 ] && status=0
     echo "$restarts" >"$out/$h/restarts"
     echo "$status" >"$out/$h/status") &
done
wait

failed=0
for h in $harnesses; do
    status=$(cat "$out/$h/status")
    # Summed over the processes (one unless a stuck input restarted it).
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/$h/log" | awk '{ n += $1 } END { print n }')
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$out/$h/log" | tail -n 1)
    added=$(sed -n 's/^stat::new_units_added: *//p' "$out/$h/log" | awk '{ n += $1 } END { print n }')
    cov=$(grep -o 'cov: [0-9]*' "$out/$h/log" | tail -n 1)
    if [ "$status" = 0 ]; then
        echo "fuzz-smoke: $h: ${runs:-?} inputs in ${seconds} s (${rate:-?}/s), $cov, ${added:-0} new"
        for a in "$out/$h/artifacts"/stuck-*; do
            [ -e "$a" ] && echo "fuzz-smoke: $h: runner's watchdog ended a stuck script (as documented); fuzzed on in a new process; the input: $a"
        done
    else
        failed=$((failed + 1))
        echo "fuzz-smoke: $h FAILED (exit status $status); its log ends:" >&2
        tail -n 60 "$out/$h/log" >&2
        for a in "$out/$h/artifacts"/*; do
            [ -e "$a" ] && echo "fuzz-smoke: reproduce with: $build/tests/fuzz/$h $a" >&2
        done
    fi
done
passed=$(( $(echo $harnesses | wc -w) - failed ))
echo "fuzz-smoke: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
