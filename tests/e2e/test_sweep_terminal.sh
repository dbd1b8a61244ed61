# What a person sees at a terminal during a sweep: each section as
# `runner show` shows it (varying columns first, constants folded, fitted to
# the terminal's width), while a pipe keeps every column (test_seed.sh).
# script(1) gives the sweep a terminal of 80 columns.
. tests/e2e/lib.sh
skip_without script

COLUMNS=80 script -qec "$RUNNER sweep scripts/seed.lua --db $DB" /dev/null >"$TMP/tty" 2>&1
status=$?
[ "$status" = 0 ] || fail "the sweep at a terminal exited $status: $(cat "$TMP/tty")"
# The progress line is erased with CR and ESC[K; what stays is the rest.
sed 's/\r$//; s/.*\r//; s/\x1b\[K//g' "$TMP/tty" >"$TMP/out"

# Every line of a section fits in 80 columns, its title wrapped (the
# scripts' own "=>" sentences are theirs to wrap, and the last line names
# the database's path).
wide=$(grep -v '^=> \|^runner: sweep 1 stored in ' "$TMP/out" | awk 'length($0) > 80')
[ -z "$wide" ] || fail "lines wider than 80 columns at an 80-column terminal:
$wide"
expect_stdout_contains "2. Communication per round: parameter server vs ring all-reduce (1e6
  float32 parameters)"
# The columns left out are named, with the command that shows them.
expect_stdout_contains "  (3 more columns, runner show --wide shows them: max_delay_stderr_s, …)"
# A parameter constant over the section is folded above the table.
expect_stdout_contains "  copy_bytes = 48000000000 bytes"
# The stragglers' table leads with what varies: workers, then the results.
expect_stdout_contains "workers  compute_s [s]  max_delay_s [s]  max_delay_exact_s [s]"
# The same sweep's rows are stored as through a pipe.
expect_sql "SELECT count(*) FROM point" "18"
finish
