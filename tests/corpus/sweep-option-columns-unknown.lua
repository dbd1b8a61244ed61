-- A column to print that the plugin does not have.
-- expect: runner: $SCRIPT:3: speedup: columns: 'sped' is neither a parameter nor a column; 'runner plugins speedup' lists them
sweep("speedup", { workers = 8 }, { columns = { "workers", "sped" } })
