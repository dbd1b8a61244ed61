"""floor_lib: what the floor benchmarks share (bench_floor.py, its
sections in other files such as bench_runs.py): the paths, the memory
target, printing, a command run or timed, a verdict. Imported by each
section, importing none of them, so no two bench files import each other."""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
RSS_LIMIT_MB = 64.0


def say(text=""):
    print(text, flush=True)


def verdict(ok, skip=None):
    return skip or ("PASS" if ok else "MISS")


def rate(value, unit):
    for scale, prefix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= scale:
            return f"{value / scale:.3g} {prefix}{unit}"
    return f"{value:.3g} {unit}"


def must(command, what, **kwargs):
    say("$ " + " ".join(command))
    result = subprocess.run(command, capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        sys.stderr.write(result.stdout[-3000:] + result.stderr[-3000:])
        sys.exit(f"bench_floor: {what} failed (exit {result.returncode})")
    return result.stdout


def timed(command, tmp, stdout_to="/dev/null"):
    """Runs command under /usr/bin/time with stdout to stdout_to ("pipe":
    through a pipe into wc -c); returns wall, CPU (user + sys) seconds and
    peak RSS in MB."""
    timing = os.path.join(tmp, "floor_time.txt")
    quoted = " ".join("'" + c.replace("'", "'\\''") + "'" for c in command)
    line = f"/usr/bin/time -f '%e %U %S %M' -o {timing} {quoted}"
    line += " | wc -c >/dev/null" if stdout_to == "pipe" else f" >{stdout_to}"
    say("$ " + line)
    result = subprocess.run(["sh", "-c", line], capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"bench_floor: {line} failed:\n{result.stderr[-3000:]}")
    with open(timing) as f:
        wall, user, system, rss_kb = f.read().split()[-4:]
    return {"seconds": float(wall), "cpu_seconds": float(user) + float(system),
            "peak_rss_mb": float(rss_kb) / 1024.0}


def remove_db(path):
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.unlink(path + suffix)


def benches_in(build):
    return {"sqlite_limit": os.path.join(build, "bench", "bench_sqlite_limit"),
            "read_floor": os.path.join(build, "bench", "bench_read_floor"),
            "spawn_floor": os.path.join(build, "bench", "bench_spawn_floor")}
