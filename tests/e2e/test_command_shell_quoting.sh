# shell = true (docs/command-experiments.md, "Values and the shell"): a
# {name} becomes a reference to the environment variable holding its value,
# and is allowed only where the outer /bin/sh expands that reference as a
# word or inside its double quotes: outside quotes, in "...", in $(...) and
# in backquotes, each printing the value exactly, with no value ever run.
# Where the expanded text would be read as code by another reading — single
# quotes (most often another shell's script), a here-document, $(( )), the
# script of sh -c / bash -c / python -c, an argument of eval or ssh — the
# declaration is refused at once with the safe form.
. tests/e2e/lib.sh
skip_without sh "no /bin/sh"

# Each value tries to run something that leaves a file in $TMP.
script=$(write_script shell.lua <<LUA
local values = {
  [[\$(touch $TMP/pwned-dollar)]],
  [[\`touch $TMP/pwned-backquote\`]],
  [[it's "q" \\ \$HOME ; touch $TMP/pwned-semicolon]],
  [[a  b	*]],
  [[1 + \$(touch $TMP/pwned-arith)]],
}
command "echoer" {
  argv = { [[printf 'double=%s\n' "{v}"; printf 'bare=%s\n' {v}
printf 'subst=%s\n' "\$(printf '%s' {v})"; printf 'nested=%s\n' "\$(printf '%s' "{v}")"
printf 'back=%s\n' "\`printf '%s' {v}\`"
sh -c 'printf "inner=%s\n" "\$1"' inner {v}; sh -c 'printf "env=%s\n" "\$RUNNER_PARAM_V"'
cat <<'EOF'
heredoc=literal's
EOF
printf 'seed=%s\n' "{seed}" # a comment's quote: it's {v}
printf 'done=1\n']] },
  shell = true,
  params = { v = { type = "text" } },
  output = "keyvalue",
  columns = { double = { type = "text" }, bare = { type = "text" }, subst = { type = "text" },
              nested = { type = "text" }, back = { type = "text" }, inner = { type = "text" },
              env = { type = "text" }, heredoc = { type = "text" }, seed = { type = "text" },
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
# Every allowed place printed the value exactly (sqlite compares the stored
# text with the point's own parameter), and {seed} is a number.
expect_sql "SELECT count(*) FROM echoer WHERE double = v AND bare = v AND subst = v
            AND nested = v AND back = v AND inner = v AND env = v
            AND heredoc = 'literal''s' AND done = 1" "5"
expect_sql "SELECT count(*) FROM echoer WHERE seed <> '' AND seed NOT GLOB '*[^0-9]*'" "5"
# Provenance keeps the template as written, not a value.
expect_sql "SELECT shell, instr(argv_template, '\${RUNNER_PARAM') FROM sweep_command" "1|0"

# refused TEMPLATE WHERE: the declaration of TEMPLATE is refused, naming
# WHERE and the safe form, before anything runs or is stored.
n=0
refused() {
    n=$((n + 1))
    refused_script=$({
        printf 'command "c%s" { argv = { [==[%s]==] }, shell = true,\n' "$n" "$1"
        printf '  params = { v = { type = "text" } }, columns = { { name = "x", type = "integer" } } }\n'
        printf 'sweep("c%s", { v = { "$(touch %s/pwned-%s)" } }, { print = false })\n' "$n" "$TMP" "$n"
    } | write_script "refused$n.lua")
    run "$RUNNER" sweep "$refused_script" --db "$TMP/refused.db" --quiet
    expect_status 2
    expect_stderr_contains "{v} $2 would put its value into code another reading runs; write \"\$RUNNER_PARAM_V\" there instead (with shell = true every value is also in the environment)"
    [ ! -e "$TMP/pwned-$n" ] || fail "template $n ran a value: $1"
    [ ! -e "$TMP/refused.db" ] || [ "$(db_count "$TMP/refused.db" "SELECT count(*) FROM sweep")" = 0 ] ||
        fail "template $n stored a sweep"
}
refused "printf '%s\n' '{v}'" "inside single quotes"
refused "sh -c 'printf %s\\\\n {v}'" "inside single quotes"
refused "bash -c 'echo \"{v}\"'" "inside single quotes"
refused "bash -c \"echo {v}\"" "in the script of bash"
refused "sh -ec \"echo {v}\"" "in the script of sh"
refused "/bin/sh -c {v}" "in the script of sh"
refused "env A=1 nice -n 5 sh -c \"echo {v}\"" "in the script of sh"
refused "if true; then dash -c \"echo {v}\"; fi" "in the script of dash"
refused "x=\$(sh -c \"echo {v}\"); echo \$x" "in the script of sh"
refused "sh -c \"\$(printf %s {v})\"" "in the script of sh"
refused "python3 -c \"print({v})\"" "in the script of python3"
refused "perl -e \"print {v}\"" "in the script of perl"
refused "eval echo {v}" "in an argument of eval"
refused "ssh localhost echo {v}" "in an argument of ssh"
refused "echo \$(( {v} + 1 ))" "inside \$(( ))"
refused "echo \"\$(( 2 * {v} ))\"" "inside \$(( ))"
refused "cat <<EOF
v={v}
EOF" "in a here-document"
refused "cat <<-'END' && true
	{v}
	END" "in a here-document"
refused "cat <<A <<B
a
A
{v}
B" "in a here-document"
finish
