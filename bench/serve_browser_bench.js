// serve_browser_bench: times the dashboard as a person meets it, in headless
// Chromium through playwright-core (tests/browser/browser.js): a section's
// sort and filter, a plot, a compare, each from the click (or the URL) to
// the page showing the answer. Prints one line per figure with its target
// and PASS/MISS; the median of RUNS tries after one that warms the file.
//
// Usage: node serve_browser_bench.js BASE_URL SWEEP_A SWEEP_B [RUNS]
'use strict';
const path = require('path');
const { Dashboard } = require(path.join(__dirname, '..', 'tests', 'browser', 'browser.js'));

const [base, sweepA, sweepB, runsArg] = process.argv.slice(2);
const runs = Number(runsArg || 5);

function median(list) { const s = [...list].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; }

async function timed(b, what, targetMs, once) {
  await once(); // pages the file in, warms the server's caches
  const times = [];
  for (let i = 0; i < runs; i++) {
    const start = Date.now();
    await once();
    times.push(Date.now() - start);
  }
  const m = median(times);
  console.log(`${what.padEnd(44)} ${String(m).padStart(7)} ms  (target < ${targetMs} ms) ${m < targetMs ? 'PASS' : 'MISS'}`);
  return m < targetMs;
}

// The section's table was drawn again (a new element) and says done(...).
async function redrawn(b, click, done, arg) {
  await b.js(() => { window.__table = document.querySelector('table.rows'); });
  await click();
  await b.wait('the table redrawn', () => {
    const t = document.querySelector('table.rows');
    return t && t !== window.__table;
  });
  await b.wait('the answer', done, arg);
}

async function main() {
  const b = await Dashboard.open();
  let ok = true;
  try {
    await b.go(base + '#/sweep/' + sweepA);
    await b.page.waitForSelector('table.rows tbody tr');
    const column = await b.js(() => [...document.querySelectorAll('table.rows th')].map(t => t.dataset.column).pop());
    let order = 'asc';
    ok &= await timed(b, `sort the section by ${column}`, 300, async () => {
      const want = order === 'asc' ? '▲' : '▼';
      // (a click in the page: Playwright's own checks before a click are not timed)
      await redrawn(b, () => b.js(c => document.querySelector(`table.rows th[data-column="${c}"]`).click(), column),
        a => document.querySelector(`table.rows th[data-column="${a[0]}"]`).textContent.includes(a[1]), [column, want]);
      order = order === 'asc' ? 'desc' : 'asc';
    });
    let bound = 0;
    ok &= await timed(b, `filter it (${column} > value)`, 300, async () => {
      bound = bound === 0 ? 0.5 : 0;
      await b.page.selectOption('section.section select.filter-col', column);
      await b.page.selectOption('section.section select.filter-op', 'gt');
      await b.page.fill('section.section input.filter-value', String(bound));
      await redrawn(b, () => b.js(() => document.querySelector('section.section form.filter button').click()), () => /^rows /.test(document.querySelector('section.section .count').textContent));
    });
    const section = await b.js(() => document.querySelector('section.section').dataset.section);
    const link = await b.wait('the plot link', () => document.querySelector('section.section a.plot-link') &&
      document.querySelector('section.section a.plot-link').getAttribute('href'));
    ok &= await timed(b, 'plot it (the default plot link)', 1000, async () => {
      await b.go(base + '#/sweep/' + sweepA + '/none');
      await b.go(base + link);
      await b.wait('points drawn', () => /^[1-9]/.test(document.getElementById('plot-note').textContent));
    });
    ok &= await timed(b, `compare it with sweep ${sweepB}'s`, 5000, async () => {
      await b.go(base + '#/sweep/' + sweepA + '/none');
      await b.go(base + `#/compare?a=${sweepA}&b=${sweepB}`);
    });
    if (b.problems.length) { console.log('console errors: ' + JSON.stringify(b.problems)); ok = false; }
    console.log(`section ${section}: ${ok ? 'every target met' : 'some targets missed'}`);
  } finally {
    await b.close();
  }
  return ok ? 0 : 1;
}

main().then(code => process.exit(code), e => { console.log('FAIL', e.message); process.exit(1); });
