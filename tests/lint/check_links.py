#!/usr/bin/env python3
"""Checks the calls between core/'s folders at link level, where the include
lint (check_layers.py) cannot see: a function declared in a folder's face but
defined in another folder, or called through an extern declaration, is still
a call. Reads the symbols of every object file of core/ in the build tree
(nm), finds the folder that defines each symbol another object uses, and
prints one line per use that core/layers.txt forbids, as
OBJECT: uses SYMBOL of FOLDER/FILE, which FOLDER may not reach.

Usage: check_links.py ROOT BUILD   (the source tree and its build tree)
Exit status: 0 all allowed, 1 forbidden calls, 2 nothing to read.
The last line says how many objects and cross-folder uses were read."""

import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_layers import Rules, RulesError, folder_of  # noqa: E402

DEFINED = set("TDBRGSVWC")  # nm's letters for a symbol defined in the object


def objects(build):
    """(path relative to core/, object file) for each C file of core/ that
    was compiled; generated sources (the embedded assets) are left out."""
    seen = {}
    top = os.path.join(build, "core", "CMakeFiles")
    for directory, subdirs, files in os.walk(top):
        subdirs.sort()
        for name in sorted(files):
            if not name.endswith(".c.o"):
                continue
            path = os.path.join(directory, name)
            target_dir = os.path.relpath(path, top).split(os.sep)
            rel = "/".join(target_dir[1:])[: -len(".o")]  # under <target>.dir/
            seen.setdefault(rel, path)
    return sorted(seen.items())


def symbols(paths):
    """{object: (symbols it defines, symbols it uses)}, from one nm run."""
    out = subprocess.run(["nm", "-P", "-A", *paths], capture_output=True, text=True, check=True).stdout
    table = {path: (set(), set()) for path in paths}
    for line in out.splitlines():
        head, _, rest = line.partition(": ")
        parts = rest.split()
        if head not in table or len(parts) < 2:
            continue
        name, kind = parts[0], parts[1]
        if kind == "U":
            table[head][1].add(name)
        elif kind.upper() in DEFINED and kind.isupper():
            table[head][0].add(name)
    return table


def main(argv):
    if len(argv) != 3:
        print(__doc__.split("\n\n")[2], file=sys.stderr)
        return 2
    root, build = argv[1], argv[2]
    try:
        rules = Rules(os.path.join(root, "core", "layers.txt"))
    except (OSError, RulesError) as e:
        print(f"check_links: {e}", file=sys.stderr)
        return 2
    core = os.path.join(root, "core")
    # generated sources (schema_sql.c, serve_asset_*.c) are not under core/
    compiled = [(rel, path) for rel, path in objects(build) if os.path.isfile(os.path.join(core, rel))]
    found = symbols([path for _, path in compiled]) if compiled else {}
    table = [(rel, *found[path]) for rel, path in compiled]
    if not table:
        print(f"check_links: no object file of core/ under {build}: build it first", file=sys.stderr)
        return 2
    owner = {}
    for rel, defined, _ in table:
        for name in defined:
            owner.setdefault(name, rel)
    problems, crossing = [], 0
    for rel, _, used in table:
        source = folder_of(rel)
        for name in sorted(used):
            where = owner.get(name)
            if where is None:
                continue  # a library's
            target = folder_of(where)
            if target == source:
                continue
            crossing += 1
            if target not in rules.allowed.get(source, ()):
                who = rel if source == "." else source
                problems.append(f"core/{rel}: uses {name} of core/{where}, which {who} may not reach")
    for problem in problems:
        print(problem)
    print(f"check_links: {len(table)} objects, {crossing} uses across folders, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
