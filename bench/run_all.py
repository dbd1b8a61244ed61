#!/usr/bin/python3
"""Runs every runner benchmark in one go and prints a table of figures and
ratios, each against its reference measured in the same run, with PASS or
MISS against the targets of docs/performance.md. Started by
bench/run_all.sh (`make bench`); Debian packages only.

usage: run_all.py [--build-dir DIR] [--quick] [--repeat N] [--json FILE] [--keep]
                  [--only rows|exec|floor|answers]

  --build-dir DIR  where CMake built runner and the benches (default: build)
  --quick          grids up to 10^5 points and smaller peers, one run each (a
                   smoke run: the 10^6-point streaming target is then SKIP)
  --repeat N       take each measurement N times, in turn with its reference,
                   and keep the best of each (default 3; 1 with --quick)
  --json FILE      also write every figure as JSON
  --keep           keep the temporary directory with the databases
  --only rows      only the natural script (2 x 10^5 points, no options)
                   against the relational C and Python loops, `runner show`
                   streaming 10^6 rows against `sqlite3 -csv` and a bare
                   read loop, and `runner report` / `runner plot` on them
  --only exec      only the per-point overhead of a command experiment
                   (/bin/true x 2000) against hyperfine -P and GNU Parallel
                   (bench_exec_overhead.py)
  --only floor     only issue 30's lines: each cost beside its floor measured
                   in the same run (bench_floor.py)
  --only answers   only fit and two-objective pareto on 10^6 rows, sensitivity
                   on a 10^6-row Saltelli design, diff --stat of two 2 x 10^5-
                   point sweeps against plain diff (bench_answers.py)
"""
import argparse
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

import bench_answers
import bench_exec_overhead
import bench_floor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PYTHON = sys.executable or "/usr/bin/python3"
RSS_LIMIT_MB = 64.0

# (workers, jitters): runner orders jitter outermost, workers innermost.
GRIDS = {3: (100, 10), 4: (100, 100), 5: (1000, 100), 6: (1000, 1000)}
COMPARED_COLUMNS = ("base", "jitter", "workers", "trials", "model", "scaling", "model_params",
                    "bytes_per_param", "latency_s", "bandwidth_bytes_per_s",
                    "reduce_bytes_per_s", "wait_s", "round_s", "speedup", "efficiency",
                    "ceiling", "ceiling_amdahl", "karp_flatt", "t1_s", "compute_s", "gustafson",
                    "comm_s", "comm_share")


def say(text=""):
    print(text, flush=True)


def run(command, **kwargs):
    """Runs a command, echoing it as it can be typed again; returns the
    CompletedProcess (stdout and stderr as text)."""
    say("$ " + " ".join(command))
    return subprocess.run(command, capture_output=True, text=True, **kwargs)


def must(result, what):
    if result.returncode != 0:
        sys.stderr.write(result.stdout + result.stderr)
        sys.exit(f"run_all: {what} failed (exit {result.returncode})")
    return result.stdout


def grab(pattern, text, what):
    match = re.search(pattern, text, re.MULTILINE)
    if not match:
        sys.exit(f"run_all: cannot find {what} in:\n{text}")
    return float(match.group(1))


def machine():
    info = {"nproc": os.cpu_count(), "cpu": "unknown", "kernel": os.uname().release,
            "sqlite": sqlite3.sqlite_version}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    info["cpu"] = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        info["git"] = subprocess.run(["git", "-C", ROOT, "describe", "--always", "--dirty"],
                                     capture_output=True, text=True).stdout.strip() or "unknown"
    except OSError:
        info["git"] = "unknown"
    return info


def loadavg():
    try:
        with open("/proc/loadavg") as f:
            return float(f.read().split()[0])
    except OSError:
        return float("nan")


def grid_script(path, workers, jitters, natural=False):
    """The speedup grid; natural: as the examples write it, no options (the
    rows are printed, bounded, and returned to a local)."""
    grid = f'{{workers = range(1, {workers}), jitter = linspace(0.5, 2, {jitters})}}'
    with open(path, "w") as f:
        if natural:
            f.write(f'local rows = sweep("speedup", {grid})\n')
        else:
            f.write(f'sweep("speedup", {grid}, {{print = false, keep_rows = false}})\n')


