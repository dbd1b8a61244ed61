# runner slurm (docs/slurm.md) writes names and paths into sbatch scripts
# quoted for where they land: each shell word single-quoted, each #SBATCH
# value quoted for sbatch's directive parser (% doubled in --output paths),
# the submit line it prints quoted for a shell. A newline (any control
# character) in the script's name or --db-dir, which no #SBATCH line can
# carry, is refused with one line and nothing is written. The generated
# scripts pass `sh -n`; test_slurm.sh submits such a script to a real
# controller.
. tests/e2e/lib.sh
skip_without sh "no /bin/sh"
echo 'sweep("speedup", { workers = { 1, 2 } }, { print = false })' >"$TMP/plain.lua"

# A newline in the script's name would split the job-name line and make
# the rest of the name a shell command.
nl_script="$TMP/grid
\$(touch pwned).lua"
cp "$TMP/plain.lua" "$nl_script"
run "$RUNNER" slurm "$nl_script" --shards 2 --db-dir "$TMP/jobs1"
expect_status 2
expect_stderr "runner: slurm: the script's name 'grid\\n\$(touch pwned)' holds a control character (a newline, a tab), which an #SBATCH line cannot carry; choose another"
[ ! -e "$TMP/jobs1" ] || fail "runner slurm wrote $(ls "$TMP/jobs1") after refusing"

# The same in --db-dir, and a backslash there (it would stop Slurm
# expanding %a in the log's name).
run "$RUNNER" slurm "$TMP/plain.lua" --shards 2 --db-dir "$TMP/a
b"
expect_status 2
expect_stderr "runner: slurm: --db-dir '$TMP/a\\nb' holds a control character (a newline, a tab), which an #SBATCH line cannot carry; choose another"
run "$RUNNER" slurm "$TMP/plain.lua" --shards 2 --db-dir "$TMP/a\\b"
expect_status 2
expect_stderr "runner: slurm: --db-dir '$TMP/a\\b' holds a backslash, which an #SBATCH line cannot carry; choose another"

# Blanks, quotes, $(...), backquotes and % in every name: valid scripts,
# nothing runs, each value arrives whole.
# (a name holding $(touch pwned) would leave $TMP/pwned where the
# scripts run: in $TMP)
odd_dir="$TMP/jobs \$(touch pwned) \`touch pwned\` 'q\" 50%a"
mkdir "$TMP/src \$(touch pwned)"
odd_script="$TMP/src \$(touch pwned)/my grid's \"v\" 5%.lua"
cp "$TMP/plain.lua" "$odd_script"
run "$RUNNER" slurm "$odd_script" --shards 2 --db-dir "$odd_dir" --db "$TMP/m \$(x).db" \
    --time 5:00 --partition 'p q'
expect_status 0
array="$odd_dir/my grid's \"v\" 5%.array.sbatch"
merge="$odd_dir/my grid's \"v\" 5%.merge.sbatch"
for f in "$array" "$merge"; do
    sh -n "$f" || fail "sh -n rejects $f"
