-- A text value outside the declared choices.
-- expect: runner: $SCRIPT:3: speedup: model: 'ring' is not one of 'walkthrough', 'combined'
sweep "speedup" { model = { "walkthrough", "ring" } }
