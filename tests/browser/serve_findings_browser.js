// serve_findings_browser: the dashboard's answers first (issue 38), in
// headless Chromium through playwright-core (tests/browser/browser.js).
//
// Usage: node serve_findings_browser.js BASE_URL FIRST SECOND STAT_A STAT_B [SCREENSHOT_DIR]
// Environment: SERVE_PRINTED (a file: the lines sweep FIRST's script
// printed, as stored), SERVE_STAT_JSON (runner diff STAT_A STAT_B --stat
// --format json).
//
// FIRST is scripts/jitter.lua with a usl fit by jitter and a front stored,
// SECOND the same script with jitters 2 and 0.25. Checks what the pages
// show: the sweep page leads with the printed findings and the fits (each
// named, with intervals and a small plot on the axes the rule gives), a fit
// curve has its data line's colour, the compare page orders workers as
// numbers with the constants folded, and its stat mode shows runner diff
// --stat's verdicts and intervals. Waits on the page's state, never a time.
'use strict';
const fs = require('fs');
const path = require('path');
const { check, runPage } = require(path.join(__dirname, 'browser.js'));

const [base, first, second, statA, statB, shots] = process.argv.slice(2);
const env = process.env;

// Each fit series' colour against its data line's (labels "jitter=2" and
// "usl fit N (jitter = 2)"), read from the chart's dygraph.
function colourPairs(chartSelector) {
  const graph = document.querySelector(chartSelector).dygraph;
  const labels = graph.getLabels().slice(1);
  const colours = graph.getColors();
  return labels.map((l, i) => [l, colours[i]]).filter(([l]) => / fit /.test(l)).map(([l, colour]) => {
    const by = / \(([^=]+) = ([^)]+)\)$/.exec(l);
    // the line's value as the store spells it (2.0), the fit's as shown (2)
    const line = labels.findIndex(d => by && d.startsWith(by[1] + '=') && +d.slice(by[1].length + 1) === +by[2]);
    return { fit: l, colour, line: line >= 0 ? labels[line] : null, lineColour: line >= 0 ? colours[line] : null,
      dashed: JSON.stringify(graph.getOption('strokePattern', l)) };
  });
}