done
[ ! -e "$TMP/pwned" ] || fail "writing the scripts ran a name"
# The #SBATCH values, as sbatch's parser reads them back (quotes removed,
# backslash escapes undone).
directive() { # directive FILE OPTION: the value of #SBATCH --OPTION=...
    sed -n "s/^#SBATCH --$2=//p" "$1" |
        python3 -c 'import shlex, sys; print("".join(shlex.split(sys.stdin.read(), posix=True)))'
}
expect_equal "the array's job name" "$(directive "$array" job-name)" "my grid's \"v\" 5%"
expect_equal "the array's log" "$(directive "$array" output)" "$(echo "$odd_dir" | sed 's/%/%%/g')/shard-%a.log"
expect_equal "the merge's log" "$(directive "$merge" output)" "$(echo "$odd_dir" | sed 's/%/%%/g')/merge.log"
expect_equal "the partition" "$(directive "$array" partition)" "p q"
expect_equal "the time" "$(sed -n 's/^#SBATCH --time=//p' "$array")" "5:00"
# The shell lines, run with a stub runner: every path arrives as one word.
printf '#!/bin/sh\nprintf "%%s\\n" "$@" >>"%s/args"\nexit 0\n' "$TMP" >"$TMP/stub"
chmod +x "$TMP/stub"
runner_path=$(realpath "$RUNNER")
sed "s|'$runner_path'|'$TMP/stub'|" "$merge" >"$TMP/merge.sh"
(cd "$TMP" && sh merge.sh)
expect_equal "the merge's arguments" "$(cat "$TMP/args")" "merge
$TMP/m \$(x).db
$odd_dir/shard-1.db
$odd_dir/shard-2.db"
[ ! -e "$TMP/pwned" ] || fail "running the merge script ran a name"
# The printed submit line is one shell command with each path quoted: run
# with a stub sbatch, it passes the two paths whole.
printf '#!/bin/sh\nfor a; do printf "%%s\\n" "$a"; done >>"%s/sbatch.args"\necho 7\n' "$TMP" \
    >"$TMP/sbatch"
chmod +x "$TMP/sbatch"
line=$(sed -n 2p "$TMP/out")
(cd "$TMP" && PATH="$TMP:$PATH" sh -c "$line" >/dev/null)
expect_equal "what the printed line passes to sbatch" "$(cat "$TMP/sbatch.args")" "--parsable
$array
--dependency=afterany:7
$merge"
[ ! -e "$TMP/pwned" ] || fail "the printed submit line ran a name"
# Bad values of the switches a cluster user needs (docs/cli.md): one line,
# exit 2, nothing written.
bad() { # bad MESSAGE ARG...: runner slurm ARG... refuses with MESSAGE
    message=$1
    shift
    run "$RUNNER" slurm "$TMP/plain.lua" --shards 2 --db-dir "$TMP/bad" "$@"
    expect_status 2
    expect_stderr "$message"
    [ ! -e "$TMP/bad" ] || fail "runner slurm $* wrote $(ls "$TMP/bad") after refusing"
}
bad "runner: slurm: --mem '4GB': expected a size as sbatch takes it, a whole number with K, M, G or T after it (e.g. 4G; megabytes without)" --mem 4GB
bad "runner: slurm: --mail-type 'END,SOMETIMES': expected Slurm's mail types, comma-separated (NONE, BEGIN, END, FAIL, REQUEUE, ALL, INVALID_DEPEND, STAGE_OUT, TIME_LIMIT, TIME_LIMIT_90, TIME_LIMIT_80, TIME_LIMIT_50, ARRAY_TASKS)" --mail-type END,SOMETIMES
bad "runner: slurm: --sbatch-arg 'gres=gpu:1': expected --NAME or --NAME=VALUE, an sbatch option (e.g. --sbatch-arg --gres=gpu:1)" --sbatch-arg gres=gpu:1
bad "runner: slurm: --sbatch-arg '--array=1-3': runner slurm writes --array itself (docs/slurm.md)" --sbatch-arg --array=1-3
bad "runner: slurm: --account 'a\\nb' holds a control character (a newline, a tab), which an #SBATCH line cannot carry; choose another" --account "a
b"
bad "runner: slurm --requeue-before needs --time (the limit it counts back from); see 'runner --help'" --requeue-before 60
bad "runner: --array-throttle 0: expected a number of tasks between 1 and 100000; see 'runner --help'" --array-throttle 0
bad "runner: --requeue-before 70000: expected a number of seconds between 1 and 65535; see 'runner --help'" --requeue-before 70000 --time 1:00:00
bad "runner: slurm takes one of --submit, --resubmit and --merge-complete; see 'runner --help'" --submit --resubmit

