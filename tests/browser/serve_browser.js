// serve_browser: drives runner serve's dashboard in headless Chromium
// through playwright-core (tests/browser/browser.js).
//
// Usage: node serve_browser.js BASE_URL SWEEP_A SWEEP_B RUNNING_SWEEP [SCREENSHOT_DIR]
// Environment (each optional; its checks run when set): SERVE_PAGED_SWEEP,
// SERVE_MARKUP_SECTION, SERVE_DIFF_JSON (runner diff A B --format json),
// SERVE_LOG_SWEEP, SERVE_CATEGORY_SWEEP, SERVE_PARALLEL_SWEEP, and
// SERVE_ANSWERS_SWEEP with SERVE_ANSWERS_SECTION, SERVE_FIT_JSON (runner fit
// --format json of it) and SERVE_FRONT_ROWS (the front's "bytes:time_s ...").
//
// Every step waits on the page's state (document.body.dataset.state, an
// element, a number) and never for a fixed time. Prints one line per check
// and exits 1 at the first failed one; any console error, uncaught
// exception or CSP violation fails the run too.
'use strict';
const fs = require('fs');
const path = require('path');
const { check, runPage } = require(path.join(__dirname, 'browser.js'));

const [base, sweepA, sweepB, running, shots] = process.argv.slice(2);
const env = process.env;

async function sweepsList(b) {
  // The sweeps list: every sweep, the markup in names and tags as text.
  await b.go(base + '#/');
  const ids = await b.js(() => [...document.querySelectorAll('#sweeps-table tbody tr')].map(r => r.dataset.id));
  check(`the sweeps page lists the sweeps, newest first: ${ids}`, ids[0] === running);
  const names = await b.js(() => [...document.querySelectorAll('#sweeps-table td.name')].map(t => t.textContent));
  check('an XSS name renders as text', names.includes('<b onmouseover=alert(2)>evil</b>'));
  check('no element came from the payloads',
    await b.js(() => document.querySelectorAll('#sweeps-table b, #sweeps-table img, #sweeps-table i, #sweeps-table svg').length) === 0);
  check('the tag renders as text', await b.js(() => [...document.querySelectorAll('.tag')].some(t => t.textContent === '<i>tag</i>')));
  check('the script path with markup renders as text',
    await b.js(() => document.body.textContent.includes('<img src=x onerror=alert(1)>.lua')));
  await b.screenshot(shots, 'serve-sweeps.png');
  // Sorted and filtered by the server.
  await b.page.click('th[data-sort=id]');
  await b.wait('ids sorted ascending', a => document.querySelector('#sweeps-table tbody tr').dataset.id === a, sweepA);
  await b.page.fill('#sweeps-filter', 'baseline');
  await b.wait('the filter', id => document.querySelectorAll('#sweeps-table tbody tr').length === 1 &&
    document.querySelector('#sweeps-table tbody tr').dataset.id === id, sweepB);
  check('sort and filter by the server', true);
}

async function progress(b) {
  // Live progress of the running sweep, without reloading.
  await b.go(base + '#/sweep/' + running);
  const first = +(await b.wait('a progress figure', () => document.getElementById('progress-done') &&
    document.getElementById('progress-done').textContent));
  await b.js(() => { window.__same_page = 1; });
  await b.wait(`progress beyond ${first}`, f => +document.getElementById('progress-done').textContent > f, first);
  check(`progress advanced past ${first} points on the same page`, await b.js(() => window.__same_page === 1));
  check('rate and ETA shown', await b.js(() => /points\/s · ETA/.test(document.getElementById('progress').textContent)));
  await b.screenshot(shots, 'serve-progress.png');
}

