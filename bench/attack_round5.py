#!/usr/bin/env python3
"""Issue 37's fifth round of attacks, scripted and reproducible (seeded):
shell templates x hostile values, integers at the double's edge, text for
the terminal, and stop signals. Prints one line per class and a summary;
exit 1 when anything broke (a value run by a shell, a crash or hang, a
silent wrong value, raw bytes on the terminal, a process left running).
Usage: python3 bench/attack_round5.py [build/runner]"""
import os, random, signal, sqlite3, subprocess, sys, tempfile, time

RUNNER = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/runner")
FIXTURES = os.path.join(os.path.dirname(RUNNER), "fixtures", "good")
random.seed(37)
tmp = tempfile.mkdtemp(prefix="attack5.")
counts = {}
breaks = []

def note(cls, outcome, detail=""):
    counts.setdefault(cls, {}).setdefault(outcome, 0)
    counts[cls][outcome] += 1
    if outcome == "broke":
        breaks.append(f"{cls}: {detail}")

def run(args, timeout=60, env=None):
    e = dict(os.environ, RUNNER_PLUGIN_PATH=FIXTURES)
    e.update(env or {})
    try:
        p = subprocess.run([RUNNER] + args, capture_output=True, timeout=timeout, env=e)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return "hang", b"", b""

def lua_long(s):
    return "[==[" + s + "]==]"

# 1. shell = true templates: a context around {v}, a hostile value.
contexts = ["echo {v}", "echo \"{v}\"", "echo '{v}'", "printf %s \"$(echo {v})\"",
            "echo `echo {v}`", "sh -c 'echo {v}'", "sh -c \"echo {v}\"", "bash -c {v}",
            "sh -c 'echo \"$1\"' _ {v}", "eval echo {v}", "ssh h {v}", "echo $(( {v} ))",
            "cat <<E\n{v}\nE", "cat <<'E'\n{v}\nE", "env A=1 sh -c \"{v}\"",
            "nice -n 1 bash -c \"echo {v}\"", "python3 -c \"print({v})\"", "x={v}; echo \"$x\"",
            "if true; then sh -c \"{v}\"; fi", "echo \"$(sh -c \"echo {v}\")\"",
            "(echo {v})", "echo {v} # '{v}'", "f() { echo \"$1\"; }; f {v}".replace("{ ", "{{ ").replace("; }", "; }}"),
            "echo \"a'{v}'b\"", "test -n {v} && echo {v}"]
values = ["$(touch {p})", "`touch {p}`", "'; touch {p}; '", "\"; touch {p}; \"",
          "1; touch {p}", "$((1))$(touch {p})", "a\nb; touch {p}", "x[$(touch {p})]"]
n = 0
for ctx in contexts:
    for val in random.sample(values, 5):
        n += 1
        pwn = os.path.join(tmp, f"pwned{n}")
        value = val.replace("{p}", pwn)
        db = os.path.join(tmp, f"s{n}.db")
        script = os.path.join(tmp, f"s{n}.lua")
        with open(script, "w") as f:
            f.write(f'command {{ name = "c", argv = {{ {lua_long(ctx)} }}, shell = true,\n'
                    f'  params = {{ v = {{ type = "text" }} }}, output = "keyvalue",\n'
                    f'  columns = {{ {{ name = "x", type = "integer" }} }} }}\n'
                    f'sweep("c", {{ v = {{ {lua_long(value)} }} }}, {{ print = false }})\n')
        status, out, err = run(["sweep", script, "--db", db, "--quiet"])
        if os.path.exists(pwn):
            note("shell", "broke", f"{ctx!r} ran {value!r}")
        elif status == "hang" or (isinstance(status, int) and status < 0):
            note("shell", "broke", f"{ctx!r}: status {status}")
        elif status == 2 and b"would put its value into code" in err:
            note("shell", "refused")
        else:
            note("shell", "held")

# 2. integers at the double's edge: --set n=TEXT against max = 2^53.
script = os.path.join(tmp, "int.lua")
with open(script, "w") as f:
    f.write('local opt = options { n = { default = 1, doc = "n" }, s = { default = 1, unit = "B", doc = "s" } }\n'
            'command { name = "c", argv = { "printf", "got=%s\\\\nsz=%s\\\\n", "{n}", "{s}" },\n'
            '  params = { n = { type = "integer", min = -2^53, max = 2^53 }, s = { type = "integer", unit = "B" } },\n'
            '  columns = { { name = "got", type = "integer" }, { name = "sz", type = "integer" } }, output = "keyvalue" }\n'
            'sweep("c", { n = { opt.n }, s = { opt.s } }, { print = false })\n')
edge = 2 ** 53
cases = []
for d in range(-3, 4):
    cases += [("n", str(edge + d), edge + d), ("n", str(-edge + d), -edge + d)]
for k in range(40):
    whole = random.randrange(2 ** 40, 2 ** 53)
    frac = random.choice(["", ".5", ".25", ".0", "e0", ".5e0"])
    unit = random.choice(["B", "KiB", "kB", ""])
    mult = {"B": 1, "KiB": 1024, "kB": 1000, "": 1}[unit]
    text = f"{whole}{frac}{unit}"
    exact = None
    if frac in ("", ".0", "e0"):
        exact = whole * mult
    elif frac in (".5", ".5e0") and mult % 2 == 0:
        exact = whole * mult + mult // 2
    elif frac == ".25" and mult % 4 == 0:
        exact = whole * mult + mult // 4
    cases.append(("s", text, exact if exact is not None and abs(exact) <= edge else None))
