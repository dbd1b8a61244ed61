#!/usr/bin/env python3
"""Checks every #include in core/ against core/layers.txt (the folders each
folder may include, their faces, the owners of system headers) and prints one
line per include that breaks a rule, as FILE:LINE: what is wrong.

Usage: check_layers.py [ROOT]   (ROOT: the source tree, default: this repo)
Exit status: 0 all allowed, 1 violations, 2 the rules file is wrong.
The last line says how many files and includes were read."""

import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
SOURCE_SUFFIXES = (".c", ".h", ".def")


class RulesError(Exception):
    pass


class Rules:
    def __init__(self, path):
        self.path = path
        self.allowed = {}  # folder -> set of folders it may include
        self.faces = {}  # folder -> its face headers (paths relative to core/), or ["*"]
        self.public = set()
        self.owners = []  # (pattern, [paths]) in file order
        self.exceptions = {}  # (file, "<header>") -> line number in the rules
        with open(path, encoding="utf-8") as f:
            for number, raw in enumerate(f, 1):
                self._parse(raw.split("#", 1)[0].strip(), number)
        for folder, targets in self.allowed.items():
            for target in targets:
                if target not in self.allowed:
                    raise RulesError(f"{path}: folder {folder} names {target}, which has no folder line")
        for folder in self.faces:
            if folder not in self.allowed:
                raise RulesError(f"{path}: face for {folder}, which has no folder line")

    def _parse(self, line, number):
        if not line:
            return
        where = f"{self.path}:{number}"
        keyword, _, rest = line.partition(" ")
        head, colon, tail = rest.partition(":")
        head, words = head.strip(), tail.split()
        if keyword == "public" and not colon and head:
            self.public.add(head)
        elif not colon or not head:
            raise RulesError(f"{where}: expected 'KEYWORD NAME: ...', got '{line}'")
        elif keyword == "folder":
            self.allowed[head] = set(words)
        elif keyword == "face" and words:
            self.faces[head] = words
        elif keyword == "owner" and head.startswith("<") and head.endswith(">") and words:
            self.owners.append((head[1:-1], words))
        elif keyword == "exception" and len(words) == 1:
            self.exceptions[(head, words[0])] = number
        else:
            raise RulesError(f"{where}: cannot read '{line}'")

    def owners_of(self, header):
        for pattern, paths in self.owners:
            if pattern == header or (pattern.endswith("/*") and header.startswith(pattern[:-1])):
                return paths
        return None


def folder_of(rel):
    """The folder of a path relative to core/: its first component, "." at the top."""
    return rel.split("/", 1)[0] if "/" in rel else "."


def label(rel):
    """How a file's folder is named in a message."""
    folder = folder_of(rel)
    return rel if folder == "." else folder


def find_cycle(graph):
    """A list of nodes [a, b, ..., a] forming a cycle in graph, or None."""
    state = {}
    path = []

    def visit(node):
        state[node] = "open"
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        path.pop()
        state[node] = "done"
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def source_files(core):
    for directory, subdirs, files in os.walk(core):
        subdirs.sort()
        for name in sorted(files):
            if name.endswith(SOURCE_SUFFIXES):
                yield os.path.relpath(os.path.join(directory, name), core).replace(os.sep, "/")


def resolve(core, rel, quoted, name):
    """The included file's path relative to core/, or None when it is not
    runner's (a system header) or cannot be found."""
    candidates = []
    if quoted:
        candidates.append(os.path.join(os.path.dirname(rel), name))
    candidates += [name, os.path.join("include", name)]
    for candidate in candidates:
        normal = os.path.normpath(candidate).replace(os.sep, "/")
        if not normal.startswith("../") and os.path.isfile(os.path.join(core, normal)):
            return normal
    return None


