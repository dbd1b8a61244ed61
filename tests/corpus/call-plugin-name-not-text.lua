-- sweep() with a number for the plugin name.
-- expect: runner: $SCRIPT:3: sweep needs a plugin name: sweep "speedup" { ... }
sweep(42, { workers = 8 })
