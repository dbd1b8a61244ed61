#!/usr/bin/python3
"""Issue 34: what keeping every run of a command point costs (floor 8 of
bench_floor.py; docs/performance.md, "Every run a row").

  1. storing: a command_run row costs SQLite one INSERT in the point's
     batch. Measured as runner's own statement does it (the same table,
     primary key and columns, a batch of N rows in one transaction, with
     the sqlite3 shell), per row, against the cheapest run of a program
     (bench_spawn_floor: posix_spawn + poll + wait4 of /bin/true). Target:
     at most 5 % of that floor, so at most 5 % of any command point's cost.
     Beside it, for information, a /bin/true sweep with repeats = 10 per
     run against the same floor per spawn (everything a run costs runner).
  2. reading: `runner export --runs` of 10^6 stored runs (1000 points of a
     command, their runs multiplied in SQL), rows/s >= 300 k and peak RSS
     <= 64 MB (it streams: memory does not grow with the runs).

usage: bench_runs.py [--build-dir DIR] [--quick] [--repeat N]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

import floor_lib

STORE_TARGET = 0.05
EXPORT_TARGET = 300e3
COMMAND = """command {{ name = "cmd", argv = {{ "/bin/true" }},
  params = {{ i = {{ type = "integer", min = 0, max = 1000000 }} }},
  repeats = {repeats}, warmup = {warmup}, jobs = 1 }}
