# The walk-through of docs/plugin-abi.md, for real: install runner into a
# temporary prefix, build docs/examples/amdahl out of tree with only the
# installed header and pkg-config file, run it, check its rows.
. tests/e2e/lib.sh
prefix="$TMP/prefix"
run cmake --install "$RUNNER_BUILD" --prefix "$prefix"
expect_status 0
pc_dir=$(dirname "$(find "$prefix" -name runner.pc | head -n 1)")
[ -f "$prefix/include/runner/plugin.h" ] || fail "header not installed"
mkdir -p "$TMP/plugins"
cflags=$(PKG_CONFIG_PATH="$pc_dir" pkg-config --cflags runner)
case "$cflags" in *"$prefix/include"*|*"$pc_dir/../../include"*) ;; *) fail "pkg-config cflags: $cflags";; esac
run sh -c "cc -std=c11 -Wall -Wextra -Werror -shared $cflags -o '$TMP/plugins/amdahl.so' docs/examples/amdahl/amdahl.c"
expect_status 0
# Exactly one exported symbol, and no dependency on runner.
exported=$(nm -D --defined-only "$TMP/plugins/amdahl.so" | awk '$2 == "T" {print $3}')
[ "$exported" = "runner_plugin_entry" ] || fail "exported symbols: $exported"
run "$prefix/bin/runner" plugins amdahl --plugin-dir "$TMP/plugins"
expect_status 0
expect_stdout_contains "serial_fraction"
run "$prefix/bin/runner" sweep docs/examples/amdahl/amdahl.lua --plugin-dir "$TMP/plugins" --db "$DB"
expect_status 0
expect_sql "SELECT count(*) FROM amdahl" "22"
# 1 / (0.05 + 0.95 / 1024) = 19.6357...
expect_sql "SELECT printf('%.4f', speedup) FROM amdahl WHERE serial_fraction = 0.05 AND workers = 1024" "19.6357"
expect_sql "SELECT printf('%.1f', ceiling) FROM amdahl WHERE serial_fraction = 0.01 AND workers = 1" "100.0"
finish