def run_runner(runner, tmp, workers, jitters, jobs, natural=False):
    """One sweep of the speedup grid under /usr/bin/time -v; checks that
    every point and row is in the database. Returns the figures."""
    points = workers * jitters
    kind = "natural" if natural else "grid"
    script = os.path.join(tmp, f"{kind}_{workers}x{jitters}.lua")
    db = os.path.join(tmp, f"runner_{kind}_{workers}x{jitters}_j{jobs}.db")
    timing = os.path.join(tmp, "time.txt")
    grid_script(script, workers, jitters, natural)
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(db + suffix):
            os.unlink(db + suffix)
    start = time.perf_counter()
    result = run(["/usr/bin/time", "-v", "-o", timing, runner, "sweep", script, "--db", db,
                  "--jobs", str(jobs), "--quiet"])
    seconds = time.perf_counter() - start
    must(result, "runner sweep")
    with open(timing) as f:
        report = f.read()
    cpu = (grab(r"User time \(seconds\): ([\d.]+)", report, "user time")
           + grab(r"System time \(seconds\): ([\d.]+)", report, "system time"))
    rss_kb = grab(r"Maximum resident set size \(kbytes\): (\d+)", report, "peak RSS")
    with sqlite3.connect(db) as con:
        rows = con.execute("SELECT count(*) FROM speedup").fetchone()[0]
        ok = con.execute("SELECT sum(ok_count) FROM point_block").fetchone()[0]
    if rows != points or ok != points:
        sys.exit(f"run_all: {db}: expected {points} rows and ok points, found {rows} and {ok}")
    return {"points": points, "jobs": jobs, "seconds": seconds, "cpu_seconds": cpu,
            "points_per_s": points / seconds, "points_per_cpu_s": points / cpu,
            "peak_rss_mb": rss_kb / 1024.0, "db": db}


def table_rows(db, order="point_id"):
    with sqlite3.connect(db) as con:
        return con.execute("SELECT " + ", ".join(COMPARED_COLUMNS)
                           + f" FROM speedup ORDER BY {order}").fetchall()


def sqlite_limit(binary, tmp, workers, jitters, only=None, keep=False):
    """bench_sqlite_limit: every variant, or the one `only` names. Returns
    {variant: figures} with the output under "output"."""
    command = [binary, "--workers", str(workers), "--jitters", str(jitters), "--dir", tmp]
    command += (["--only", only] if only else []) + (["--keep"] if keep else [])
    out = must(run(command), "bench_sqlite_limit")
    figures = {"kept": re.findall(r"kept (\S+)", out), "output": out}
    for name, key in (("rows", "rows"), ("rows, no index", "no_index"),
                      ("rows \\+ points", "with_point"), ("relational", "relational"),
                      ("narrow", "narrow")):
        match = re.search(r"^" + name + r":\s+(\d+) rows in ([\d.]+) s = (\d+) rows/s "
                          r"\(([\d.]+) s CPU", out, re.MULTILINE)
        if match:
            rows, seconds, _, cpu = (float(g) for g in match.groups())
            figures[key] = {"rows": rows, "seconds": seconds, "rows_per_s": rows / seconds,
                            "cpu_seconds": cpu, "rows_per_cpu_s": rows / max(cpu, 1e-9)}
    if only and only.replace("-", "_") not in figures and only != "point":
        sys.exit(f"run_all: cannot parse bench_sqlite_limit output:\n{out}")
    return figures


def piped(command, tmp):
    """Runs command with its stdout through a pipe into wc -c, under
    /usr/bin/time; returns seconds, peak_rss_mb, cpu_seconds (user + sys),
    bytes and stderr."""
    timing = os.path.join(tmp, "time_pipe.txt")
    err = os.path.join(tmp, "pipe_err.txt")
    line = ("/usr/bin/time -f '%e %M %U %S' -o " + timing + " "
            + " ".join(shell_quote(c) for c in command) + " 2>" + err + " | wc -c")
    say("$ " + line)
    out = subprocess.run(["sh", "-c", line], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"run_all: {line} failed:\n{out.stderr}")
    with open(timing) as f:
        seconds, rss_kb, user, system = f.read().split()[-4:]
    with open(err) as f:
        stderr = f.read()
    return {"seconds": float(seconds), "peak_rss_mb": float(rss_kb) / 1024.0,
            "cpu_seconds": float(user) + float(system), "bytes": int(out.stdout.split()[0]),
            "stderr": stderr}


def shell_quote(text):
    return text if re.fullmatch(r"[\w./=,:+-]+", text) else "'" + text.replace("'", "'\\''") + "'"


def natural_runs(runner, benches, tmp, workers, jitters, repeat):
    """The natural script against the relational C and Python loops, in turn."""
    points = workers * jitters
    say(f"\n## the natural script, {points} points, --jobs 1, against relational loops, "
        f"best of {repeat}")
    runs = {"natural": [], "relational": [], "python": []}
    for _ in range(repeat):
        figure = run_runner(runner, tmp, workers, jitters, 1, natural=True)
        os.unlink(figure.pop("db"))
        runs["natural"].append(figure)
        runs["relational"].append(sqlite_limit(benches["sqlite_limit"], tmp, workers, jitters,
                                               only="relational")["relational"])
        runs["python"].append(peer(["sqlite", "--points", "--workers", str(workers),
                                    "--jitters", str(jitters),
                                    "--db", os.path.join(tmp, "python_points.db")]))
        say(f"  natural script {fmt_rate(runs['natural'][-1]['points_per_s'], 'points/s')} "
            f"(peak RSS {runs['natural'][-1]['peak_rss_mb']:.1f} MB), relational C loop "
            f"{fmt_rate(runs['relational'][-1]['rows_per_s'], 'points/s')}, Python "
            f"{fmt_rate(runs['python'][-1]['points_per_s'], 'points/s')}")
    return runs


