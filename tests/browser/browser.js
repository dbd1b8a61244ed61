// browser.js: what the dashboard's browser tests and bench share. Launches
// Debian's chromium through playwright-core (tests/browser/package.json,
// installed by `make test` into BUILD/browser; no browser is downloaded),
// collects every console error or warning, uncaught exception and CSP
// violation, and waits on the page's own state, never for a fixed time.
'use strict';

const fs = require('fs');
const path = require('path');

// playwright-core from the build tree (RUNNER_BUILD/browser) or NODE_PATH.
function loadPlaywright() {
  const build = process.env.RUNNER_BUILD;
  const candidates = build ? [path.join(build, 'browser', 'node_modules', 'playwright-core')] : [];
  candidates.push('playwright-core');
  for (const c of candidates) {
    try { return require(c); } catch (e) { /* the next one */ }
  }
  throw new Error('playwright-core is not installed: run `make test` (npm ci into BUILD/browser)');
}

function chromiumPath() {
  for (const p of [process.env.CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'])
    if (p && fs.existsSync(p)) return p;
  throw new Error('chromium not found (Debian package chromium)');
}

const WAIT_LIMIT_MS = Number(process.env.WAIT_LIMIT_S || 120) * 1000;

class Dashboard {
  // open({width, height}): a browser and one page, problems collected.
  static async open(viewport) {
    const { chromium } = loadPlaywright();
    const browser = await chromium.launch({ executablePath: chromiumPath(), args: ['--no-sandbox', '--disable-gpu'] });
    const d = new Dashboard();
    d.browser = browser;
    d.problems = [];
    await d.newPage(viewport || { width: 1280, height: 900 });
    return d;
  }

  async newPage(viewport) {
    if (this.page) await this.page.close();
    const page = await this.browser.newPage({ viewport });
    page.setDefaultTimeout(WAIT_LIMIT_MS);
    page.on('console', m => {
      if (m.type() === 'error' || m.type() === 'warning')
        this.problems.push(`console ${m.type()}: ${m.text().slice(0, 300)}`);
    });
    page.on('pageerror', e => this.problems.push('exception: ' + String(e).slice(0, 300)));
    this.page = page;
    return page;
  }

  // go(url): navigates (a new #fragment too) and waits until the page says
  // it has loaded (document.body.dataset.state, set by app.js).
  async go(url) {
    const [base, hash] = url.split('#');
    if (this.page.url().split('#')[0] === base) {
      // The same document: a new #fragment routes the page (app.js listens
      // for hashchange); the same one is routed again.
      await this.page.evaluate(h => {
        delete document.body.dataset.state;
        if (location.hash === h) window.dispatchEvent(new HashChangeEvent('hashchange'));
        else location.hash = h;
      }, '#' + (hash || ''));
    } else {
      await this.page.goto(url);
    }
    await this.state('loaded');
  }

  async state(want) {
    try {
      await this.page.waitForFunction(w => document.body && document.body.dataset.state === w, want);
    } catch (e) {
      const now = await this.page.evaluate(() => [location.href, document.body && document.body.dataset.state,
        (document.querySelector('.error') || {}).textContent]).catch(() => []);
      throw new Error(`the page never said ${want} (at ${now[0]}, state ${now[1]}, error ${now[2]}): ${e.message.split('\n')[0]}`);
    }
  }

  js(fn, arg) { return this.page.evaluate(fn, arg); }

  // wait(what, fn, arg): until fn (run in the page) returns something truthy.
  async wait(what, fn, arg) {
    try {
      const handle = await this.page.waitForFunction(fn, arg, { polling: 'raf' });
      return await handle.jsonValue();
    } catch (e) {
      throw new Error('gave up waiting for ' + what + ': ' + e.message.split('\n')[0]);
    }
  }

  async screenshot(dir, name) {
    if (dir) await this.page.screenshot({ path: path.join(dir, name) });
  }

  async close() { await this.browser.close(); }
}

// check(what, ok): prints ok/FAIL; a failure stops the run.
function check(what, ok) {
  console.log((ok ? 'ok   ' : 'FAIL ') + what);
  if (!ok) throw new Error(what);
}

// runPage(viewport, body, ignored): what every page test does around its
// checks: opens the dashboard (Dashboard.open: null, 1280 x 900), runs body(b),
// checks the page logged no console error, exception or CSP violation
// (but those ignored(problem) expects), closes the browser, and exits 0,
// or 1 after a FAIL line.
function runPage(viewport, body, ignored = () => false) {
  const run = async () => {
    const b = await Dashboard.open(viewport);
    try {
      await body(b);
      const problems = b.problems.filter(p => !ignored(p));
      check(`no console errors, exceptions or CSP violations: ${JSON.stringify(problems)}`, problems.length === 0);
      return 0;
    } catch (e) {
      console.log('FAIL', e.message);
      return 1;
    } finally {
      await b.close();
    }
  };
  run().then(code => process.exit(code), e => { console.log('FAIL', e.message); process.exit(1); });
}

module.exports = { Dashboard, check, runPage };