async function section(b) {
  // A section's table: units in the headers, NaN spelled, sorted by the server.
  await b.go(base + '#/sweep/' + sweepA);
  await b.page.waitForSelector('table.rows tbody tr');
  check('units in the headers', await b.js(() => [...document.querySelectorAll('table.rows th')].some(t => t.textContent.startsWith('x [s]'))));
  // The rule runner show and report follow: what is the same on every row
  // (the always-NaN column, rows = 2) is folded into one line, the varying
  // columns lead.
  await b.wait('the folded line', () => document.querySelector('p.constants') && document.querySelector('p.constants').textContent.length > 0);
  const folded = await b.js(() => document.querySelector('p.constants').textContent);
  check('constants folded above the table: ' + folded,
    folded.includes('not_a_number = NaN') && folded.includes('rows = 2') && folded.includes('pos_inf = inf'));
  const headers = await b.js(() => [...document.querySelector('table.rows').querySelectorAll('th')].map(t => t.dataset.column));
  check(`the table shows what varies, parameters first: ${headers}`,
    headers[0] === 'x' && !headers.includes('not_a_number') && !headers.includes('rows') && headers.includes('y'));
  check('sections numbered once, by their place in the sweep',
    await b.js(() => document.querySelector('section.section h2').textContent.startsWith('1. <script>')));
  check('the section title is text', await b.js(() => document.body.textContent.includes('<script>alert("x")</script>')));
  await b.page.click('table.rows th[data-column=x]');
  await b.wait('rows sorted by x, ascending', () => document.querySelector('table.rows th[data-column=x]').textContent.includes('▲'));
  await b.page.click('table.rows th[data-column=x]');
  await b.wait('rows sorted by x, descending', () => document.querySelector('table.rows th[data-column=x]').textContent.includes('▼') &&
    document.querySelector('table.rows tbody td').textContent === '3');
  check('a section sorted by the server', true);
}

async function paging(b, paged) {
  // Paging through 60 rows, 25 a page: forward by the server's next key
  // (after=), back by the keys kept on the page.
  await b.go(base + '#/sweep/' + paged);
  // (The section's block may come after the page says loaded.)
  await b.wait('the first page', () => (document.querySelector('section.section .count') || {}).textContent === 'rows 1–25 of 60');
  for (const text of ['rows 26–50 of 60', 'rows 51–60 of 60']) {
    await b.page.click('section.section button.next');
    await b.wait(text, t => (document.querySelector('section.section .count') || {}).textContent === t, text);
  }
  check('the last page has 10 rows', await b.js(() => document.querySelectorAll('table.rows tbody tr').length) === 10);
  check('pages after the first were asked for by key',
    await b.js(() => performance.getEntriesByType('resource').some(e => /rows\?.*after=/.test(e.name))));
  await b.page.click('section.section button.prev');
  await b.wait('back to the second page', () => (document.querySelector('section.section .count') || {}).textContent === 'rows 26–50 of 60');
  check('the second page starts at x = 13 (rows 26, 27)',
    await b.js(() => document.querySelector('table.rows tbody td').textContent) === '13');
}

async function defaultPlot(b) {
  // The section's plot link opens the rule's default plot: x the varying
  // parameter, y the first varying result, by the boolean result with two
  // values; the chart has points.
  await b.go(base + '#/sweep/' + sweepA);
  const link = await b.wait('the plot link', () => document.querySelector('section.section a.plot-link') &&
    document.querySelector('section.section a.plot-link').getAttribute('href'));
  check('the plot link is the default plot: ' + link, link.endsWith('?x=x&y=y&by=even'));
  await b.js(() => { delete document.body.dataset.state; });
  await b.page.click('section.section a.plot-link');
  await b.wait('the plot', () => document.body.dataset.state === 'loaded' && location.hash.startsWith('#/plot/'));
  check('the chart has the expected axes',
    await b.js(() => document.getElementById('plot-x').value === 'x' && document.getElementById('plot-y').value === 'y'));
  const drawn = await b.wait('points drawn', () => /^[1-9][0-9]* of /.test(document.getElementById('plot-note').textContent) &&
    document.getElementById('plot-note').textContent);
  check('the chart is not empty: ' + drawn, drawn.startsWith('6 of 6 points drawn'));
  check('two lines, one per value of even', await b.js(() => document.querySelectorAll('#series input').length) === 2);
  const title = await b.wait("the plot's title", () => document.getElementById('plot-title').textContent.startsWith('Sweep') &&
    document.getElementById('plot-title').textContent);
  check("the plot's title names the section by its place: " + title,
    title === `Sweep ${sweepA}, section 1: <script>alert("x")</script>`);
  check('linear axes for x from 1 to 3', await b.js(() => document.getElementById('chart').dataset.logx === 'no'));
  // A plot: dygraphs' canvas, one series per line, a toggle.
  const id = link.split('/')[2].split('?')[0];
  await b.go(base + `#/plot/${id}?x=x&y=random&by=row_index`);
  check('the plot has a canvas', await b.js(() => document.querySelectorAll('#chart canvas').length > 0));
  check('one toggle per series', await b.js(() => document.querySelectorAll('#series input').length) === 2);
  await b.page.click('#series input');
  check('a series can be hidden', await b.js(() => !document.querySelector('#series input').checked));
  await b.screenshot(shots, 'serve-plot.png');
}

