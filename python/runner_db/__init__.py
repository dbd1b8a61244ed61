"""runner_db: read a runner results database from Python (docs/python.md).

Standard library only (sqlite3, json, subprocess); pandas when present, for
DataFrames. The database is opened read-only: nothing here writes. Which
sweep a selector word means ("last", "jitter.lua", "tag:nightly", 42) is
asked of the runner program itself (`runner sweeps --select WORD --format
json`), so the words and their refusals are exactly the command line's.

    import runner_db
    db = runner_db.open("walk.db")
    sweep = db.sweep("last")
    rows = sweep.section(1).rows()          # list of dicts
    frame = sweep.section(1).frame()        # pandas DataFrame, units in .attrs
    runs = sweep.section(1).runs_frame()    # a command's every run (repeats)
    fits = sweep.fits()                     # runner fit's stored answers
    kept = runner_db.answers("walk.db", 1)  # every stored answer, as `runner answers`

    # One call: one section of one or several sweeps as one DataFrame
    frame = runner_db.frame("walk.db", "baseline")            # by name
    frame = runner_db.frame("walk.db", [3, 4], section=2)     # stacked
    frame = runner_db.frame("walk.db", {"tag": "nightly"})    # filters

    # runner history: a column across the matching sweeps, by commit
    h = runner_db.history("walk.db", "wall_s", tag="nightly")
    h.rows, h.regression, h.frame()
"""

import json
import os
import re
import shutil
import sqlite3
import subprocess
import time
import urllib.parse

try:  # the rows API works without it
    import pandas
except ImportError:  # pragma: no cover - depends on the machine
    pandas = None

__all__ = ["open", "frame", "answers", "history", "Database", "Sweep", "Section", "Fit",
           "History", "RunnerError", "RunnerNotFound", "find_runner"]

# A sweep name as `runner sweep --name` accepts it (docs/cli.md, "Selecting
# sweeps"): read here without the runner program, like an id.
_NAME = re.compile(r"^(?:name:)?([A-Za-z][A-Za-z0-9_.-]{0,63})$")

# The filters `runner sweeps` takes that db.sweeps(**filters) passes on as
# its options (docs/python.md): nothing else becomes a command-line flag.
SWEEPS_FILTERS = ("name", "script", "tag", "status", "plugin", "since", "until")

# The bound on every query (as the runner program's, docs/guarantees.md):
# a query that returns no row for RUNNER_QUERY_TIMEOUT seconds (300 by
# default), or runs more SQLite steps or returns more rows than a file of its
# size could need or hold, stops with RunnerError.
_BOUND_STEPS = 100000
_BOUND_TIMEOUT_DEFAULT_S = 300.0
_BOUND_BASE_STEPS = 2e8
_BOUND_STEPS_PER_BYTE = 256
_BOUND_BASE_ROWS = 100000
_BOUND_BYTES_PER_ROW = 2

# Columns every result table has that are keys, not results.
_KEY_COLUMNS = ("row_id", "point_id")
_HIDDEN_COLUMNS = ("sweep_id", "section_id")
_NAN = float("nan")
# What runner measures of a command's points (core/exec/exec.c): the other
# outputs are the declared columns, which each run's run_values holds.
_MEASURED_COLUMNS = ("wall_s", "user_s", "sys_s", "max_rss_kib", "exit_status", "wall_sd_s",
                     "wall_min_s", "wall_median_s", "wall_max_s", "wall_runs")
# command_run's own columns, as `runner show --runs` prints them.
_RUN_COLUMNS = (("point_id", ""), ("run", ""), ("warmup", ""), ("wall_s", "s"), ("user_s", "s"),
                ("sys_s", "s"), ("max_rss_kib", "KiB"), ("voluntary_switches", ""),
                ("involuntary_switches", ""), ("exit_status", ""))


class RunnerError(Exception):
    """A database, selector or section runner_db cannot read; the message
    is the one line to show (the runner program's own, for selectors)."""


class RunnerNotFound(RunnerError):
    """The runner program is needed (to resolve a selector) and is missing."""


