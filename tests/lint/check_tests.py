#!/usr/bin/env python3
"""Refuses two ways an end-to-end test can pass when it should fail, or fail
on a busy machine when it should pass (HACKING.md, "Test"):

1. A check inside a command substitution. `x=$(f)` runs f in a subshell:
   an expect_* or fail there counts its failure in the subshell's copy of
   `failures`, and the test passes. Refused: `$(...)` whose command is, or
   calls (through the file's own functions), expect_*, fail or finish.

2. A wait on a file a background command writes, when the file may still
   hold what an earlier command wrote. `cmd >"$F" &` truncates F only once
   the background shell gets to run; a `wait_until` reading F before that
   sees the old contents. Refused: a background command writing F, a later
   wait_until reading F, and an earlier write of F (a redirection, or `run`
   for $TMP/out and $TMP/err) with no `rm -f F` or `: >F` in between.

Usage: check_tests.py TOP [FILE...]; prints file:line: reason, exits 1 when
it refused something.
"""
import os
import re
import sys

CHECKS = re.compile(r"\b(expect_\w+|fail|finish)\b")
FUNC_DEF = re.compile(r"^\s*([A-Za-z_]\w*)\s*\(\)\s*\{")
REDIRECT = re.compile(r"(?:^|[\s;])(?:\d?>>?|&>)\s*(\"[^\"]+\"|'[^']+'|[^\s;&|]+)")
CLEAR = re.compile(r"(?:\brm\s+(?:-\w+\s+)*(.+)|^\s*:\s*>\s*(\S+))")


def strip_quotes(word):
    if len(word) >= 2 and word[0] == word[-1] and word[0] in "\"'":
        return word[1:-1]
    return word


def functions(lines):
    """Each function defined in the file: name -> its body's text."""
    bodies = {}
    name = None
    depth = 0
    for line in lines:
        if name is None:
            m = FUNC_DEF.match(line)
            if not m:
                continue
            name = m.group(1)
            depth = 0
            body = []
        body.append(line)
        depth += line.count("{") - line.count("}")
        if depth <= 0 and len(body) > 0 and "}" in line:
            bodies[name] = "\n".join(body[1:])
            name = None
    return bodies


def command_words(text):
    """The words in command position: each command's first word, quoted text
    removed (so a column named fail in an SQL string is not a call)."""
    text = re.sub(r"'[^']*'", "''", text)
    text = re.sub(r'"(?:[^"\\$]|\\.|\$(?!\())*"', '""', text)
    words = []
    for part in re.split(r"\$\(|[;&|\n(){}`]|\b(?:then|do|else|elif|if|while|until|!)\b", text):
        m = re.match(r"\s*(?:[A-Za-z_]\w*=\S*\s+)*([A-Za-z_]\w*)", part)
        if m:
            words.append(m.group(1))
    return words


def checking_functions(bodies):
    """Names of the file's functions that check, directly or through another."""
    calls = {n: set(command_words(b)) for n, b in bodies.items()}
    checking = {n for n, c in calls.items() if any(CHECKS.fullmatch(w) for w in c)}
    grew = True
    while grew:
        grew = False
        for n, c in calls.items():
            if n not in checking and c & checking:
                checking.add(n)
                grew = True
    return checking


def substitutions(line):
    """The commands of each $(...) on the line (nested ones included)."""
    found = []
    i = 0
    while True:
        i = line.find("$(", i)
        if i < 0 or line.startswith("$((", i):
            if i < 0:
                return found
            i += 3
            continue
        depth = 0
        for j in range(i + 1, len(line)):
            if line[j] == "(":
                depth += 1
            elif line[j] == ")":
                depth -= 1
                if depth == 0:
                    found.append(line[i + 2 : j])
                    break
        i += 2


def written_files(line):
    files = [strip_quotes(w) for w in REDIRECT.findall(line)]
    if re.match(r"^\s*run\s", line):
        files += ["$TMP/out", "$TMP/err"]
    return [f for f in files if f not in ("/dev/null", "&1", "&2")]


def cleared_files(line):
    m = CLEAR.search(line)
    if not m:
        return []
    if m.group(1):
        return [strip_quotes(w) for w in m.group(1).split()]
    return [strip_quotes(m.group(2))]


def check(path):
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    problems = []
    bodies = functions(lines)
    checking = checking_functions(bodies)
    for number, line in enumerate(lines, 1):
        code = line.split("#", 1)[0] if line.lstrip().startswith("#") else line
        for command in substitutions(code):
            words = command_words(command)
            bad = [w for w in words if CHECKS.fullmatch(w) or w in checking]
            if bad:
                problems.append(
                    "%s:%d: %s runs inside $(...): its failures would be counted in a "
                    "subshell and lost; call it directly and pass results in a variable"
                    % (path, number, bad[0]))
    # Background writers and the waits that read their files.
    last_write = {}  # file -> line number of its last foreground write
    last_clear = {}  # file -> line number of its last clearing
    background = {}  # file -> (line number, stale: written before, not cleared)
    for number, line in enumerate(lines, 1):
        if line.lstrip().startswith("#"):
            continue
        for f in cleared_files(line):
            last_clear[f] = number
        files = written_files(line)
        if re.search(r"&\s*$", line) and not re.search(r"&&\s*$", line):
            for f in files:
                stale = f in last_write and last_clear.get(f, 0) < last_write[f]
                background[f] = (number, stale)
        else:
            for f in files:
                last_write[f] = number
        if "wait_until" in line:
            # The condition may continue on the next lines.
            condition = line
            k = number
            while condition.rstrip().endswith("\\") and k < len(lines):
                condition += lines[k]
                k += 1
            for f, (started, stale) in background.items():
                if stale and f in condition:
                    problems.append(
                        "%s:%d: wait_until reads %s, which the background command of line %d "
                        "writes, but it may still hold an earlier command's output: rm -f it "
                        "before starting that command, or give it a name of its own"
                        % (path, number, f, started))
    return problems


def main():
    top = sys.argv[1]
    files = sys.argv[2:]
    if not files:
        folder = os.path.join(top, "tests", "e2e")
        files = sorted(os.path.join(folder, n) for n in os.listdir(folder) if n.endswith(".sh"))
        cluster = os.path.join(top, "tests", "cluster")
        files += sorted(os.path.join(cluster, n) for n in os.listdir(cluster) if n.endswith(".sh"))
    problems = []
    for path in files:
        problems += check(path)
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
