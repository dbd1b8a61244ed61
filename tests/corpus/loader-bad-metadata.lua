-- A plugin whose default lies outside its own range.
-- flags: --plugin-dir $FIXTURES/badmeta
-- expect: runner: $SCRIPT:4: $FIXTURES/badmeta/badmeta.so: invalid plugin metadata: parameter 'x': default 30 is outside [0, 10]
sweep "badmeta" { x = 1 }
