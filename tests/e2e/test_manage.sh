# Managing sweeps (issue 13): names, tags and notes; one selector grammar for
# every SWEEP; ids never given twice, even after a hand-written DELETE; the
# sweeps list and its filters; rm and vacuum; export and show --section; an
# empty --webhook; jitter.lua's printout of --set jitters=2,0.25.
. tests/e2e/lib.sh
export RUNNER_PLUGIN_PATH="$RUNNER_FIXTURES/good"
[ -r /proc/sys/kernel/random/boot_id ] && [ -r /proc/1/stat ] ||
    { echo "SKIP: no /proc here"; exit 77; }
SELECTORS="give an id, last, last~N, a name, a script (FILE.lua or a path), tag:T or plugin:P (docs/cli.md, \"Selecting sweeps\")"

two=$(write_script two.lua <<'LUA'
sweep("testkit", {x = {1, 2, 3}, rows = 2}, {print = false, title = "first"})
sweep("testkit", {x = {4, 5}, fail = {false, true}}, {print = false, title = "second"})
LUA
)
mkdir -p "$TMP/other"
cp "$two" "$TMP/other/two.lua"

# ---- 1. names, tags, notes -------------------------------------------------------
run "$RUNNER" sweep "$two" --db "$DB" --quiet --name baseline --tag nightly --tag v1 --note "first try"
expect_status 1
expect_sql "SELECT id, name, note FROM sweep" "1|baseline|first try"
expect_sql "SELECT group_concat(tag) FROM (SELECT tag FROM sweep_tag WHERE sweep_id = 1 ORDER BY tag)" "nightly,v1"
for bad in 42 last jitter.lua a/b tag:x "two words" _x; do
    run "$RUNNER" sweep "$two" --db "$DB" --name "$bad"
    expect_status 2
    expect_stderr "runner: --name '$bad': a sweep name starts with a letter, holds only letters, digits, '_', '-' and '.' (64 at most), is not 'last' and does not end in .lua"
done
run "$RUNNER" sweep "$two" --db "$DB" --tag "-x"
expect_status 2
expect_stderr "runner: --tag '-x': a tag starts with a letter or digit and holds only letters, digits, '_', '-' and '.' (64 at most)"
run "$RUNNER" sweep "$two" --db "$DB" --resume --name again
expect_status 2
expect_stderr "runner: --name, --tag and --note label a new sweep, not one --resume continues: use 'runner rename', 'runner tag' or 'runner note' on it; see 'runner --help'"
expect_sql "SELECT count(*) FROM sweep" "1"

run "$RUNNER" sweep "$TMP/other/two.lua" --db "$DB" --quiet --tag nightly
expect_status 1
run "$RUNNER" sweep scripts/jitter.lua --db "$DB" --quiet --set jitters=2,0.25
expect_status 0
expect_stdout_contains "jitter 0.25 s: ceiling"
expect_stdout_contains "shrinking the worst delay 2 -> 0.25 s raises the ceiling 15.5x -> 120.5x"

run "$RUNNER" tag 2 +fast -nightly --db "$DB"
expect_status 0
expect_equal "tag prints the tags" "$(cat "$TMP/out")" "sweep 2: tags fast"
run "$RUNNER" tag baseline --db "$DB"
expect_equal "tag without changes" "$(cat "$TMP/out")" "sweep 1: tags nightly,v1"
run "$RUNNER" tag 2 +a:b --db "$DB"
expect_status 2
expect_stderr "runner: tag 'a:b': a tag starts with a letter or digit and holds only letters, digits, '_', '-' and '.' (64 at most)"
run "$RUNNER" note 2 "rerun from another folder" --db "$DB"
expect_equal "note" "$(cat "$TMP/out")" "sweep 2: note set"
expect_sql "SELECT note FROM sweep WHERE id = 2" "rerun from another folder"
run "$RUNNER" note 2 "" --db "$DB"
expect_sql "SELECT note IS NULL FROM sweep WHERE id = 2" "1"
run "$RUNNER" rename 2 copy --db "$DB"
expect_equal "rename" "$(cat "$TMP/out")" "sweep 2: named copy"
run "$RUNNER" rename 2 9lives --db "$DB"
expect_status 2
expect_stderr "runner: rename '9lives': a sweep name starts with a letter, holds only letters, digits, '_', '-' and '.' (64 at most), is not 'last' and does not end in .lua"
run "$RUNNER" rename 99 copy --db "$DB"
expect_status 2
expect_stderr "runner: $DB: no sweep 99; 'runner sweeps' lists them"

