#!/usr/bin/python3
"""The tools people use instead of runner, doing the same work as a bench
measures runner or a plugin kernel doing. Each subcommand prints one JSON
object on stdout; bench/run_all.py runs them and computes the ratios.
Debian packages only: python3, python3-numpy, python3-optuna,
python3-uhashring (docs/performance.md).

  peers.py sqlite   --workers W --jitters J --db FILE [--points]
                                                        hand-written sqlite3 loop; --points:
                                                        also a point row per point
  peers.py optuna   --workers W --jitters J --db FILE   Optuna GridSampler, SQLite storage
  peers.py straggler --workers K --seconds S            numpy maxima of uniforms
  peers.py uhashring --keys N --nodes M --vnodes V      uhashring placements
  peers.py gradient --samples N --features D            numpy X.T @ (sigmoid(X @ w) - y) / N
"""
import argparse
import json
import math
import os
import random
import sys
import time

# One thread for OpenBLAS and OpenMP before numpy is imported: the kernels
# are compared per core.
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

BASE_S = 30.0
JITTER_FIRST, JITTER_LAST = 0.5, 2.0
# The speedup plugin's defaults: stored in every row, as runner stores them.
CONSTANT_PARAMS = (("trials", 0), ("model", "walkthrough"), ("scaling", "strong"),
                   ("model_params", 44500000), ("bytes_per_param", 4), ("latency_s", 5e-6),
                   ("bandwidth_bytes_per_s", 3.125e9), ("reduce_bytes_per_s", 1e11))
RESULT_COLUMNS = ("wait_s", "round_s", "speedup", "efficiency", "ceiling", "ceiling_amdahl",
                  "karp_flatt", "t1_s", "compute_s", "gustafson", "comm_s", "comm_share")


def linspace(first, last, count):
    """runner's linspace (core/script/script.c), value for value."""
    values = []
    for i in range(count):
        x = first if count == 1 else first + (last - first) * i / (count - 1)
        values.append(last if i == count - 1 else x)
    return values


def speedup_row(base, jitter, workers):
    """The speedup plugin's row for the walk-through model, strong scaling,
    exact waits: plugins/speedup/model.c, operation for operation, so the
    stored doubles are the same bits."""
    k = float(workers)
    wait_1 = jitter * 1.0 / (1.0 + 1.0)
    wait_k = jitter * k / (k + 1.0)
    compute_s = base / k
    comm_s = 0.0
    round_s = compute_s + comm_s + wait_k
    t1_s = base + 0.0 + wait_1
    speedup = t1_s / round_s if round_s > 0.0 else math.nan
    efficiency = speedup / k
    ceiling = (base + 0.5 * jitter) / jitter if jitter > 0.0 else math.inf
    ceiling_amdahl = base / jitter if jitter > 0.0 else math.inf
    if workers == 1:
        karp_flatt = math.nan
    else:
        inverse_k = 1.0 / k
        karp_flatt = (1.0 / speedup - inverse_k) / (1.0 - inverse_k)
    serial = (wait_k + comm_s) / round_s if round_s > 0.0 else math.nan
    gustafson = k - (k - 1.0) * serial
    comm_share = comm_s / round_s if round_s > 0.0 else math.nan
    return (wait_k, round_s, speedup, efficiency, ceiling, ceiling_amdahl, karp_flatt, t1_s,
            compute_s, gustafson, comm_s, comm_share)


def stored(value):
    """runner stores NaN as the text 'NaN' (docs/schema.md)."""
    return "NaN" if isinstance(value, float) and math.isnan(value) else value


def remove_db(path):
    for suffix in ("", "-wal", "-shm", "-journal"):
        try:
            os.unlink(path + suffix)
        except FileNotFoundError:
            pass