for i, (name, text, expected) in enumerate(cases):
    if name == "n" and abs(expected) > edge:
        expected = None
    db = os.path.join(tmp, f"i{i}.db")
    status, out, err = run(["sweep", script, "--db", db, "--quiet", "--set", f"{name}={text}"])
    if status == "hang" or (isinstance(status, int) and status < 0):
        note("integers", "broke", f"{name}={text}: status {status}")
        continue
    stored = None
    if status == 0:
        stored = sqlite3.connect(db).execute(
            f"SELECT {'got' if name == 'n' else 'sz'} FROM c").fetchone()[0]
    if expected is None and status == 0:
        note("integers", "broke", f"{name}={text} stored {stored}, expected a refusal")
    elif expected is not None and stored != expected:
        note("integers", "broke", f"{name}={text}: stored {stored} (status {status}), expected {expected}")
    else:
        note("integers", "held")

# 3. text for the terminal: hostile bytes into each command's arguments.
db = os.path.join(tmp, "t.db")
with open(os.path.join(tmp, "t.lua"), "w") as f:
    f.write('sweep("speedup", { workers = range(1, 4) }, { print = false })\n')
run(["sweep", os.path.join(tmp, "t.lua"), "--db", db, "--quiet"])
run(["sweep", os.path.join(tmp, "t.lua"), "--db", db, "--quiet"])
pieces = [b"\x1b[2J", b"\x1b]0;t\x07", b"\xff\xfe", b"\xc3(", b"\r", b"\x7f", b"a" * 70000, b"\xe2\x80\xae"]
commands = [["fit", "1", "--x", "workers", "--model", "amdahl", "--y", None],
            ["fit", "1", "--x", None, "--y", "speedup", "--model", "usl"],
            ["sensitivity", "1", "--y", None], ["diff", "1", "2", "--columns", None],
            ["diff", "1", "2", "--stat", "--columns", None], ["plot", "1", "--x", None],
            ["pareto", "1", "--min", None, "--max", "speedup"], ["show", None],
            ["tag", "1", None], ["rename", "1", None], ["note", "1", None], ["export", None],
            ["sweeps", "--until", None]]
for k in range(60):
    cmd = random.choice(commands)
    text = b"x" + b"".join(random.sample(pieces, 2))
    args = [os.fsdecode(text) if a is None else a for a in cmd] + ["--db", db]
    status, out, err = run(args)
    raw = any(c in err for c in (b"\x1b", b"\x07", b"\r", b"\x7f"))
    try:
        err.decode("utf-8")
    except UnicodeDecodeError:
        raw = True
    longest = max((len(l) for l in err.split(b"\n")), default=0)
    if status == "hang" or (isinstance(status, int) and status < 0) or raw or longest > 5000:
        note("terminal", "broke", f"{cmd[0]}: status {status}, raw {raw}, longest {longest}")
    else:
        note("terminal", "held")

# 4. stop signals at a random moment of a command sweep: 130, nothing left, resumable.
sig_script = os.path.join(tmp, "sig.lua")
with open(sig_script, "w") as f:
    f.write('command { name = "slow", argv = { "sh", "-c", "sleep 0.2 & wait; echo y=$1", "_", "{i}" },\n'
            '  params = { i = { type = "integer" } }, columns = { { name = "y", type = "integer" } }, output = "keyvalue" }\n'
            'sweep("slow", { i = range(1, 12) }, { print = false })\n')
for k in range(20):
    sig = random.choice([signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGUSR1, signal.SIGXCPU])
    db = os.path.join(tmp, f"g{k}.db")
    p = subprocess.Popen([RUNNER, "sweep", sig_script, "--db", db, "--quiet", "--jobs", "2"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    time.sleep(random.uniform(0.3, 1.5))
    p.send_signal(sig)
    try:
        status = p.wait(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        note("signals", "broke", f"{sig.name}: hang")
        continue
    left = subprocess.run(["pgrep", "-s", str(p.pid)], capture_output=True).stdout.split()
    rc, _, _ = run(["sweep", sig_script, "--db", db, "--resume", "--quiet"])
    rows = sqlite3.connect(db).execute("SELECT count(*), count(DISTINCT i) FROM slow").fetchone() \
        if os.path.exists(db) else None
    if status not in (0, 130) or left or (rows and rows != (12, 12)) or rc not in (0, 2):
        note("signals", "broke", f"{sig.name}: status {status}, left {left}, rows {rows}, resume {rc}")
    else:
        note("signals", "held")

total = sum(sum(v.values()) for v in counts.values())
for cls, v in counts.items():
    print(f"{cls}: " + ", ".join(f"{k} {n}" for k, n in sorted(v.items())))
print(f"{total} attempts, {len(breaks)} broke")
for b in breaks:
    print("  BROKE " + b)
sys.exit(1 if breaks else 0)
