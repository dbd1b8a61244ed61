# One gate for text shown on a terminal (docs/guarantees.md, "Text in and
# out"): every command's error messages that echo what the user typed go
# through quote_terminal — escape codes, newlines and bytes that are not
# UTF-8 shown escaped, a long text cut with a count — so no user text puts a
# raw control byte on the terminal or prints a megabyte line.
. tests/e2e/lib.sh
export RUNNER_PLUGIN_PATH="$RUNNER_FIXTURES/good"
script=$(write_script rows.lua <<'LUA'
sweep("speedup", { workers = range(1, 6) }, { print = false })
LUA
)
"$RUNNER" sweep "$script" --db "$DB" --quiet 2>/dev/null
"$RUNNER" sweep "$script" --db "$DB" --quiet 2>/dev/null
esc=$(printf 'x\033[31mred\033]0;title\007')
bad=$(printf 'caf\351\377')
big=$(head -c 120000 /dev/zero | tr "\\0" a) # one argument holds at most 128 KiB (MAX_ARG_STRLEN)
# gated TEXT ARGS...: runner ARGS (TEXT inside them) fails with exit 2, and
# its stderr holds no ESC, BEL or invalid UTF-8 byte and no line past 5000
# bytes.
checked=0
gated() {
    run "$RUNNER" "$@"
    [ "$status" -ge 1 ] && [ "$status" -le 2 ] || fail "runner $1: exit status $status"
    if LC_ALL=C grep -q "$(printf '[\033\007]')" "$TMP/err" 2>/dev/null ||
        ! python3 -c 'import sys; open(sys.argv[1], "rb").read().decode("utf-8")' "$TMP/err" ||
        [ "$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$TMP/err")" -gt 5000 ]; then
        fail "runner $1 printed raw or unbounded text: $(head -c 300 "$TMP/err" | od -c | head -5)"
    fi
    checked=$((checked + 1))
}
for text in "$esc" "$bad" "$big"; do
    gated fit 1 --x workers --y "$text" --model amdahl --db "$DB"
    gated fit 1 --x "$text" --y speedup --model amdahl --db "$DB"
    gated fit 1 --x workers --y speedup --model "$text" --db "$DB"
    gated fit 1 --x workers --y speedup --model amdahl --by "$text" --db "$DB"
    gated fit 1 --x workers --y speedup --model amdahl --weights "$text" --db "$DB"
    gated sensitivity 1 --y "$text" --db "$DB"
    gated diff 1 2 --columns "$text" --db "$DB"
    gated diff 1 2 --stat --columns "$text" --db "$DB"
    gated plot 1 --x "$text" --db "$DB" --output "$TMP/p.svg"
    gated pareto 1 --min "$text" --max speedup --db "$DB"
    gated show "$text" --db "$DB"
    gated sweeps --since "$text" --db "$DB"
    gated rename 1 "$text" --db "$DB"
    gated tag 1 "$text" --db "$DB"
    gated export "$text" --db "$DB"
    gated sweep "$TMP/$text.lua" --db "$DB"
    gated show 1 --db "$TMP/$text"
done
[ $checked -eq 51 ] || fail "checked $checked commands, expected 51"
# The cut says how much it left out.
run "$RUNNER" fit 1 --x workers --y "$big" --model amdahl --db "$DB"
expect_stderr_contains "more bytes)"
finish
