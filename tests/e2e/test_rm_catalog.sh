# runner rm leaves nothing of a sweep behind, in any table the store
# creates, read from the catalog itself (sqlite_master), not from a list
# kept by hand: a table added without teaching rm fails here. The sweeps
# fill every kind of row runner stores — points and their result rows, a
# command's runs, series and system samples, artifacts, the machine, tags,
# a note, fits with curves, a front, diff --stat's rows — then all are
# removed and each table must hold no row of them.
. tests/e2e/lib.sh

cat >"$TMP/prog.sh" <<'SH'
i=0
while [ $i -lt 3 ]; do
    echo "RUNNER_SERIES {\"step\": $i, \"loss\": $((10 - i))}"
    i=$((i + 1))
done
echo "score=$((RUNNER_PARAM_SIZE * 3 + $(od -An -N1 -tu1 /dev/urandom) % 2))"
SH
script=$(write_script every.lua <<LUA
command { name = "prog", argv = { "sh", "$TMP/prog.sh" },
  params = { size = { type = "integer", default = 1 } },
  columns = { { name = "score", type = "real" } },
  output = "keyvalue", repeats = 3, warmup = 1, jobs = 1 }
sweep("prog", { size = { 1, 2, 4, 8 } }, { print = false })
local rows = sweep("speedup", { workers = { 1, 2, 4, 8, 16 }, jitter = { 0.5, 1 } }, { print = false })
fit { rows = rows, x = "workers", y = "speedup", name = "line",
      model = function(x, p) return p.a * x end, params = { a = 1 } }
LUA
)
for i in 1 2; do
    run "$RUNNER" sweep "$script" --db "$DB" --quiet --tag t$i --note "note $i"
    expect_status 0
done
run "$RUNNER" fit 1 --section 2 --x workers --y speedup --model amdahl --by jitter --db "$DB"
expect_status 0
run "$RUNNER" pareto 1 --section 2 --min round_s --max speedup --db "$DB"
expect_status 0
run "$RUNNER" diff 1 2 --stat --columns score --db "$DB"
[ "$status" -le 1 ] || fail "diff --stat exit $status: $(cat "$TMP/err")"

# Every table with rows now, as the catalog lists them.
tables=$(sqlite3 -batch "$DB" "SELECT name FROM sqlite_master WHERE type = 'table'
    AND name NOT LIKE 'sqlite_%' ORDER BY name")
filled=""
for t in $tables; do
    n=$(sqlite3 -batch "$DB" "SELECT count(*) FROM \"$t\"")
    [ "$n" -gt 0 ] && filled="$filled $t"
done
# What this test must reach for its check to mean something.
for t in point_block section sweep_plugin sweep_tag command_run series point_system \
    sweep_machine artifact fit fit_param fit_curve pareto stat_diff stat_diff_row prog speedup; do
    case " $filled " in
        *" $t "*) ;;
        *) fail "the sweeps left table $t empty: the test no longer reaches it" ;;
    esac
done

run "$RUNNER" rm 1 2 --db "$DB"
expect_status 0
# Kept across sweeps by design: the plugins' column documentation, the id
# high-water marks (ids are never reused), and point_once of no section.
for t in $tables; do
    case "$t" in
        plugin_column | id_high_water) continue ;;
    esac
    n=$(sqlite3 -batch "$DB" "SELECT count(*) FROM \"$t\"")
    [ "$n" = 0 ] || fail "runner rm left $n row(s) in $t: teach store_manage.c's delete lists (docs/schema.md, Deleting sweeps)"
done
finish
