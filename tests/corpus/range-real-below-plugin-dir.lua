-- A real below a negative minimum, in a plugin from --plugin-dir.
-- flags: --plugin-dir $FIXTURES/good
-- expect: runner: $SCRIPT:4: testkit: x: -10000000000 is out of range [-1000000000, 1000000000] s
sweep "testkit" { x = -1e10 }