sweep("cmd", {{ i = range(1, {points}) }}, {{ print = false, keep_rows = false }})
"""


def make_db(runner, tmp, name, points, repeats, warmup):
    script = os.path.join(tmp, f"{name}.lua")
    with open(script, "w") as f:
        f.write(COMMAND.format(points=points, repeats=repeats, warmup=warmup))
    db = os.path.join(tmp, f"{name}.db")
    floor_lib.remove_db(db)
    figure = floor_lib.timed([runner, "sweep", script, "--db", db, "--quiet"], tmp)
    return db, figure


def sql(db, text):
    return floor_lib.must(["sqlite3", db, text], "sqlite3").strip()


def store_lines(runner, benches, tmp, quick, repeat):
    points, repeats = (100, 10) if quick else (300, 10)
    rows = 10**5 if quick else 10**6
    say = floor_lib.say
    say(f"\n## floor 8: storing every run: {rows} command_run rows in one batch, and "
        f"/bin/true x {points} points x {repeats} repeats, best of {repeat}")
    store_us, sweep_us, floor_us = [], [], []
    for _ in range(repeat):
        db, figure = make_db(runner, tmp, "runs_store", points, repeats, 0)
        sweep_us.append(1e6 * figure["seconds"] / (points * repeats))
        # The insert runner prepares (core/store/store_sql.c, STMT_INSERT_RUN),
        # rows as a command's would be, in one transaction.
        timing = floor_lib.timed(
            ["sqlite3", db,
             "BEGIN; WITH RECURSIVE n(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM n WHERE k < "
             f"{rows}) INSERT INTO command_run (sweep_id, point_id, run, warmup, wall_s, user_s,"
             " sys_s, max_rss_kib, voluntary_switches, involuntary_switches, exit_status,"
             " run_values) SELECT 2, 1000000 + k / 16, k % 16, 0, 0.001 * k, 0.0005, 0.0002,"
             " 12000, 3, 1, 0, '{\"score\":' || k || '}' FROM n; COMMIT;"], tmp)
        # the shell's start and the recursive CTE are left in: the figure is an upper bound
        store_us.append(1e6 * timing["seconds"] / rows)
        out = floor_lib.must([benches["spawn_floor"], "2000", "/bin/true"], "bench_spawn_floor")
        wall = float(re.search(r"in ([\d.]+) s wall", out).group(1))
        floor_us.append(1e6 * wall / 2000)
        floor_lib.remove_db(db)
    store, floor, per_run = min(store_us), min(floor_us), min(sweep_us)
    return {"store_us_per_run": store, "floor_us_per_run": floor,
            "sweep_us_per_run": per_run}, [
        (f"floor 8: storing a run (command_run), {rows} rows", f"{store:.2f} us/run",
         f"{floor:.1f} us/run", f"{store / floor:.3f}", f"<= {STORE_TARGET}",
         floor_lib.verdict(store / floor <= STORE_TARGET)),
        (f"  a run with repeats = {repeats}, all of it", f"{per_run:.1f} us/run",
         f"{floor:.1f} us/run", f"{per_run / floor:.2f}", "(info)", ""),
    ]


def export_lines(runner, tmp, quick, repeat):
    points, per_point = 1000, (100 if quick else 1000)
    rows = points * per_point
    say = floor_lib.say
    say(f"\n## floor 8: runner export --runs of {rows} runs, best of {repeat}")
    db, _ = make_db(runner, tmp, "runs_export", points, 2, 0)
    sql(db, "WITH RECURSIVE n(k) AS (SELECT 3 UNION ALL SELECT k + 1 FROM n WHERE k < "
        f"{per_point}) INSERT INTO command_run SELECT r.sweep_id, r.point_id, n.k, 0,"
        " r.wall_s * (1 + n.k / 1e4), r.user_s, r.sys_s, r.max_rss_kib, r.voluntary_switches,"
        " r.involuntary_switches, 0, r.run_values FROM command_run AS r, n WHERE r.run = 1")
    stored = int(sql(db, "SELECT count(*) FROM command_run"))
    if stored != rows:
        sys.exit(f"bench_runs: expected {rows} runs, found {stored}")
    runs = []
    out = os.path.join(tmp, "runs_export")
    for _ in range(repeat):
        figure = floor_lib.timed([runner, "export", "1", "--runs", "--db", db, "--out", out],
                                   tmp)
        path = os.path.join(out, "sweep-1-section-1-cmd-runs.csv")
        with open(path) as f:
            written = sum(1 for line in f if not line.startswith("#")) - 1
        if written != rows:
            sys.exit(f"bench_runs: export wrote {written} runs, not {rows}")
        figure["rows_per_s"] = rows / figure["seconds"]
        runs.append(figure)
    best = max(runs, key=lambda r: r["rows_per_s"])
    peak = max(r["peak_rss_mb"] for r in runs)
    floor_lib.remove_db(db)
    skip = "SKIP (--quick)" if quick else None
    return {"rows": rows, "runs": runs}, [
        (f"floor 8: export --runs, {rows} runs", floor_lib.rate(best["rows_per_s"], "rows/s"),
         "", "", f">= {EXPORT_TARGET / 1e3:.0f} k rows/s",
         floor_lib.verdict(best["rows_per_s"] >= EXPORT_TARGET, skip)),
        ("  its rate in CPU time (what a quiet machine's wall approaches)",
         floor_lib.rate(rows / min(r["cpu_seconds"] for r in runs), "rows/s"), "", "", "(info)",
         ""),
        ("  its peak RSS", f"{peak:.1f} MB", "", "", f"<= {floor_lib.RSS_LIMIT_MB:.0f} MB",
         floor_lib.verdict(peak <= floor_lib.RSS_LIMIT_MB, skip)),
    ]


def section(runner, benches, tmp, quick, repeat):
    figures, lines = {}, []
    figures["store"], more = store_lines(runner, benches, tmp, quick, repeat)
    lines += more
    figures["export"], more = export_lines(runner, tmp, quick, repeat)
    lines += more
    return figures, lines


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build-dir", default=os.path.join(floor_lib.ROOT, "build"))
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeat", type=int)
    args = parser.parse_args()
    build = os.path.abspath(args.build_dir)
    repeat = args.repeat or (1 if args.quick else 3)
    with tempfile.TemporaryDirectory(prefix="runner-bench-runs.") as tmp:
        _, lines = section(os.path.join(build, "runner"), floor_lib.benches_in(build), tmp,
                           args.quick, repeat)
    floor_lib.say("")
    for line in lines:
        floor_lib.say("  ".join(str(c) for c in line if c != "").rstrip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
