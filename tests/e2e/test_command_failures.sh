# Command experiments that go wrong: each failure is the point's, in words
# (status and stderr's last lines, the signal, the timeout, bad output), and
# a program that cannot run stops the script before the sweep starts.
. tests/e2e/lib.sh
cat >"$TMP/hang.sh" <<SH
#!/bin/sh
# Leaves a grandchild in its process group, then hangs.
sleep 300 &
echo \$! >"$TMP/grandchild.pid"
echo "started" >&2
wait
SH
chmod +x "$TMP/hang.sh"
script=$(write_script fail.lua <<LUA
command "fails" { argv = { "sh", "-c", "echo one >&2; echo two >&2; exit {code}" },
  params = { code = { type = "integer", min = 0, max = 255 } },
  columns = { { name = "x", type = "integer" } } }
command "crashes" { argv = { "sh", "-c", "kill -SEGV \$\$" },
  columns = { { name = "x", type = "integer" } } }
command "hangs" { argv = { "$TMP/hang.sh" }, timeout = 0.5,
  columns = { { name = "x", type = "integer" } } }
command "bad_json" { argv = { "sh", "-c", "echo '{{\"x\": 1,}}'" },
  columns = { { name = "x", type = "integer" } } }
command "wrong_type" { argv = { "sh", "-c", "echo '{{\"x\": \"many\"}}'" },
  columns = { { name = "x", type = "integer" } } }
command "missing" { argv = { "sh", "-c", "echo '{{\"y\": 1}}'" },
  columns = { { name = "x", type = "integer" } } }
command "silent" { argv = { "true" }, columns = { { name = "x", type = "integer" } } }
command "chatty" { argv = { "sh", "-c", "yes '{{\"x\": 12}}' | head -c 100000" },
  columns = { { name = "x", type = "integer" } }, output_max_bytes = 1000 }
sweep("fails", { code = 3 }, { print = false })
sweep("crashes", {}, { print = false })
sweep("hangs", {}, { print = false })
sweep("bad_json", {}, { print = false })
sweep("wrong_type", {}, { print = false })
sweep("missing", {}, { print = false })
sweep("silent", {}, { print = false })
sweep("chatty", {}, { print = false })
LUA
)
run "$RUNNER" sweep "$script" --db "$DB" --quiet
expect_status 1
expect_stderr "runner: fails point 0 {\"code\":3} failed: fails: exited with status 3; stderr: one | two
runner: crashes point 0 {} failed: crashes: killed by signal 11 (SIGSEGV: Segmentation fault)
runner: hangs point 0 {} timed out: hangs: timed out after 0.5 s; its process group was killed; stderr: started
runner: bad_json point 0 {} failed: bad_json: line 1 is not a JSON object (string or '}' expected near '}'): {\"x\": 1,}
runner: wrong_type point 0 {} failed: wrong_type: column 'x': expected an integer, got a string in line 1: {\"x\": \"many\"}
runner: missing point 0 {} failed: missing: column 'x' is missing from line 1: {\"y\": 1}
runner: silent point 0 {} failed: silent: printed no result row on stdout (output = \"jsonl\", one JSON object a line)
runner: chatty: warning: point 0: stdout cut at 1000 bytes (output_max_bytes)
runner: sweep 1 stored in $DB: 1 points ok, 7 failed"
expect_sql "SELECT status FROM point ORDER BY id" "failed
failed
timeout
failed
failed
failed
failed
ok"
expect_sql "SELECT count(*) FROM chatty" "100"
# The timeout killed the whole group: the grandchild is gone too.
child=$(cat "$TMP/grandchild.pid")
wait_until "the hanging command's grandchild to die" '! alive $child'
# The failed point's stderr is kept.
run "$RUNNER" artifacts last --db "$DB" --point 1 --extract "$TMP/a"
expect_equal "stderr of the failed point" "$(cat "$TMP/a/1/stderr")" "one
two"

# A program that is not there, or not executable: exit 2, nothing stored.
chmod -x "$TMP/hang.sh"
for argv0 in "no_such_program_here" "$TMP/hang.sh" "$TMP/nothing"; do
    script=$(write_script missing.lua <<LUA
command "gone" { argv = { "$argv0" }, columns = { { name = "x", type = "integer" } } }
sweep("gone", {})
LUA
)
    run "$RUNNER" sweep "$script" --db "$TMP/none.db"
    expect_status 2
    [ ! -e "$TMP/none.db" ] || fail "a database was made for a command that cannot run"
done
expect_stderr "runner: $TMP/missing.lua:1: command 'gone': program '$TMP/nothing': No such file or directory"
run "$RUNNER" sweep "$TMP/missing.lua" --db "$TMP/none.db"
script=$(write_script notexec.lua <<LUA
command "gone" { argv = { "$TMP/hang.sh" }, columns = { { name = "x", type = "integer" } } }
LUA
)
run "$RUNNER" sweep "$script" --db "$TMP/none.db"
expect_stderr "runner: $script:1: command 'gone': program '$TMP/hang.sh' is not an executable file"
script=$(write_script notfound.lua <<'LUA'
command "gone" { argv = { "no_such_program_here" }, columns = { { name = "x", type = "integer" } } }
LUA
)
run "$RUNNER" sweep "$script" --db "$TMP/none.db"
expect_stderr "runner: $script:1: command 'gone': program 'no_such_program_here' not found in $RUNNER_BUILD/libexec or on PATH"
script=$(write_script typo.lua <<'LUA'
command "typo" { argv = { "true", "{wrokers}" }, params = { workers = { type = "integer" } },
  columns = { { name = "x", type = "integer" } } }
LUA
)
run "$RUNNER" sweep "$script" --db "$TMP/none.db"
expect_status 2
expect_stderr "runner: $script:1: command 'typo': argv[2] \"{wrokers}\": {wrokers} names no parameter (did you mean {workers}?)"

# A program's own braces (awk here) need doubling: the message says how.
script=$(write_script braces.lua <<'LUA'
command "braces" { argv = { "awk", "BEGIN { print \"x=1\" }" }, output = "keyvalue",
  columns = { { name = "x", type = "integer" } } }
LUA
)
run "$RUNNER" sweep "$script" --db "$TMP/none.db"
expect_status 2
expect_stderr "runner: $script:1: command 'braces': argv[2] \"BEGIN { print \"x=1\" }\": { print \"x=1\" } names no parameter (write {{ and }} for literal braces)"
finish
