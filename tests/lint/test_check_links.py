#!/usr/bin/env python3
"""The test of check_links.py: a small tree of three folders compiled into a
temporary build tree (cc -c, as CMake lays the objects out), clean, then with
a call up the layers, asserting the exact line and the exit status; and an
empty build tree, which must be refused rather than pass."""

import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKER = os.path.join(HERE, "check_links.py")

RULES = """\
folder base:
folder plugin: base
folder exec: base plugin
face base: *
face plugin: plugin/plugin.h
face exec: exec/exec.h
"""

FILES = {
    "base/util.c": "int util_twice(int x) { return 2 * x; }\n",
    "plugin/host.c": "int util_twice(int);\nint host_run(int x) { return util_twice(x); }\n",
    "exec/exec.c": "int host_run(int);\nvoid exec_free(void) {}\nint exec_go(int x) { return host_run(x); }\n",
}

failures = 0


def check(what, got, want):
    global failures
    if got != want:
        failures += 1
        print(f"FAIL {what}:\n  want {want!r}\n  got  {got!r}")


def build(root, files):
    os.makedirs(os.path.join(root, "core"), exist_ok=True)
    for rel, text in files.items():
        src = os.path.join(root, "core", rel)
        os.makedirs(os.path.dirname(src), exist_ok=True)
        with open(src, "w", encoding="utf-8") as f:
            f.write(text)
        obj = os.path.join(root, "build", "core", "CMakeFiles", "runner_core.dir", rel + ".o")
        os.makedirs(os.path.dirname(obj), exist_ok=True)
        subprocess.run(["cc", "-c", src, "-o", obj], check=True)
    with open(os.path.join(root, "core", "layers.txt"), "w", encoding="utf-8") as f:
        f.write(RULES)


def run(root):
    p = subprocess.run([sys.executable, CHECKER, root, os.path.join(root, "build")],
                       capture_output=True, text=True)
    return p.returncode, p.stdout.splitlines(), p.stderr.strip()


with tempfile.TemporaryDirectory() as root:
    build(root, FILES)
    rc, out, _ = run(root)
    check("clean tree: status", rc, 0)
    check("clean tree: lines", out, ["check_links: 3 objects, 2 uses across folders, 0 problems"])

with tempfile.TemporaryDirectory() as root:
    up = dict(FILES)
    up["plugin/host.c"] += "void exec_free(void);\nvoid host_done(void) { exec_free(); }\n"
    build(root, up)
    rc, out, _ = run(root)
    check("call up: status", rc, 1)
    check("call up: lines", out, [
        "core/plugin/host.c: uses exec_free of core/exec/exec.c, which plugin may not reach",
        "check_links: 3 objects, 3 uses across folders, 1 problems",
    ])

with tempfile.TemporaryDirectory() as root:
    build(root, {})
    rc, out, err = run(root)
    check("nothing built: status", rc, 2)
    check("nothing built: message", err,
          f"check_links: no object file of core/ under {os.path.join(root, 'build')}: build it first")

sys.exit(1 if failures else 0)