def _layout_runner():
    """The runner an installed copy of this module sits beside: cmake
    --install writes _layout.py with the path from here to the bindir."""
    try:
        from . import _layout
    except ImportError:
        return None
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.normpath(os.path.join(here, _layout.RUNNER_FROM_MODULE))


def find_runner(runner=None):
    """The runner program's path: runner if given, else $RUNNER_BIN, else
    the one installed beside this module, else `runner` on PATH. Raises
    RunnerNotFound saying where it looked."""
    looked = []
    for candidate in (runner, os.environ.get("RUNNER_BIN"), _layout_runner()):
        if candidate:
            if os.access(candidate, os.X_OK) and os.path.isfile(candidate):
                return candidate
            looked.append(candidate)
    on_path = shutil.which("runner")
    if on_path:
        return on_path
    looked.append("runner on PATH")
    raise RunnerNotFound("runner_db: cannot find the runner program (looked at %s); "
                         "install runner, put it on PATH, set RUNNER_BIN or pass "
                         "runner=PATH" % ", ".join(looked))


def open(path, runner=None):  # noqa: A001 - the module's verb, as sqlite3.connect
    """Opens the database at path read-only (a file that must exist).
    runner: the runner program for selectors (see find_runner)."""
    return Database(path, runner)


def frame(db, selector_or_filters="last", section=None, runner=None):
    """One DataFrame of one section of one or several sweeps, in one call.

    db: a database path or an open Database. selector_or_filters: a
    selector (an id, a name, or any word `runner show` takes), a list of
    them (their rows stacked in that order), or a dict of `runner sweeps`
    filters (name, script, tag, status, plugin, since, until: every sweep
    they list). Ids and plain names are read from the file itself; the
    other forms ask the runner program (RunnerNotFound says so without it).
    section: the section's ordinal in each sweep; None: each sweep's only
    section (RunnerError when a sweep has several).

    The frame leads with sweep_id and sweep_name, then row_id, point_id
    and the section's columns (a column some sweeps lack is NaN there).
    .attrs: units ({column: unit}), sweeps (their ids), section, plugins
    and titles. Raises RunnerError without pandas, or when two sweeps give
    one column different units."""
    if isinstance(db, Database):
        return db.frame(selector_or_filters, section)
    with Database(db, runner) as opened:
        return opened.frame(selector_or_filters, section)


def answers(db, sweep="last", runner=None):
    """The answers a sweep has stored (fits, fronts, sensitivity analyses,
    the diff --stat comparisons it is a side of) as one DataFrame, a row
    each as `runner answers SWEEP` lists them: kind, id, section, question,
    asked (the stored UTC time) and stale ("no", "yes": its rows changed
    since; "unknown": stored before schema 22). db: a path or an open
    Database; sweep: any selector. Asks the runner program (its rule for
    stale is runner's own); Database.answers gives the rows as dicts
    without pandas. .attrs: sweep (the selector)."""
    if isinstance(db, Database):
        rows, names = db._answers(sweep)
    else:
        with Database(db, runner) as opened:
            rows, names = opened._answers(sweep)
    return _frame(rows, names, {"sweep": sweep})


def history(db, y, section=1, by="git_commit", tolerance=0.05, runner=None, **filters):
    """`runner history --y y` on db (a path or an open Database): y across
    the sweeps the filters pick (name, script, tag, status, plugin, since,
    until, as `runner sweeps` takes them), oldest first, as a History.
    Computed by the runner program itself (its medians, intervals and
    change points), so it is exactly the command's answer."""
    if isinstance(db, Database):
        return db.history(y, section, by, tolerance, **filters)
    with Database(db, runner) as opened:
        return opened.history(y, section, by, tolerance, **filters)


