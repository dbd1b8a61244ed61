# shell = true (docs/command-experiments.md, "How a point runs"): a {name}
# becomes a reference to the environment variable holding its value, quoted
# for where it stands in the template, so with the real /bin/sh no value
# runs as a command wherever the template puts it: outside quotes, in '...'
# (which used to end the quotes runner added), in "...", in $(...) and in
# backquotes, and each place prints the value exactly.
. tests/e2e/lib.sh
skip_without sh "no /bin/sh"

# Each value tries to run something that leaves a file in $TMP.
script=$(write_script shell.lua <<LUA
local values = {
  [[\$(touch $TMP/pwned-dollar)]],
  [[\`touch $TMP/pwned-backquote\`]],
  [[it's "q" \\ \$HOME ; touch $TMP/pwned-semicolon]],
  [[a  b	*]],
}
command "echoer" {
  argv = { [[printf 'single=%s\n' '{v}'; printf 'double=%s\n' "{v}"; printf 'bare=%s\n' {v}
printf 'subst=%s\n' "\$(printf '%s' '{v}')"; printf 'nested=%s\n' "\$(printf '%s' "{v}")"
printf 'seed=%s\n' '{seed}' # a comment's quote: it's {v}
printf 'done=1\n']] },
  shell = true,
  params = { v = { type = "text" } },
  output = "keyvalue",
  columns = { single = { type = "text" }, double = { type = "text" }, bare = { type = "text" },
              subst = { type = "text" }, nested = { type = "text" }, seed = { type = "text" },
              done = { type = "integer" } },
}
sweep("echoer", { v = values }, { print = false })
LUA
)
run "$RUNNER" sweep "$script" --db "$DB" --quiet
expect_status 0
for f in "$TMP"/pwned-*; do
    [ -e "$f" ] && fail "a value was run by the shell: $f exists"
done
# Every place printed the value exactly (sqlite compares the stored text
# with the point's own parameter), and {seed} inside quotes is a number.
expect_sql "SELECT count(*) FROM echoer WHERE single = v AND double = v AND bare = v
            AND subst = v AND nested = v AND done = 1" "4"
expect_sql "SELECT count(*) FROM echoer WHERE seed <> '' AND seed NOT GLOB '*[^0-9]*'" "4"

# Provenance keeps the template as written, not a value.
expect_sql "SELECT shell, instr(argv_template, 'RUNNER_PARAM') FROM sweep_command" "1|0"
finish
