#!/usr/bin/python3
"""Issue 30: each of runner's costs beside the limit measured in the same
run, with the ratio and the target. The floors:

  1. command points: bench_spawn_floor, a C loop of posix_spawn + poll +
     wait4 of /bin/true with the pipes and attributes of runner's command
     points (core/exec/exec_spawn.c), against runner's /bin/true sweep;
  2. --jobs 2 against --jobs 1 (the floor is --jobs 1 itself), on tiny
     points and on points of about 100 us (the speedup plugin's Monte
     Carlo: workers = 256, trials = 300);
  3. storage: bench_sqlite_limit --only rows (a bare C loop storing only
     the result rows) against the natural script;
  4. start-up: `sqlite3 FILE 'select 1'` against `runner show` of one row
     and `runner sweeps` in each format, on a database of 10^4 sweeps
     (bench_sweeps_list.sh makes it);
  5. output: bench_read_floor (a bare read-and-printf loop) against
     `runner show --format csv|json|table` to a pipe;
  6. memory: the sqlite3 shell's peak RSS reading the same rows against
     `runner report` and `runner plot --by` at 10^6 rows;
  7. MPI: bench/bench_mpi.sh, -np 2 against --jobs 1 on tiny points;
  8. every run a row (bench_runs.py): storing a command_run row against a
     run's posix_spawn floor, and export --runs of 10^6 runs.

usage: bench_floor.py [--build-dir DIR] [--quick] [--repeat N] [--json FILE]
Also a section of bench/run_all.py (`make bench`; `--only floor`).
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import bench_exec_overhead
import bench_runs
from floor_lib import (HERE, ROOT, RSS_LIMIT_MB, benches_in, must, rate, remove_db, say, timed,
                       verdict)

def hyperfine(commands, tmp, runs):
    """Mean and min wall seconds and mean CPU seconds of each command
    (name -> shell-free argument string), all in one hyperfine run so they
    see the same load."""
    export = os.path.join(tmp, "floor_hyperfine.json")
    argv = ["hyperfine", "-N", "--warmup", "3", "--runs", str(runs), "--style", "none",
            "--export-json", export]
    for name, command in commands.items():
        argv += ["-n", name, command]
    must(argv, "hyperfine")
    with open(export) as f:
        results = json.load(f)["results"]
    return {r["command"]: {"mean_s": r["mean"], "min_s": r["min"], "median_s": r["median"],
                           "cpu_s": r["user"] + r["system"]} for r in results}


def sweep(runner, tmp, script_text, name, jobs, points, extra=()):
    """runner sweep of script_text under /usr/bin/time; checks every point
    is stored ok. Returns the figures with points/s."""
    script = os.path.join(tmp, f"{name}.lua")
    with open(script, "w") as f:
        f.write(script_text)
    db = os.path.join(tmp, f"{name}.db")
    remove_db(db)
    figure = timed([runner, "sweep", script, "--db", db, "--jobs", str(jobs), "--quiet"]
                   + list(extra), tmp)
    ok = subprocess.run(["sqlite3", db, "SELECT count(*) FROM point WHERE status = 'ok'"],
                        capture_output=True, text=True).stdout.strip()
    if ok != str(points):
        sys.exit(f"bench_floor: {db}: expected {points} ok points, found {ok}")
    remove_db(db)
    figure["points_per_s"] = points / figure["seconds"]
    return figure


def fastest(runs, key="seconds"):
    return min(runs, key=lambda r: r[key])


def exec_lines(runner, benches, tmp, points, repeat):
    """1. /bin/true command points against the posix_spawn + wait4 loop."""
    say(f"\n## floor 1: /bin/true x {points}, runner against posix_spawn + wait4, "
        f"best of {repeat}")
    runs = {"runner": [], "floor": []}
    for _ in range(repeat):
        script = bench_exec_overhead.SCRIPT.format(true=bench_exec_overhead.TRUE, points=points)
        runs["runner"].append(sweep(runner, tmp, script, "floor_true", 1, points))
        out = must([benches["spawn_floor"], str(points), bench_exec_overhead.TRUE],
                   "bench_spawn_floor")
        wall, cpu = re.search(r"in ([\d.]+) s wall, ([\d.]+) s CPU", out).groups()
        runs["floor"].append({"seconds": float(wall), "cpu_seconds": float(cpu)})
    ms = {k: 1e3 * fastest(v)["seconds"] / points for k, v in runs.items()}
    cpu = {k: 1e3 * min(r["cpu_seconds"] for r in v) / points for k, v in runs.items()}
    # /usr/bin/time counts the children runner waited for: as the loop does.
    excess = cpu["runner"] - cpu["floor"]
    lines = [
        (f"floor 1: command point wall, /bin/true x {points}", f"{ms['runner']:.3f} ms/pt",
         f"{ms['floor']:.3f} ms/pt", f"{ms['runner'] / ms['floor']:.2f}", "<= 1.2",
         verdict(ms["runner"] <= 1.2 * ms["floor"])),
        ("  CPU per point, with the children", f"{cpu['runner']:.3f} ms/pt",
         f"{cpu['floor']:.3f} ms/pt", f"{cpu['runner'] / cpu['floor']:.2f}", "(info)", ""),
        ("  CPU runner adds per point", f"{excess:.3f} ms/pt", "", "", "<= 0.5 ms",
         verdict(excess <= 0.5)),
    ]
    return {"runs": runs, "ms_per_point": ms, "cpu_ms_per_point": cpu}, lines


TINY = ('sweep("speedup", {{workers = range(1, {workers}), jitter = linspace(0.5, 2, {jitters})}},'
        ' {{print = false, keep_rows = false}})\n')
# About 100 us a point: the straggler Monte Carlo of 300 trials over 256 workers.
SLOW = ('sweep("speedup", {{workers = 256, trials = 300, jitter = linspace(0.5, 2, {points})}},'
        ' {{print = false, keep_rows = false}})\n')


def jobs_lines(runner, tmp, quick, repeat):
    """2. --jobs 2 against --jobs 1, tiny and ~100 us points."""
    tiny_grid = (1000, 100) if quick else (1000, 1000)
    slow_points = 2000 if quick else 20000
    cases = {"tiny": (TINY.format(workers=tiny_grid[0], jitters=tiny_grid[1]),
                      tiny_grid[0] * tiny_grid[1]),
             "slow": (SLOW.format(points=slow_points), slow_points)}
    say(f"\n## floor 2: --jobs 2 against --jobs 1, {cases['tiny'][1]} tiny points and "
        f"{slow_points} points of ~100 us, best of {repeat}")
    figures, lines = {}, []
    for kind, (script, points) in cases.items():
        runs = {1: [], 2: []}
        for _ in range(repeat):
            for jobs in (1, 2):
                runs[jobs].append(sweep(runner, tmp, script, f"floor_{kind}", jobs, points))
        one, two = fastest(runs[1]), fastest(runs[2])
        ratio = one["seconds"] / two["seconds"]
        figures[kind] = {"points": points, "jobs1": one, "jobs2": two, "ratio": ratio}
        per_point_us = 1e6 * one["seconds"] / points
        goal = 1.0 if kind == "tiny" else 1.8
        label = (f"floor 2: --jobs 2 / --jobs 1, {points} tiny points" if kind == "tiny" else
                 f"  same, {points} points of {per_point_us:.0f} us (--jobs 1)")
        lines.append((label, rate(two["points_per_s"], "pts/s"),
                      rate(one["points_per_s"], "pts/s"), f"{ratio:.2f}", f">= {goal}",
                      verdict(ratio >= goal)))
    return figures, lines


def storage_lines(runner, benches, tmp, quick, repeat):
    """3. The natural script against the results-only bare C loop."""
    workers, jitters = (1000, 20) if quick else (1000, 200)
    points = workers * jitters
    say(f"\n## floor 3: natural script against a bare C loop storing only the result rows, "
        f"{points} points, best of {repeat}")
    natural = ('local rows = sweep("speedup", {{workers = range(1, {w}), '
               'jitter = linspace(0.5, 2, {j})}})\n').format(w=workers, j=jitters)
    runs = {"natural": [], "floor": []}
    for _ in range(repeat):
        runs["natural"].append(sweep(runner, tmp, natural, "floor_natural", 1, points))
        out = must([benches["sqlite_limit"], "--workers", str(workers), "--jitters",
                    str(jitters), "--dir", tmp, "--only", "rows"], "bench_sqlite_limit")
        rows, seconds, cpu = re.search(r"^rows:\s+(\d+) rows in ([\d.]+) s = \d+ rows/s "
                                       r"\(([\d.]+) s CPU", out, re.MULTILINE).groups()
        runs["floor"].append({"seconds": float(seconds), "cpu_seconds": float(cpu),
                              "points_per_s": float(rows) / float(seconds)})
    natural_best = max(runs["natural"], key=lambda r: r["points_per_s"])
    floor_best = max(runs["floor"], key=lambda r: r["points_per_s"])
    ratio = natural_best["points_per_s"] / floor_best["points_per_s"]
    cpu_ratio = (min(r["cpu_seconds"] for r in runs["floor"])
                 / min(r["cpu_seconds"] for r in runs["natural"]))
    lines = [
        (f"floor 3: natural script / results-only C loop", rate(natural_best["points_per_s"],
                                                               "pts/s"),
         rate(floor_best["points_per_s"], "rows/s"), f"{ratio:.2f}", ">= 0.8",
         verdict(ratio >= 0.8)),
        ("  same, per CPU-second (whole process)", "", "", f"{cpu_ratio:.2f}", "(info)", ""),
    ]
    return {"points": points, "runs": runs, "ratio": ratio}, lines


def startup_lines(runner, tmp, quick, repeat):
    """4. sqlite3 'select 1' against runner's read commands on 10^4 sweeps."""
    sweeps = 1000 if quick else 10000
    db = os.path.join(tmp, "floor_sweeps.db")
    remove_db(db)
    say(f"\n## floor 4: start-up, a database of {sweeps} sweeps")
    env = dict(os.environ, SWEEPS_DB_OUT=db)
    must(["sh", os.path.join(HERE, "bench_sweeps_list.sh"), os.path.dirname(runner),
          str(sweeps)], "bench_sweeps_list.sh", env=env, cwd=ROOT)
    commands = {"sqlite3": f"sqlite3 {db} 'select 1'",
                "version": f"{runner} --version",
                "show one row": f"{runner} show 1 --db {db} --format csv",
                "sweeps csv": f"{runner} sweeps --db {db} --format csv",
                "sweeps table": f"{runner} sweeps --db {db}",
                "sweeps json": f"{runner} sweeps --db {db} --format json"}
    # "show one row": sweep 1's one section, the jitter script's 24 rows.
    times = hyperfine(commands, tmp, 10 if quick else 10 * repeat)
    floor = times["sqlite3"]

    def ms(name, key="median_s"):
        return 1e3 * times[name][key]

    show_excess = ms("show one row") - ms("sqlite3")
    list_excess = ms("sweeps csv") - ms("sqlite3")
    lines = [
        (f"floor 4: start-up, runner show of one section - sqlite3 'select 1'",
         f"{show_excess:.1f} ms", f"{ms('sqlite3'):.1f} ms",
         f"{ms('show one row') / ms('sqlite3'):.2f}", "<= 10 ms",
         verdict(show_excess <= 10, "SKIP" if quick else None)),
        (f"  sweeps --format csv ({sweeps} sweeps) - sqlite3 'select 1'",
         f"{list_excess:.1f} ms", f"{ms('sqlite3'):.1f} ms",
         f"{ms('sweeps csv') / ms('sqlite3'):.2f}", "(info)", ""),
        ("  runner --version (process start alone)", f"{ms('version'):.1f} ms",
         f"{ms('sqlite3'):.1f} ms", f"{ms('version') / ms('sqlite3'):.2f}", "(info)", ""),
    ]
    for fmt in ("table", "csv", "json"):
        name = f"sweeps {fmt}"
        lines.append((f"  runner sweeps --format {fmt}, {sweeps} sweeps", f"{ms(name):.1f} ms",
                      f"{ms('sqlite3'):.1f} ms", f"{ms(name) / ms('sqlite3'):.2f}", "< 100 ms",
                      verdict(ms(name) < 100, "SKIP" if quick else None)))
    lines.append(("  CPU: sweeps --format csv, sqlite3",
                  f"{1e3 * times['sweeps csv']['cpu_s']:.1f} ms",
                  f"{1e3 * floor['cpu_s']:.1f} ms", "", "(info)", ""))
    return {"sweeps": sweeps, "hyperfine": times}, lines