def peer_sqlite(args):
    """A hand-written loop: compute each row, execute one INSERT (the
    module caches the prepared statement), one transaction, WAL, into a
    table with the columns, types and indexes of runner's."""
    import sqlite3
    remove_db(args.db)
    start, cpu_start = time.perf_counter(), time.process_time()
    db = sqlite3.connect(args.db, isolation_level=None)
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA synchronous = NORMAL")
    columns = (["base", "jitter", "workers"] + [name for name, _ in CONSTANT_PARAMS]
               + list(RESULT_COLUMNS))
    types = {"workers": "INTEGER", "trials": "INTEGER", "model_params": "INTEGER",
             "bytes_per_param": "INTEGER", "model": "TEXT", "scaling": "TEXT"}
    # Declaration order of the plugin: base, jitter, workers, trials, ...
    db.execute("CREATE TABLE speedup (row_id INTEGER PRIMARY KEY, sweep_id INTEGER NOT NULL,"
               " section_id INTEGER NOT NULL, point_id INTEGER NOT NULL, "
               + ", ".join(f"{c} {types.get(c, 'REAL')}" for c in columns) + ")")
    db.execute("CREATE INDEX speedup_by_sweep_section_point ON speedup"
               " (sweep_id, section_id, point_id)")
    if args.points:
        # What a careful script stores about each point: its canonical
        # parameters, seed, status, start and duration, indexed by section.
        db.execute("CREATE TABLE point (id INTEGER PRIMARY KEY, sweep_id INTEGER NOT NULL,"
                   " section_id INTEGER NOT NULL, params_json TEXT NOT NULL,"
                   " seed INTEGER NOT NULL, status TEXT NOT NULL, started_at REAL NOT NULL,"
                   " duration_s REAL NOT NULL)")
        db.execute("CREATE INDEX point_by_section ON point(section_id, id)")
    point_sql = ("INSERT INTO point (id, sweep_id, section_id, params_json, seed, status,"
                 " started_at, duration_s) VALUES (?, 1, 1, ?, ?, 'ok', ?, ?)")
    seeds = random.Random(1)
    sql = ("INSERT INTO speedup (sweep_id, section_id, point_id, " + ", ".join(columns)
           + ") VALUES (" + ", ".join("?" * (len(columns) + 3)) + ")")
    constants = tuple(value for _, value in CONSTANT_PARAMS)
    db.execute("BEGIN")
    point_id = 0
    for jitter in linspace(JITTER_FIRST, JITTER_LAST, args.jitters):
        for workers in range(1, args.workers + 1):
            point_id += 1
            started_at, clock0 = time.time(), time.perf_counter()
            row = speedup_row(BASE_S, jitter, workers)
            if args.points:
                params = dict(base=BASE_S, jitter=jitter, workers=workers, **dict(CONSTANT_PARAMS))
                db.execute(point_sql, (point_id, json.dumps(params, separators=(",", ":")),
                                       seeds.getrandbits(63), started_at,
                                       time.perf_counter() - clock0))
            db.execute(sql, (1, 1, point_id, BASE_S, jitter, workers) + constants
                       + tuple(stored(v) for v in row))
    db.execute("COMMIT")
    db.close()
    seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu_start
    return {"points": point_id, "seconds": seconds, "points_per_s": point_id / seconds,
            "cpu_seconds": cpu_seconds}


def peer_optuna(args):
    """Optuna's GridSampler over the same grid, SQLite storage. Favouring
    Optuna: only the two varying parameters are stored per trial (runner
    stores all eleven), the speedup is the objective value and the other
    eleven columns are user attributes; study creation is not timed."""
    import optuna
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    remove_db(args.db)
    jitters = linspace(JITTER_FIRST, JITTER_LAST, args.jitters)
    workers = list(range(1, args.workers + 1))
    sampler = optuna.samplers.GridSampler({"jitter": jitters, "workers": workers}, seed=1)
    storage = optuna.storages.RDBStorage(f"sqlite:///{args.db}")
    study = optuna.create_study(study_name="speedup", storage=storage, sampler=sampler,
                                direction="maximize")

    def objective(trial):
        jitter = trial.suggest_categorical("jitter", jitters)
        k = trial.suggest_categorical("workers", workers)
        row = speedup_row(BASE_S, jitter, k)
        for name, value in zip(RESULT_COLUMNS, row):
            if name != "speedup":
                trial.set_user_attr(name, None if math.isnan(value) else value)
        return row[2]

    start, cpu_start = time.perf_counter(), time.process_time()
    study.optimize(objective, n_trials=len(jitters) * len(workers))
    seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu_start
    stored_trials = len(study.get_trials(deepcopy=False,
                                         states=(optuna.trial.TrialState.COMPLETE,)))
    return {"points": stored_trials, "seconds": seconds, "points_per_s": stored_trials / seconds,
            "cpu_seconds": cpu_seconds, "optuna": optuna.__version__}


