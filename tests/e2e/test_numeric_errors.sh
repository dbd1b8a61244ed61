# One error discipline for the numerical code (docs/guarantees.md,
# "Numbers"): GSL's aborting handler is off for the whole process, and the
# statistics are computed scale-safe, so samples of any finite magnitude
# compare with an answer (never SIGABRT, exit 134) and fits of extreme
# data fail with one line, exit 2.
. tests/e2e/lib.sh

# values_script VALUES: a script whose points print VALUES (comma-separated)
# as repeats of time_s; the points are the same whatever VALUES.
values_script() {
    write_script values.lua <<LUA
command { name = "values", argv = { "sh", "-c", 'IFS=,; for v in \$1; do echo "time_s=\$v"; done', "values", "$1" },
  params = { x = { type = "real", default = 1 } },
  columns = { { name = "time_s", type = "real", unit = "s" } },
  output = "keyvalue" }
sweep("values", { x = { 1, 2, 3, 4 } }, { print = false })
LUA
}
# compare A B: sweeps of the two samples, then diff --stat of the pair.
n=0
compare() {
    "$RUNNER" sweep "$(values_script "$1")" --db "$DB" --quiet 2>/dev/null
    "$RUNNER" sweep "$(values_script "$2")" --db "$DB" --quiet 2>/dev/null
    n=$((n + 2))
    run "$RUNNER" diff $((n - 1)) $n --stat --db "$DB" --format csv
}
compare "1e100,1,2,3" "1e100,1,2,3"
expect_status 0
expect_stdout_contains "2.5e+99"
compare "1e100,1,2,3" "1,2,3,4"
[ "$status" -le 1 ] || fail "diff --stat of 1e100 against 1: status $status"
compare "1e200,3e200,2e200" "1e200,3e200,2.2e200"
expect_status 0
compare "1e-200,3e-200,2e-200" "1e-200,3e-200,2.1e-200"
expect_status 0
compare "1e308,-1e308,1e308" "1,2,3"
[ "$status" -le 1 ] || fail "diff --stat of 1e308s: status $status"
compare "1e300,1e300,1e300" "1e300,1e300,1e300"
expect_status 0
expect_stdout_contains "no significant change"
expect_sql "PRAGMA integrity_check" "ok"

# A fit whose data overflow the model: one line, exit 2, never an abort.
for values in "1e300,1e300,1e300" "1e-300,2e-300,3e-300" "1e200,-1e200,1e200"; do
    "$RUNNER" sweep "$(values_script "$values")" --db "$DB" --quiet 2>/dev/null
    n=$((n + 1))
    for model in linear power amdahl usl; do
        run "$RUNNER" fit $n --x x --y time_s --model $model --db "$DB"
        [ "$status" -le 2 ] || fail "fit --model $model of $values: status $status"
    done
done
finish
