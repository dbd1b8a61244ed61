# --help and --version answer on stdout with status 0; every command has its
# own --help, made from the option table (core/cli/options.def), and
# docs/cli.md's synopsis block says exactly what --help says.
. tests/e2e/lib.sh
DOC=docs/cli.md
COMMANDS="sweep resume plugins sweeps show plot report notify migrate diff verify artifacts merge slurm serve tag note rename rm vacuum export fit pareto sensitivity history answers machine"

run "$RUNNER" --help
expect_status 0
expect_stdout_contains "usage: runner COMMAND [OPTIONS]"
expect_stdout_contains "exit status: 0 ok, 1 some points failed, 2 bad input or usage"
expect_stdout_contains "notify), 4 a plugin called exit() inside runner (--isolate runs untrusted"
cp "$TMP/out" "$TMP/main-help"
# Every command runner --help lists is checked below: the list is read
# from --help, so a new command cannot be left out of this test.
listed=$(sed -n 's/^  runner \([a-z][a-z-]*\).*/\1/p' "$TMP/main-help" | sort -u | tr '\n' ' ')
expect_equal "the commands --help lists" "$listed" "$(echo $COMMANDS | tr ' ' '\n' | sort -u | tr '\n' ' ')"
run "$RUNNER" --version
expect_status 0
expect_stdout_contains "runner 0.1.0 (plugin ABI 1, schema "
run "$RUNNER"
expect_status 2
expect_stderr_contains "usage: runner COMMAND [OPTIONS]"

# joined FILE: the file on one line, its newlines made \001, so that a block
# of lines can be looked for verbatim with grep -F.
joined() {
    tr '\n' '\001' <"$1"
}
joined "$DOC" >"$TMP/doc-joined"

for command in $COMMANDS; do
    run "$RUNNER" "$command" --help
    expect_status 0
    [ -s "$TMP/err" ] && fail "$command --help wrote on stderr: $(cat "$TMP/err")"
    cp "$TMP/out" "$TMP/help-$command"
    # The synopsis: the lines before the first blank one.
    sed '/^$/,$d' "$TMP/help-$command" >"$TMP/synopsis-$command"
    head -n 1 "$TMP/synopsis-$command" | grep -q "^runner $command" ||
        fail "$command --help does not start with its synopsis"
    if ! grep -qaF -- "$(joined "$TMP/synopsis-$command")" "$TMP/doc-joined"; then
        fail "$DOC's synopsis of '$command' differs from 'runner $command --help'; it should read:"
        cat "$TMP/synopsis-$command" >&2
    fi
    case $command in plot|report)
        joined docs/plots.md | grep -qaF -- "$(joined "$TMP/synopsis-$command")" ||
            fail "docs/plots.md's synopsis of '$command' differs from 'runner $command --help'"
    esac
    # runner --help shows the same synopsis, indented.
    sed 's/^/  /' "$TMP/synopsis-$command" >"$TMP/indented"
    joined "$TMP/main-help" | grep -qaF -- "$(joined "$TMP/indented")" ||
        fail "runner --help lacks the synopsis of $command"
    # Every option of the synopsis has a line of its own with its meaning (a
    # lone "-" is no option: runner tag SWEEP +TAG|-TAG).
    for option in $(grep -o -- '-[-a-z][-a-z]*' "$TMP/synopsis-$command" | sort -u); do
        grep -qE -- "^  $option(, --[a-z-]+)?( [^ ]+)?(  +[a-z]|$)" "$TMP/help-$command" ||
            fail "$command --help does not explain $option"
        # ... and so does the manual, in a table row or the text.
        case $command in plot|report) manual=docs/plots.md ;; *) manual=$DOC ;; esac
        grep -qF -- "\`$option" "$manual" || fail "$manual does not explain $command $option"
    done
    # -h and `runner help COMMAND` say the same.
    run "$RUNNER" "$command" -h
    cmp -s "$TMP/out" "$TMP/help-$command" || fail "$command -h differs from $command --help"
    run "$RUNNER" help "$command"
    cmp -s "$TMP/out" "$TMP/help-$command" || fail "runner help $command differs"
done

# Defaults are shown where they are written: once, in the table. (flat:
# the help on one line, so a wrapped default still matches.)
flat() {
    tr '\n' ' ' <"$1" | tr -s ' '
}
for default in "N points (default: 1000000)" "counted) (default: 600)" "(default: 1024)" \
    "(default: one per core)" '(default: $RUNNER_DB, else results.db)'; do
    flat "$TMP/help-sweep" | grep -qF -- "$default" || fail "sweep --help lacks '$default'"
done
flat "$TMP/help-show" | grep -qF -- "(default: table)" || fail "show --help lacks --format's default"
grep -qF -- "--point-timeout S" "$TMP/help-resume" || fail "resume --help lacks --point-timeout"

# --help wins over whatever follows it; a bad option before it is reported.
run "$RUNNER" sweep --frobnicate --help
expect_status 2
expect_stderr "runner: sweep: unknown option '--frobnicate'; see 'runner --help'"
run "$RUNNER" show 1 --help --frobnicate
expect_status 0
cmp -s "$TMP/out" "$TMP/help-show" || fail "show 1 --help is not show's help"

# Words after --help or --version are refused, not ignored.
run "$RUNNER" --version extra
expect_status 2
expect_stderr "runner: --version: unexpected argument 'extra'; see 'runner --help'"
run "$RUNNER" --help sweep extra
expect_status 2
expect_stderr "runner: --help: unexpected argument 'extra'; see 'runner --help'"
run "$RUNNER" --help frobnicate
expect_status 2
expect_stderr "runner: unknown command 'frobnicate'; see 'runner --help'"

# Values are plain: a blank that would not show is quoted in the message.
run "$RUNNER" sweep scripts/jitter.lua --jobs ' 4'
expect_status 2
expect_stderr "runner: --jobs ' 4': expected a number of threads between 1 and 1024; see 'runner --help'"
run "$RUNNER" sweep scripts/jitter.lua --seed=
expect_status 2
expect_stderr "runner: --seed '': expected a non-negative integer; see 'runner --help'"
run "$RUNNER" sweep scripts/jitter.lua --script-timeout ' 5'
expect_status 2
expect_stderr "runner: --script-timeout ' 5': expected a positive number of seconds; see 'runner --help'"
finish
