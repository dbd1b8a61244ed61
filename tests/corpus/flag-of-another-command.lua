-- An option of another command (show).
-- flags: --format csv
-- expect: runner: sweep: unknown option '--format'; see 'runner --help'
sweep("speedup", { workers = { 1, 2 } }, { print = false })
