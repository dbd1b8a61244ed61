# Error lines never carry raw control characters or bytes that are not
# UTF-8 from what a user typed or a script named (docs/cli.md, "Exit
# status and errors"): ESC, newlines and such bytes in a name, a tag, a
# selector, an option's value or a command's name are shown as \x1b, \n,
# \xff, so an error is one line and cannot restyle the terminal.
. tests/e2e/lib.sh
export RUNNER_PLUGIN_PATH="$RUNNER_FIXTURES/good"
esc=$(printf '\033')
script=$(write_script one.lua <<'LUA'
sweep("testkit", { x = { 1 } }, { print = false })
LUA
)
run "$RUNNER" sweep "$script" --db "$DB" --quiet
expect_status 0

# expect_one_clean_line: stderr is one line without ESC or a byte >= 0x80
# that is not UTF-8 (checked with iconv).
expect_one_clean_line() {
    [ "$(wc -l <"$TMP/err")" = 1 ] || fail "stderr is not one line: $(cat "$TMP/err")"
    grep -q "$esc" "$TMP/err" && fail "stderr holds a raw ESC: $(cat -v "$TMP/err")"
    iconv -f UTF-8 -t UTF-8 "$TMP/err" >/dev/null 2>&1 || fail "stderr is not UTF-8: $(cat -v "$TMP/err")"
}

run "$RUNNER" rename 1 "red${esc}[31mname" --db "$DB"
expect_status 2
expect_stderr "runner: rename 'red\\x1b[31mname': a sweep name starts with a letter, holds only letters, digits, '_', '-' and '.' (64 at most), is not 'last' and does not end in .lua"
expect_one_clean_line

run "$RUNNER" tag 1 "$(printf 'x\033y\nz')" --db "$DB"
expect_status 2
expect_stderr_contains "runner: tag 'x\\x1by\\nz': a tag starts with"
expect_one_clean_line

run "$RUNNER" show "$(printf 'na\033me\377')" --db "$DB"
expect_status 2
expect_stderr_contains "runner: show: 'na\\x1bme\\xff' is not a sweep selector: "
expect_one_clean_line

run "$RUNNER" show "$(printf 'a\nb')" --db "$DB"
expect_status 2
expect_stderr_contains "runner: show: 'a\\nb' is not a sweep selector: "
expect_one_clean_line

run "$RUNNER" show 1 --format "$(printf 'x\033')" --db "$DB"
expect_status 2
expect_stderr "runner: --format x\\x1b: expected table, csv or json; see 'runner --help'"
expect_one_clean_line

run "$RUNNER" show 1 "$(printf -- '--x\033]0;title\007')" --db "$DB"
expect_status 2
expect_stderr "runner: show: unknown option '--x\\x1b]0;title\\x07'; see 'runner --help'"
expect_one_clean_line

# A command's name in a script's error.
script=$(write_script named.lua <<'LUA'
command "na\27[31mme\n\255" { argv = { "true" } }
LUA
)
run "$RUNNER" sweep "$script" --db "$TMP/named.db"
expect_status 2
# (refused where it enters, by the one name check: the first fault found)
expect_stderr "runner: $script:1: command 'na\\x1b[31mme\\n\\xff' is not valid UTF-8 (names are UTF-8 text without control characters, 256 bytes at most)"
expect_one_clean_line
finish