# The switches, each a directive quoted for sbatch: read back whole.
run "$RUNNER" slurm "$TMP/plain.lua" --shards 3 --db-dir "$TMP/sw" --time 1:00:00 --array-throttle 2 \
    --mem 4G --account "acct x" --qos 'q"1' --constraint 'haswell&ib' --mail-type END,FAIL \
    --mail-user 'me@example.org' --sbatch-arg "--comment=a b 'c\" \$(touch pwned)" \
    --sbatch-arg --exclusive --requeue-before 300
expect_status 0
array="$TMP/sw/plain.array.sbatch"
merge="$TMP/sw/plain.merge.sbatch"
for f in "$array" "$merge"; do
    sh -n "$f" || fail "sh -n rejects $f"
    expect_equal "$f: account" "$(directive "$f" account)" "acct x"
    expect_equal "$f: qos" "$(directive "$f" qos)" 'q"1'
    expect_equal "$f: constraint" "$(directive "$f" constraint)" 'haswell&ib'
    expect_equal "$f: mail-type" "$(directive "$f" mail-type)" "END,FAIL"
    expect_equal "$f: mail-user" "$(directive "$f" mail-user)" "me@example.org"
    expect_equal "$f: comment" "$(directive "$f" comment)" "a b 'c\" \$(touch pwned)"
    grep -qx "#SBATCH --exclusive" "$f" || fail "$f lacks --exclusive"
done
expect_equal "the array" "$(sed -n 's/^#SBATCH --array=//p' "$array")" "1-3%2"
expect_equal "the shards' memory" "$(directive "$array" mem)" "4G"
expect_equal "the merge's memory (128 MB and 0.5 MB a shard)" "$(directive "$merge" mem)" "130M"
expect_equal "the early signal" "$(sed -n 's/^#SBATCH --signal=//p' "$array")" "B:USR1@300"
grep -qx "#SBATCH --requeue" "$array" || fail "the array is not requeueable"
[ ! -e "$TMP/pwned" ] || fail "writing the scripts ran a name"

# --merge-complete (what the merge job runs when a shard is missing), by
# hand: shards 1 and 3 of 3 run, 2 never did.
(cd "$TMP" && RUNNER_PLUGIN_PATH="$RUNNER_FIXTURES/good" "$RUNNER" slurm plain.lua --shards 3 --db-dir mc >/dev/null)
for i in 1 3; do
    RUNNER_PLUGIN_PATH="$RUNNER_FIXTURES/good" "$RUNNER" sweep "$TMP/plain.lua" --shard $i/3 --db "$TMP/mc/shard-$i.db" --quiet 2>/dev/null
done
(cd "$TMP" && sh mc/plain.merge.sbatch >"$TMP/out" 2>"$TMP/err")
expect_equal "the merge job's status" "$?" "2"
expect_stderr_contains "runner: slurm: 1 of 3 shards not complete; the 2 complete ones are merged into $TMP/mc/complete.db (2 points, 2 rows) to look at:
  shard 2/3: no database (the task never began its sweep); its log: $TMP/mc/shard-2.log
run them and merge again with:
  cd $TMP && $(realpath "$RUNNER") slurm plain.lua --shards 3 --db-dir mc --resubmit"
# --resubmit with a stub sbatch: only shard 2, then the merge afterany it.
rm -f "$TMP/sbatch.args"
run sh -c "cd '$TMP' && PATH='$TMP':\$PATH RUNNER_PLUGIN_PATH='$RUNNER_FIXTURES/good' '$RUNNER' slurm plain.lua --shards 3 --db-dir mc --resubmit"
expect_status 0
expect_stdout "resubmitted 1 of 3 shards (2): array job 7, merge job 7"
expect_equal "what --resubmit passes to sbatch" "$(cat "$TMP/sbatch.args")" "--parsable
--array=2
$TMP/mc/plain.array.sbatch
--parsable
--dependency=afterany:7
$TMP/mc/plain.merge.sbatch"
finish
