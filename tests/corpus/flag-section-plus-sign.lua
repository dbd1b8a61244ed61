-- plot --section with a sign, checked before the database is opened.
-- command: plot 1 --x workers --y speedup --section +1 --db $DB -o $TMP/a.svg
-- expect: runner: plot: --section +1: expected a section number (1, 2, ...); see 'runner --help'
sweep("speedup", { workers = { 1, 2 } }, { print = false })
