-- --resume of a script this database never ran. runner opens the database
-- to look, and must leave it exactly as it was.
-- flags: --resume
-- expect: runner: $DB: no earlier sweep of $SCRIPT to resume; run it without --resume
sweep("speedup", { workers = { 1, 2 } }, { print = false })
