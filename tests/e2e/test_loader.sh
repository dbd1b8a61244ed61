# Every way loading a plugin can fail: one line naming the file and what to
# do, exit status 2. Each fixture sits alone in build/fixtures/<case>/.
. tests/e2e/lib.sh
F="$RUNNER_FIXTURES"

# Not found: an unknown name, with a suggestion when one is close.
run "$RUNNER" plugins spedup
expect_status 2
expect_stderr "runner: unknown plugin 'spedup' (did you mean 'speedup'?); 'runner plugins' lists the installed ones"
run "$RUNNER" plugins nosuchthing --plugin-dir "$F/good"
expect_status 2
expect_stderr_contains "runner: unknown plugin 'nosuchthing'; searched $F/good:"
# A --plugin-dir that does not exist.
run "$RUNNER" plugins --plugin-dir "$TMP/missing"
expect_status 2
expect_stderr "runner: plugin directory '$TMP/missing': No such file or directory"

# Not a shared object: dlopen's own words are passed on.
run "$RUNNER" plugins garbage --plugin-dir "$F/notso"
expect_status 2
expect_stderr "runner: $F/notso/garbage.so: cannot load plugin: $F/notso/garbage.so: file too short (is it a shared object built for this machine? check it with 'file' and 'ldd')"

# A shared object without the entry symbol.
run "$RUNNER" plugins noentry --plugin-dir "$F/noentry"
expect_status 2
expect_stderr "runner: $F/noentry/noentry.so: not a runner plugin: no 'runner_plugin_entry' symbol (define it with RUNNER_PLUGIN_DEFINE from <runner/plugin.h>)"

# Built for a newer ABI.
run "$RUNNER" plugins future --plugin-dir "$F/abi_future"
expect_status 2
expect_stderr "runner: $F/abi_future/future.so: future needs plugin ABI 2, runner provides 1; upgrade runner or rebuild the plugin against this runner's <runner/plugin.h>"

# Two files in one directory declaring the same name.
run "$RUNNER" plugins twin --plugin-dir "$F/duplicate"
expect_status 2
expect_stderr "runner: two plugins named 'twin': $F/duplicate/twin_a.so and $F/duplicate/twin_b.so; remove one, or put the one you want in an earlier --plugin-dir"

# Invalid metadata: a default outside its declared range.
run "$RUNNER" plugins badmeta --plugin-dir "$F/badmeta"
expect_status 2
expect_stderr "runner: $F/badmeta/badmeta.so: invalid plugin metadata: parameter 'x': default 30 is outside [0, 10]"

# The same failures stop a sweep before anything is stored.
script=$(write_script uses_future.lua <<'LUA'
sweep "future" { x = 1 }
LUA
)
run "$RUNNER" sweep "$script" --db "$DB" --plugin-dir "$F/abi_future"
expect_status 2
expect_stderr "runner: $script:1: $F/abi_future/future.so: future needs plugin ABI 2, runner provides 1; upgrade runner or rebuild the plugin against this runner's <runner/plugin.h>"
[ -e "$DB" ] && fail "a failed load created the database"

# RUNNER_PLUGIN_PATH is searched after --plugin-dir; listing shows summaries.
run env RUNNER_PLUGIN_PATH="$F/good" "$RUNNER" plugins
expect_status 0
expect_stdout_contains "testkit"
expect_stdout_contains "speedup"
run "$RUNNER" plugins speedup
expect_status 0
expect_stdout_contains "jitter"
expect_stdout_contains "karp_flatt"
finish
