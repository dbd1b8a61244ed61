-- --version takes no argument.
-- command: --version extra
-- expect: runner: --version: unexpected argument 'extra'; see 'runner --help'
sweep("speedup", { workers = { 1, 2 } }, { print = false })
