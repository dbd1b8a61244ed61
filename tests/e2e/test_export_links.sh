# Files runner writes where a user says are made new and renamed over their
# names (docs/guarantees.md, "Output files"): export --out, artifacts
# --extract, report -o, plot -o and slurm's scripts never write through a
# symbolic or hard link planted at the target, never block on a FIFO there,
# and refuse a target that is not a regular file with one line, exit 2.
. tests/e2e/lib.sh
script=$(write_script kept.lua <<'LUA'
command "kept" {
  argv = { "sh", "-c", "echo '{{\"y\": 1}}'; echo note >&2" },
  params = { n = { type = "integer", default = 1 } },
  columns = { y = { type = "integer" } },
}
sweep("kept", { n = { 1, 2 } }, { print = false })
LUA
)
run "$RUNNER" sweep "$script" --db "$DB" --quiet
expect_status 0
echo secret >"$TMP/victim"
out="$TMP/exports"
target="$out/sweep-1-section-1-kept.csv"
mkdir "$out"

# A symbolic link at the target: refused, the file it points to untouched.
ln -s "$TMP/victim" "$target"
run "$RUNNER" export 1 --db "$DB" --out "$out"
expect_status 2
expect_stderr "runner: $target: exists and is a symbolic link; runner replaces only regular files (remove it or choose another name)"
expect_equal "the symlink's target" "$(cat "$TMP/victim")" secret
rm "$target"

# A hard link: replaced by the new file; the other name keeps its bytes.
ln "$TMP/victim" "$target"
run "$RUNNER" export 1 --db "$DB" --out "$out"
expect_status 0
expect_equal "the hard link's other name" "$(cat "$TMP/victim")" secret
grep -q '^# runner export: sweep 1, section 1 of 1, plugin kept$' "$target" || fail "export did not write $target"
rm "$target"

# A FIFO: refused at once (opening it for writing would wait forever).
mkfifo "$target"
"$RUNNER" export 1 --db "$DB" --out "$out" >"$TMP/fifo.out" 2>"$TMP/fifo.err" &
pid=$!
WAIT_LIMIT_S=30 wait_until "export to give up on a FIFO" '! alive $pid' || kill -9 $pid
wait_exit $pid
expect_equal "export's status on a FIFO" "$?" 2
expect_equal "export's message on a FIFO" "$(cat "$TMP/fifo.err")" \
    "runner: $target: exists and is a FIFO; runner replaces only regular files (remove it or choose another name)"
rm "$target"

# --out naming a symbolic link: refused; DIR/ names the directory it points to.
ln -s "$out" "$TMP/outlink"
run "$RUNNER" export 1 --db "$DB" --out "$TMP/outlink"
expect_status 2
expect_stderr "runner: $TMP/outlink: is a symbolic link; runner does not write through links (give $TMP/outlink/ to write into the directory it points to)"
run "$RUNNER" export 1 --db "$DB" --out "$TMP/outlink/"
expect_status 0
[ -f "$target" ] || fail "export --out DIR/ wrote nothing into the directory"

# artifacts --extract: a symbolic link planted at DIR/<point id> is not
# followed; nothing lands in the directory it points to.
mkdir "$TMP/extract" "$TMP/elsewhere"
point=$(sql "SELECT min(id) FROM point")
ln -s "$TMP/elsewhere" "$TMP/extract/$point"
run "$RUNNER" artifacts 1 --db "$DB" --extract "$TMP/extract"
expect_status 2
expect_stderr "runner: $TMP/extract/$point: is a symbolic link; runner does not write through links (remove it)"
expect_equal "files written through the link" "$(ls "$TMP/elsewhere")" ""
rm "$TMP/extract/$point"
run "$RUNNER" artifacts 1 --db "$DB" --extract "$TMP/extract"
expect_status 0
expect_equal "an extracted stdout" "$(cat "$TMP/extract/$point/stdout")" '{"y": 1}'

# report -o onto a symbolic link: refused, its target untouched.
ln -s "$TMP/victim" "$TMP/report.html"
run "$RUNNER" report 1 --db "$DB" -o "$TMP/report.html"
expect_status 2
expect_stderr "runner: $TMP/report.html: exists and is a symbolic link; runner replaces only regular files (remove it or choose another name)"
expect_equal "the report link's target" "$(cat "$TMP/victim")" secret

# slurm's scripts: a symbolic link planted at NAME.array.sbatch is refused.
mkdir "$TMP/jobs"
ln -s "$TMP/victim" "$TMP/jobs/kept.array.sbatch"
run "$RUNNER" slurm "$script" --shards 2 --db-dir "$TMP/jobs" --db "$TMP/merged.db"
expect_status 2
expect_stderr "runner: $TMP/jobs/kept.array.sbatch: exists and is a symbolic link; runner replaces only regular files (remove it or choose another name)"
expect_equal "the sbatch link's target" "$(cat "$TMP/victim")" secret

# plot -o through the same path (gnuplot draws it).
if command -v gnuplot >/dev/null 2>&1; then
    ln -s "$TMP/victim" "$TMP/plot.svg"
    run "$RUNNER" plot 1 --db "$DB" --x n --y y -o "$TMP/plot.svg"
    expect_status 2
    expect_stderr "runner: $TMP/plot.svg: exists and is a symbolic link; runner replaces only regular files (remove it or choose another name)"
    expect_equal "the plot link's target" "$(cat "$TMP/victim")" secret
fi
finish
