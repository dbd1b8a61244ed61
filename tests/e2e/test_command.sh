# Command experiments (docs/command-experiments.md): real programs as
# points, no shell unless asked, rows from JSON lines, key=value and
# patterns, measured columns with repeats, provenance and artifacts.
. tests/e2e/lib.sh
cat >"$TMP/argv.sh" <<'SH'
#!/bin/sh
# Writes each argument on its own line, then one JSON row about them.
printf '%s\n' "$@" >"$RUNNER_POINT_DIR/argv.txt"
printf '{"args": %d, "label_bytes": %d, "seed_arg": "%s", "seed_env": "%s"}\n' \
    "$#" "${#RUNNER_PARAM_LABEL}" "$4" "$RUNNER_SEED"
echo "note on stderr" >&2
SH
chmod +x "$TMP/argv.sh"

# A text value full of shell syntax arrives as one argument, unchanged, and
# nothing in it runs.
evil='a b; $(touch '"$TMP"'/X) `touch '"$TMP"'/Y` "q" '"'"'s'"'"' | & > *'
script=$(write_script argv.lua <<LUA
command "argv_check" {
  argv = { "$TMP/argv.sh", "--label", "{label}", "{n}", "{seed}" },
  params = {
    label = { type = "text", default = "" },
    n = { type = "integer", min = 0, max = 9, default = 1, doc = "a number" },
  },
  columns = {
    { name = "args", type = "integer" },
    { name = "label_bytes", type = "integer" },
    { name = "seed_arg", type = "text" },
    { name = "seed_env", type = "text" },
  },
  artifacts = { "argv.txt" },
}
sweep("argv_check", { label = { [[$evil]] }, n = { 1, 2 } }, { print = false })
LUA
)
run "$RUNNER" sweep "$script" --db "$DB" --quiet
expect_status 0
[ ! -e "$TMP/X" ] && [ ! -e "$TMP/Y" ] || fail "a parameter's text was run by a shell"
expect_sql "SELECT n, args, label_bytes = length(label), seed_arg = seed_env, seed_env <> ''
            FROM argv_check ORDER BY n" "1|4|1|1|1
2|4|1|1|1"
expect_sql "SELECT wall_s > 0, user_s >= 0, sys_s >= 0, max_rss_kib > 0, exit_status
            FROM argv_check LIMIT 1" "1|1|1|1|0"
# Provenance: the template, no shell, the program and its SHA-256.
expect_sql "SELECT argv_template, shell, executable FROM sweep_command" \
    "[\"$TMP/argv.sh\",\"--label\",\"{label}\",\"{n}\",\"{seed}\"]|0|$TMP/argv.sh"
expect_sql "SELECT executable_sha256 FROM sweep_command" "$(sha256sum "$TMP/argv.sh" | cut -c1-64)"
expect_sql "SELECT plugin_version, so_path FROM sweep_plugin" "command|$TMP/argv.sh"

# Artifacts: stdout, stderr and argv.txt per point; stderr is the same
# bytes for both points, stored once.
run "$RUNNER" artifacts last --db "$DB" --format csv
expect_status 0
expect_equal "artifact list" "$(cut -d, -f1-2 "$TMP/out")" "point_id,name
1,argv.txt
1,stderr
1,stdout
2,argv.txt
2,stderr
2,stdout"
expect_sql "SELECT bytes FROM artifact WHERE name = 'stderr'" "15
15"
expect_sql "SELECT count(*) FROM artifact_blob WHERE sha256 IN
            (SELECT sha256 FROM artifact WHERE name = 'stderr')" "1"
run "$RUNNER" artifacts last --db "$DB" --point 2 --extract "$TMP/got"
expect_status 0
expect_stderr "runner: 3 artifacts of sweep 1 written to $TMP/got"
expect_equal "argv.txt, extracted" "$(sed -n 2p "$TMP/got/2/argv.txt")" "$evil"
expect_equal "stderr, extracted" "$(cat "$TMP/got/2/stderr")" "note on stderr"
run "$RUNNER" artifacts last --db "$DB" --point 9
expect_status 2
expect_stderr "runner: sweep 1 has no artifacts for point 9"

