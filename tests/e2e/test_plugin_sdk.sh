# The walk-through of docs/plugin-abi.md, for real: install runner into a
# temporary prefix, build docs/examples/amdahl out of tree with only the
# installed header and pkg-config file, and again with find_package(runner),
# run it, check its rows. Then the install moved to another prefix: the
# copy finds its own plugins and Lua library, never the build tree's.
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

# The same plugin through the CMake package: runner::plugin gives the header,
# hidden visibility and --no-undefined; installing puts it in RUNNER_PLUGIN_DIR.
run cmake -S docs/examples/amdahl -B "$TMP/amdahl-build" -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_C_FLAGS=-Werror
expect_status 0
run cmake --build "$TMP/amdahl-build"
expect_status 0
exported=$(nm -D --defined-only "$TMP/amdahl-build/amdahl.so" | awk '$2 == "T" {print $3}')
[ "$exported" = "runner_plugin_entry" ] || fail "find_package build, exported symbols: $exported"
run cmake --install "$TMP/amdahl-build"
expect_status 0
[ -f "$prefix/lib/runner/plugins/amdahl.so" ] || fail "amdahl.so not installed in RUNNER_PLUGIN_DIR"

# Moved: install at one prefix, copy it to another, delete the first. The
# copy lists the plugins beside it (amdahl among them, found without
# --plugin-dir), the ones the build tree has, and none from the build tree.
moved="$TMP/moved"
cp -a "$prefix" "$moved"
rm -rf "$prefix"
moved_abs=$(cd "$moved" && pwd -P)
run "$moved/bin/runner" plugins
expect_status 0
expect_stdout_contains "file: $moved_abs/lib/runner/plugins/amdahl.so"
grep -qF "$(cd "$RUNNER_BUILD" && pwd -P)" "$TMP/out" && fail "the moved install loads plugins from the build tree"
built=$("$RUNNER" plugins | awk '!/^ / {print $1}')
moved_names=$(awk '!/^ / && $1 != "amdahl" {print $1}' "$TMP/out")
expect_equal "plugins of the moved install" "$moved_names" "$built"
# pkg-config's plugindir is that same directory.
plugindir=$(PKG_CONFIG_PATH="$moved/lib/pkgconfig" pkg-config --variable=plugindir runner)
expect_equal "pkg-config plugindir" "$(cd "$plugindir" && pwd -P)" "$moved_abs/lib/runner/plugins"
# The Lua library too: a module only the moved install has.
echo 'return { where = "moved" }' >"$moved/share/runner/scripts/lib/where.lua"
script=$(write_script where.lua <<'LUA'
print(require("where").where)
LUA
)
run "$moved/bin/runner" sweep "$script" --db "$TMP/where.db" --quiet
expect_status 0
expect_stdout_contains "moved"
finish
