-- --set for a script that declares no options.
-- flags: --set workers=4
-- expect: runner: $SCRIPT:4: --set workers: the script declares no options (declare them with options{...} before the first sweep)
sweep("speedup", { workers = { 1, 2 } }, { print = false })