class History:
    """runner history's answer. rows: one dict a commit (or sweep), oldest
    first: commit (or sweep), sweeps, n, median, low, high (the median's
    distribution-free 95 % interval) and change (where one starts: "+5.0 %
    [+4.5, +5.8] p < 0.001", else ""). regression: True when the command
    exited 1 (a change worse than the tolerance)."""

    def __init__(self, y, rows, columns, regression):
        self.y, self.rows, self.columns, self.regression = y, rows, columns, regression

    def __repr__(self):
        return "<History of %s: %d points, %d change(s)%s>" % (
            self.y, len(self.rows), sum(1 for r in self.rows if r["change"]),
            ", a regression" if self.regression else "")

    def changes(self):
        """The rows where a change starts."""
        return [r for r in self.rows if r["change"]]

    def frame(self):
        """The rows as a pandas DataFrame (.attrs: y, regression)."""
        return _frame(self.rows, self.columns, {"y": self.y, "regression": self.regression})


def _frame(rows, columns, attrs):
    if pandas is None:
        raise RunnerError("runner_db: pandas is not installed (apt-get install "
                          "python3-pandas); rows() gives the same data as dicts")
    frame = pandas.DataFrame.from_records(rows, columns=columns)
    frame.attrs.update(attrs)
    return frame


def _size(path):
    try:
        return os.stat(path).st_size
    except OSError:
        return None


def _query_timeout():
    text = os.environ.get("RUNNER_QUERY_TIMEOUT")
    if text is None:
        return _BOUND_TIMEOUT_DEFAULT_S
    if re.fullmatch(r"[0-9]+(\.[0-9]*)?|\.[0-9]+", text) and 0 < float(text) <= 86400:
        return float(text)
    raise RunnerError("runner_db: RUNNER_QUERY_TIMEOUT=%r: expected how long a query may run "
                      "without returning a row, a positive number of seconds up to 86400 "
                      "(like 300 or 0.5)" % text)


def _uri(path):
    """The read-only URI runner's readers use (core/store/store_open.c): a
    file nobody may write with no -wal holding commits, or one whose -wal
    and -shm are absent and that this user could not give them as a writer
    would (the file or its directory not writable), is opened immutable,
    which needs neither file; any other file read-only."""
    wal, shm = _size(path + "-wal"), _size(path + "-shm")
    absent = wal is None and shm is None
    no_writer = not (os.stat(path).st_mode & 0o222) and not wal
    folder = os.path.dirname(os.path.abspath(path))
    could_create = os.access(path, os.W_OK) and os.access(folder, os.W_OK | os.X_OK)
    mode = "immutable=1" if no_writer or (absent and not could_create) else "mode=ro"
    return "file:%s?%s" % (urllib.parse.quote(os.path.abspath(path)), mode)


class _Rows:
    """Iterates a cursor under the bound: each row restarts the clock and
    counts against the row budget."""

    def __init__(self, db, cursor):
        self.db, self.cursor = db, cursor

    def __iter__(self):
        db = self.db
        try:
            for row in self.cursor:
                db._bound_rows += 1
                db._bound_since = time.monotonic()
                if db._bound_rows > db._bound_row_budget:
                    db._bound_stopped = ("a query returned %d rows, more than a file of this "
                                         "size can hold, and was stopped; a view in the file "
                                         "may never end" % db._bound_rows)
                    raise RunnerError("runner_db: %s: %s" % (db.path, db._bound_stopped))
                yield row
        except sqlite3.OperationalError as e:
            raise db._bound_error(e) from None