def show_runs(runner, benches, db, rows, tmp, repeat):
    """runner show --format csv to a pipe, in turn with the sqlite3 shell's
    -csv on the same query (the reference) and the bare read loop."""
    query = ("SELECT " + ", ".join(COMPARED_COLUMNS) + " FROM speedup WHERE section_id = 1"
             " ORDER BY point_id, row_id")
    runs = {"show": [], "sqlite3": [], "floor": []}
    commands = {"show": [runner, "show", "1", "--db", db, "--format", "csv"],
                "sqlite3": ["sqlite3", "-csv", db, query],
                "floor": [benches["read_floor"], db, "speedup"]}
    for _ in range(repeat):
        for name, command in commands.items():
            figure = piped(command, tmp)
            figure["rows_per_s"] = rows / figure["seconds"]
            figure["rows_per_cpu_s"] = rows / max(figure["cpu_seconds"], 1e-9)
            runs[name].append(figure)
        say("  runner show " + fmt_rate(runs["show"][-1]["rows_per_s"], "rows/s")
            + f" (peak RSS {runs['show'][-1]['peak_rss_mb']:.1f} MB), sqlite3 -csv "
            + fmt_rate(runs["sqlite3"][-1]["rows_per_s"], "rows/s") + ", bare read loop "
            + fmt_rate(runs["floor"][-1]["rows_per_s"], "rows/s"))
    return runs


def report_runs(runner, db, rows, tmp):
    """runner report and runner plot on the show database: time, peak RSS
    and the size of what they write (issue 19's targets at 10^6 rows)."""
    figures = {}
    for name, command, out in (
            ("report", [runner, "report", "1", "--db", db, "-o"], "report.html"),
            ("plot_by", [runner, "plot", "1", "--db", db, "--x", "workers", "--y", "speedup",
                         "--by", "jitter", "-o"], "by.svg"),
            ("plot", [runner, "plot", "1", "--db", db, "--x", "workers", "--y", "speedup",
                      "-o"], "all.svg")):
        path = os.path.join(tmp, out)
        figure = piped(command + [path], tmp)
        figure["output_mb"] = os.path.getsize(path) / 1e6
        figures[name] = figure
        say(f"  {name}: {figure['seconds']:.2f} s ({figure['cpu_seconds']:.2f} CPU-s), peak RSS "
            f"{figure['peak_rss_mb']:.1f} MB, {figure['output_mb']:.3f} MB written, "
            f"{rows} rows")
    return figures