async function sweepPage(b) {
  await b.go(base + '#/sweep/' + first);
  await b.wait('the findings and their plot', () => document.querySelector('#findings[data-loaded="yes"]') &&
    document.querySelector('#fits .chart.small') && document.querySelector('#fits .chart.small').dygraph);
  // Findings first: before the provenance, the machine and every section.
  const order = await b.js(() => {
    const f = document.getElementById('findings');
    const after = el => !!el && !!(f.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING);
    return { details: after(document.querySelector('main > details')), section: after(document.querySelector('section.section')),
      top: Math.round(f.getBoundingClientRect().top) };
  });
  check(`the findings come before provenance and the sections (top at ${order.top} px)`, order.details && order.section && order.top < 300);
  const printed = fs.readFileSync(env.SERVE_PRINTED, 'utf8').trim().split('\n');
  const shown = await b.js(() => [...document.querySelectorAll('#printed li.finding')].map(li => li.textContent));
  check(`the script's findings, as printed: ${JSON.stringify(shown)}`, JSON.stringify(shown) === JSON.stringify(printed));
  // The fit: one group, a row per jitter, each named, with intervals.
  const fits = await b.js(() => ({
    heading: document.querySelector('#fits h3 a.fit-link').textContent,
    rows: [...document.querySelectorAll('#fits table.fit-summary tbody tr')].map(tr => ({
      name: tr.querySelector('a.fit-curve-link').textContent,
      sigma: tr.querySelector('td[data-name="sigma"]').textContent,
      value: +tr.querySelector('td[data-name="sigma"]').dataset.value })),
    logx: document.querySelector('#fits .chart.small').dataset.logx
  }));
  check('the fit is named by what it opens: ' + fits.heading, fits.heading === 'usl fit of speedup against workers, by jitter');
  check(`a row per curve, named by its jitter: ${fits.rows.map(r => r.name)}`,
    JSON.stringify(fits.rows.map(r => r.name).sort()) === JSON.stringify(['0.5', '1', '2'].map(j => `usl fit of speedup against workers, jitter = ${j}`)));
  check(`sigma with its interval, shortened: ${fits.rows.map(r => r.sigma)}`,
    fits.rows.every(r => /^-?[0-9.e+-]+ \[-?[0-9.e+-]+, -?[0-9.e+-]+\]$/.test(r.sigma) && r.sigma.split(' ')[0].replace(/[-.]/g, '').replace(/^0+/, '').length <= 10));
  check('the small plot puts workers (1 to 512) on a log axis, as the plot view does', fits.logx === 'yes');
  const pairs = await b.js(colourPairs, '#fits .chart.small');
  check(`each fit curve has its line's colour: ${JSON.stringify(pairs.map(p => [p.fit, p.colour, p.lineColour]))}`,
    pairs.length === 3 && pairs.every(p => p.line && p.colour === p.lineColour));
  check('and is dashed', pairs.every(p => p.dashed === '[6,3]'));
  // The front, and the links beside the section: named, none alike.
  const links = await b.wait('the section\'s answer links', () => {
    const a = [...document.querySelectorAll('section.section .answers-slot a')].map(x => [x.textContent, x.getAttribute('href')]);
    return a.length >= 2 && a;
  });
  check(`the section's links say what they open: ${JSON.stringify(links)}`,
    links.some(([t]) => t === 'usl fit of speedup against workers, by jitter') && links.some(([t]) => t === 'front: min round_s, max speedup') &&
    new Set(links.map(([t]) => t)).size === links.length);
  const fitHref = links.find(([t]) => t.startsWith('usl fit'))[1];
  check('the fit link opens log x (workers 1 to 512), as the plot view would: ' + fitHref, /[?&]logx=1(&|$)/.test(fitHref));
  const plotLink = await b.js(() => document.querySelector('section.section a.plot-link').textContent);
  check('the plot link says what it opens: ' + plotLink, plotLink === 'plot: speedup against workers, by jitter');
  check('the front is listed', await b.js(() => /of 24 rows on the front of min round_s, max speedup/.test(document.getElementById('fronts').textContent)));
  // The section's table: numbers to the digits that tell them apart.
  const cells = await b.js(() => {
    const table = document.querySelector('section.section table.rows');
    const col = [...table.querySelectorAll('thead th')].findIndex(th => th.dataset.column === 'speedup');
    return [...table.querySelectorAll('tbody tr')].map(tr => tr.querySelectorAll('td')[col]).map(td => [td.textContent, td.dataset.value]);
  });
  check(`speedup shortened but distinct: ${JSON.stringify(cells.slice(0, 4))}`,
    cells.some(([t, v]) => t.length < v.length) && cells.every(([t, v]) => Math.abs(+t - +v) <= 5e-3 * Math.abs(+v)) &&
    new Set(cells.map(([t]) => t)).size === new Set(cells.map(([, v]) => v)).size);
  await b.screenshot(shots, 'serve-sweep-findings.png');
  // Opening the fit from its link: the plot view, log x, the same colours.
  await b.js(() => { delete document.body.dataset.state; });
  await b.page.click('section.section .answers-slot a.fit-link');
  await b.wait('the plot with the fit', () => document.body.dataset.state === 'loaded' && document.getElementById('answers'));
  check('the fit view draws x on a log scale', await b.js(() => document.getElementById('chart').dataset.logx === 'yes'));
  const plotPairs = await b.js(colourPairs, '#chart');
  check(`on the plot view too, each curve has its line's colour: ${JSON.stringify(plotPairs.map(p => [p.fit, p.colour, p.lineColour]))}`,
    plotPairs.length === 3 && plotPairs.every(p => p.line && p.colour === p.lineColour));
  await b.screenshot(shots, 'serve-plot-fit-colours.png');
}