def peer_straggler(args):
    """Maxima of k uniforms per round, as the straggler plugin's uniform law
    samples them: numpy's default generator into a preallocated buffer,
    2^20 draws per call as bench_straggler does, single thread."""
    import numpy as np
    rng = np.random.default_rng(1)
    rounds = max(1, (1 << 20) // args.workers)
    buffer = np.empty((rounds, args.workers))
    total, draws = 0.0, 0
    start = time.perf_counter()
    while True:
        rng.random(out=buffer)
        total += float(buffer.max(axis=1).mean()) * args.jitter
        draws += buffer.size
        seconds = time.perf_counter() - start
        if seconds >= args.seconds:
            break
    return {"draws": draws, "seconds": seconds, "draws_per_s": draws / seconds,
            "mean_max": total * rounds * args.workers / draws, "numpy": np.__version__}


def peer_uhashring(args):
    """uhashring's get_node over integer keys on a ring of `nodes` nodes with
    `vnodes` points each (md5, its default). Ring construction not timed."""
    from uhashring import HashRing
    start = time.perf_counter()
    ring = HashRing(nodes=[f"node{i}" for i in range(args.nodes)], vnodes=args.vnodes)
    build_s = time.perf_counter() - start
    load = {}
    start = time.perf_counter()
    for key in range(args.keys):
        node = ring.get_node(key)
        load[node] = load.get(node, 0) + 1
    seconds = time.perf_counter() - start
    return {"keys": args.keys, "seconds": seconds, "keys_per_s": args.keys / seconds,
            "build_s": build_s, "nodes_used": len(load)}


def peer_gradient(args):
    """The equivalence gradient in numpy, single-threaded BLAS: X is read by
    X @ w and again by X.T @ r. Best of 7 after one warm-up, as bench_gradient."""
    import numpy as np
    rng = np.random.default_rng(1)
    columns = args.features + 1
    x = rng.standard_normal((args.samples, columns))
    x[:, 0] = 1.0
    w = rng.standard_normal(columns) / math.sqrt(columns)
    y = (rng.random(args.samples) < 0.5).astype(np.float64)

    def gradient():
        return x.T @ (1.0 / (1.0 + np.exp(-(x @ w))) - y) / args.samples

    gradient()
    times = []
    for _ in range(7):
        start = time.perf_counter()
        gradient()
        times.append(time.perf_counter() - start)
    seconds = min(times)
    x_bytes = x.nbytes
    return {"seconds": seconds, "gradients_per_s": 1.0 / seconds, "x_bytes": x_bytes,
            "x_bytes_read_per_s": 2.0 * x_bytes / seconds, "numpy": np.__version__}


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="peer", required=True)
    for name in ("sqlite", "optuna"):
        p = sub.add_parser(name)
        p.add_argument("--workers", type=int, required=True)
        p.add_argument("--jitters", type=int, required=True)
        p.add_argument("--db", required=True)
        p.add_argument("--points", action="store_true")
    p = sub.add_parser("straggler")
    p.add_argument("--workers", type=int, default=512)
    p.add_argument("--jitter", type=float, default=2.0)
    p.add_argument("--seconds", type=float, default=1.0)
    p = sub.add_parser("uhashring")
    p.add_argument("--keys", type=int, default=100000)
    p.add_argument("--nodes", type=int, default=1000)
    p.add_argument("--vnodes", type=int, default=120)
    p = sub.add_parser("gradient")
    p.add_argument("--samples", type=int, default=250000)
    p.add_argument("--features", type=int, default=127)
    args = parser.parse_args()
    peers = {"sqlite": peer_sqlite, "optuna": peer_optuna, "straggler": peer_straggler,
             "uhashring": peer_uhashring, "gradient": peer_gradient}
    json.dump(peers[args.peer](args), sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
