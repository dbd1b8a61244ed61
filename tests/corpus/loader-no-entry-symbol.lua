-- A shared object that is not a runner plugin.
-- flags: --plugin-dir $FIXTURES/noentry
-- expect: runner: $SCRIPT:4: $FIXTURES/noentry/noentry.so: not a runner plugin: no 'runner_plugin_entry' symbol (define it with RUNNER_PLUGIN_DEFINE from <runner/plugin.h>)
sweep "noentry" { x = 1 }
