-- A table that is never closed: Lua's parser reports the end of the file.
-- expect: runner: $SCRIPT:5: unexpected symbol near <eof>
sweep "speedup" {
  workers = { 1, 2, 4 },
