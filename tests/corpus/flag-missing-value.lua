-- An option's value missing at the end of the line.
-- flags: --seed
-- expect: runner: sweep: option '--seed' needs a value; see 'runner --help'
sweep("speedup", { workers = { 1, 2 } }, { print = false })