class Checker:
    def __init__(self, root, rules):
        self.root = root
        self.core = os.path.join(root, "core")
        self.rules = rules
        self.problems = []
        self.files = 0
        self.includes = 0
        self.used_exceptions = set()
        self.edges = {}  # folder -> folders its files include

    def report(self, rel, number, message):
        self.problems.append(f"core/{rel}:{number}: {message}")

    def check_system(self, rel, number, header):
        owners = self.rules.owners_of(header)
        if owners is None:
            return
        if any(rel == o or (o.endswith("/") and rel.startswith(o)) for o in owners):
            return
        key = (rel, f"<{header}>")
        if key in self.rules.exceptions:
            self.used_exceptions.add(key)
            return
        self.report(rel, number, f"{label(rel)} may not include <{header}> (owned by {', '.join(owners)})")

    def check_project(self, rel, number, target):
        source, folder = folder_of(rel), folder_of(target)
        if folder == source:
            return
        self.edges.setdefault(source, set()).add(folder)
        who = label(rel)
        if folder in self.rules.public:
            return
        faces = self.rules.faces.get(folder)
        if target in self.rules.faces.get("cli", ()) and rel != "main.c":
            self.report(rel, number, f"only core/main.c may include {target}")
        elif folder not in self.rules.allowed.get(source, ()):
            self.report(rel, number, f"{who} may not include {target}")
        elif os.path.basename(target).endswith("_int.h"):
            self.report(rel, number, f"{who} may not include {target} (private to {folder}/)")
        elif faces is None:
            self.report(rel, number, f"{who} may not include {target} ({folder}/ has no face line in core/layers.txt)")
        elif "*" not in faces and target not in faces:
            self.report(rel, number, f"{who} may include {folder}/ only through {' or '.join(faces)}, not {target}")

    def check_file(self, rel):
        folder = folder_of(rel)
        if folder not in self.rules.allowed and folder not in self.rules.public:
            self.report(rel, 1, f"folder {folder}/ has no folder line in core/layers.txt")
            return
        self.files += 1
        with open(os.path.join(self.core, rel), encoding="utf-8", errors="replace") as f:
            for number, line in enumerate(f, 1):
                match = INCLUDE.match(line)
                if not match:
                    continue
                self.includes += 1
                quoted, name = match.group(1) == '"', match.group(2).strip()
                target = resolve(self.core, rel, quoted, name)
                if target is not None:
                    self.check_project(rel, number, target)
                elif quoted:
                    self.report(rel, number, f'"{name}" is not a file under core/')
                else:
                    self.check_system(rel, number, name)

    def run(self):
        for folder, faces in sorted(self.rules.faces.items()):
            for face in faces:
                if face != "*" and not os.path.isfile(os.path.join(self.core, face)):
                    self.problems.append(f"core/layers.txt: the face of {folder}, {face}, does not exist")
        for rel in source_files(self.core):
            self.check_file(rel)
        for (rel, header), number in sorted(self.rules.exceptions.items(), key=lambda e: e[1]):
            if (rel, header) not in self.used_exceptions:
                self.problems.append(
                    f"core/layers.txt:{number}: the exception for {rel} and {header} "
                    "matches no include any more: remove it")
        cycle = find_cycle(self.rules.allowed)
        if cycle:
            self.problems.append("core/layers.txt: the folders may include each other in a cycle: "
                                 + " -> ".join(cycle))
        cycle = find_cycle(self.edges)
        if cycle:
            self.problems.append("core/: the folders include each other in a cycle: " + " -> ".join(cycle))


def main(argv):
    root = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    try:
        rules = Rules(os.path.join(root, "core", "layers.txt"))
    except (OSError, RulesError) as e:
        print(f"check_layers: {e}", file=sys.stderr)
        return 2
    checker = Checker(root, rules)
    checker.run()
    for problem in checker.problems:
        print(problem)
    print(f"check_layers: {checker.files} files, {checker.includes} includes, "
          f"{len(checker.problems)} problems")
    return 1 if checker.problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
