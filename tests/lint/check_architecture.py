#!/usr/bin/env python3
"""docs/architecture.md is the one-page map of core/: it names every C file
of core/ (by its name in backquotes, `store_open.c`, or its path,
`store/store_open.c`), and every file it names exists (in core/, or
elsewhere in the tree for the tests' and plugins' files it mentions). A
file added without a line on the map, or removed with its line left
behind, fails here.

Usage: check_architecture.py TOP; prints each problem, exits 1 if any."""
import os
import re
import sys

# Other projects' files the page cites as models (SQLite's).
CITED = {"sqlite3ext.h", "sqliteInt.h"}


def main():
    top = sys.argv[1]
    with open(os.path.join(top, "docs", "architecture.md"), encoding="utf-8") as f:
        text = f.read()
    named = set(re.findall(r"`(?:[\w./-]*/)?([\w-]+\.[ch])`", text))
    named |= set(os.path.basename(p) for p in re.findall(r"\b([\w-]+/[\w./-]+\.[ch])\b", text))
    core = os.path.join(top, "core")
    sources = []
    for folder, _, files in os.walk(core):
        for name in files:
            if name.endswith(".c"):
                sources.append(os.path.relpath(os.path.join(folder, name), core))
    everywhere = set()
    for folder, dirs, files in os.walk(top):
        dirs[:] = [d for d in dirs if not d.startswith(".") and not d.startswith("build")
                   and d != "node_modules"]
        everywhere.update(n for n in files if n.endswith((".c", ".h")))
    problems = []
    for path in sorted(sources):
        if os.path.basename(path) not in named:
            problems.append("docs/architecture.md does not name core/%s: say in its folder's "
                            "section what it owns" % path)
    for name in sorted(named):
        if name not in everywhere and name not in CITED:
            problems.append("docs/architecture.md names %s, which is not in the tree: remove "
                            "or rename it" % name)
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
