# libcurl, libmicrohttpd and libcrypto are opened only by the commands that
# use them
# (core/base/lazylib.c; docs/performance.md, start-up): a reader such as
# `runner sweeps` or `runner show` never maps them, and when one cannot be
# loaded the command that needs it says which and how to install it, in one
# line, exit 2. The loader itself says what it maps (LD_DEBUG=libs).
. tests/e2e/lib.sh

PLUGINS="$RUNNER_FIXTURES/good"
QUICK=$(write_script quick.lua <<'LUA'
sweep("testkit", { x = {1, 2}, rows = {2} }, { title = "quick", print = false })
LUA
)
run "$RUNNER" sweep "$QUICK" --db "$DB" --plugin-dir "$PLUGINS" --quiet
expect_status 0

# mapped NAME CMD...: what the loader maps while CMD runs (its stderr: the
# loader's lines and the command's own), in $TMP/libs.
mapped() {
    name=$1
    shift
    LD_DEBUG=libs "$@" >"$TMP/out" 2>"$TMP/libs"
    status=$?
    expect_status 0
    # The loader speaks (else the check below could never fail).
    grep -q 'find library=libsqlite3' "$TMP/libs" || fail "$name: LD_DEBUG=libs shows no libsqlite3 (no loader output?)"
    for lib in libcurl libmicrohttpd libcrypto libgnutls libnghttp2 libssh2; do
        if grep -q "find library=$lib" "$TMP/libs"; then
            fail "$name maps $lib"
        fi
    done
}
mapped "sweeps" "$RUNNER" sweeps --db "$DB" --format csv
mapped "show" "$RUNNER" show 1 --db "$DB"
mapped "--version" "$RUNNER" --version

# The commands that need them do map them, on demand.
LD_DEBUG=libs RUNNER_WEBHOOK_TIMEOUT_S=1 "$RUNNER" notify --db "$DB" --webhook http://127.0.0.1:9/hook >"$TMP/out" 2>"$TMP/libs"
grep -q 'find library=libcurl.so.4' "$TMP/libs" || fail "notify --webhook did not load libcurl"
LD_DEBUG=libs "$RUNNER" sweep "$QUICK" --db "$TMP/hashing.db" --plugin-dir "$PLUGINS" --quiet >"$TMP/out" 2>"$TMP/libs"
grep -q 'find library=libcrypto.so.3' "$TMP/libs" || fail "a sweep did not load libcrypto"

# --- a library that cannot be loaded: one line, exit 2, nothing stored ---------
sweeps_before=$(sql "SELECT count(*) FROM sweep")
RUNNER_LIBCURL=nonexistent.so run "$RUNNER" sweep "$QUICK" --db "$DB" --plugin-dir "$PLUGINS" --quiet --webhook http://127.0.0.1:9/hook
expect_status 2
expect_stderr "runner: --webhook needs libcurl (nonexistent.so): nonexistent.so: cannot open shared object file: No such file or directory; install it with apt-get install libcurl4"
expect_sql "SELECT count(*) FROM sweep" "$sweeps_before"

RUNNER_LIBCURL=nonexistent.so run "$RUNNER" notify --db "$DB" --webhook http://127.0.0.1:9/hook
expect_status 2
expect_stderr "runner: --webhook needs libcurl (nonexistent.so): nonexistent.so: cannot open shared object file: No such file or directory; install it with apt-get install libcurl4"

# A library that loads but lacks a function runner calls (libsqlite3 here).
RUNNER_LIBCURL=libsqlite3.so.0 run "$RUNNER" notify --db "$DB" --webhook http://127.0.0.1:9/hook
expect_status 2
expect_stderr "runner: --webhook needs libcurl (libsqlite3.so.0) with curl_global_init, which that file lacks; apt-get install libcurl4"

RUNNER_LIBCRYPTO=nonexistent.so run "$RUNNER" sweep "$QUICK" --db "$DB" --plugin-dir "$PLUGINS" --quiet
expect_status 2
expect_stderr "runner: hashing (point identities, provenance) needs libcrypto (nonexistent.so): nonexistent.so: cannot open shared object file: No such file or directory; install it with apt-get install libssl3"
expect_sql "SELECT count(*) FROM sweep" "$sweeps_before"

RUNNER_LIBMICROHTTPD=nonexistent.so run "$RUNNER" serve --db "$DB" --listen 127.0.0.1:0
expect_status 2
expect_stderr "runner: serve needs libmicrohttpd (nonexistent.so): nonexistent.so: cannot open shared object file: No such file or directory; install it with apt-get install libmicrohttpd12"

# No RUNPATH element names the current directory (an empty one does: CMake's
# build-tree RUNPATH, padded for the install step, ended in ':').
skip_without readelf "no readelf (apt-get install binutils)"
runpath=$(readelf -d "$RUNNER" | sed -n 's/.*(R[UN]*PATH).*\[\(.*\)\]$/\1/p')
case "$runpath" in
:* | *: | *::*) fail "runner's RUNPATH '$runpath' has an empty element: the loader would search the current directory" ;;
esac

finish