def rows_section(runner, benches, tmp, quick, repeat):
    """Issue 19: the natural script (no options) over 2 x 10^5 points at
    --jobs 1 against the same information stored relationally by a bare C
    loop and a Python loop, taken in turn, best of `repeat`; then `runner
    show --format csv` streaming 10^6 rows (10^5 with --quick) to a pipe,
    against `sqlite3 -csv` on the same query and a bare loop reading and
    formatting the same rows; then `runner report` and `runner plot` on
    those rows. Returns (figures, table lines)."""
    workers, jitters = (1000, 20) if quick else (1000, 200)
    points = workers * jitters
    runs = natural_runs(runner, benches, tmp, workers, jitters, repeat)
    natural = best(runs["natural"], "points_per_s")
    relational = best(runs["relational"], "rows_per_s")
    python = best(runs["python"], "points_per_s")
    peak = max(r["peak_rss_mb"] for r in runs["natural"])

    show_rows = 10**5 if quick else 10**6
    say(f"\n## runner show --format csv, {show_rows} rows to a pipe, best of {repeat}")
    db = os.path.join(tmp, "show.db")
    script = os.path.join(tmp, "show.lua")
    grid_script(script, 1000, show_rows // 1000)
    must(run([runner, "sweep", script, "--db", db, "--quiet"]), "runner sweep for show")
    shows = show_runs(runner, benches, db, show_rows, tmp, repeat)
    for fmt in ("table", "json"):
        figure = piped([runner, "show", "1", "--db", db, "--format", fmt], tmp)
        say(f"  --format {fmt}: {fmt_rate(show_rows / figure['seconds'], 'rows/s')}, peak RSS "
            f"{figure['peak_rss_mb']:.1f} MB, {figure['bytes']} bytes")
    show = best(shows["show"], "rows_per_s")
    reference = best(shows["sqlite3"], "rows_per_s")
    floor = best(shows["floor"], "rows_per_s")
    show_peak = max(r["peak_rss_mb"] for r in shows["show"])
    say(f"\n## runner report and runner plot, {show_rows} rows")
    reports = report_runs(runner, db, show_rows, tmp)

    lines = []
    skip = "SKIP" if quick else None
    lines.append((f"rows: natural script, {points} points, peak RSS", f"{peak:.1f} MB", "", "",
                  "< 64 MB", skip or ("PASS" if peak < 64 else "MISS")))
    ratio = natural["points_per_s"] / relational["rows_per_s"]
    lines.append(("  natural script / relational C loop", fmt_rate(natural["points_per_s"], "pts/s"),
                  fmt_rate(relational["rows_per_s"], "pts/s"), f"{ratio:.2f}", ">= 0.8",
                  "PASS" if ratio >= 0.8 else "MISS"))
    cpu_ratio = natural["points_per_cpu_s"] / relational["rows_per_cpu_s"]
    lines.append(("  same, per CPU-second", fmt_rate(natural["points_per_cpu_s"], "pts/CPU-s"),
                  fmt_rate(relational["rows_per_cpu_s"], "pts/CPU-s"), f"{cpu_ratio:.2f}",
                  "(info)", ""))
    ratio = natural["points_per_s"] / python["points_per_s"]
    lines.append(("  natural script / Python relational loop",
                  fmt_rate(natural["points_per_s"], "pts/s"),
                  fmt_rate(python["points_per_s"], "pts/s"), f"{ratio:.2f}", ">= 1.5",
                  "PASS" if ratio >= 1.5 else "MISS"))
    lines += show_lines(show, reference, floor, show_peak, show_rows, skip)
    lines += report_lines(reports, show_rows, skip)
    figures = {"natural_runs": runs, "natural": natural, "relational": relational,
               "python_points": python, "show_runs": shows, "report": reports}
    return figures, lines


def show_lines(show, reference, floor, show_peak, show_rows, skip):
    return [
        (f"show: {show_rows} rows, csv, to a pipe", fmt_rate(show["rows_per_s"], "rows/s"),
         "500 k rows/s", f"{show['rows_per_s'] / 5e5:.2f}", ">= 1",
         skip or ("PASS" if show["rows_per_s"] >= 5e5 else "MISS")),
        ("  runner show / sqlite3 -csv, same query", "", fmt_rate(reference["rows_per_s"], "rows/s"),
         f"{show['rows_per_s'] / reference['rows_per_s']:.2f}", "(info)", ""),
        ("  same, per CPU-second", fmt_rate(show["rows_per_cpu_s"], "rows/CPU-s"),
         fmt_rate(reference["rows_per_cpu_s"], "rows/CPU-s"),
         f"{show['rows_per_cpu_s'] / reference['rows_per_cpu_s']:.2f}", "(info)", ""),
        ("  runner show / bare read loop (printf)", "", fmt_rate(floor["rows_per_s"], "rows/s"),
         f"{show['rows_per_s'] / floor['rows_per_s']:.2f}", "(info)", ""),
        ("  show peak RSS", f"{show_peak:.1f} MB", "", "", "constant", ""),
    ]


def report_lines(reports, rows, skip):
    report = reports["report"]
    return [
        (f"report: {rows} rows, time", f"{report['seconds']:.2f} s", "", "", "< 5 s",
         skip or ("PASS" if report["seconds"] < 5 else "MISS")),
        ("  report CPU time (user + sys)", f"{report['cpu_seconds']:.2f} s", "", "", "(info)", ""),
        ("  report size", f"{report['output_mb']:.3f} MB", "", "", "< 3 MB",
         skip or ("PASS" if report["output_mb"] < 3 else "MISS")),
        ("  report peak RSS", f"{report['peak_rss_mb']:.0f} MB", "", "", "(info)", ""),
        ("plot --by jitter: SVG size", f"{reports['plot_by']['output_mb']:.3f} MB", "", "",
         "< 1 MB", skip or ("PASS" if reports["plot_by"]["output_mb"] < 1 else "MISS")),
        ("plot, one line: SVG size", f"{reports['plot']['output_mb']:.3f} MB", "", "",
         "< 1 MB", skip or ("PASS" if reports["plot"]["output_mb"] < 1 else "MISS")),
        ("  plot time, one line", f"{reports['plot']['seconds']:.2f} s", "", "", "(info)", ""),
    ]


def print_table(rows):
    header = ("what", "runner", "reference or floor", "ratio", "target", "met")
    widths = [max(len(str(r[i])) for r in rows + [header]) for i in range(6)]
    for r in [header] + rows:
        say("  ".join(str(c).rjust(widths[i]) if i == 3 else str(c).ljust(widths[i])
                      for i, c in enumerate(r)).rstrip())


def best(runs, key):
    """The run with the highest `key`: on a shared machine the slower runs
    measure the neighbours as much as the code."""
    return max(runs, key=lambda r: r[key])


def peer(args):
    return json.loads(must(run([PYTHON, os.path.join(HERE, "peers.py")] + args),
                           "peers.py " + args[0]))


def fmt_rate(value, unit):
    for scale, prefix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= scale:
            return f"{value / scale:.3g} {prefix}{unit}"
    return f"{value:.3g} {unit}"


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeat", type=int, default=None)
    parser.add_argument("--json")
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--only", choices=("rows", "exec", "floor", "answers"))
    args = parser.parse_args()
    repeat = args.repeat or (1 if args.quick else 3)

    build = os.path.abspath(args.build_dir)
    runner = os.path.join(build, "runner")
    benches = {
        "sqlite_limit": os.path.join(build, "bench", "bench_sqlite_limit"),
        "gradient": os.path.join(build, "bench", "bench_gradient"),
        "straggler": os.path.join(build, "plugins", "straggler", "bench_straggler"),
        "sharding": os.path.join(build, "plugins", "sharding", "bench_sharding"),
        "read_floor": os.path.join(build, "bench", "bench_read_floor"),
        "spawn_floor": os.path.join(build, "bench", "bench_spawn_floor"),
    }
    fixtures = os.path.join(build, "fixtures", "good")
    for path in [runner, "/usr/bin/time"] + list(benches.values()):
        if not os.access(path, os.X_OK):
            sys.exit(f"run_all: {path} is missing: run `make bench` (or `make build` and "
                     "`apt-get install time`)")
    for tool in ("hyperfine", "parallel"):
        if not shutil.which(tool):
            sys.exit(f"run_all: {tool} is missing: run `make bench` (or `apt-get install {tool}`)")

    top = 5 if args.quick else 6
    keys = 10**6 if args.quick else 10**7
    optuna_grid = (5, 10) if args.quick else (20, 10)
    samples = "100000" if args.quick else "250000"
    out = {"machine": machine(), "quick": args.quick, "repeat": repeat,
           "load_start": loadavg()}
    tmp = tempfile.mkdtemp(prefix="runner-bench.")
    say(f"machine: {out['machine']['nproc']} x {out['machine']['cpu']}, Linux "
        f"{out['machine']['kernel']}, SQLite {out['machine']['sqlite']}, runner "
        f"{out['machine']['git']}; load average {out['load_start']:.2f}; best of {repeat}; "
        f"temporary files in {tmp}")
    started = time.perf_counter()
    exec_points = 500 if args.quick else 2000
    if args.only in ("rows", "exec", "floor", "answers"):
        if args.only == "rows":
            figures, rows = rows_section(runner, benches, tmp, args.quick, repeat)
        elif args.only == "floor":
            figures, rows = bench_floor.section(runner, benches, tmp, args.quick, repeat)
        elif args.only == "answers":
            figures, rows = bench_answers.section(runner, tmp, args.quick, repeat, fixtures)
        else:
            figures, rows = bench_exec_overhead.section(runner, tmp, exec_points, repeat)
        out[args.only] = figures
        out["load_end"] = loadavg()
        say(f"\n## results ({time.perf_counter() - started:.0f} s; load average "
            f"{out['load_start']:.2f} at start, {out['load_end']:.2f} at end, on "
            f"{out['machine']['nproc']} CPUs; best of {repeat})")
        print_table(rows)
        if args.json:
            with open(args.json, "w") as f:
                json.dump(out, f, indent=1)
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
        return 0

    # 1. Same rows: runner, the bare C loop and the Python loop store the
    #    same values for the 10^3 grid.
    say("\n## same rows, 10^3 grid")
    workers, jitters = GRIDS[3]
    check_runner = run_runner(runner, tmp, workers, jitters, 1)
    check_c = sqlite_limit(benches["sqlite_limit"], tmp, workers, jitters, only="rows", keep=True)
    check_py = os.path.join(tmp, "check_python.db")
    peer(["sqlite", "--workers", str(workers), "--jitters", str(jitters), "--db", check_py])
    reference = table_rows(check_runner["db"])
    same_c = table_rows(check_c["kept"][0]) == reference
    same_py = table_rows(check_py) == reference
    out["same_rows"] = {"bare_c": same_c, "python": same_py, "rows": len(reference)}
    say(f"same {len(reference)} rows as runner: bare C loop {same_c}, Python loop {same_py}")

    # 2. The storage limit, runner and the Python loop on the largest grid,
    #    taken in turn, best of `repeat` each.
    say(f"\n## runner --jobs 1, bare C loop, Python loop: 10^{top} grid, best of {repeat}")
    grid = GRIDS[top]
    storage = {"runner": [], "bare": [], "python": []}
    for _ in range(repeat):
        figure = run_runner(runner, tmp, *grid, 1)
        os.unlink(figure.pop("db"))
        storage["runner"].append(figure)
        storage["bare"].append(sqlite_limit(benches["sqlite_limit"], tmp, *grid, only="rows")["rows"])
        storage["python"].append(peer(["sqlite", "--workers", str(grid[0]), "--jitters",
                                       str(grid[1]), "--db", os.path.join(tmp, "python.db")]))
        say(f"  runner {fmt_rate(storage['runner'][-1]['points_per_s'], 'points/s')}, "
            f"bare loop {fmt_rate(storage['bare'][-1]['rows_per_s'], 'rows/s')}, "
            f"Python {fmt_rate(storage['python'][-1]['points_per_s'], 'points/s')}")
    out["storage_runs"] = storage
    say("  the other variants of the bare loop, once:")
    limit = {"rows": best(storage["bare"], "rows_per_s")}
    for only in ("no-index", "point", "narrow"):
        figures = sqlite_limit(benches["sqlite_limit"], tmp, *grid, only=only)
        say("  " + figures.pop("output").splitlines()[1])
        limit.update({k: v for k, v in figures.items() if k not in ("kept",)})
    out["sqlite_limit"] = limit
    python = best(storage["python"], "points_per_s")
    for run_ in storage["python"]:
        run_["points_per_cpu_s"] = run_["points"] / run_["cpu_seconds"]
    out["python_sqlite"] = python

    # 3. Scaling: points/s against grid size and --jobs.
    say(f"\n## runner: grid size x --jobs, best of {repeat} (10^{top} --jobs 2: once)")
    scaling = []
    for exponent in range(3, top + 1):
        for jobs in (1, 2):
            if exponent == top and jobs == 1:
                runs = storage["runner"]
            else:
                runs = []
                for _ in range(1 if exponent == top else repeat):
                    figure = run_runner(runner, tmp, *GRIDS[exponent], jobs)
                    os.unlink(figure.pop("db"))
                    runs.append(figure)
            figure = dict(best(runs, "points_per_s"), exponent=exponent,
                          points_per_cpu_s=best(runs, "points_per_cpu_s")["points_per_cpu_s"],
                          peak_rss_mb=max(r["peak_rss_mb"] for r in runs))
            say(f"  10^{exponent} points, --jobs {jobs}: {figure['seconds']:.2f} s = "
                f"{fmt_rate(figure['points_per_s'], 'points/s')}, "
                f"{fmt_rate(figure['points_per_cpu_s'], 'points/CPU-s')}, "
                f"peak RSS {figure['peak_rss_mb']:.1f} MB")
            scaling.append(figure)
    out["scaling"] = scaling
    largest = [f for f in scaling if f["exponent"] == top]
    runner_j1 = next(f for f in largest if f["jobs"] == 1)

    # 4. Optuna on a small grid, and runner on the same grid (whole process).
    say(f"\n## Optuna GridSampler, {optuna_grid[0] * optuna_grid[1]} points, once")
    out["optuna"] = peer(["optuna", "--workers", str(optuna_grid[0]), "--jitters",
                          str(optuna_grid[1]), "--db", os.path.join(tmp, "optuna.db")])
    small = run_runner(runner, tmp, *optuna_grid, 1)
    small.pop("db")
    out["runner_small_grid"] = small
    say(f"  Optuna: {out['optuna']['seconds'] / out['optuna']['points'] * 1e3:.1f} ms/point; "
        f"runner on the same grid, whole process: {small['seconds'] * 1e3:.0f} ms")

    # 5. Kernels, each against its reference, in turn, best of `repeat`.
    say(f"\n## kernels, best of {repeat}")
    kernel_runs = {"straggler": [], "numpy_straggler": [], "xxh64": [], "md5": [],
                   "uhashring": [], "gradient": [], "numpy_gradient": []}
    for _ in range(repeat):
        text = run([benches["straggler"]]).stdout  # exits 1 below its own target
        say(text.rstrip())
        kernel_runs["straggler"].append({"draws_per_s": 1e6 * grab(
            r"^uniform, k = 512 \(gated\)\s+([\d.]+) M draws/s", text, "straggler rate")})
        kernel_runs["numpy_straggler"].append(peer(["straggler", "--workers", "512",
                                                    "--seconds", "1"]))
        say(f"  numpy, k = 512: "
            f"{fmt_rate(kernel_runs['numpy_straggler'][-1]['draws_per_s'], 'draws/s')}")
        # md5 on fewer keys: it is compared per key with uhashring, also md5.
        for kind, count in (("xxh64", keys), ("md5", keys // 10)):
            text = must(run([benches["sharding"], str(count), kind]), "bench_sharding")
            say(text.rstrip())
            kernel_runs[kind].append({
                "keys": count,
                "hash_keys_per_s": 1e6 * grab(r"hash only:\s+([\d.]+) M keys/s", text, "hash"),
                "place_keys_per_s": 1e6 * grab(r"ring placement:\s+([\d.]+) M keys/s", text,
                                               "placement")})
        kernel_runs["uhashring"].append(peer(["uhashring", "--keys", str(keys // 100),
                                              "--nodes", "1000", "--vnodes", "120"]))
        say(f"  uhashring: {fmt_rate(kernel_runs['uhashring'][-1]['keys_per_s'], 'keys/s')}")
        text = must(run([benches["gradient"], samples, "127"]), "bench_gradient")
        say(text.rstrip())
        kernel_runs["gradient"].append({
            "seconds": grab(r"^  gradient:\s+([\d.]+) s", text, "gradient time"),
            "read_bytes_per_s": 1e9 * grab(r"X bytes read/s:\s+([\d.]+) GB/s", text, "read"),
            "one_pass_bytes_per_s": 1e9 * grab(r"one pass:\s+([\d.]+) GB/s", text, "one pass"),
            "memcpy_bytes_per_s": 1e9 * grab(r"memcpy bandwidth:\s+([\d.]+) GB/s", text, "memcpy"),
            "read_only_bytes_per_s": 1e9 * grab(r"read-only bandwidth:\s+([\d.]+) GB/s", text,
                                                "read-only")})
        kernel_runs["numpy_gradient"].append(peer(["gradient", "--samples", samples,
                                                   "--features", "127"]))
        say(f"  numpy: {kernel_runs['numpy_gradient'][-1]['seconds']:.4f} s per gradient")
    out["kernel_runs"] = kernel_runs
    straggler = best(kernel_runs["straggler"], "draws_per_s")["draws_per_s"]
    numpy_straggler = best(kernel_runs["numpy_straggler"], "draws_per_s")["draws_per_s"]
    xxh = {k: max(r[k] for r in kernel_runs["xxh64"])
           for k in ("hash_keys_per_s", "place_keys_per_s")}
    md5 = max(r["place_keys_per_s"] for r in kernel_runs["md5"])
    uh = best(kernel_runs["uhashring"], "keys_per_s")["keys_per_s"]
    gradient = {k: max(r[k] for r in kernel_runs["gradient"])
                for k in ("read_bytes_per_s", "one_pass_bytes_per_s", "memcpy_bytes_per_s",
                          "read_only_bytes_per_s")}
    gradient["seconds"] = min(r["seconds"] for r in kernel_runs["gradient"])
    numpy_gradient_s = min(r["seconds"] for r in kernel_runs["numpy_gradient"])
    out["rows"], rows_lines = rows_section(runner, benches, tmp, args.quick, repeat)
    out["exec"], exec_lines = bench_exec_overhead.section(runner, tmp, exec_points, repeat)
    out["floor"], floor_lines = bench_floor.section(runner, benches, tmp, args.quick, repeat)
    out["answers"], answers_lines = bench_answers.section(runner, tmp, args.quick, repeat,
                                                          fixtures)
    out["load_end"] = loadavg()
    out["bench_seconds"] = time.perf_counter() - started

    # The table.
    rows = []

    def line(what, figure, reference, ratio, goal, verdict=""):
        rows.append((what, figure, reference, ratio, goal, verdict))

    def verdict(ok):
        return "PASS" if ok else "MISS"

    size = f"10^{top}"
    peak = max(f["peak_rss_mb"] for f in largest)
    line(f"streaming: peak RSS, {size} points, --jobs 1 and 2", f"{peak:.1f} MB", "", "",
         f"< {RSS_LIMIT_MB:.0f} MB", "SKIP" if args.quick else verdict(peak < RSS_LIMIT_MB))
    bare = limit["rows"]
    ratio = runner_j1["points_per_s"] / bare["rows_per_s"]
    line(f"storage: runner --jobs 1 / bare C loop", fmt_rate(runner_j1["points_per_s"], "pts/s"),
         fmt_rate(bare["rows_per_s"], "rows/s"), f"{ratio:.3f}", ">= 0.5", verdict(ratio >= 0.5))
    bare_cpu = max(r["rows_per_cpu_s"] for r in storage["bare"])
    line("  same, per CPU-second", fmt_rate(runner_j1["points_per_cpu_s"], "pts/CPU-s"),
         fmt_rate(bare_cpu, "rows/CPU-s"), f"{runner_j1['points_per_cpu_s'] / bare_cpu:.3f}",
         "(info)")
    for key, label in (("no_index", "bare loop, no index"),
                       ("with_point", "bare loop + point blocks"),
                       ("narrow", "bare loop, 3 REAL columns")):
        line(f"  runner / {label}", "", fmt_rate(limit[key]["rows_per_s"], "rows/s"),
             f"{runner_j1['points_per_s'] / limit[key]['rows_per_s']:.3f}", "(info)")
    ratio = runner_j1["points_per_s"] / python["points_per_s"]
    line("peer (a): runner / Python sqlite3 loop", fmt_rate(runner_j1["points_per_s"], "pts/s"),
         fmt_rate(python["points_per_s"], "pts/s"), f"{ratio:.2f}", "> 1", verdict(ratio > 1))
    python_cpu = max(r["points_per_cpu_s"] for r in storage["python"])
    line("  same, per CPU-second", fmt_rate(runner_j1["points_per_cpu_s"], "pts/CPU-s"),
         fmt_rate(python_cpu, "pts/CPU-s"), f"{runner_j1['points_per_cpu_s'] / python_cpu:.2f}",
         "(info)")
    optuna_per_point = out["optuna"]["seconds"] / out["optuna"]["points"]
    ratio = optuna_per_point * runner_j1["points_per_s"]
    line("peer (b): Optuna s/point / runner s/point", f"{1e6 / runner_j1['points_per_s']:.1f} us",
         f"{optuna_per_point * 1e3:.1f} ms", f"{ratio:.0f}", ">= 1000", verdict(ratio >= 1000))
    whole = small["seconds"] / small["points"]
    line(f"  same, runner whole process on {small['points']} points", f"{whole * 1e3:.2f} ms",
         f"{optuna_per_point * 1e3:.1f} ms", f"{optuna_per_point / whole:.0f}", "(info)")
    ratio = straggler / numpy_straggler
    line("straggler MC k=512 / numpy (1 thread)", fmt_rate(straggler, "draws/s"),
         fmt_rate(numpy_straggler, "draws/s"), f"{ratio:.2f}", ">= 2", verdict(ratio >= 2))
    line(f"sharding: ring placement, xxh64, 1000 nodes", fmt_rate(xxh["place_keys_per_s"], "keys/s"),
         "10 M keys/s", f"{xxh['place_keys_per_s'] / 10e6:.2f}", ">= 1 (bench_sharding)",
         verdict(xxh["place_keys_per_s"] >= 10e6))
    line("  placement / hash alone (xxh64)", "", fmt_rate(xxh["hash_keys_per_s"], "keys/s"),
         f"{xxh['place_keys_per_s'] / xxh['hash_keys_per_s']:.2f}", "(info)")
    line("  runner xxh64 / uhashring (md5)", "", fmt_rate(uh, "keys/s"),
         f"{xxh['place_keys_per_s'] / uh:.1f}", "(info)")
    line("  runner md5 / uhashring (md5)", fmt_rate(md5, "keys/s"), fmt_rate(uh, "keys/s"),
         f"{md5 / uh:.1f}", "(info)")
    ratio = gradient["read_bytes_per_s"] / gradient["memcpy_bytes_per_s"]
    line("gradient: X bytes read/s / memcpy", fmt_rate(gradient["read_bytes_per_s"], "B/s"),
         fmt_rate(gradient["memcpy_bytes_per_s"], "B/s"), f"{ratio:.2f}", ">= 0.5",
         verdict(ratio >= 0.5))
    line("  one-pass X bytes/s / memcpy", fmt_rate(gradient["one_pass_bytes_per_s"], "B/s"),
         fmt_rate(gradient["memcpy_bytes_per_s"], "B/s"),
         f"{gradient['one_pass_bytes_per_s'] / gradient['memcpy_bytes_per_s']:.2f}", "(info)")
    line("  gradient speed / numpy's (1 thread)", f"{gradient['seconds'] * 1e3:.1f} ms",
         f"{numpy_gradient_s * 1e3:.1f} ms", f"{numpy_gradient_s / gradient['seconds']:.2f}",
         "(info)")
    by = {(f["exponent"], f["jobs"]): f for f in scaling}
    for exponent in range(3, top + 1):
        one, two = by[(exponent, 1)], by[(exponent, 2)]
        line(f"scaling: 10^{exponent} points, --jobs 1 -> 2",
             fmt_rate(one["points_per_s"], "pts/s"), fmt_rate(two["points_per_s"], "pts/s"),
             f"{two['points_per_s'] / one['points_per_s']:.2f}", "(info)")
    rows.extend(rows_lines)
    rows.extend(exec_lines)
    rows.extend(floor_lines)
    rows.extend(answers_lines)
    out["table"] = [dict(zip(("what", "figure", "reference", "ratio", "target", "verdict"), r))
                    for r in rows]

    say(f"\n## results ({out['bench_seconds']:.0f} s; load average {out['load_start']:.2f} at "
        f"start, {out['load_end']:.2f} at end, on {out['machine']['nproc']} CPUs; best of "
        f"{repeat})")
    if max(out["load_start"], out["load_end"]) > out["machine"]["nproc"]:
        say("warning: the machine was busy with other work: wall-clock rates are low and noisy; "
            "read the ratios and the per-CPU-second lines")
    say(f"same rows as runner (10^3 grid): bare C loop {same_c}, Python loop {same_py}")
    print_table(rows)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)
    if args.keep:
        say(f"kept {tmp}")
    else:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0 if same_c and same_py else 1


if __name__ == "__main__":
    sys.exit(main())
