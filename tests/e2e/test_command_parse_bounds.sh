# Parsing a command's output is bounded work in runner's own process
# (docs/command-experiments.md, "Reading results"): a pattern such as
# (a*a*a*a*a*b) over 3 MB of output, which used to spin for minutes,
# passes over a line longer than 4096 bytes and says so; on lines it does
# search, parsing stops at the command's timeout, and the first SIGTERM
# stops it at once; a pattern too large once expanded is refused when the
# command is declared.
. tests/e2e/lib.sh
# 3 MB of 'a' and no 'b', as one line or in lines of 4000 bytes.
cat >"$TMP/aaa.sh" <<'SH'
#!/bin/sh
head -c 3000000 /dev/zero | tr '\0' a | { [ "$1" = lines ] && fold -w 4000 || cat; }
echo
[ -n "${2:-}" ] && : >"$2"
exit 0
SH
chmod +x "$TMP/aaa.sh"
declare() { # declare SHAPE TIMEOUT [MARKER]: a script with the command
    write_script "$1-$2.lua" <<LUA
command "spin" {
  argv = { "$TMP/aaa.sh", "$1", "${3:-}" },
  params = { n = { type = "integer", default = 1 } },
  output = { x = "(a*a*a*a*a*b)" },
  columns = { x = { type = "text" } },
  timeout = $2,
}
sweep("spin", { n = { 1 } }, { print = false })
LUA
}

# One 3 MB line: not searched, said at once.
run "$RUNNER" sweep "$(declare line 0)" --db "$TMP/line.db" --quiet
expect_status 1
DB="$TMP/line.db"
expect_sql "SELECT status, error FROM point" \
    "failed|spin: column 'x': no line of the output matches its pattern (1 line longer than 4096 bytes not searched)"

# 750 lines of 4000 bytes, each about 0.1 s of matching: the command's
# timeout (2 s) bounds the parse.
run "$RUNNER" sweep "$(declare lines 2)" --db "$TMP/lines.db" --quiet
expect_status 1
DB="$TMP/lines.db"
expect_sql "SELECT status, error FROM point" \
    "failed|spin: parsing stdout took longer than 2 s (the command's timeout, or 60 s without one); simplify the output patterns or print less"

# No timeout (60 s of parsing allowed): SIGTERM once the command has ended,
# while runner parses, stops the sweep at once (exit 130, interrupted).
"$RUNNER" sweep "$(declare lines 0 "$TMP/printed")" --db "$TMP/term.db" --quiet \
    >"$TMP/term.out" 2>"$TMP/term.err" &
pid=$!
wait_until "the command to finish printing" '[ -e "$TMP/printed" ] || ! alive $pid'
kill -TERM $pid
WAIT_LIMIT_S=20 wait_until "runner to stop after one SIGTERM" '! alive $pid' || kill -9 $pid
wait_exit $pid
status=$?
expect_equal "exit status after SIGTERM while parsing" "$status" 130
DB="$TMP/term.db"
expect_sql "SELECT status FROM sweep" "interrupted"
expect_sql "SELECT count(*) FROM point" "0"

# Declared too large: refused before regcomp (which alone took minutes).
script=$(write_script huge.lua <<LUA
command "huge" {
  argv = { "true" },
  output = { x = "(((a{1,100}){1,100}){1,100})x" },
  columns = { x = { type = "text" } },
}
LUA
)
run "$RUNNER" sweep "$script" --db "$TMP/huge.db" --quiet
expect_status 2
expect_stderr "runner: $script:1: command 'huge': output pattern for column 'x': too large once its repetitions are expanded (1010102 positions, at most 256): use *, + or smaller {m,n} bounds"
finish
