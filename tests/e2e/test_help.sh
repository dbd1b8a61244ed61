# --help and --version answer on stdout with status 0.
. tests/e2e/lib.sh
run "$RUNNER" --help
expect_status 0
expect_stdout_contains "usage: runner COMMAND [OPTIONS]"
expect_stdout_contains "exit status: 0 ok, 1 some points failed, 2 bad input or usage"
run "$RUNNER" --version
expect_status 0
expect_stdout_contains "runner 0.1.0 (plugin ABI 1, schema 3)"
run "$RUNNER"
expect_status 2
finish
