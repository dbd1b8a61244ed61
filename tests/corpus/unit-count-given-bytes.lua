-- A size for a count: the message names both units.
-- expect: runner: $SCRIPT:3: speedup: model_params: '1.5GiB': GiB (bytes) does not convert to params (a count)
sweep "speedup" { model_params = "1.5GiB" }