class Database:
    """A read-only connection to one results database. Close it with
    close(), or use it in a with statement."""

    def __init__(self, path, runner=None):
        if not os.path.isfile(path):
            raise RunnerError("runner_db: %s: no such database file" % path)
        self.path = path
        self._runner = runner
        self._bound_timeout = _query_timeout()
        self._bound_stopped = None
        try:
            self.connection = sqlite3.connect(_uri(path), uri=True)
            self.connection.set_progress_handler(self._past_bound, _BOUND_STEPS)
            self._execute("SELECT 1 FROM sweep LIMIT 1")
        except sqlite3.Error as e:
            raise RunnerError("runner_db: %s: not a runner database (%s)" % (path, e))
        self.connection.row_factory = sqlite3.Row

    def _past_bound(self):
        """SQLite's progress handler: nonzero interrupts the query."""
        self._bound_steps += 1
        if time.monotonic() - self._bound_since > self._bound_timeout:
            self._bound_stopped = ("a query returned no row for %g s (RUNNER_QUERY_TIMEOUT) "
                                   "and was stopped; a view or trigger in the file may never "
                                   "end" % self._bound_timeout)
        elif self._bound_steps > self._bound_step_budget:
            self._bound_stopped = ("a query ran %d million steps, more than a file of this "
                                   "size can need, and was stopped; a view or trigger in the "
                                   "file may never end" % (self._bound_steps * _BOUND_STEPS
                                                           // 1000000))
        return 1 if self._bound_stopped else 0

    def _bound_error(self, error):
        why, self._bound_stopped = self._bound_stopped, None
        return RunnerError("runner_db: %s: %s" % (self.path, why)) if why else error

    def _execute(self, sql, args=()):
        """connection.execute under the bound (its rows through _Rows)."""
        size = sum(_size(p) or 0 for p in (self.path, self.path + "-wal"))
        self._bound_since = time.monotonic()
        self._bound_steps = self._bound_rows = 0
        self._bound_step_budget = (_BOUND_BASE_STEPS + _BOUND_STEPS_PER_BYTE * size) / _BOUND_STEPS
        self._bound_row_budget = _BOUND_BASE_ROWS + size / _BOUND_BYTES_PER_ROW
        try:
            return _Rows(self, self.connection.execute(sql, args))
        except sqlite3.OperationalError as e:
            raise self._bound_error(e) from None

    def close(self):
        self.connection.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _query(self, sql, args=()):
        return [dict(r) for r in self._execute(sql, args)]

    def sweeps(self, **filters):
        """`runner sweeps` as dicts, oldest first. filters: name, script, tag,
        status, plugin, since, until (as the command's options); any other
        keyword raises TypeError naming it (none becomes a flag unchecked)."""
        argv = []
        for key, value in filters.items():
            if key not in SWEEPS_FILTERS:
                raise TypeError("sweeps() got an unexpected keyword argument %r (the filters "
                                "are %s)" % (key, ", ".join(SWEEPS_FILTERS)))
            argv += ["--" + key, str(value)]
        return self._runner_sweeps(argv)

    def _runner_sweeps(self, argv):
        runner = find_runner(self._runner)
        done = subprocess.run([runner, "sweeps", "--db", self.path, "--format", "json"] + argv,
                              capture_output=True, text=True)
        if done.returncode != 0:
            raise RunnerError(done.stderr.strip() or "runner sweeps exited with %d"
                              % done.returncode)
        table = json.loads(done.stdout)
        names = [c["name"] for c in table["columns"]]
        return [dict(zip(names, row)) for row in table["rows"]]

    def history(self, y, section=1, by="git_commit", tolerance=0.05, **filters):
        """runner_db.history on this database (see there)."""
        argv = ["--y", str(y), "--section", str(section), "--by", by, "--tolerance",
                repr(float(tolerance))]
        for key, value in filters.items():
            if key not in SWEEPS_FILTERS:
                raise TypeError("history() got an unexpected keyword argument %r (the filters "
                                "are %s)" % (key, ", ".join(SWEEPS_FILTERS)))
            argv += ["--" + key, str(value)]
        runner = find_runner(self._runner)
        done = subprocess.run([runner, "history", "--db", self.path, "--format", "json"] + argv,
                              capture_output=True, text=True)
        if done.returncode not in (0, 1):
            raise RunnerError(done.stderr.strip() or "runner history exited with %d"
                              % done.returncode)
        table = json.loads(done.stdout)
        names = [c["name"] for c in table["columns"]]
        rows = [dict(zip(names, row)) for row in table["rows"]]
        return History(y, rows, names, done.returncode == 1)

    def sweep(self, selector="last"):
        """The sweep a selector word picks: an id, last, last~N, a name, a
        script (FILE.lua or a path), tag:T or plugin:P (docs/cli.md). Raises
        RunnerError with runner's own line when none or several match."""
        found = self._runner_sweeps(["--select", str(selector)])
        return Sweep(self, found[0])

    def _sweep_here(self, selector):
        """The sweep an id or a plain name picks, read from the file (None
        for the forms only the runner program resolves)."""
        if isinstance(selector, bool):
            return None
        if isinstance(selector, int) or (isinstance(selector, str) and selector.isdigit()):
            rows = self._query("SELECT * FROM sweep WHERE id = ?", (int(selector),))
            if not rows:
                raise RunnerError("runner: %s: no sweep %s; 'runner sweeps' lists them"
                                  % (self.path, selector))
            return Sweep(self, rows[0])
        match = _NAME.match(selector) if isinstance(selector, str) else None
        if not match or match.group(1) == "last" or selector.endswith(".lua"):
            return None
        rows = self._query("SELECT * FROM sweep WHERE name = ? ORDER BY id DESC LIMIT 1",
                           (match.group(1),))
        if not rows:
            raise RunnerError("runner: %s: no sweep matches '%s'; 'runner sweeps' lists them"
                              % (self.path, selector))
        return Sweep(self, rows[0])

    def _pick(self, selector_or_filters):
        if isinstance(selector_or_filters, dict):
            return [Sweep(self, info) for info in self.sweeps(**selector_or_filters)]
        if isinstance(selector_or_filters, (list, tuple)):
            return [s for one in selector_or_filters for s in self._pick(one)]
        here = self._sweep_here(selector_or_filters)
        if here:
            return [here]
        try:
            return [self.sweep(selector_or_filters)]
        except RunnerNotFound as e:
            raise RunnerNotFound("runner_db: '%s' is resolved by the runner program (an id or "
                                 "a name is not): %s" % (selector_or_filters,
                                                         str(e)[len("runner_db: "):]))

    def frame(self, selector_or_filters="last", section=None):
        """runner_db.frame on this database (see there)."""
        sweeps = self._pick(selector_or_filters)
        if not sweeps:
            raise RunnerError("runner_db: %s: no sweep matches %r" % (self.path,
                                                                     selector_or_filters))
        names, rows, units = ["sweep_id", "sweep_name"], [], {}
        plugins, titles = [], []
        for sweep in sweeps:
            if section is None:
                sections = sweep.sections()
                if len(sections) != 1:
                    raise RunnerError("runner_db: sweep %d has %d sections; pass section=N "
                                      "(1 to %d)" % (sweep.id, len(sections), len(sections)))
                chosen = sections[0]
            else:
                chosen = sweep.section(section)
            for column, unit in chosen.units().items():
                if units.setdefault(column, unit) != unit:
                    raise RunnerError("runner_db: column %s is in %s in one sweep and in %s in "
                                      "sweep %d; frame them apart" % (column, units[column] or
                                                                      "no unit", unit or
                                                                      "no unit", sweep.id))
            own, own_rows = chosen._select()
            names += [n for n in own if n not in names]
            name = sweep.info.get("name")
            rows += [dict(zip(own, r), sweep_id=sweep.id, sweep_name=name) for r in own_rows]
            plugins.append(chosen.plugin)
            titles.append(chosen.title)
        return _frame(rows, names, {"units": units, "sweeps": [s.id for s in sweeps],
                                    "section": section, "plugins": plugins, "titles": titles})

    def _answers(self, selector):
        runner = find_runner(self._runner)
        done = subprocess.run([runner, "answers", str(selector), "--db", self.path, "--format",
                               "json"], capture_output=True, text=True)
        if done.returncode != 0:
            raise RunnerError(done.stderr.strip() or "runner answers exited with %d"
                              % done.returncode)
        table = json.loads(done.stdout)
        names = [c["name"] for c in table["columns"]]
        return [dict(zip(names, row)) for row in table["rows"]], names

    def answers(self, selector="last"):
        """runner_db.answers's rows as dicts, without pandas."""
        return self._answers(selector)[0]

    def fit(self, fit_id):
        """The stored fit with this id (runner fit's `fit = N`)."""
        rows = self._query("SELECT * FROM fit WHERE id = ?", (int(fit_id),))
        if not rows:
            raise RunnerError("runner_db: %s: no fit %s" % (self.path, fit_id))
        return Fit(self, rows[0])


class Sweep:
    """One stored sweep: info is its `runner sweeps` line as a dict."""

    def __init__(self, db, info):
        self.db = db
        self.info = info
        self.id = info["id"]

    def __repr__(self):
        return "<runner sweep %d: %s>" % (self.id, self.info.get("script"))

    def sections(self):
        """Its sections, in order."""
        rows = self.db._query("SELECT * FROM section WHERE sweep_id = ? ORDER BY ordinal",
                              (self.id,))
        return [Section(self, r) for r in rows]

    def section(self, ordinal=1):
        """Section ordinal (1, 2, ... as `runner show --section N`)."""
        for section in self.sections():
            if section.ordinal == ordinal:
                return section
        raise RunnerError("runner_db: sweep %d has no section %s (it has %d)"
                          % (self.id, ordinal, len(self.sections())))

    def provenance(self):
        """What ran and where: the sweep row (script text and hash, runner
        version, git commit, host, command line, seed, times, status, the
        options and --set overrides as dicts), each plugin's shared object
        with its SHA-256, and each command experiment's program."""
        rows = self.db._query("SELECT * FROM sweep WHERE id = ?", (self.id,))
        out = rows[0]
        for key in ("options_json", "overrides_json"):
            out[key[:-5]] = json.loads(out.pop(key) or "{}")
        out["plugins"] = self.db._query(
            "SELECT plugin, plugin_version, so_path, so_sha256 FROM sweep_plugin "
            "WHERE sweep_id = ? ORDER BY plugin", (self.id,))
        commands = self.db._query(
            "SELECT command, argv_template, shell, executable, executable_sha256 "
            "FROM sweep_command WHERE sweep_id = ? ORDER BY command", (self.id,))
        for c in commands:
            c["argv_template"] = json.loads(c["argv_template"])
        out["commands"] = commands
        return out

    def fits(self, section=None):
        """The fits stored for this sweep (one section's when given), oldest
        first."""
        sql = "SELECT f.* FROM fit f JOIN section s ON s.id = f.section_id WHERE f.sweep_id = ?"
        args = [self.id]
        if section is not None:
            sql += " AND s.ordinal = ?"
            args.append(section)
        return [Fit(self.db, r) for r in self.db._query(sql + " ORDER BY f.id", args)]

    def _has_table(self, name):
        return bool(self.db._query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
                                   (name,)))

    _SERIES_COLUMNS = ["section", "point", "name", "step", "value", "t_s"]

    def series(self, name=None):
        """The values recorded during its points (docs/command-experiments.md,
        "Series during a point"), one dict each: section (1, 2, ...), point
        (its ordinal in the section), name, step, value (None: not finite),
        t_s (seconds since the point began); one series' when name is given.
        Raises RunnerError for a name the sweep has not (listing those it has)."""
        if not self._has_table("series"):
            rows = []
        else:
            sql = ("SELECT s.ordinal AS section, v.ordinal AS point, v.name, v.step, v.value, v.t_s"
                   " FROM series v JOIN section s ON s.id = v.section_id WHERE v.sweep_id = ?")
            args = [self.id]
            if name is not None:
                sql += " AND v.name = ?"
                args.append(name)
            rows = self.db._query(sql + " ORDER BY v.section_id, v.ordinal, v.name, v.step, v.t_s",
                                  args)
        if name is not None and not rows:
            known = self.series_names()
            raise RunnerError("runner_db: sweep %d has no series '%s' (it has: %s)"
                              % (self.id, name, ", ".join(known) or "none"))
        return rows

    def series_names(self):
        """The names of its series, sorted."""
        if not self._has_table("series"):
            return []
        return [r["name"] for r in self.db._query(
            "SELECT DISTINCT name FROM series WHERE sweep_id = ? ORDER BY name", (self.id,))]

    def series_frame(self, name=None):
        """series() as a pandas DataFrame (long form: one row a value)."""
        return _frame(self.series(name), self._SERIES_COLUMNS,
                      {"sweep": self.id, "series": name})

    _SYSTEM_COLUMNS = ["section", "point", "wall_s", "cpu_s", "cpu_cores_mean", "cpu_cores_peak",
                       "rss_peak_bytes", "read_bytes", "written_bytes", "samples"]

    def system(self):
        """Each point's resources (the point_system table: a command's
        process tree, a plugin's thread), one dict a point."""
        if not self._has_table("point_system"):
            return []
        return self.db._query(
            "SELECT s.ordinal AS section, p.ordinal AS point, p.wall_s, p.cpu_s, p.cpu_cores_mean,"
            " p.cpu_cores_peak, p.rss_peak_bytes, p.read_bytes, p.written_bytes, p.samples"
            " FROM point_system p JOIN section s ON s.id = p.section_id WHERE p.sweep_id = ?"
            " ORDER BY p.section_id, p.ordinal", (self.id,))

    def system_frame(self):
        """system() as a pandas DataFrame."""
        return _frame(self.system(), self._SYSTEM_COLUMNS, {"sweep": self.id})


class Section:
    """One `sweep "plugin" {...}` call of a sweep and its result rows."""

    def __init__(self, sweep, row):
        self.sweep = sweep
        self.id = row["id"]
        self.ordinal = row["ordinal"]
        self.plugin = row["plugin"]
        self.title = row["title"]
        self.point_count = row["point_count"]

    def __repr__(self):
        return "<runner section %d.%d: %s>" % (self.sweep.id, self.ordinal, self.plugin)

    def columns(self):
        """The result table's columns after row_id and point_id, each a dict:
        name, role (param/output), type, unit, doc."""
        db = self.sweep.db
        quoted = '"%s"' % self.plugin.replace('"', '""')
        stored = [r["name"] for r in db._query("PRAGMA table_info(%s)" % quoted)]
        meta = {r["name"]: r for r in db._query(
            "SELECT name, role, type, unit, doc FROM plugin_column WHERE plugin = ?",
            (self.plugin,))}
        out = []
        for name in stored:
            if name in _KEY_COLUMNS or name in _HIDDEN_COLUMNS:
                continue
            out.append(meta.get(name, {"name": name, "role": "output", "type": "",
                                       "unit": "", "doc": ""}))
        return out

    def units(self):
        """{column: unit} ('' for none), row_id and point_id left out."""
        return {c["name"]: c["unit"] for c in self.columns()}

    def _select(self):
        """(names, row tuples). runner stores a real NaN as the text 'NaN'
        (docs/schema.md): it comes back as float('nan'); no value is None."""
        columns = self.columns()
        names = list(_KEY_COLUMNS) + [c["name"] for c in columns]
        quoted = ", ".join('"%s"' % n.replace('"', '""') for n in names)
        sql = ('SELECT %s FROM "%s" WHERE sweep_id = ? AND section_id = ? ORDER BY point_id, row_id'
               % (quoted, self.plugin.replace('"', '""')))
        cursor = self.sweep.db._execute(sql, (self.sweep.id, self.id))
        real = [i + len(_KEY_COLUMNS) for i, c in enumerate(columns) if c["type"] == "real"]
        rows = []
        for r in cursor:
            r = tuple(r)
            if any(r[i] == "NaN" for i in real):
                r = tuple(_NAN if (i in real and v == "NaN") else v for i, v in enumerate(r))
            rows.append(r)
        return names, rows

    def rows(self):
        """The section's rows as dicts (row_id, point_id, then its columns),
        in stored order; NaN as float('nan'), no value as None."""
        names, rows = self._select()
        return [dict(zip(names, r)) for r in rows]

    def frame(self):
        """The rows as a pandas DataFrame; .attrs holds units ({column:
        unit}), sweep, section, plugin and title. Raises RunnerError
        without pandas."""
        names, rows = self._select()
        return _frame(rows, names,
                      {"units": self.units(), "sweep": self.sweep.id,
                       "section": self.ordinal, "plugin": self.plugin,
                       "title": self.title})


    def _runs(self):
        """(names, units, row tuples) of the section's runs, as `runner show
        --runs` prints them: parameters, the run's own columns, then each
        declared column as that run printed it (None: it printed none)."""
        db = self.sweep.db
        columns = self.columns()
        params = [c["name"] for c in columns if c["role"] == "param"]
        declared = [c["name"] for c in columns
                    if c["role"] != "param" and c["name"] not in _MEASURED_COLUMNS]
        names = params + [n for n, _ in _RUN_COLUMNS] + declared
        units = {c["name"]: c["unit"] for c in columns}
        units.update(dict(_RUN_COLUMNS))
        has = db._query("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table'"
                        " AND name = 'command_run'")[0]["n"]
        if not has:  # a file from before schema 16: summaries only
            return names, units, []
        points = {r["id"]: json.loads(r["params_json"]) for r in db._query(
            "SELECT id, params_json FROM point WHERE section_id = ?", (self.id,))}
        cursor = db._execute(
            "SELECT point_id, run, warmup, wall_s, user_s, sys_s, max_rss_kib,"
            " voluntary_switches, involuntary_switches, exit_status, run_values"
            " FROM command_run WHERE sweep_id = ? ORDER BY point_id, run", (self.sweep.id,))
        rows = []
        for r in cursor:
            r = tuple(r)
            point = points.get(r[0])
            if point is None:  # another section's point
                continue
            values = json.loads(r[10]) if r[10] else {}
            printed = [values.get(n) for n in declared]
            printed = [_NAN if v == "NaN" else v for v in printed]
            rows.append(tuple(point.get(n) for n in params) + r[:2] + (bool(r[2]),) + r[3:10]
                        + tuple(printed))
        return names, units, rows

    def runs(self):
        """Every run of a command with repeats or warmup, one dict a run
        (docs/python.md): the point's parameters, point_id, run, warmup,
        wall_s, user_s, sys_s, max_rss_kib, voluntary_switches,
        involuntary_switches, exit_status, and the declared columns that run
        printed. Empty for a plugin, a command run once, or an older file."""
        names, _, rows = self._runs()
        return [dict(zip(names, r)) for r in rows]

    def runs_frame(self):
        """runs() as a pandas DataFrame, .attrs as frame()'s."""
        names, units, rows = self._runs()
        return _frame(rows, names,
                      {"units": {n: units.get(n, "") for n in names}, "sweep": self.sweep.id,
                       "section": self.ordinal, "plugin": self.plugin, "title": self.title})


class Fit:
    """One stored `runner fit` answer: info is its fit row (model, formula,
    x/y columns and units, n, r2, ...)."""

    def __init__(self, db, info):
        self.db = db
        self.info = info
        self.id = info["id"]
        self.model = info["model"]

    def __repr__(self):
        return "<runner fit %d: %s of %s>" % (self.id, self.model, self.info["y_column"])

    def params(self):
        """Parameters then derived quantities, as dicts: name, kind, value,
        stderr, ci_low, ci_high, unit, doc."""
        return self.db._query(
            "SELECT name, kind, value, stderr, ci_low, ci_high, unit, doc FROM fit_param "
            "WHERE fit_id = ? ORDER BY position", (self.id,))

    def value(self, name):
        """(value, ci_low, ci_high) of one parameter or derived quantity."""
        for p in self.params():
            if p["name"] == name:
                return p["value"], p["ci_low"], p["ci_high"]
        raise RunnerError("runner_db: fit %d (%s) has no quantity %s" % (self.id, self.model,
                                                                       name))

    def residuals(self):
        """Each fitted row: row_id, point_id, x, y, fitted, residual."""
        return self.db._query(
            "SELECT row_id, point_id, x, y, fitted, residual FROM fit_residual "
            "WHERE fit_id = ? ORDER BY x, row_id", (self.id,))

    def params_frame(self):
        rows = self.params()
        return _frame(rows, ["name", "kind", "value", "stderr", "ci_low", "ci_high", "unit",
                             "doc"], {"fit": self.id, "model": self.model})

    def residuals_frame(self):
        rows = self.residuals()
        return _frame(rows, ["row_id", "point_id", "x", "y", "fitted", "residual"],
                      {"fit": self.id, "model": self.model,
                       "units": {"x": self.info["x_unit"], "y": self.info["y_unit"],
                                 "fitted": self.info["y_unit"],
                                 "residual": self.info["y_unit"]}})
