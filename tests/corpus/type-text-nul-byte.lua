-- Text values are C strings: a NUL would cut "a\0b" and "a\0c" to one "a"
-- with one identity, so text holding a NUL is refused.
-- flags: --plugin-dir $FIXTURES/good
-- expect: runner: $SCRIPT:5: testkit: label: text contains a NUL byte after 'a'; text values cannot hold one
sweep "testkit" { label = { "a\0b", "a\0c" } }
