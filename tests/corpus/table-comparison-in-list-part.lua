-- '==' where '=' was meant: valid Lua (a comparison, false) in the list part.
-- expect: runner: $SCRIPT:3: speedup: sweep tables map parameter names to values; the list part holds only zip{...} groups
sweep "speedup" { workers == 4 }
