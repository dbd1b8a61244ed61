-- A --plugin-dir that does not exist.
-- flags: --plugin-dir $TMP/no-such-dir
-- expect: runner: plugin directory '$TMP/no-such-dir': No such file or directory
sweep("speedup", { workers = { 1, 2 } }, { print = false })
