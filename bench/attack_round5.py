#!/usr/bin/env python3
"""Issue 37's fifth round of attacks, scripted and reproducible (seeded):
shell templates x hostile values, integers at the double's edge, text for
the terminal, stop signals, and (closing issue 37) databases this user
cannot write, result tables replaced by views that never end, the Python
module's keyword arguments and names at every entry point. Prints one line
per class and a summary;
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

# 5. readers on a database this user cannot write (as nobody when root):
# every reader answers, leaves nothing beside the file, changes no byte; every
# writer refuses with its one line.
import hashlib, shutil, pwd
ro_dir = os.path.join(tmp, "ro")
os.mkdir(ro_dir)
ro_db = os.path.join(ro_dir, "r.db")
ro_script = os.path.join(tmp, "ro.lua")
with open(ro_script, "w") as f:
    f.write('sweep("speedup", { workers = { 1, 2, 4 } }, { print = false })\n')
os.chmod(ro_script, 0o644)
for _ in range(2):
    run(["sweep", ro_script, "--db", ro_db, "--quiet"])
as_user = []
if os.getuid() == 0:
    nobody = pwd.getpwnam("nobody")
    as_user = ["setpriv", f"--reuid={nobody.pw_uid}", f"--regid={nobody.pw_gid}", "--clear-groups"]
    os.chmod(tmp, 0o755)
    os.chmod(ro_db, 0o644)
else:
    os.chmod(ro_db, 0o444)
os.chmod(ro_dir, 0o555)
theirs = os.path.join(tmp, "theirs")
os.mkdir(theirs)
os.chmod(theirs, 0o777)
def digest(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()
ro_sha = digest(ro_db)
def run_as(args, timeout=60, env=None):
    e = dict(os.environ, RUNNER_PLUGIN_PATH=FIXTURES)
    e.update(env or {})
    try:
        p = subprocess.run(as_user + args, capture_output=True, timeout=timeout, env=e,
                           cwd=theirs)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return "hang", b"", b""
readers = [["sweeps"], ["sweeps", "--format", "json"], ["show", "1"], ["show", "2", "--format", "csv"],
           ["show", "last", "--provenance"], ["export", "1", "--out", theirs], ["diff", "1", "2"],
           ["verify", "1"], ["history", "--y", "speedup"], ["sweeps", "--select", "last"],
           ["show", "1", "--runs"], ["export", "2", "--format", "json", "--out", theirs]]
writers = [["sweep", ro_script], ["tag", "1", "t"], ["note", "1", "n"], ["rename", "1", "x"],
           ["rm", "1"], ["fit", "1", "--x", "workers", "--y", "speedup", "--model", "amdahl"],
           ["pareto", "1", "--min", "round_s", "--max", "speedup"], ["resume", "1"]]
for k in range(36):
    if k < 24:
        cmd = readers[k % len(readers)]
    else:
        cmd = writers[k % len(writers)]
    status, out, err = run_as([RUNNER] + cmd + ["--db", ro_db])
    left = [n for n in os.listdir(ro_dir) if n != "r.db"]
    changed = digest(ro_db) != ro_sha
    if status == "hang" or left or changed or (isinstance(status, int) and status < 0):
        note("read-only", "broke", f"{cmd[0]}: status {status}, left {left}, changed {changed}")
    elif k < 24 and status == 0:
        note("read-only", "held")
    elif k >= 24 and status == 2 and b"may not write the database" in err:
        note("read-only", "refused")
    else:
        note("read-only", "broke", f"{cmd}: status {status}: {err[:200]!r}")
py = "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) else sys.executable
pymod = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python")
for k in range(4):
    status, out, err = run_as(["env", f"PYTHONPATH={pymod}", f"RUNNER_BIN={RUNNER}", py, "-c",
                               f"import runner_db; d = runner_db.open({ro_db!r}); "
                               f"print(len(d._sweep_here({k % 2 + 1}).section(1).rows()))"])
    if status == 0 and out.strip() == b"3" and digest(ro_db) == ro_sha:
        note("read-only", "held")
    else:
        note("read-only", "broke", f"python: status {status}: {err[-200:]!r}")
os.chmod(ro_dir, 0o755)

# 6. hostile files: a result table replaced by a view that never ends (no
# row, or rows for ever), or a slow cross join; every command stops with one
# line naming the file (RUNNER_QUERY_TIMEOUT=1), none spins.
def make_hostile(path, kind):
    db = sqlite3.connect(path)
    cols = db.execute("SELECT group_concat('x AS \"' || name || '\"', ', ') FROM "
                      "pragma_table_info('speedup') WHERE name NOT IN ('sweep_id', 'section_id')"
                      ).fetchone()[0]
    body = {"none": "FROM c WHERE x < 0", "forever": "FROM c",
            "join": "FROM c AS a, c AS b WHERE a.x + b.x < 0"}[kind]
    cols = cols if kind != "join" else cols.replace("x AS", "a.x AS")
    db.executescript("ALTER TABLE speedup RENAME TO speedup_kept; CREATE VIEW speedup AS "
                     "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
                     f"SELECT 1 AS sweep_id, 1 AS section_id, {cols} {body}")
    db.close()
hostile_cmds = [["show", "1"], ["export", "1", "--out", tmp], ["fit", "1", "--x", "workers", "--y",
                "speedup", "--model", "amdahl"], ["pareto", "1", "--min", "round_s", "--max",
                "speedup"], ["show", "1", "--format", "json"], ["plot", "1", "--x", "workers",
                "--y", "speedup", "-o", os.path.join(tmp, "h.svg")]]
for k in range(22):
    kind = "forever" if k % 11 == 10 else random.choice(["none", "join"])
    path = os.path.join(tmp, f"h{k}.db")
    run(["sweep", ro_script, "--db", path, "--quiet"])
    make_hostile(path, kind)
    if k % 7 == 6:  # a shard: merge
        other = os.path.join(tmp, f"h{k}b.db")
        for i, dbp in ((1, path + ".s1"), (2, other)):
            run(["sweep", ro_script, "--db", dbp, "--quiet", "--shard", f"{i}/2"])
        make_hostile(path + ".s1", kind)
        cmd = ["merge", os.path.join(tmp, f"m{k}.db"), path + ".s1", other]
        args = cmd
    else:
        cmd = random.choice(hostile_cmds)
        args = cmd + ["--db", path]
    started = time.monotonic()
    status, out, err = run(args, timeout=120, env={"RUNNER_QUERY_TIMEOUT": "1"})
    took = time.monotonic() - started
    if status == "hang" or (isinstance(status, int) and status < 0):
        note("hostile view", "broke", f"{kind} {cmd[0]}: status {status}")
    elif status == 2 and b"was stopped" in err and err.count(b"\n") == 1:
        note("hostile view", "refused")
    elif status in (0, 2) and took < 60:
        note("hostile view", "held")  # answered (or refused otherwise) in bounded time
    else:
        note("hostile view", "broke", f"{kind} {cmd[0]}: status {status} in {took:.0f} s: {err[:200]!r}")
for k in range(3):
    path = os.path.join(tmp, f"h{k % 22}.db")
    started = time.monotonic()
    try:
        p = subprocess.run([py, "-c", f"import runner_db\ntry:\n runner_db.open({path!r})."
                            f"_sweep_here(1).section(1).rows()\nexcept runner_db.RunnerError as e:"
                            f"\n print(e)"], capture_output=True, timeout=120,
                           env=dict(os.environ, PYTHONPATH=pymod, RUNNER_QUERY_TIMEOUT="1"))
        ok = p.returncode == 0 and b"was stopped" in p.stdout
    except subprocess.TimeoutExpired:
        ok = False
    note("hostile view", "refused" if ok else "broke", "" if ok else f"python on {path}")

# 7. Python keyword arguments: only the documented filters become flags.
allowed = ["name", "script", "tag", "status", "plugin", "since", "until"]
hostile_kw = ["db", "format", "select", "wide", "help", "h", "Name", "plugin_dir", "set",
              "script_timeout", "max_points", "version", "db_path", "output", "o"]
py_db = os.path.join(tmp, "t.db")
for k in range(30):
    kw = random.choice(hostile_kw if k % 3 else allowed)
    code = ("import runner_db\n"
            f"db = runner_db.open({py_db!r})\n"
            f"try:\n print(len(db.sweeps(**{{{kw!r}: 'x'}})))\n"
            "except TypeError as e:\n print('TypeError', e)\n"
            "except runner_db.RunnerError as e:\n print('RunnerError', e)\n")
    p = subprocess.run([py, "-c", code], capture_output=True, timeout=60,
                       env=dict(os.environ, PYTHONPATH=pymod, RUNNER_BIN=RUNNER))
    said = p.stdout.decode("utf-8", "replace")
    if kw in allowed and p.returncode == 0 and not said.startswith("TypeError"):
        note("python kwargs", "held")
    elif kw not in allowed and said.startswith("TypeError") and repr(kw) in said:
        note("python kwargs", "refused")
    else:
        note("python kwargs", "broke", f"{kw}: {said[:200]!r} {p.stderr[-200:]!r}")

# 8. names with ESC, bytes that are not UTF-8, a NUL or 1 MB at each entry
# point a script has (and the CLI's stored names): refused in one short line,
# nothing stored under a cut or raw name.
entries = [
    'sweep("speedup", {{ [{n}] = {{ 1, 2 }} }}, {{ print = false }})',
    'sweep("speedup", {{ workers = {{ 1 }} }}, {{ print = false, title = {n} }})',
    'sweep("speedup", {{ workers = {{ 1 }} }}, {{ print = false, columns = {{ {n} }} }})',
    'sweep({n}, {{ workers = {{ 1 }} }}, {{ print = false }})',
    'command {{ name = {n}, argv = {{ "echo", "y=1" }}, output = "keyvalue", columns = {{ {{ name = "y", type = "integer" }} }} }}',
    'command {{ name = "c", argv = {{ "echo", "y=1" }}, output = "keyvalue", columns = {{ {{ name = {n}, type = "integer" }} }} }}',
    'command {{ name = "c", argv = {{ "echo", "y={{v}}" }}, output = "keyvalue", params = {{ [{n}] = {{ type = "integer" }} }}, columns = {{ y = {{ type = "integer" }} }} }}',
    'command {{ name = "c", argv = {{ "echo", "y=1" }}, output = {{ [{n}] = "y=(.*)" }}, columns = {{ y = {{ type = "integer" }} }} }}',
    'options {{ [{n}] = {{ default = 1, doc = "d" }} }}',
    'local r = sweep("speedup", {{ workers = {{ 1, 2, 4 }} }}, {{ print = false }}); fit{{ rows = r, x = {n}, y = "speedup", model = "amdahl" }}',
    'local r = sweep("speedup", {{ workers = {{ 1, 2, 4 }} }}, {{ print = false }}); fit{{ rows = r, x = "workers", y = "speedup", params = {{ a = 1 }}, model = function(x, p) return x end, name = {n} }}',
    'local r = sweep("speedup", {{ workers = {{ 1, 2, 4 }} }}, {{ print = false }}); pareto{{ rows = r, min = {{ {n} }}, max = "speedup" }}',
    'local r = sweep("speedup", {{ workers = {{ 1, 2, 4 }} }}, {{ print = false }}); sensitivity{{ rows = r, y = {n} }}',
    'local r = sweep("speedup", {{ workers = {{ 1, 2, 4 }} }}, {{ print = false }}); r:filter{{ [{n}] = 2 }}',
    'local r = sweep("speedup", {{ workers = {{ 1, 2, 4 }} }}, {{ print = false }}); plot(r, {{ x = {n}, y = "speedup", output = "p.svg" }})',
]
names = ['"workers\\0x"', '"x\\27[2Jy"', '"caf\\xe9"', 'string.rep("w", 1048576)']
for k, (entry, name) in enumerate([(e, n) for e in entries for n in names]):
    path = os.path.join(tmp, f"n{k}.lua")
    db = os.path.join(tmp, f"n{k}.db")
    with open(path, "w") as f:
        f.write(entry.format(n=name) + "\n")
    status, out, err = run(["sweep", path, "--db", db, "--quiet"])
    raw = any(c in err for c in (b"\x1b", b"\x00")) or len(err) > 2000
    try:
        err.decode("utf-8")
    except UnicodeDecodeError:
        raw = True
    if status == 2 and b"(names are UTF-8 text" in err and not raw:
        note("names", "refused")
    else:
        note("names", "broke", f"entry {k // 4}, name {name}: status {status}: {err[:160]!r}")
cli_names = [["tag", "1", "a\x1bb"], ["tag", "1", "caf\udce9"], ["note", "1", "a\x1b]0;t\x07"],
             ["note", "1", "x" * 100000], ["rename", "1", "n\x1b[2J"], ["note", "1", "caf\udce9"]]
for k in range(12):
    cmd = cli_names[k % len(cli_names)]
    args = [os.fsencode(a) if "\udce9" in a else a for a in cmd] + ["--db", py_db]
    status, out, err = run(args)
    raw = any(c in err for c in (b"\x1b", b"\x07")) or len(err) > 5000
    if status == 2 and not raw:
        note("names", "refused")
    else:
        note("names", "broke", f"{cmd[0]}: status {status}: {err[:160]!r}")

total = sum(sum(v.values()) for v in counts.values())
for cls, v in counts.items():
    print(f"{cls}: " + ", ".join(f"{k} {n}" for k, n in sorted(v.items())))
print(f"{total} attempts, {len(breaks)} broke")
for b in breaks:
    print("  BROKE " + b)
sys.exit(1 if breaks else 0)
