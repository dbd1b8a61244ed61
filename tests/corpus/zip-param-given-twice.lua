-- A parameter set by name and again inside a zip group: which wins?
-- expect: runner: $SCRIPT:3: speedup: parameter 'jitter' is given twice (by name and in zip{...})
sweep("speedup", { jitter = 1, zip { jitter = { 2, 3 }, base = { 1, 2 } } })
