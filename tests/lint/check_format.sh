#!/bin/sh
# Every C file of runner's (core, plugins, tests, apps, bench, docs/examples)
# is in the form .clang-format gives it: `clang-format --dry-run --Werror`
# prints each difference and fails. The style was written for clang-format
# 14 (Debian 12); another version may format otherwise, so it is not used.
# Fix with: clang-format -i FILE.
set -u
cd "${1:-$(dirname "$0")/../..}" || exit 2

# skip REASON: no usable clang-format here; a failure under make test
# (RUNNER_TEST_REQUIRE_TOOLS, as in tests/e2e/lib.sh).
skip() {
    if [ -n "${RUNNER_TEST_REQUIRE_TOOLS:-}" ]; then
        echo "FAIL: clang-format 14 is required under make test (RUNNER_TEST_REQUIRE_TOOLS is set): $1" >&2
        exit 1
    fi
    echo "SKIP: $1"
    exit 77
}

command -v clang-format >/dev/null 2>&1 ||
    skip "clang-format not found; install it with: sudo apt-get install clang-format"
version=$(clang-format --version | sed -n 's/.*clang-format version \([0-9]*\)\..*/\1/p')
[ "$version" = 14 ] || skip "clang-format ${version:-of unknown version} is not 14, which .clang-format is written for"

list=$(mktemp) || exit 2
trap 'rm -f "$list"' EXIT
# The plugin ABI header keeps its hand-aligned layout, which
# docs/plugin-abi.md quotes; the format commit left it as it was.
find core plugins tests apps bench docs/examples -type f -name '*.[ch]' |
    grep -v '^core/include/runner/plugin\.h$' | sort >"$list"
count=$(wc -l <"$list")
if [ "$count" -eq 0 ]; then
    echo "FAIL: no C files found under $(pwd)" >&2
    exit 1
fi
# One file a line, names without spaces (runner's own files).
if ! xargs clang-format --dry-run --Werror <"$list"; then
    echo "FAIL: the files above differ from .clang-format; run clang-format -i on them" >&2
    exit 1
fi
echo "check_format: $count C files as .clang-format says"
