-- A misspelt name of a plugin that only --plugin-dir provides.
-- flags: --plugin-dir $FIXTURES/good
-- expect: runner: $SCRIPT:4: unknown plugin 'testkid' (did you mean 'testkit'?); 'runner plugins' lists the installed ones
sweep "testkid" { x = 1 }
