#!/usr/bin/python3
"""Per-point overhead of a command experiment (issue 14, item 8): runner
running /bin/true over a grid of N points, beside hyperfine -N -P over the
same grid and GNU Parallel, and a plain shell loop as the floor (fork and
exec, nothing else), all measured in this run, in turn, best of `repeat`.
Prints ms/point for each and PASS/MISS against the 1 ms target.

usage: bench_exec_overhead.py [--build-dir DIR] [--points N] [--repeat N] [--json FILE]

bench/run_all.py runs it as one of its sections (and `run_all.sh --only exec`).
"""
import argparse
import json
import os
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

TARGET_MS = 1.0
TRUE = "/bin/true"

SCRIPT = """-- /bin/true as a command experiment, one run per point, nothing parsed.
command "true_cmd" {{
  argv = {{ "{true}" }},
  params = {{ i = {{ type = "integer", min = 1, max = 1000000000, default = 1 }} }},
  columns = {{}},
  output = "keyvalue",
}}
sweep("true_cmd", {{ i = range(1, {points}) }}, {{ print = false, keep_rows = false }})
"""


def say(text=""):
    print(text, flush=True)


def children_cpu_s():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(command, what, **kwargs):
    """Runs command (a list), echoing it (a long argument list shortened);
    returns (wall seconds, CPU seconds of it and every process it waited
    for). Exits on failure with the command's output."""
    shown = command if len(command) < 20 else command[:8] + ["..."] + command[-2:]
    say("$ " + " ".join(shown))
    cpu = children_cpu_s()
    start = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True, **kwargs)
    seconds = time.perf_counter() - start
    if result.returncode != 0:
        sys.stderr.write(result.stdout[-2000:] + result.stderr[-2000:])
        sys.exit(f"bench_exec_overhead: {what} failed (exit {result.returncode})")
    return seconds, children_cpu_s() - cpu


def runner_once(runner, tmp, points):
    """runner sweep over the /bin/true grid; checks every point is stored
    ok. Returns (wall, CPU) seconds."""
    script = os.path.join(tmp, f"true_{points}.lua")
    with open(script, "w") as f:
        f.write(SCRIPT.format(true=TRUE, points=points))
    db = os.path.join(tmp, "exec.db")
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(db + suffix):
            os.unlink(db + suffix)
    seconds = timed([runner, "sweep", script, "--db", db, "--quiet"], "runner sweep")
    with sqlite3.connect(db) as con:
        ok = con.execute("SELECT count(*) FROM point WHERE status = 'ok'").fetchone()[0]
    if ok != points:
        sys.exit(f"bench_exec_overhead: {db}: expected {points} ok points, found {ok}")
    return seconds


def hyperfine_once(tmp, points):
    """hyperfine -N (no shell) -P over the same grid, one run per value.
    Returns ((wall, CPU) seconds, seconds hyperfine timed /bin/true for)."""
    export = os.path.join(tmp, "hyperfine.json")
    seconds = timed(["hyperfine", "-N", "-P", "i", "1", str(points), "--runs", "1",
                     "--style", "none", "--export-json", export, TRUE], "hyperfine")
    with open(export) as f:
        results = json.load(f)["results"]
    if len(results) != points:
        sys.exit(f"bench_exec_overhead: hyperfine exported {len(results)} results, not {points}")
    return seconds, sum(sum(r["times"]) for r in results)


def parallel_once(points):
    return timed(["parallel", "-j1", TRUE, ":::"] + [str(i) for i in range(1, points + 1)],
                 "GNU parallel")


def shell_once(points):
    return timed(["sh", "-c", f"i=0; while [ $i -lt {points} ]; do {TRUE}; i=$((i + 1)); done"],
                 "shell loop")


