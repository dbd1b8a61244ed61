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
finish
