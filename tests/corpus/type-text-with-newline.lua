-- A text value holding a newline must not split the error into two lines.
-- BUG: runner echoes the value raw, so stderr is two lines.
-- expect: runner: $SCRIPT:4: speedup: model: 'walk\nthrough' is not one of 'walkthrough', 'combined'
sweep "speedup" { model = "walk\nthrough" }