async function comparePage(b) {
  await b.go(base + `#/compare?a=${first}&b=${second}`);
  const page = await b.js(() => {
    const heads = [...document.querySelectorAll('#compare-table thead th')].map(th => th.dataset.column).filter(Boolean);
    const rows = [...document.querySelectorAll('#compare-table tbody tr')].map(tr => [...tr.querySelectorAll('td')].slice(0, heads.length).map(td => td.textContent));
    return { heads, rows, folded: document.getElementById('compare-folded').textContent };
  });
  check(`the varying parameters lead: ${page.heads}`, JSON.stringify(page.heads) === JSON.stringify(['jitter', 'workers']));
  const workers = page.rows.filter(r => r[0] === '2').map(r => r[1]);
  check(`workers in numeric order: ${workers}`, JSON.stringify(workers) === JSON.stringify(['1', '2', '4', '8', '16', '64', '256', '512']));
  const jitters = [...new Set(page.rows.map(r => r[0]))];
  check(`jitter in numeric order: ${jitters}`, JSON.stringify(jitters) === JSON.stringify(['0.25', '0.5', '1', '2']));
  check('the constants are folded: ' + page.folded.slice(0, 80), page.folded.startsWith('Same on every row: base = 30 s') && !page.heads.includes('base'));
  await b.screenshot(shots, 'serve-compare-sorted.png');

  await b.go(base + `#/compare?a=${statA}&b=${statB}&stat=1`);
  const cli = JSON.parse(fs.readFileSync(env.SERVE_STAT_JSON, 'utf8'));
  const names = cli.columns.map(c => c.name);
  const want = cli.rows.map(r => Object.fromEntries(names.map((n, i) => [n, r[i]])))
    .map(r => [r.point, r.verdict, r.ratio, r.ratio_low, r.ratio_high].map(String));
  const shown = await b.js(() => [...document.querySelectorAll('#compare-stat-table tbody tr')].map(tr => [
    tr.querySelector('td.mono').textContent, tr.querySelector('td.verdict').textContent,
    tr.querySelector('td.ratio').dataset.value, tr.querySelector('td.interval').dataset.low, tr.querySelector('td.interval').dataset.high]));
  check(`the verdicts and intervals are runner diff --stat's: ${JSON.stringify(shown.map(r => r.slice(0, 2)))}`,
    shown.length === want.length && shown.every((r, i) => r[0] === want[i][0] && r[1] === want[i][1] &&
      [2, 3, 4].every(k => Math.abs(+r[k] - +want[i][k]) <= 1e-12 * Math.abs(+want[i][k]))));
  check('the slower sweep says so', shown.every(r => r[1] === 'slower'));
  await b.screenshot(shots, 'serve-compare-stat.png');
  await b.go(base + `#/compare?a=${statB}&b=${statA}&stat=1`);
  const none = await b.js(() => (document.getElementById('compare-stat-none') || {}).textContent || '');
  check('no stored comparison the other way: ' + none, none.startsWith(`No diff --stat of sweep ${statB} against sweep ${statA} is stored`));
}

runPage(null, async b => {
  await sweepPage(b);
  await comparePage(b);
  // The comparison among the findings of the slower sweep.
  await b.go(base + '#/sweep/' + statB);
  await b.wait('the comparison among the findings', () => document.querySelector('#comparisons table.stat tbody tr'));
  const verdicts = await b.js(() => [...document.querySelectorAll('#comparisons td.verdict')].map(td => td.textContent));
  check(`the sweep page lists the comparison's verdicts: ${verdicts}`, verdicts.length === 4 && verdicts.every(v => v === 'slower'));
  await b.screenshot(shots, 'serve-sweep-comparison.png');
});