# shell = true: one string for /bin/sh -c, values single-quoted into it;
# provenance says so. key=value output, several rows per point.
script=$(write_script shell.lua <<'LUA'
command "steps" {
  argv = { "i=0; while [ $i -lt {n} ]; do i=$((i+1)); echo step=$i; echo loss=0.$i; echo; done; echo {tag} >&2" },
  shell = true,
  params = { n = { type = "integer", min = 1, max = 5, default = 1 }, tag = { type = "text", default = "" } },
  columns = { { name = "step", type = "integer" }, { name = "loss", type = "real" } },
  output = "keyvalue",
}
sweep("steps", { n = 3, tag = "it's $(touch nope)" }, { print = false })
LUA
)
run "$RUNNER" sweep "$script" --db "$TMP/shell.db" --quiet
expect_status 0
DB="$TMP/shell.db"
expect_sql "SELECT group_concat(step || ':' || loss, ' ') FROM steps" "1:0.1 2:0.2 3:0.3"
expect_sql "SELECT shell, executable FROM sweep_command" "1|$(realpath /bin/sh)"
[ ! -e nope ] && [ ! -e "$TMP/nope" ] || fail "shell = true ran a parameter's text"
run "$RUNNER" artifacts last --db "$DB" --extract "$TMP/sh"
expect_equal "stderr of the shell command" "$(cat "$TMP/sh/1/stderr")" 'it'"'"'s $(touch nope)'

# Patterns, repeats and warmup: statistics columns.
script=$(write_script pattern.lua <<'LUA'
command { name = "timed", argv = { "sh", "-c", "echo 'took 42 ms (ok)'" },
  columns = { { name = "took_ms", type = "integer", unit = "ms" } },
  output = { took_ms = "took ([0-9]+) ms" }, repeats = 5, warmup = 1 }
sweep("timed", {}, { print = false })
LUA
)
run "$RUNNER" sweep "$script" --db "$TMP/pattern.db" --quiet
expect_status 0
DB="$TMP/pattern.db"
expect_sql "SELECT took_ms, wall_min_s <= wall_median_s, wall_median_s <= wall_max_s,
            wall_min_s <= wall_s, wall_s <= wall_max_s, wall_sd_s >= 0, wall_runs FROM timed" \
    "42|1|1|1|1|1|5"
expect_sql "SELECT unit FROM plugin_column WHERE plugin = 'timed' AND name = 'wall_sd_s'" "s"

# The caps: a point's artifacts past artifact_point_max_bytes, or a
# sweep's past artifact_sweep_max_bytes, are not kept, and a warning says so.
# The sweep's cap is applied in point order whatever --jobs (it was applied
# as points finished, so with 3 at once which point lost its file varied).
script=$(write_script caps.lua <<'LUA'
command "capped" { argv = { "sh", "-c", "echo '{{\"v\": {i}}}'; echo 0123456789 >&2" },
  params = { i = { type = "integer", min = 0, max = 9 } },
  columns = { { name = "v", type = "integer" } },
  artifact_point_max_bytes = 12, artifact_sweep_max_bytes = 20 }
sweep("capped", { i = { 1, 2, 3 } }, { print = false })
LUA
)
run "$RUNNER" sweep "$script" --db "$TMP/caps.db" --quiet --jobs 3
expect_status 0
expect_stderr_contains "runner: capped: warning: point 0: artifact 'stderr' (11 bytes) not kept: the point's artifacts would pass artifact_point_max_bytes"
expect_stderr_contains "runner: capped: warning: point 2: artifact 'stdout' (9 bytes) not kept: the sweep's artifacts would pass artifact_sweep_max_bytes"
DB="$TMP/caps.db"
expect_sql "SELECT group_concat(name || ':' || bytes) FROM artifact" "stdout:9,stdout:9"
expect_sql "SELECT group_concat(json_extract(p.params_json, '\$.i'))
            FROM artifact AS a JOIN point AS p ON p.id = a.point_id ORDER BY a.point_id" "1,2"

# --jobs 2: two commands at once (each waits until the other has started,
# however long a loaded machine takes; if runner ran them one after the
# other, the command's timeout ends the first and the check below fails).
cat >"$TMP/pair.sh" <<SH
#!/bin/sh
touch "$TMP/started.\$1"
other=\$((1 - \$1))
while [ ! -e "$TMP/started.\$other" ]; do sleep 0.01; done
echo '{"met": true}'
SH
chmod +x "$TMP/pair.sh"
script=$(write_script pair.lua <<LUA
command "pair" { argv = { "$TMP/pair.sh", "{i}" }, timeout = 120,
  params = { i = { type = "integer", min = 0, max = 1 } },
  columns = { { name = "met", type = "boolean" } } }
sweep("pair", { i = { 0, 1 } }, { print = false })
LUA
)
run "$RUNNER" sweep "$script" --db "$TMP/pair.db" --quiet --jobs 2
expect_status 0
DB="$TMP/pair.db"
expect_sql "SELECT group_concat(met) FROM pair" "1,1"
# Every point starts in a fresh, empty directory of mode 0700 named for it,
# whatever the point before did to its own: an empty directory is renamed
# for the next point rather than removed and made again, but never one
# left with a file, a changed mode or replaced by a link.
cat >"$TMP/fresh.sh" <<'SH'
#!/bin/sh
d="$RUNNER_POINT_DIR"
entries=$(ls -A "$d" | wc -l)
mode=$(stat -c %a "$d")
case "$(basename "$d")" in "p$1-"*) named=true ;; *) named=false ;; esac
siblings=$(ls -d "$(dirname "$d")"/p* | wc -l)
printf '{"entries": %d, "mode": "%s", "named": %s, "siblings": %d}\n' \
    "$entries" "$mode" "$named" "$siblings"