# ---- 3. selectors ----------------------------------------------------------------
# selects SELECTOR ID: `runner show SELECTOR --section 1` shows sweep ID's first section.
selects() {
    run "$RUNNER" export "$1" --section 1 --db "$DB" --out "$TMP/sel"
    expect_status 0
    expect_equal "'$1' selects" "$(cat "$TMP/out")" \
        "$TMP/sel/sweep-$2-section-1-$3.csv"
}
selects 1 1 testkit
selects last 3 speedup
selects last~1 2 testkit
selects last~2 1 testkit
selects baseline 1 testkit
selects name:copy 2 testkit
selects jitter.lua 3 speedup
selects scripts/jitter.lua 3 speedup
selects ./scripts/jitter.lua 3 speedup
selects script:jitter.lua 3 speedup
selects "$two" 1 testkit
selects tag:nightly 1 testkit
selects tag:fast 2 testkit
selects plugin:testkit 2 testkit
selects plugin:testkit~1 1 testkit
selects plugin:speedup 3 speedup
run "$RUNNER" show two.lua --db "$DB"
expect_status 2
expect_stderr "runner: $DB: 'two.lua' is ambiguous: 2 scripts of that name have sweeps: $TMP/other/two.lua (newest sweep 2), $TMP/two.lua (newest sweep 1); give its path or a sweep id"
run "$RUNNER" show nosuchname --db "$DB"
expect_status 2
expect_stderr "runner: $DB: no sweep matches 'nosuchname'; 'runner sweeps' lists them"
run "$RUNNER" show last~3 --db "$DB"
expect_status 2
expect_stderr "runner: $DB: no sweep matches 'last~3': only 3 sweeps match without the ~3; 'runner sweeps' lists them"
run "$RUNNER" show tag:none --db "$DB"
expect_status 2
expect_stderr "runner: $DB: no sweep matches 'tag:none'; 'runner sweeps' lists them"
for bad in "a b" "colour:red" "tag:" "0" "last~" "42~1"; do
    run "$RUNNER" show "$bad" --db "$DB"
    expect_status 2
    expect_stderr "runner: show: '$bad' is not a sweep selector: $SELECTORS; see 'runner --help'"
done
run "$RUNNER" resume baseline --db "$DB"
expect_status 1
expect_stderr_contains "runner: sweep 1 resumed in $DB: 0 points ok, 2 failed, 5 already stored"

# ---- 4. the sweeps list and its filters --------------------------------------------
run "$RUNNER" sweeps --db "$DB" --format csv
expect_status 0
expect_equal "sweeps header" "$(head -n 1 "$TMP/out")" \
    "id,name,script,tags,status,sections,points_ok,points_failed,started_at,duration,overrides"
expect_equal "sweep 3's line" "$(sed -n 4p "$TMP/out" | cut -d, -f1-8,11-)" \
    "3,,scripts/jitter.lua,,ok,1,16,0,\"jitters=2,0.25\""
expect_equal "sweep 1's line" "$(sed -n 2p "$TMP/out" | cut -d, -f1-9)" \
    "1,baseline,$TMP/two.lua,\"nightly,v1\",failed,2,5,2"
# ids SWEEPS-ARGS...: the ids `runner sweeps ARGS --format csv` lists, comma-separated.
ids() {
    "$RUNNER" sweeps --db "$DB" --format csv "$@" | sed 1d | cut -d, -f1 | paste -sd, -
}
expect_equal "--script FILE" "$(ids --script two.lua)" "1,2"
expect_equal "--script PATH" "$(ids --script "$TMP/other/two.lua")" "2"
expect_equal "--name" "$(ids --name copy)" "2"
expect_equal "--tag" "$(ids --tag nightly)" "1"
expect_equal "--status" "$(ids --status ok)" "3"
expect_equal "--plugin" "$(ids --plugin speedup)" "3"
expect_equal "--since a day ago" "$(ids --since 1d)" "1,2,3"
expect_equal "--until 2000" "$(ids --until 2000-01-01)" ""
expect_equal "--since 2000, --until a minute ahead" \
    "$(ids --since "2000-01-01 00:00" --until "$(date -u -d '+1 minute' +%Y-%m-%dT%H:%M)")" "1,2,3"
