-- A missing comma between two parameters.
-- expect: runner: $SCRIPT:5: '}' expected (to close '{' at line 3) near 'jitter'
sweep "speedup" {
  workers = { 1, 2 }
  jitter = 2,
}
