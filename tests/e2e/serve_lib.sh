# Helpers for the runner serve tests (sourced after lib.sh).

# start_serve ARGS...: starts `runner serve --db $DB ARGS` in the background
# (--listen 127.0.0.1:0 unless ARGS say otherwise: a free port each time),
# waits for the line with its URL, and sets SERVE_PID, URL (as printed, with
# ?token=... when one is required) and BASE (scheme, host and port with the
# host replaced by 127.0.0.1, ending in /).
start_serve() {
    case " $* " in
        *" --listen "*) "$RUNNER" serve --db "$DB" "$@" >"$TMP/serve.out" 2>"$TMP/serve.err" & ;;
        *) "$RUNNER" serve --db "$DB" --listen 127.0.0.1:0 "$@" \
               >"$TMP/serve.out" 2>"$TMP/serve.err" & ;;
    esac
    SERVE_PID=$!
    wait_until "runner serve's URL" \
        'grep -q "^runner: serving" "$TMP/serve.out" || ! alive $SERVE_PID' || return 1
    URL=$(grep -o 'http://[^ ]*' "$TMP/serve.out" | head -n 1)
    BASE=$(echo "$URL" | sed -e 's|^http://[^:]*:\([0-9]*\)/.*|http://127.0.0.1:\1/|')
}

# stop_serve [SIGNAL]: signals the server (TERM by default), waits for it,
# and sets $status to its exit status.
stop_serve() {
    kill -"${1:-TERM}" "$SERVE_PID"
    wait "$SERVE_PID"
    status=$?
}

# http PATH [CURL ARGS...]: GETs BASE/PATH; the status code in $code, the
# body in $TMP/body, the headers in $TMP/headers.
http() {
    path=$1
    shift
    code=$(curl -s --path-as-is -o "$TMP/body" -D "$TMP/headers" -w '%{http_code}' "$@" \
        "$BASE$path")
}

# expect_code PATH CODE [CURL ARGS...]
expect_code() {
    p=$1
    want=$2
    shift 2
    http "$p" "$@"
    expect_equal "status of GET /$p" "$code" "$want"
}