case "$1" in
1) touch "$d/left" ;;
2) chmod 755 "$d" ;;
3) rmdir "$d" && ln -s /tmp "$d" ;;
esac
SH
chmod +x "$TMP/fresh.sh"
script=$(write_script fresh.lua <<LUA
command "fresh" { argv = { "$TMP/fresh.sh", "{i}" },
  params = { i = { type = "integer", min = 0, max = 9 } },
  columns = { { name = "entries", type = "integer" }, { name = "mode", type = "text" },
              { name = "named", type = "boolean" }, { name = "siblings", type = "integer" } } }
sweep("fresh", { i = range(0, 6) }, { print = false })
LUA
)
mkdir "$TMP/scratch"
# No point sees more directories than points run at once (none piles up,
# --isolate's child processes included: the spares live in runner's own).
for how in "1" "2" "1 --isolate" "2 --isolate"; do
    db="$TMP/fresh$(echo "$how" | tr -d ' -').db"
    TMPDIR="$TMP/scratch" run "$RUNNER" sweep "$script" --db "$db" --quiet --jobs $how
    expect_status 0
    DB="$db"
    expect_sql "SELECT count(*), sum(entries), group_concat(DISTINCT mode), min(named),
                max(siblings) <= ${how%% *} FROM fresh" "7|0|700|1|1"
done
[ -z "$(ls -A "$TMP/scratch")" ] || fail "a sweep's work directory was left behind"

# jobs = 1: a command that must run alone (it times itself, or starts
# mpirun) runs one point at a time whatever --jobs says. Each point marks
# its arrival and looks for another point that arrived and has not left,
# polling until it sees one or has looked POLLS times. Without the cap,
# --jobs 2 runs both points at once and one of them sees the other (it
# may look for a minute: the answer does not depend on the machine's
# load); with the cap neither may see the other in half a second.
cat >"$TMP/overlap.sh" <<'SH'
#!/bin/sh
# overlap.sh DIR I POLLS: prints {"seen": 1} when point I met another.
dir=$1 i=$2 polls=$3 seen=0 n=0
mkdir "$dir/in.$i"
while [ "$n" -lt "$polls" ] && [ ! -e "$dir/met" ]; do
    running=$(($(ls "$dir" | grep -c '^in\.') - $(ls "$dir" | grep -c '^out\.')))
    if [ "$running" -ge 2 ]; then
        seen=1
        touch "$dir/met"
    fi
    sleep 0.01
    n=$((n + 1))
done
touch "$dir/out.$i"
printf '{"seen": %d}\n' "$seen"
SH
chmod +x "$TMP/overlap.sh"
for arm in capped free; do
    cap="" polls=6000
    [ $arm = capped ] && cap="jobs = 1," polls=50
    mkdir "$TMP/$arm"
    script=$(write_script $arm.lua <<LUA
command "alone" { $cap argv = { "$TMP/overlap.sh", "$TMP/$arm", "{i}", "$polls" },
  params = { i = { type = "integer" } }, columns = { { name = "seen", type = "integer" } } }
sweep("alone", { i = { 1, 2 } }, { print = false })
LUA
)
    DB="$TMP/$arm.db"
    run "$RUNNER" sweep "$script" --db "$DB" --quiet --jobs 2
    expect_status 0
    if [ $arm = capped ]; then
        expect_sql "SELECT count(*), sum(seen) FROM alone" "2|0"
    else
        expect_sql "SELECT count(*), sum(seen) >= 1 FROM alone" "2|1"
    fi
done
# jobs = 0 is refused like 0.5 (issue 37: it was taken as "no cap")
for jobs in 0.5 0 -1 1025; do
    script=$(write_script bad_jobs.lua <<LUA
command "bad" { argv = { "true" }, jobs = $jobs }
LUA
)
    run "$RUNNER" sweep "$script" --db "$TMP/bad_jobs.db"
    expect_status 2
    expect_stderr "runner: $script:1: command 'bad': jobs must be a whole number from 1 to 1024 (how many of its points may run at once)"
done
finish
