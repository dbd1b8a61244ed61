-- A plugin built for a newer plugin ABI.
-- flags: --plugin-dir $FIXTURES/abi_future
-- expect: runner: $SCRIPT:4: $FIXTURES/abi_future/future.so: future needs plugin ABI 2, runner provides 1; upgrade runner or rebuild the plugin against this runner's <runner/plugin.h>
sweep "future" { x = 1 }