run "$RUNNER" sweeps --db "$DB" --since yesterday
expect_status 2
expect_stderr "runner: --since yesterday: expected a UTC date (2026-12-01), date and time (2026-12-01T14:30) or an age (90m, 2h, 7d); see 'runner --help'"
run "$RUNNER" sweeps --db "$DB" --format json --tag fast
expect_status 0
expect_equal "sweeps json" "$(sqlite3 -batch :memory: "SELECT json_extract(readfile('$TMP/out'), '\$.rows[0][1]')")" "copy"

# ---- 6. show --section, CSV of several sections, export ----------------------------
run "$RUNNER" show baseline --format csv --db "$DB"
expect_status 2
expect_stderr "runner: show baseline --format csv: sweep 1 has 2 sections and one CSV holds one table; choose one with --section N, or write a file per section with 'runner export 1'"
run "$RUNNER" show baseline --section 2 --format csv --db "$DB"
expect_status 0
expect_equal "show --section 2" "$(head -n 1 "$TMP/out" | cut -d, -f1-5)" "x,rows,fail,label,y"
expect_equal "show --section 2 rows" "$(wc -l <"$TMP/out" | tr -d ' ')" "3"
run "$RUNNER" show baseline --section 3 --db "$DB"
expect_status 2
expect_stderr "runner: show: sweep 1 has 2 sections; --section 3 is out of range"
run "$RUNNER" export baseline --db "$DB" --out "$TMP/exp"
expect_status 0
expect_equal "export's files" "$(cat "$TMP/out")" \
    "$TMP/exp/sweep-1-section-1-testkit.csv
$TMP/exp/sweep-1-section-2-testkit.csv"
csv="$TMP/exp/sweep-1-section-2-testkit.csv"
expect_equal "export's CSV head" "$(sed -n 1,2p "$csv")" \
    "# runner export: sweep 1 baseline, section 2 of 2, plugin testkit
# title: second"
expect_equal "export's CSV units" "$(sed -n 3p "$csv" | cut -d, -f1-5)" \
    "# units: x=s, rows=rows, fail=, label=, y=s"
expect_equal "export's CSV rows are show's" "$(grep -v '^#' "$TMP/exp/sweep-1-section-2-testkit.csv")" \
    "$("$RUNNER" show 1 --section 2 --format csv --db "$DB")"
run "$RUNNER" export jitter.lua --format json --db "$DB" --out "$TMP/exp"
expect_status 0
json="$TMP/exp/sweep-3-section-1-speedup.json"
expect_equal "export json head" "$(sqlite3 -batch :memory: "SELECT json_extract(readfile('$json'), '\$.sweep'), json_extract(readfile('$json'), '\$.plugin'), json_array_length(readfile('$json'), '\$.table.rows')")" "3|speedup|16"
run "$RUNNER" export 3 --format ndjson --db "$DB" --out "$TMP/exp"
nd="$TMP/exp/sweep-3-section-1-speedup.ndjson"
expect_equal "ndjson lines" "$(wc -l <"$nd" | tr -d ' ')" "17"
expect_equal "ndjson head" "$(head -n 1 "$nd" | cut -c1-69)" \
    '{"sweep":3,"name":null,"section":1,"sections":1,"plugin":"speedup","t'
expect_equal "ndjson row" "$(sed -n 2p "$nd" | cut -c1-30)" '{"base":30.0,"jitter":2.0,"wor'

# ---- 2. ids are never given twice --------------------------------------------------
# The issue's case: a hand-written DELETE of the newest sweep, then a new sweep.
sqlite3 -batch "$DB" "DELETE FROM sweep WHERE id = 3"
run "$RUNNER" sweep "$two" --db "$DB" --quiet
expect_status 1
expect_sql "SELECT max(id) FROM sweep" "4"
run "$RUNNER" sweeps --db "$DB" --format csv --status failed
expect_equal "sweep 4's counts" "$(sed -n '$p' "$TMP/out" | cut -d, -f1,6-8)" "4,2,5,2"
expect_sql "SELECT count(*) FROM section WHERE sweep_id = 4" "2"
expect_sql "SELECT count(*) FROM section WHERE sweep_id = 3" "1"   # left behind, not adopted
run "$RUNNER" show 4 --section 1 --format csv --db "$DB"
expect_equal "show 4 shows its own rows" "$(sed 1d "$TMP/out" | wc -l | tr -d ' ')" "6"

