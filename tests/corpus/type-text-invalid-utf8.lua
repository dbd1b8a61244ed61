-- Bytes that are not UTF-8 (the canonical JSON form needs UTF-8).
-- expect: runner: $SCRIPT:3: speedup: model: text is not valid UTF-8: 'walk\xffthrough'
sweep "speedup" { model = "walk\xffthrough" }
