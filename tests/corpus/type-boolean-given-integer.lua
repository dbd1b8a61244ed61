-- 1 for a boolean parameter (Lua's 1 is not true).
-- flags: --plugin-dir $FIXTURES/good
-- expect: runner: $SCRIPT:4: testkit: fail: expected true or false, got an integer
sweep "testkit" { fail = 1 }
