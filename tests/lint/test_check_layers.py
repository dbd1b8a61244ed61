#!/usr/bin/env python3
"""The test of check_layers.py: a small tree written to a temporary folder,
clean, then with one forbidden include (or rule) at a time, each asserting
the exact lines and the exit status; then the real tree, whose includes must
be found (a checker that reads nothing passes everything), and a copy of it
with one forbidden include added."""

import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKER = os.path.join(HERE, "check_layers.py")
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))

RULES = """\
# a fixture: four layers and main.c
folder base:
folder store: base
folder run: base store
folder cli: base store run
folder .: cli
face base: *
face store: store/store.h
face run: run/run.h
face cli: cli/cli.h
public include
owner <sqlite3.h>: store/
owner <openssl/*>: base/digest.c
"""

# Every file ends without an include on its last line, so an include
# appended to FILE is on line len(FILES[FILE].splitlines()) + 1.
FILES = {
    "main.c": '#include "cli/cli.h"\n',
    "base/util.h": "/* util */\n",
    "base/digest.c": '#include <openssl/evp.h>\n#include "util.h"\n',
    "store/store.h": '#include "base/util.h"\n',
    "store/store_read.h": "/* a second header: not the face */\n",
    "store/store_int.h": '#include <sqlite3.h>\n#include "store.h"\n',
    "store/store_open.c": '#include "store_int.h"\n',
    "run/run.h": '#include "store/store.h"\n',
    "run/run.c": '#include "run.h"\n#include "base/util.h"\n#include "runner/plugin.h"\n',
    "cli/cli.h": "/* cli */\n",
    "cli/cli.c": '#include <stdio.h>\n#include "cli.h"\n#include "run/run.h"\n#include "store/store.h"\n',
    "include/runner/plugin.h": "/* the ABI */\n",
}

failures = 0


