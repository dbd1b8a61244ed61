-- An option runner does not have.
-- flags: --dry-run
-- expect: runner: sweep: unknown option '--dry-run'; see 'runner --help'
sweep("speedup", { workers = { 1, 2 } }, { print = false })
