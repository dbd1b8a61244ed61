-- A value whose unit does not convert to the declared one (bytes for seconds).
-- expect: runner: $SCRIPT:3: speedup: jitter: '2GiB': GiB (bytes) does not convert to s (time)
sweep "speedup" { jitter = { "500ms", "2GiB" } }
