-- Two files in one directory declaring the same plugin name.
-- flags: --plugin-dir $FIXTURES/duplicate
-- expect: runner: $SCRIPT:4: two plugins named 'twin': $FIXTURES/duplicate/twin_a.so and $FIXTURES/duplicate/twin_b.so; remove one, or put the one you want in an earlier --plugin-dir
sweep "twin" { x = 1 }