def section(runner, tmp, points, repeat):
    """Each tool over the same N points, in turn, best (fastest) of
    `repeat`. Returns (figures, table lines) in run_all.py's shape."""
    say(f"\n## command experiments: {TRUE} over {points} points, per point, best of {repeat}")
    tools = ("runner", "hyperfine", "parallel", "shell")
    runs = {tool: [] for tool in tools}
    inside = []
    for _ in range(repeat):
        runs["runner"].append(runner_once(runner, tmp, points))
        figures, true_s = hyperfine_once(tmp, points)
        runs["hyperfine"].append(figures)
        inside.append(true_s)
        runs["parallel"].append(parallel_once(points))
        runs["shell"].append(shell_once(points))
        say("  " + ", ".join(f"{tool} {1e3 * runs[tool][-1][0] / points:.3f} ms/point "
                             f"({1e3 * runs[tool][-1][1] / points:.3f} ms CPU)" for tool in tools))
    # Best of the runs: the slower ones measure the neighbours.
    ms = {tool: 1e3 * min(r[0] for r in runs[tool]) / points for tool in tools}
    cpu_ms = {tool: 1e3 * min(r[1] for r in runs[tool]) / points for tool in tools}
    true_ms = 1e3 * min(inside) / points
    excess_cpu_ms = cpu_ms["runner"] - cpu_ms["shell"]

    def versus(tool, label):
        return (f"  runner / {label}", "", f"{ms[tool]:.3f} ms/pt", f"{ms['runner'] / ms[tool]:.2f}",
                "(info)", "")
    lines = [
        (f"exec: runner, {TRUE} x {points}, whole sweep", f"{ms['runner']:.3f} ms/pt", "1 ms",
         f"{ms['runner'] / TARGET_MS:.2f}", "<= 1 ms",
         "PASS" if ms["runner"] <= TARGET_MS else "MISS"),
        versus("hyperfine", "hyperfine -N -P, --runs 1"),
        versus("parallel", "GNU parallel -j1"),
        versus("shell", "sh loop (fork + exec floor)"),
        ("  CPU: runner / sh loop (with children)", f"{cpu_ms['runner']:.3f} ms/pt",
         f"{cpu_ms['shell']:.3f} ms/pt", f"{cpu_ms['runner'] / cpu_ms['shell']:.2f}", "(info)",
         ""),
        # Where fork + exec alone costs more than the target (a slow or busy
        # machine), what runner adds to it is the figure that says something.
        ("  CPU runner adds to fork + exec", f"{excess_cpu_ms:.3f} ms/pt", "1 ms", "",
         "<= 1 ms", "PASS" if excess_cpu_ms <= TARGET_MS else "MISS"),
        ("  CPU: hyperfine, GNU parallel", f"{cpu_ms['hyperfine']:.3f} ms/pt",
         f"{cpu_ms['parallel']:.3f} ms/pt", "", "(info)", ""),
        ("  /bin/true itself, as hyperfine times it", f"{true_ms:.3f} ms/pt", "", "", "(info)", ""),
    ]
    figures = {"points": points, "repeat": repeat, "runs": runs, "ms_per_point": ms,
               "cpu_ms_per_point": cpu_ms, "true_ms_per_point": true_ms,
               "runner_excess_cpu_ms_per_point": excess_cpu_ms}
    return figures, lines


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build-dir", default=os.path.join(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))), "build"))
    parser.add_argument("--points", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json")
    args = parser.parse_args()
    runner = os.path.join(os.path.abspath(args.build_dir), "runner")
    for tool in (runner, "hyperfine", "parallel"):
        if not (os.access(tool, os.X_OK) if os.sep in tool else shutil.which(tool)):
            sys.exit(f"bench_exec_overhead: {tool} is missing: run `make bench` "
                     "(it installs hyperfine and parallel)")
    with tempfile.TemporaryDirectory(prefix="runner-bench-exec.") as tmp:
        figures, lines = section(runner, tmp, args.points, args.repeat)
    say("")
    for line in lines:
        say("  ".join(str(c) for c in line if c != "").rstrip())
    if args.json:
        with open(args.json, "w") as f:
            json.dump(figures, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