async function markupUnits(b, markup) {
  // Units holding markup: dygraphs writes axis labels as HTML, so they must
  // reach it escaped, and show literally.
  await b.go(base + `#/plot/${markup}?x=a&y=b`);
  await b.page.waitForSelector('#chart .dygraph-xlabel');
  const xlabel = await b.js(() => document.querySelector('#chart .dygraph-xlabel').textContent);
  const ylabel = await b.js(() => document.querySelector('#chart .dygraph-ylabel').textContent);
  check(`the x label shows its unit as text: ${xlabel}`, xlabel === 'a [<b>x</b>]');
  check(`the y label shows its unit as text: ${ylabel}`, ylabel === 'b [<style>body{background:red}</style><img src=x>]');
  const made = await b.js(() => document.querySelectorAll('#main b, #main style, #main img').length);
  check(`no element came from the units (${made})`, made === 0);
}

// The plot of a section whose x and y span decades: the view asks for log
// axes and the chart draws them.
async function logAxes(b, sweep) {
  await b.go(base + '#/sweep/' + sweep);
  const link = await b.wait('the plot link', () => document.querySelector('section.section a.plot-link') &&
    document.querySelector('section.section a.plot-link').getAttribute('href'));
  check('the plot link asks for log axes: ' + link, /logx=1/.test(link) && /logy=1/.test(link));
  await b.go(base + link);
  await b.wait('points drawn', () => /^[1-9]/.test(document.getElementById('plot-note').textContent));
  check('the chart draws x and y on log scales', await b.js(() => {
    const c = document.getElementById('chart').dataset;
    return c.logx === 'yes' && c.logy === 'yes';
  }));
  check('the log boxes are ticked', await b.js(() => document.getElementById('plot-logx').checked && document.getElementById('plot-logy').checked));
  const ticks = await b.js(() => [...document.querySelectorAll('#chart .dygraph-axis-label-x')].map(t => t.textContent));
  check(`x ticks at the decades: ${ticks.filter(Boolean)}`, ['1', '10', '100'].every(t => ticks.includes(t)));
  await b.screenshot(shots, 'serve-plot-log.png');
  await b.page.uncheck('#plot-logx');
  await b.js(() => { delete document.body.dataset.state; });
  await b.page.click('#plot-draw');
  await b.state('loaded');
  check('unticked, x is linear again', await b.js(() => document.getElementById('chart').dataset.logx === 'no' && !/logx/.test(location.hash)));
}

// A section whose only varying parameter is text (a delay law): its plot
// puts each value at a place of its own on x, named on the axis.
async function categories(b, sweep) {
  await b.go(base + '#/sweep/' + sweep);
  const link = await b.wait('the plot link', () => document.querySelector('section.section a.plot-link') &&
    document.querySelector('section.section a.plot-link').getAttribute('href'));
  check('a text parameter gets a plot link: ' + link, /x=law/.test(link));
  await b.go(base + link);
  await b.wait('points drawn', () => /^[1-9]/.test(document.getElementById('plot-note').textContent));
  const ticks = await b.js(() => [...document.querySelectorAll('#chart .dygraph-axis-label-x')].map(t => t.textContent));
  check(`x is named by the laws, in order: ${ticks}`, JSON.stringify(ticks) === JSON.stringify(['exponential', 'pareto', 'uniform']));
  const note = await b.js(() => document.getElementById('plot-note').textContent);
  check('every point drawn: ' + note, note.startsWith('3 of 3 points drawn'));
  await b.screenshot(shots, 'serve-plot-categories.png');
}

