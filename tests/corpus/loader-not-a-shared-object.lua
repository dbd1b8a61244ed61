-- A text file named garbage.so: dlopen's own words, and what to check.
-- flags: --plugin-dir $FIXTURES/notso
-- expect: runner: $SCRIPT:4: $FIXTURES/notso/garbage.so: cannot load plugin: $FIXTURES/notso/garbage.so: file too short (is it a shared object built for this machine? check it with 'file' and 'ldd')
sweep "garbage" { x = 1 }