# ---- 5. rm and vacuum --------------------------------------------------------------
# A sweep whose recorded process lives (pid 1, its own start, this boot).
BOOT=$(cat /proc/sys/kernel/random/boot_id)
INIT_TICKS=$(sed 's/.*) //' /proc/1/stat | cut -d ' ' -f 20)
sql "UPDATE sweep SET status = 'running', ended_at = NULL, pid = 1, pid_host = host,
    pid_start_ticks = $INIT_TICKS, pid_boot_id = '$BOOT' WHERE id = 2"
run "$RUNNER" rm 2 --db "$DB"
expect_status 2
expect_stderr "runner: $DB: sweep 2 is still running (pid 1 on this host); stop it first, or 'runner rm 2 --force'"
expect_sql "SELECT count(*) FROM sweep WHERE id = 2" "1"
run "$RUNNER" rm --db "$DB"
expect_status 2
expect_stderr "runner: rm needs a SWEEP or a filter (--script, --name, --tag, --status, --plugin, --since, --until); see 'runner --help'"
run "$RUNNER" rm 1 --tag x --db "$DB"
expect_status 2
expect_stderr "runner: rm takes SWEEPs or filters, not both; see 'runner --help'"
run "$RUNNER" rm --tag none --db "$DB"
expect_status 2
expect_stderr "runner: $DB: no sweep matches the filters; nothing removed"
# every table that refers to a sweep id (schema.sql), per sweep
rows_of() {
    sql "SELECT (SELECT count(*) FROM testkit WHERE sweep_id = $1) || ',' ||
        (SELECT count(*) FROM point_index WHERE block_id IN (SELECT id FROM point_block WHERE sweep_id = $1)) || ',' ||
        (SELECT count(*) FROM point_block WHERE sweep_id = $1) || ',' ||
        (SELECT count(*) FROM section WHERE sweep_id = $1) || ',' ||
        (SELECT count(*) FROM sweep_plugin WHERE sweep_id = $1) || ',' ||
        (SELECT count(*) FROM sweep_tag WHERE sweep_id = $1) || ',' ||
        (SELECT count(*) FROM sweep WHERE id = $1)"
}
expect_equal "sweep 1's rows" "$(rows_of 1)" "8,9,5,2,1,2,1"
run "$RUNNER" rm baseline 2 --force --db "$DB"
expect_status 0
expect_equal "rm says" "$(cat "$TMP/out")" "removed sweep 1 ($TMP/two.lua)
removed sweep 2 ($TMP/other/two.lua)
'runner vacuum' gives their space back to the file system"
expect_equal "sweep 1's rows after rm" "$(rows_of 1)" "0,0,0,0,0,0,0"
expect_equal "sweep 2's rows after rm" "$(rows_of 2)" "0,0,0,0,0,0,0"
expect_equal "sweep 4's rows stay" "$(rows_of 4)" "8,7,3,2,1,0,1"
run "$RUNNER" rm --script two.lua --db "$DB"
expect_status 0
expect_stdout_contains "removed sweep 4 ($TMP/two.lua)"
run "$RUNNER" sweep "$two" --db "$DB" --quiet
expect_sql "SELECT id FROM sweep" "5"
run "$RUNNER" vacuum --db "$DB"
expect_status 0
case $(cat "$TMP/out") in
"$DB: "*" before, "*" after: "*" given back") ;;
*) fail "vacuum says: $(cat "$TMP/out")" ;;
esac
expect_sql "PRAGMA integrity_check" "ok"

# ---- 7. an empty webhook URL says so ----------------------------------------------
run "$RUNNER" sweep "$two" --db "$DB" --webhook ""
expect_status 2
expect_stderr "runner: --webhook '': the URL is empty; give an http:// or https:// URL, or leave --webhook out; see 'runner --help'"
finish
