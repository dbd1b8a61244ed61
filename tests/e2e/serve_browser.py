#!/usr/bin/env python3
"""serve_browser: drives runner serve's dashboard in headless Chromium.

Usage: serve_browser.py BASE_URL SWEEP_A SWEEP_B RUNNING_SWEEP [SCREENSHOT_DIR]

Talks the DevTools protocol over --remote-debugging-pipe (file descriptors 3
and 4, NUL-separated JSON), so it needs nothing but Python and the system
Chromium. Every step waits on the page's state (document.body.dataset.state,
an element, a number) and never for a fixed time. Prints one line per check
and exits 1 at the first failed one; any console error, uncaught exception
or CSP violation fails the run too.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

WAIT_LIMIT_S = float(os.environ.get("WAIT_LIMIT_S", "120"))


class Browser:
    def __init__(self):
        chromium = shutil.which("chromium") or shutil.which("chromium-browser")
        self.profile = tempfile.mkdtemp(prefix="serve-browser.")
        to_child, self.out = os.pipe()
        self.inp, from_child = os.pipe()

        def fds():
            # Out of the way first: either pipe end may itself be 3 or 4.
            reading, writing = os.dup(to_child), os.dup(from_child)
            reading, writing = os.dup2(reading, 100), os.dup2(writing, 101)
            os.dup2(reading, 3)
            os.dup2(writing, 4)

        self.proc = subprocess.Popen(
            [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--disable-extensions", "--remote-debugging-pipe", "--window-size=1280,900",
             "--user-data-dir=" + self.profile, "about:blank"],
            pass_fds=(3, 4), preexec_fn=fds,  # kept open after fds() ran
            stdout=subprocess.DEVNULL, stderr=open(os.path.join(self.profile, "stderr"), "wb"))
        os.close(to_child)
        os.close(from_child)
        self.next_id = 0
        self.buffer = b""
        self.problems = []
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target,
                                 flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self.call(domain + ".enable", session=True)

    def send(self, method, session=False, **params):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = self.session
        os.write(self.out, json.dumps(message).encode() + b"\0")
        return self.next_id

    def read(self):
        while b"\0" not in self.buffer:
            chunk = os.read(self.inp, 1 << 16)
            if not chunk:
                raise RuntimeError("chromium closed the DevTools pipe")
            self.buffer += chunk
        raw, self.buffer = self.buffer.split(b"\0", 1)
        message = json.loads(raw)
        self.note_event(message)
        return message

    def note_event(self, m):
        method = m.get("method")
        params = m.get("params", {})
        if method == "Runtime.exceptionThrown":
            self.problems.append("exception: " + json.dumps(params["exceptionDetails"])[:300])
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "warning"):
            self.problems.append("console %s: %s" % (params["type"], json.dumps(params["args"])[:300]))
        elif method == "Log.entryAdded" and params["entry"]["level"] in ("error", "warning"):
            self.problems.append("log: " + params["entry"].get("text", "")[:300])

    def call(self, method, session=False, **params):
        want = self.send(method, session, **params)
        while True:
            m = self.read()
            if m.get("id") == want:
                if "error" in m:
                    raise RuntimeError("%s: %s" % (method, m["error"]))
                return m.get("result", {})

    def js(self, expression):
        r = self.call("Runtime.evaluate", session=True, expression=expression,
                      returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in r:
            raise RuntimeError("%s: %s" % (expression, r["exceptionDetails"]))
        return r["result"].get("value")

    def wait(self, what, expression):
        deadline = time.monotonic() + WAIT_LIMIT_S
        while time.monotonic() < deadline:
            value = self.js(expression)
            if value:
                return value
            self.call("Runtime.evaluate", session=True, awaitPromise=True,
                      expression="new Promise(r => setTimeout(r, 50))")
        raise AssertionError("gave up waiting for " + what)

    def go(self, url):
        self.js("document.body && delete document.body.dataset.state")
        self.call("Page.navigate", session=True, url=url)
        self.wait("the page to load " + url,
                  "document.body && document.body.dataset.state === 'loaded'")

    def screenshot(self, path):
        data = self.call("Page.captureScreenshot", session=True, format="png")["data"]
        import base64
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))

    def close(self):
        try:
            self.send("Browser.close")
        except OSError:
            pass
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        shutil.rmtree(self.profile, ignore_errors=True)


def check(what, ok):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        raise AssertionError(what)


def main():
    base, sweep_a, sweep_b, running = sys.argv[1:5]
    shots = sys.argv[5] if len(sys.argv) > 5 else None
    b = Browser()
    try:
        # The sweeps list: every sweep, the markup in names and tags as text.
        b.go(base + "#/")
        ids = b.js("[...document.querySelectorAll('#sweeps-table tbody tr')].map(r => r.dataset.id)")
        check("the sweeps page lists the sweeps, newest first: %s" % ids,
              ids[:3] == [running, sweep_b, sweep_a][:3] or ids[0] == running)
        names = b.js("[...document.querySelectorAll('#sweeps-table td.name')].map(t => t.textContent)")
        check("an XSS name renders as text", "<b onmouseover=alert(2)>evil</b>" in names)
        check("no element came from the payloads",
              b.js("document.querySelectorAll('#sweeps-table b, #sweeps-table img, #sweeps-table i, svg').length") == 0)
        check("the tag renders as text", b.js(
            "[...document.querySelectorAll('.tag')].some(t => t.textContent === '<i>tag</i>')"))
        check("the script path with markup renders as text", b.js(
            "document.body.textContent.includes('<img src=x onerror=alert(1)>.lua')"))
        if shots:
            b.screenshot(os.path.join(shots, "serve-sweeps.png"))
        # Sorted and filtered by the server.
        b.js("document.querySelector('th[data-sort=id]').click()")
        b.wait("ids sorted ascending", "document.querySelector('#sweeps-table tbody tr').dataset.id === '%s'" % sweep_a)
        b.js("const f = document.getElementById('sweeps-filter'); f.value = 'baseline';"
             " f.dispatchEvent(new Event('input'))")
        b.wait("the filter", "document.querySelectorAll('#sweeps-table tbody tr').length === 1 &&"
               " document.querySelector('#sweeps-table tbody tr').dataset.id === '%s'" % sweep_b)
        check("sort and filter by the server", True)
        # Live progress of the running sweep, without reloading.
        b.go(base + "#/sweep/" + running)
        first = int(b.wait("a progress figure", "document.getElementById('progress-done') &&"
                                                " document.getElementById('progress-done').textContent"))
        b.js("window.__same_page = 1")
        b.wait("progress beyond %d" % first,
               "+document.getElementById('progress-done').textContent > %d" % first)
        check("progress advanced past %d points on the same page" % first,
              b.js("window.__same_page === 1"))
        check("rate and ETA shown", b.js("/points\\/s · ETA/.test(document.getElementById('progress').textContent)"))
        if shots:
            b.screenshot(os.path.join(shots, "serve-progress.png"))
        # A section's table: units in the headers, NaN spelled, sorted by the server.
        b.go(base + "#/sweep/" + sweep_a)
        b.wait("the rows", "document.querySelectorAll('table.rows tbody tr').length > 0")
        check("units in the headers", b.js(
            "[...document.querySelectorAll('table.rows th')].some(t => t.textContent.startsWith('x [s]'))"))
        # The rule runner show and report follow: what is the same on every
        # row (the always-NaN column, rows = 2) is folded into one line, the
        # varying columns lead.
        b.wait("the folded line", "document.querySelector('p.constants') &&"
               " document.querySelector('p.constants').textContent.length > 0")
        folded = b.js("document.querySelector('p.constants').textContent")
        check("constants folded above the table: %s" % folded,
              "not_a_number = NaN" in folded and "rows = 2" in folded and "pos_inf = inf" in folded)
        headers = b.js("[...document.querySelector('table.rows').querySelectorAll('th')]"
                       ".map(t => t.dataset.column)")
        check("the table shows what varies, parameters first: %s" % headers,
              headers[0] == "x" and "not_a_number" not in headers and "rows" not in headers
              and "y" in headers)
        check("sections numbered once, by their place in the sweep", b.js(
            "document.querySelector('section.section h2').textContent.startsWith('1. <script>')"))
        check("the section title is text", b.js(
            "document.body.textContent.includes('<script>alert(\"x\")</script>')"))
        b.js("document.querySelector('table.rows th[data-column=x]').click()")
        b.js("document.querySelector('table.rows th[data-column=x]').click()")
        b.wait("rows sorted by x, descending",
               "document.querySelector('table.rows th[data-column=x]').textContent.includes('▼') &&"
               " document.querySelector('table.rows tbody td').textContent === '3'")
        check("a section sorted by the server", True)
        paged = os.environ.get("SERVE_PAGED_SWEEP")
        if paged:
            # Paging through 60 rows, 25 a page: forward by the server's
            # next key (after=), back by the keys kept on the page.
            b.go(base + "#/sweep/" + paged)
            # (The section's block may come after the page says loaded.)
            count = "(document.querySelector('section.section .count') || {}).textContent"
            b.wait("the first page", count + " === 'rows 1–25 of 60'")
            for text in ("rows 26–50 of 60", "rows 51–60 of 60"):
                b.js("document.querySelector('section.section button.next').click()")
                b.wait(text, "%s === '%s'" % (count, text))
            check("the last page has 10 rows",
                  b.js("document.querySelectorAll('table.rows tbody tr').length") == 10)
            check("pages after the first were asked for by key", b.js(
                "performance.getEntriesByType('resource').some(e => /rows\\?.*after=/.test(e.name))"))
            b.js("document.querySelector('section.section button.prev').click()")
            b.wait("back to the second page", count + " === 'rows 26–50 of 60'")
            first_x = "document.querySelector('table.rows tbody td').textContent"
            check("the second page starts at x = 13 (rows 26, 27)", b.js(first_x) == "13")
        if shots:
            b.screenshot(os.path.join(shots, "serve-sweep.png"))
        # The section's plot link opens the rule's default plot: x the
        # varying parameter, y the first varying result, by the boolean
        # result with two values; the chart has points.
        b.go(base + "#/sweep/" + sweep_a)
        link = b.wait("the plot link", "document.querySelector('section.section a.plot-link') &&"
                      " document.querySelector('section.section a.plot-link').getAttribute('href')")
        check("the plot link is the default plot: " + link, link.endswith("?x=x&y=y&by=even"))
        b.js("document.querySelector('section.section a.plot-link').click()")
        b.wait("the plot", "document.body.dataset.state === 'loaded' && location.hash.startsWith('#/plot/')")
        check("the chart has the expected axes", b.js(
            "document.getElementById('plot-x').value === 'x' && document.getElementById('plot-y').value === 'y'"))
        drawn = b.wait("points drawn", "/^[1-9][0-9]* of /.test(document.getElementById('plot-note').textContent) &&"
                       " document.getElementById('plot-note').textContent")
        check("the chart is not empty: " + drawn, drawn.startswith("6 of 6 points drawn"))
        check("two lines, one per value of even", b.js("document.querySelectorAll('#series input').length") == 2)
        title = b.wait("the plot's title", "document.getElementById('plot-title').textContent.startsWith('Sweep') &&"
                       " document.getElementById('plot-title').textContent")
        check("the plot's title names the section by its place: " + title,
              title == 'Sweep %s, section 1: <script>alert("x")</script>' % sweep_a)
        # A plot: dygraphs' canvas, one series per line, a toggle.
        b.go(base + "#/plot/%s?x=x&y=random&by=row_index" % link.split("/")[2].split("?")[0])
        check("the plot has a canvas", b.js("document.querySelectorAll('#chart canvas').length > 0"))
        check("one toggle per series", b.js("document.querySelectorAll('#series input').length") == 2)
        b.js("document.querySelector('#series input').click()")
        check("a series can be hidden", b.js("!document.querySelector('#series input').checked"))
        if shots:
            b.screenshot(os.path.join(shots, "serve-plot.png"))
        markup = os.environ.get("SERVE_MARKUP_SECTION")
        if markup:
            # Units holding markup: dygraphs writes axis labels as HTML, so
            # they must reach it escaped, and show literally.
            b.go(base + "#/plot/%s?x=a&y=b" % markup)
            b.wait("the axis labels", "!!document.querySelector('#chart .dygraph-xlabel')")
            xlabel = b.js("document.querySelector('#chart .dygraph-xlabel').textContent")
            ylabel = b.js("document.querySelector('#chart .dygraph-ylabel').textContent")
            check("the x label shows its unit as text: %r" % xlabel, xlabel == "a [<b>x</b>]")
            check("the y label shows its unit as text: %r" % ylabel,
                  ylabel == "b [<style>body{background:red}</style><img src=x>]")
            made = b.js("document.querySelectorAll('#main b, #main style, #main img').length")
            check("no element came from the units (%s)" % made, made == 0)
        # Compare: the known difference highlighted.
        b.go(base + "#/compare?a=%s&b=%s" % (sweep_a, sweep_b))
        summary = b.js("document.getElementById('compare-summary').textContent")
        check("compare summary: " + summary,
              summary.startswith("4 rows matched by parameters: 4 differ, 2 only in sweep %s, 2 only in sweep %s"
                                 % (sweep_a, sweep_b)))
        highlighted = b.js("document.querySelectorAll('td.differs').length")
        check("differing values highlighted: %s cells (random, a and b, 4 rows)" % highlighted,
              highlighted == 8)
        if shots:
            b.screenshot(os.path.join(shots, "serve-compare.png"))
        check("no payload ran", b.js("typeof window.__xss === 'undefined'"))
        check("no console errors, exceptions or CSP violations: %s" % b.problems, not b.problems)
    except AssertionError as e:
        print("FAIL", e)
        return 1
    finally:
        b.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
