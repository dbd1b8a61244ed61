-- An in-memory database would lose the results at exit.
-- flags: --db :memory:
-- expect: runner: --db :memory:: give a file name; results in memory would be lost at exit; see 'runner --help'
sweep("speedup", { workers = { 1, 2 } }, { print = false })
