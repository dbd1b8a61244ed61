# runner serve opens the database at each request through the store's
# checked open (issue 28 B): a FIFO swapped in for the file while the server
# runs is refused at once (it used to block a request thread for good, after
# which SIGINT/SIGTERM no longer stopped the server), the server keeps
# answering, and SIGTERM still stops it.
. tests/e2e/lib.sh
. tests/e2e/serve_lib.sh
skip_without curl "curl drives the server"

"$RUNNER" sweep scripts/seed.lua --db "$DB" --quiet >/dev/null 2>&1 || fail "seed.lua failed"
start_serve || fail "runner serve did not start: $(cat "$TMP/serve.err")"
expect_code api/sweeps 200

mv "$DB" "$DB.real"
mkfifo "$DB"
# --max-time bounds the test if the request blocks; the answer must not.
expect_code api/sweeps 500 --max-time 20
expect_equal "the error names the FIFO" "$(cat "$TMP/body")" \
    "{\"error\":\"$DB: not a database file (it is a FIFO); --db needs a regular file\"}"
expect_code api/sweeps 500 --max-time 20

# The file back: the same server answers again.
rm -f "$DB"
mv "$DB.real" "$DB"
expect_code api/sweeps 200 --max-time 20

stop_serve TERM
expect_equal "runner serve's exit status after SIGTERM" "$status" "0"
finish