def show_db(runner, tmp, rows):
    db = os.path.join(tmp, "floor_show.db")
    remove_db(db)
    script = os.path.join(tmp, "floor_show.lua")
    with open(script, "w") as f:
        f.write(TINY.format(workers=1000, jitters=rows // 1000))
    must([runner, "sweep", script, "--db", db, "--quiet"], "runner sweep for show")
    return db


def output_lines(runner, benches, db, rows, tmp, repeat, quick):
    """5. runner show in each format against the bare read loop."""
    say(f"\n## floor 5: runner show, {rows} rows to a pipe, against a bare read loop, "
        f"best of {repeat}")
    targets = {"csv": 5e5, "json": 3e5, "table": 3e5}
    runs = {name: [] for name in list(targets) + ["floor"]}
    for _ in range(repeat):
        runs["floor"].append(timed([benches["read_floor"], db, "speedup"], tmp, "pipe"))
        for fmt in targets:
            runs[fmt].append(timed([runner, "show", "1", "--db", db, "--format", fmt], tmp,
                                   "pipe"))
    floor_rate = rows / fastest(runs["floor"])["seconds"]
    lines = []
    for fmt, target in targets.items():
        best = fastest(runs[fmt])
        show_rate = rows / best["seconds"]
        lines.append((f"floor 5: show --format {fmt}, {rows} rows" if fmt == "csv" else
                      f"  show --format {fmt}", rate(show_rate, "rows/s"),
                      rate(floor_rate, "rows/s"), f"{show_rate / floor_rate:.2f}",
                      f">= {rate(target, 'rows/s')}",
                      verdict(show_rate >= target, "SKIP" if quick else None)))
    return {"rows": rows, "runs": runs}, lines


def memory_lines(runner, db, rows, tmp, quick):
    """6. report and plot peak RSS against the sqlite3 shell's on the rows."""
    say(f"\n## floor 6: report and plot, {rows} rows, peak RSS")
    query = "SELECT * FROM speedup ORDER BY point_id, row_id"
    floor = timed(["sqlite3", "-csv", db, query], tmp, "pipe")
    figures = {"sqlite3": floor}
    lines = []
    for name, command in (
            ("report", [runner, "report", "1", "--db", db, "-o",
                        os.path.join(tmp, "floor.html")]),
            ("plot --by jitter", [runner, "plot", "1", "--db", db, "--x", "workers", "--y",
                                  "speedup", "--by", "jitter", "-o",
                                  os.path.join(tmp, "floor_by.svg")]),
            ("plot", [runner, "plot", "1", "--db", db, "--x", "workers", "--y", "speedup",
                      "-o", os.path.join(tmp, "floor.svg")])):
        figure = timed(command, tmp)
        figures[name] = figure
        lines.append((f"floor 6: {name} peak RSS, {rows} rows" if name == "report" else
                      f"  {name} peak RSS", f"{figure['peak_rss_mb']:.1f} MB",
                      f"{floor['peak_rss_mb']:.1f} MB",
                      f"{figure['peak_rss_mb'] / floor['peak_rss_mb']:.2f}",
                      f"<= {RSS_LIMIT_MB:.0f} MB",
                      verdict(figure["peak_rss_mb"] <= RSS_LIMIT_MB, "SKIP" if quick else None)))
    return figures, lines


def mpi_lines(runner, quick, repeat):
    """7. bench_mpi.sh: -np 2 against --jobs 1 on tiny points."""
    if not shutil.which("mpirun"):
        return {}, [("floor 7: MPI -np 2 / --jobs 1, tiny points", "", "", "", ">= 1.0",
                     "SKIP (no mpirun)")]
    say("\n## floor 7: MPI rank 0, -np 2 against --jobs 1 (bench_mpi.sh)")
    env = dict(os.environ, REPEAT=str(repeat), TINY_POINTS="20000" if quick else "100000",
               SLOW_POINTS="200" if quick else "2000")
    out = must(["sh", os.path.join(HERE, "bench_mpi.sh"), os.path.dirname(runner)],
               "bench_mpi.sh", env=env)
    say(out.rstrip())
    one = float(re.search(r"^\s+--jobs 1\s+([\d.]+) points/s", out, re.MULTILINE).group(1))
    two = float(re.search(r"^\s+-np 2\s+([\d.]+) points/s", out, re.MULTILINE).group(1))
    return {"jobs1_points_per_s": one, "np2_points_per_s": two}, [
        ("floor 7: MPI -np 2 / --jobs 1, tiny points", rate(two, "pts/s"), rate(one, "pts/s"),
         f"{two / one:.2f}", ">= 1.0", verdict(two / one >= 1.0))]


def section(runner, benches, tmp, quick, repeat):
    """Every floor line. Returns (figures, table lines) in run_all.py's shape:
    (what, runner's figure, the floor's, ratio, target, verdict)."""
    figures, lines = {}, []
    exec_points = 500 if quick else 2000
    for key, (result, more) in (
            ("exec", exec_lines(runner, benches, tmp, exec_points, repeat)),
            ("jobs", jobs_lines(runner, tmp, quick, repeat)),
            ("storage", storage_lines(runner, benches, tmp, quick, repeat)),
            ("startup", startup_lines(runner, tmp, quick, repeat))):
        figures[key] = result
        lines += more
    rows = 10**5 if quick else 10**6
    db = show_db(runner, tmp, rows)
    figures["output"], more = output_lines(runner, benches, db, rows, tmp, repeat, quick)
    lines += more
    figures["memory"], more = memory_lines(runner, db, rows, tmp, quick)
    lines += more
    figures["mpi"], more = mpi_lines(runner, quick, repeat)
    lines += more
    figures["runs"], more = bench_runs.section(runner, benches, tmp, quick, repeat)
    lines += more
    return figures, lines


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeat", type=int)
    parser.add_argument("--json")
    args = parser.parse_args()
    build = os.path.abspath(args.build_dir)
    runner = os.path.join(build, "runner")
    repeat = args.repeat or (1 if args.quick else 3)
    with tempfile.TemporaryDirectory(prefix="runner-bench-floor.") as tmp:
        figures, lines = section(runner, benches_in(build), tmp, args.quick, repeat)
    say("")
    for line in lines:
        say("  ".join(str(c) for c in line if c != "").rstrip())
    if args.json:
        with open(args.json, "w") as f:
            json.dump(figures, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
