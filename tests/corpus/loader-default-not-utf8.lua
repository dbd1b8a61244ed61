-- A plugin whose text default is not UTF-8 (Latin-1 "café"): refused at
-- load, not when a point's identity is computed (the sweep was left "error").
-- flags: --plugin-dir $FIXTURES/badtext
-- expect: runner: $SCRIPT:5: $FIXTURES/badtext/badtext.so: invalid plugin metadata: parameter 'label': default is not valid UTF-8: 'caf\xe9'
sweep "badtext" { x = 1 }