// Three varying parameters: the section shows parallel coordinates, and
// brushing an axis filters the rows table.
async function parallel(b, sweep) {
  await b.go(base + '#/sweep/' + sweep);
  await b.page.waitForSelector('svg.parallel g.axis');
  const axes = await b.js(() => [...document.querySelectorAll('svg.parallel g.axis')].map(g => g.dataset.column));
  check(`one axis per varying column: ${axes}`, axes.slice(0, 3).join() === 'a,b,c' && axes.includes('y'));
  check('one line per row', await b.js(() => document.querySelectorAll('svg.parallel path.row').length) === 12);
  await b.screenshot(shots, 'serve-parallel.png');
  // Brush the top third of axis a (a = 3): a drag along the axis.
  const box = await b.page.locator('svg.parallel g.axis[data-column=a] rect.brush-area').boundingBox();
  const x = box.x + box.width / 2;
  await b.page.mouse.move(x, box.y + 1);
  await b.page.mouse.down();
  await b.page.mouse.move(x, box.y + box.height * 0.2, { steps: 4 });
  await b.page.mouse.up();
  await b.wait('the brushed rows', () => /^4 of 12 rows brushed/.test((document.querySelector('section.section .brushed') || {}).textContent || ''));
  const shown = await b.js(() => [...document.querySelectorAll('table.rows tbody tr')].map(r => r.querySelector('td').textContent));
  check(`the rows table holds the brushed rows only (a = 3): ${shown}`, shown.length === 4 && shown.every(v => v === '3'));
  check('the lines outside the brush are dimmed', await b.js(() => document.querySelectorAll('svg.parallel path.row.dim').length) === 8);
  await b.screenshot(shots, 'serve-parallel-brushed.png');
  // A click on the axis clears the brush: every row again.
  await b.page.mouse.click(x, box.y + box.height * 0.9);
  await b.wait('the brush cleared', () => !document.querySelector('section.section .brushed').textContent &&
    (document.querySelector('section.section .count') || {}).textContent === 'rows 1–12 of 12');
  check('a click clears the brush', true);
}

