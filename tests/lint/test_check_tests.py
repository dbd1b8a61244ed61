#!/usr/bin/env python3
"""check_tests.py refuses what it should and passes what it should: each case
is a small test file written to a temporary folder."""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = [
    ("expect in $(...)", 'x=$(expect_status 0)\n', "expect_status runs inside"),
    ("a checking function in $(...)",
     'probe() {\n    run true\n    expect_status 0\n    echo 1\n}\nx=$(probe)\n', "probe runs inside"),
    ("through another function",
     'inner() {\n    fail "no"\n}\nouter() {\n    inner\n}\ny="$(outer)"\n', "outer runs inside"),
    ("fail as a word in SQL is no call",
     'rows() {\n    sqlite3 "$1" "SELECT fail FROM t"\n}\nx=$(rows "$DB")\n', None),
    ("a stale file read by wait_until",
     'run "$RUNNER" sweep a.lua\n"$RUNNER" sweep b.lua >"$TMP/out" 2>"$TMP/err" &\npid=$!\n'
     'wait_until "done" \'grep -q stored "$TMP/err"\'\n', "wait_until reads $TMP/err"),
    ("cleared first",
     'run "$RUNNER" sweep a.lua\nrm -f "$TMP/err"\n"$RUNNER" sweep b.lua 2>"$TMP/err" &\n'
     'wait_until "done" \'grep -q stored "$TMP/err"\'\n', None),
    ("a file of its own",
     'run "$RUNNER" sweep a.lua\n"$RUNNER" sweep b.lua 2>"$TMP/b.err" &\n'
     'wait_until "done" \'grep -q stored "$TMP/b.err"\'\n', None),
]

failures = 0
with tempfile.TemporaryDirectory() as folder:
    for name, text, expected in CASES:
        path = os.path.join(folder, "test_case.sh")
        with open(path, "w") as f:
            f.write(text)
        out = subprocess.run([sys.executable, os.path.join(HERE, "check_tests.py"), folder, path],
                             capture_output=True, text=True)
        if expected is None and (out.returncode != 0 or out.stdout):
            print("FAIL: %s: refused: %s" % (name, out.stdout.strip()))
            failures += 1
        elif expected is not None and (out.returncode != 1 or expected not in out.stdout):
            print("FAIL: %s: not refused (%d): %s" % (name, out.returncode, out.stdout.strip()))
            failures += 1
print("%d of %d cases right" % (len(CASES) - failures, len(CASES)))
sys.exit(1 if failures else 0)
