// serve_series: runner serve's live series page (series.html) in headless
// Chromium through playwright-core (tests/browser/browser.js), while a
// command prints a loss per step.
//
// Usage: node serve_series.js BASE_URL SWEEP RELEASE_FILE [SCREENSHOT_DIR]
// The command prints steps 0-4, then waits for RELEASE_FILE, then prints
// steps 5-9 and ends. The page must draw the first five while the sweep
// runs, then the rest without a reload, then say the sweep is done.
'use strict';
const fs = require('fs');
const path = require('path');
const { check, runPage } = require(path.join(__dirname, 'browser.js'));

const [base, sweep, release, shots] = process.argv.slice(2);

runPage({ width: 1000, height: 700 }, async b => {
  await b.page.goto(base + 'series.html?sweep=' + sweep + '&name=loss');
  await b.state('live');
  const first = await b.wait('five steps drawn', () => {
    const c = document.getElementById('chart');
    return c.dygraph && c.dygraph.numRows() >= 5 && c.dygraph.numRows();
  });
  check(`the running sweep's loss is drawn live: ${first} steps`, first === 5);
  check('the page says the sweep is running',
    await b.js(() => /running/.test(document.getElementById('status').textContent)));
  check('the series menu offers loss',
    await b.js(() => Array.from(document.getElementById('name').options).some(o => o.value === 'loss')));
  await b.screenshot(shots, 'serve-series-live.png');
  await b.js(() => { window.__same_page = 1; });
  fs.writeFileSync(release, '');
  await b.state('done');
  const rows = await b.js(() => document.getElementById('chart').dygraph.numRows());
  check(`the rest arrived without a reload: ${rows} steps`, rows === 10 && await b.js(() => window.__same_page === 1));
  const last = await b.js(() => { const g = document.getElementById('chart').dygraph; return g.getValue(g.numRows() - 1, 1); });
  check(`the last value is the program's: ${last}`, Math.abs(last - 0.1) < 1e-12);
  await b.screenshot(shots, 'serve-series-done.png');
});