// A stored fit and front over a plot: the sweep page links them, the plot
// of their columns draws the fitted curve with its 95 % band (customBars:
// [low, value, high] from the server) and the front's rows with the line
// bounding what they beat; the legend's figures are runner fit's.
async function answers(b, sweep, sectionId) {
  await b.go(base + '#/sweep/' + sweep);
  const links = await b.wait('the fit and front links', () => document.querySelector('section.section a.fit-link') &&
    document.querySelector('section.section a.front-link') &&
    [document.querySelector('a.fit-link').getAttribute('href'), document.querySelector('a.front-link').getAttribute('href')]);
  check('the fit link opens its columns: ' + links[0], links[0] === `#/plot/${sectionId}?x=bytes&y=time_s`);
  check('the front link opens its objectives: ' + links[1], links[1] === `#/plot/${sectionId}?x=bytes&y=time_s`);
  await b.js(() => { delete document.body.dataset.state; });
  await b.page.click('section.section a.fit-link');
  await b.wait('the plot with its answers', () => document.body.dataset.state === 'loaded' && document.getElementById('answers'));
  const g = await b.js(() => {
    const graph = document.getElementById('chart').dygraph;
    const labels = graph.getLabels();
    const column = name => labels.findIndex(l => l.startsWith(name));
    const values = c => [...Array(graph.numRows()).keys()].map(r => graph.getValue(r, c)).filter(v => v !== null);
    return { labels, customBars: graph.getOption('customBars'), fit: values(column('power fit')),
      front: values(column('front') > 0 && !labels[column('front')].endsWith('boundary') ? column('front') : -1),
      boundary: values(labels.findIndex(l => l.endsWith('boundary'))), x: [...Array(graph.numRows()).keys()].map(r => graph.getValue(r, 0)) };
  });
  check(`series: the points, the fit, the front and its boundary: ${g.labels.slice(1)}`,
    g.labels.length === 5 && /^power fit [0-9]+$/.test(g.labels[2]) && /^front [0-9]+ \(min bytes, min time_s\)$/.test(g.labels[3]) &&
    g.labels[4] === g.labels[3] + ' boundary');
  check('the band is drawn (custom bars)', g.customBars === true);
  check(`the curve has ${g.fit.length} points, each inside its band`,
    g.fit.length >= 100 && g.fit.every(([lo, v, hi]) => lo < v && v < hi));
  // runner fit --format json: the same quantities, value for value.
  const fit = JSON.parse(fs.readFileSync(env.SERVE_FIT_JSON, 'utf8'));
  const names = fit.columns.map(c => c.name !== undefined ? c.name : c);
  const at = n => names.indexOf(n);
  const cli = fit.rows.map(r => [r[at('quantity')], r[at('value')], r[at('ci95_low')], r[at('ci95_high')]]);
  const page = await b.js(() => [...document.querySelectorAll('table.fit-params tbody tr')].map(tr =>
    [tr.dataset.name, ...[1, 3, 4].map(i => +tr.querySelectorAll('td')[i].dataset.value)]));
  check(`the legend's quantities equal runner fit's: ${JSON.stringify(page)}`, JSON.stringify(page) === JSON.stringify(cli));
  // The curve is a x^b with the legend's a and b.
  const [a, bexp] = [cli[0][1], cli[1][1]];
  const fitRows = await b.js(() => { const graph = document.getElementById('chart').dygraph; const c = graph.getLabels().findIndex(l => l.startsWith('power fit'));
    return [...Array(graph.numRows()).keys()].filter(r => graph.getValue(r, c) !== null).map(r => [graph.getValue(r, 0), graph.getValue(r, c)[1]]); });
  check('the curve is the fitted model', fitRows.every(([x, y]) => Math.abs(y - a * Math.pow(x, bexp)) <= 1e-9 * Math.abs(y)));
  const want = env.SERVE_FRONT_ROWS.split(' ').map(p => p.split(':').map(Number));
  check(`the front's ${g.front.length} rows are the stored front's ${want.length}`,
    g.front.length === want.length && g.front.every(([, v]) => want.some(([, t]) => Math.abs(t - v) < 1e-9)));
  check(`the boundary steps through them (${g.boundary.length} = 2 x ${want.length} - 1 points)`, g.boundary.length === 2 * want.length - 1);
  const note = await b.js(() => document.querySelector('.front-note').textContent);
  check('the front is counted: ' + note, note.includes(`${want.length} of 36 rows on the front`));
  await b.screenshot(shots, 'serve-plot-fit.png');
}

async function compare(b) {
  // Compare: the known difference highlighted, and runner diff's numbers.
  await b.go(base + `#/compare?a=${sweepA}&b=${sweepB}`);
  const summary = await b.js(() => document.getElementById('compare-summary').textContent);
  check('compare summary: ' + summary,
    summary.startsWith(`4 rows matched by parameters: 4 differ, 2 only in sweep ${sweepA}, 2 only in sweep ${sweepB}`));
  const highlighted = await b.js(() => document.querySelectorAll('td.differs').length);
  check(`differing values highlighted: ${highlighted} cells (random, a and b, 4 rows)`, highlighted === 8);
  if (env.SERVE_DIFF_JSON) {
    // runner diff --format json's rows: plugin, points in both, only in a,
    // only in b, status changed, rows unmatched, column, rows, changed, max
    // abs change, max rel change. The page's table says the same.
    const diff = JSON.parse(fs.readFileSync(env.SERVE_DIFF_JSON, 'utf8'));
    const page = await b.js(() => [...document.querySelectorAll('#compare-columns tbody tr')]
      .map(r => [...r.querySelectorAll('td')].map(td => td.dataset.value)));
    const want = diff.rows.map(r => [r[6], r[7], r[8], r[9], r[10]].map(String));
    check(`the per-column changes equal runner diff's: ${JSON.stringify(page)}`, JSON.stringify(page) === JSON.stringify(want));
    const points = await b.js(() => document.getElementById('compare-points').dataset);
    const r = diff.rows[0];
    check(`the points equal runner diff's (${r[1]} in both, ${r[2]} and ${r[3]} only in one)`,
      +points.both === r[1] && +points.onlyA === r[2] && +points.onlyB === r[3] && +points.statusChanged === r[4]);
  }
  await b.screenshot(shots, 'serve-compare.png');
  check('no payload ran', await b.js(() => typeof window.__xss === 'undefined'));
}

