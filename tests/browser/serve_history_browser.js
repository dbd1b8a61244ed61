// serve_history_browser: the dashboard's history page (#/history), in
// headless Chromium through playwright-core (tests/browser/browser.js).
//
// Usage: node serve_history_browser.js BASE_URL SHORT_COMMIT [SCREENSHOT_DIR]
// Environment: HISTORY_SENTENCE (the sentence `runner history --y y --tag
// step --tolerance 0.03` prints for its change, at SHORT_COMMIT).
//
// From the sweeps list, the header's "history" link opens the page; its
// form asks for y = y, tag step, tolerance 0.03. Checks: the verdict line
// (the command's sentence) comes first, above the chart; the chart draws
// a median with its interval a commit (customBars), the change marked at
// SHORT_COMMIT; the table's changed row is that commit's; a bad column
// shows the server's one line. Waits on the page's state, never a time.
'use strict';
const path = require('path');
const { check, runPage } = require(path.join(__dirname, 'browser.js'));

const [base, short, shots] = process.argv.slice(2);
const sentence = process.env.HISTORY_SENTENCE;

runPage(null, async b => {
  await b.go(base + '#/');
  const nav = await b.js(() => [...document.querySelectorAll('header nav a')].map(a => [a.textContent, a.getAttribute('href')]));
  check(`the header links history next to compare: ${JSON.stringify(nav)}`,
    JSON.stringify(nav.slice(-2)) === JSON.stringify([['compare', '#/compare'], ['history', '#/history']]));
  await b.page.click('header nav a[href="#/history"]');
  await b.state('loaded');
  check('the history page asks for a column', await b.js(() => !!document.querySelector('#history-form #history-y')));
  await b.page.fill('#history-y', 'y');
  await b.page.fill('#history-tag', 'step');
  await b.page.fill('#history-tolerance', '0.03');
  await b.js(() => { delete document.body.dataset.state; });
  await b.page.click('#history-form button[type="submit"]');
  await b.state('loaded');
  const hash = await b.js(() => location.hash);
  check('the form names its query in the URL: ' + hash, hash === '#/history?y=y&tolerance=0.03&tag=step');
  const shown = await b.js(() => ({
    sentences: [...document.querySelectorAll('#history-verdict p.history-sentence')].map(p => p.textContent),
    regression: document.getElementById('history-verdict').dataset.regression,
    verdictTop: Math.round(document.getElementById('history-verdict').getBoundingClientRect().top),
    chartTop: Math.round(document.getElementById('history-chart').getBoundingClientRect().top),
    summary: document.getElementById('history-summary').textContent,
  }));
  check(`the verdict line is the command's: ${JSON.stringify(shown.sentences)}`,
    shown.sentences.length === 1 && shown.sentences[0] === sentence);
  check('and says where: ' + short, shown.sentences[0].includes(` at ${short} (p < 0.001)`));
  check(`at the top, above the chart (${shown.verdictTop} px < ${shown.chartTop} px)`, shown.verdictTop < shown.chartTop && shown.verdictTop < 250);
  check('a regression past the tolerance', shown.regression === 'yes');
  check('the order and count: ' + shown.summary, shown.summary.startsWith("12 sweeps ordered by git's commit order; 1 change"));
  const chart = await b.wait('the chart and its change marked', () => {
    const g = document.getElementById('history-chart').dygraph;
    if (!g || !g.annotations().length) return null;
    const a = g.annotations();
    return { rows: g.numRows(), labels: g.getLabels(), bars: g.getOption('customBars'),
      low: g.getValue(0, 1)[0], median: g.getValue(0, 1)[1], high: g.getValue(0, 1)[2],
      marks: a.map(x => ({ x: x.x, text: x.text, shown: !!document.querySelector('.dygraph-annotation.history-change') })),
      tick: g.getOptionForAxis('valueFormatter', 'x')(a[0].x) };
  });
  check(`a point a commit, the median inside its interval band: ${JSON.stringify(chart)}`,
    chart.rows === 12 && chart.bars === true && chart.low <= chart.median && chart.median <= chart.high && chart.low < chart.high);
  check(`one change marked, at commit 8 (${short})`, chart.marks.length === 1 && chart.marks[0].x === 8 &&
    chart.marks[0].shown && chart.marks[0].text === sentence && chart.tick === short);
  const table = await b.js(() => ({
    rows: document.querySelectorAll('#history-table tbody tr').length,
    head: [...document.querySelectorAll('#history-table th')].map(th => th.textContent),
    changed: [...document.querySelectorAll('#history-table tbody tr.changed')].map(tr => [...tr.cells].map(td => td.textContent)),
  }));
  check(`the table the command prints: ${JSON.stringify(table.head)}, ${table.rows} rows`,
    table.rows === 12 && JSON.stringify(table.head) === JSON.stringify(['commit', 'sweeps', 'n', 'median', 'low', 'high', 'change']));
  check(`its changed row is ${short}'s: ${JSON.stringify(table.changed)}`,
    table.changed.length === 1 && table.changed[0][0] === short && /^\+[0-9.]+ % \[\+[0-9.]+, \+[0-9.]+\] p < 0\.001$/.test(table.changed[0][6]));
  await b.screenshot(shots, 'serve-history.png');
  // A column no sweep has: the server's line, no chart.
  await b.js(() => { delete document.body.dataset.state; location.hash = '#/history?y=nope&tag=step'; });
  await b.state('error');
  const error = await b.wait('the error line', () => { const e = document.querySelector('#history-verdict .error'); return e && e.textContent; });
  check('a bad column answers one line: ' + error, error === 'history: sweep 1, section 1 has no column nope' &&
    !(await b.js(() => document.getElementById('history-chart'))));
}, p => /status of 400/.test(p));
