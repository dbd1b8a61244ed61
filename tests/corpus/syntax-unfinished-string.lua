-- A string missing its closing quote.
-- expect: runner: $SCRIPT:3: unfinished string near '"walkthrough }'
sweep "speedup" { model = "walkthrough }