// An 800 px wide window: no page-wide horizontal scroll; wide tables
// scroll in their own box; the first column and the plot link are on screen.
async function narrow(b) {
  await b.newPage({ width: 800, height: 900 });
  await b.go(base + '#/sweep/' + (env.SERVE_PARALLEL_SWEEP || sweepA));
  await b.page.waitForSelector('table.rows tbody tr');
  const width = await b.js(() => document.documentElement.scrollWidth);
  check(`the page fits 800 px (${width} px wide)`, width <= 800);
  check('the first column is on screen', await b.js(() => {
    const r = document.querySelector('table.rows th').getBoundingClientRect();
    return r.left >= 0 && r.right <= 800;
  }));
  await b.screenshot(shots, 'serve-narrow.png');
  await b.go(base + '#/plot/' + (await b.js(() => document.querySelector('section.section').dataset.section)) + '?x=a&y=y');
  const chart = await b.js(() => document.getElementById('chart').getBoundingClientRect().right);
  check(`the chart fits too (right edge ${Math.round(chart)} px)`, chart <= 800);
}

async function machine(b) {
  // The machine the sweep ran on: a summary line, what made timings noisy,
  // every fact (sweep_machine).
  await b.go(base + '#/sweep/' + sweepA);
  const line = await b.wait('the machine line', () => document.querySelector('#machine summary') &&
    document.querySelector('#machine summary').textContent);
  check(`the machine line names the CPU, governor and turbo: ${line}`, /cores, governor .*, turbo /.test(line));
  await b.page.click('#machine summary');
  const fields = await b.js(() => [...document.querySelectorAll('#machine-facts th')].map(t => t.textContent));
  check(`the machine's facts are shown: ${fields}`, ['cpu_model', 'governor', 'turbo', 'kernel', 'sqlite', 'load_start', 'load_end'].every(f => fields.includes(f)));
  await b.screenshot(shots, 'serve-machine.png');
}

runPage(null, async b => {
  await sweepsList(b);
  await progress(b);
  await section(b);
  if (env.SERVE_PAGED_SWEEP) await paging(b, env.SERVE_PAGED_SWEEP);
  if (shots) {
    await b.go(base + '#/sweep/' + sweepA);
    await b.page.waitForSelector('table.rows tbody tr');
    await b.screenshot(shots, 'serve-sweep.png');
  }
  await machine(b);
  await defaultPlot(b);
  if (env.SERVE_MARKUP_SECTION) await markupUnits(b, env.SERVE_MARKUP_SECTION);
  if (env.SERVE_LOG_SWEEP) await logAxes(b, env.SERVE_LOG_SWEEP);
  if (env.SERVE_CATEGORY_SWEEP) await categories(b, env.SERVE_CATEGORY_SWEEP);
  if (env.SERVE_PARALLEL_SWEEP) await parallel(b, env.SERVE_PARALLEL_SWEEP);
  if (env.SERVE_ANSWERS_SWEEP) await answers(b, env.SERVE_ANSWERS_SWEEP, env.SERVE_ANSWERS_SECTION);
  await compare(b);
  await narrow(b);
});