def write_tree(root, extra_rules="", appended=None):
    """The fixture tree under root; appended maps a file to a line added at its end."""
    for rel, text in FILES.items():
        path = os.path.join(root, "core", rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text + (appended or {}).get(rel, ""))
    for rel, text in (appended or {}).items():
        if rel not in FILES:
            path = os.path.join(root, "core", rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
    with open(os.path.join(root, "core", "layers.txt"), "w", encoding="utf-8") as f:
        f.write(RULES + extra_rules)


def run(root):
    done = subprocess.run([sys.executable, CHECKER, root], capture_output=True, text=True)
    return done.returncode, done.stdout.splitlines(), done.stderr


def expect(name, got, wanted):
    global failures
    if got == wanted:
        print(f"ok: {name}")
    else:
        failures += 1
        print(f"FAIL: {name}\n  expected: {wanted!r}\n  got:      {got!r}")


def case(name, wanted_lines, extra_rules="", appended=None, status=1):
    """The fixture with one change: exactly wanted_lines, then the count line."""
    with tempfile.TemporaryDirectory() as root:
        write_tree(root, extra_rules, appended)
        rc, lines, err = run(root)
        expect(f"{name}: exit status", rc, status)
        expect(f"{name}: lines", lines[:-1], wanted_lines)
        expect(f"{name}: count line", bool(re.fullmatch(
            rf"check_layers: \d+ files, \d+ includes, {len(wanted_lines)} problems", lines[-1] if lines else "")), True)
        expect(f"{name}: stderr", err, "")


def rules_line(text):
    return (RULES + text).splitlines().index(text.splitlines()[-1]) + 1


case("clean fixture", [], status=0)
case("store reaches up to run, which makes a cycle", [
    "core/store/store_open.c:2: store may not include run/run.h",
    "core/: the folders include each other in a cycle: run -> store -> run",
], appended={"store/store_open.c": '#include "run/run.h"\n'})
case("the same through a relative path", [
    "core/store/store_open.c:2: store may not include run/run.h",
    "core/: the folders include each other in a cycle: run -> store -> run",
], appended={"store/store_open.c": '#include "../run/run.h"\n'})
case("the same in angle brackets", [
    "core/store/store_open.c:2: store may not include run/run.h",
    "core/: the folders include each other in a cycle: run -> store -> run",
], appended={"store/store_open.c": "#  include <run/run.h>\n"})
case("a system header outside its owner", [
    "core/run/run.c:4: run may not include <sqlite3.h> (owned by store/)",
], appended={"run/run.c": "#include <sqlite3.h>\n"})
case("a header under an owned folder", [
    "core/run/run.c:4: run may not include <openssl/sha.h> (owned by base/digest.c)",
], appended={"run/run.c": "#include <openssl/sha.h>\n"})
case("a header other than the face", [
    "core/cli/cli.c:5: cli may include store/ only through store/store.h, not store/store_read.h",
], appended={"cli/cli.c": '#include "store/store_read.h"\n'})
case("a second face declared: that header may be included too", [],
     extra_rules="face store: store/store.h store/store_read.h\n",
     appended={"cli/cli.c": '#include "store/store_read.h"\n'}, status=0)
case("a private header across folders", [
    "core/run/run.c:4: run may not include store/store_int.h (private to store/)",
], appended={"run/run.c": '#include "store/store_int.h"\n'})
case("the CLI's face outside main.c", [
    "core/run/run.c:4: only core/main.c may include cli/cli.h",
    "core/: the folders include each other in a cycle: cli -> run -> cli",
], appended={"run/run.c": '#include "cli/cli.h"\n'})
case("main.c including anything else of runner's", [
    "core/main.c:2: main.c may not include base/util.h",
], appended={"main.c": '#include "base/util.h"\n'})
case("an include that is not a file", [
    'core/cli/cli.c:5: "nowhere.h" is not a file under core/',
], appended={"cli/cli.c": '#include "nowhere.h"\n'})
case("a folder without rules", [
    "core/extra/extra.c:1: folder extra/ has no folder line in core/layers.txt",
], appended={"extra/extra.c": '#include "base/util.h"\n'})
case("rules that allow a cycle", [
    "core/layers.txt: the folders may include each other in a cycle: base -> run -> base",
], extra_rules="folder base: run\n")
case("an exception that allows one include", [],
     extra_rules="exception run/run.c: <sqlite3.h>\n", appended={"run/run.c": "#include <sqlite3.h>\n"},
     status=0)
case("an exception that matches nothing", [
    f"core/layers.txt:{rules_line('exception run/run.c: <sqlite3.h>')}: the exception for run/run.c "
    "and <sqlite3.h> matches no include any more: remove it",
], extra_rules="exception run/run.c: <sqlite3.h>\n")

with tempfile.TemporaryDirectory() as root:
    write_tree(root, "folder store base\n")
    rc, lines, err = run(root)
    expect("a rules line without a colon: exit status", rc, 2)
    expect("a rules line without a colon: stderr", err,
           f"check_layers: {os.path.join(root, 'core', 'layers.txt')}:{rules_line('folder store base')}: "
           "expected 'KEYWORD NAME: ...', got 'folder store base'\n")

# The real tree: clean, and its includes are read.
rc, lines, err = run(REPO)
expect("the real tree: exit status", rc, 0)
counted = re.fullmatch(r"check_layers: (\d+) files, (\d+) includes, 0 problems", lines[-1] if lines else "")
expect("the real tree: files and includes found", bool(counted and int(counted[1]) > 0 and int(counted[2]) > 0), True)
print(lines[-1] if lines else "(no output)")

# A copy of the real tree with one forbidden include: the real rules catch it.
with tempfile.TemporaryDirectory() as root:
    shutil.copytree(os.path.join(REPO, "core"), os.path.join(root, "core"))
    target = os.path.join(root, "core", "store", "store_write.c")
    with open(target, encoding="utf-8") as f:
        line = len(f.read().splitlines()) + 1
    with open(target, "a", encoding="utf-8") as f:
        f.write('#include "run/run.h"\n')
    rc, lines, err = run(root)
    expect("the real tree plus store including run: exit status", rc, 1)
    expect("the real tree plus store including run: the line",
           f"core/store/store_write.c:{line}: store may not include run/run.h" in lines, True)

print(f"{failures} failures")
sys.exit(1 if failures else 0)
