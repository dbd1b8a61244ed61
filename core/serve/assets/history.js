// runner serve's history page (#/history?y=COL&tag=T&by=git_commit|sweep...):
// `runner history` in the browser (/api/history, computed by the server as
// the command computes it). The verdict first (each change's sentence,
// "wall_s rose 12.0 % [8.0, 16.0] at 3f2c1a9 (p < 0.001)"), then the
// medians drawn with their 95 % interval as a band and each change marked,
// then the table the command prints. app.js routes here.
'use strict';

const historyFilters = ['name', 'script', 'tag', 'status', 'plugin', 'since', 'until'];

async function historyPage(query) {
  const mine = generation;
  const keys = ['y', 'section', 'by', 'tolerance'].concat(historyFilters);
  const state = {};
  for (const k of keys) state[k] = query.get(k) || '';
  const input = (name, size, placeholder) => el('label', {}, name + ' ',
    el('input', { id: 'history-' + name, value: state[name], size, placeholder }));
  const choice = (name, options) => el('label', {}, name + ' ', el('select', { id: 'history-' + name },
    options.map(([value, label]) => el('option', { value, selected: state[name] === value }, label))));
  const form = el('form', { class: 'controls', id: 'history-form' },
    input('y', 10, 'column'), input('section', 2, '1'),
    choice('by', [['', 'commit'], ['sweep', 'sweep']]), input('tolerance', 5, '0.05'),
    input('tag', 8), input('name', 8), input('script', 12), input('plugin', 8),
    choice('status', [['', 'any'], ['running', 'running'], ['ok', 'ok'], ['failed', 'failed'], ['interrupted', 'interrupted'], ['error', 'error']]),
    input('since', 10, '2026-12-01, 7d'), input('until', 10),
    el('button', { type: 'submit' }, 'show'));
  form.addEventListener('submit', ev => {
    ev.preventDefault();
    const q = new URLSearchParams();
    for (const k of keys) {
      const v = form.querySelector('#history-' + k).value.trim();
      if (v) q.set(k, v);
    }
    location.hash = '#/history?' + q;
  });
  const verdict = el('div', { id: 'history-verdict' });
  const chart = el('div', { id: 'history-chart', class: 'chart' });
  const summary = el('p', { id: 'history-summary', class: 'note' });
  const body = el('div', { id: 'history' });
  main.replaceChildren(el('h1', {}, 'History across commits'), form, verdict, chart, summary, body);
  if (!state.y) {
    chart.remove();
    verdict.replaceChildren(el('p', { class: 'note' }, 'Name a numeric column (y) and the sweeps to follow (a tag, a script, ...): ' +
      'the page shows what runner history --y COL prints, its changes drawn.'));
    setState('loaded');
    return;
  }
  try {
    const data = await api('history', state);
    if (mine !== generation) return;
    showVerdict(data);
    drawHistory(data, chart);
    showTable(data);
    setState('loaded');
  } catch (e) {
    if (mine !== generation) return;
    chart.remove();
    showError(verdict, e);
    setState('error');
  }

  function showVerdict(data) {
    const lines = data.changes.map(c => el('p', { class: 'history-sentence' + (c.sentence.endsWith('--tolerance') ? ' regression' : ''),
      'data-at': c.at }, c.sentence));
    if (!lines.length) lines.push(el('p', { class: 'history-sentence' }, `${data.y}: no change across ${data.rows.length} ${data.by === 'sweep' ? 'sweeps' : 'commits'}.`));
    verdict.dataset.regression = data.regression ? 'yes' : 'no';
    verdict.replaceChildren(...lines);
    summary.textContent = `${data.sweeps} sweeps ordered by ${data.order === 'git' ? "git's commit order" : 'start time (no git repository at hand)'}; ` +
      `${data.changes.length} change${data.changes.length === 1 ? '' : 's'} (Mann-Whitney at alpha 0.01, Bonferroni; bootstrap 95 % ratio intervals)` +
      (data.regression ? `; a regression past the tolerance ${data.tolerance}.` : '.');
  }

  function drawHistory(data, where) {
    if (typeof Dygraph === 'undefined') throw new Error('Plots need dygraphs (Debian package libjs-dygraphs), which this server could not find.');
    const names = data.rows.map(r => r[0]);
    const col = Object.fromEntries(data.columns.map((c, i) => [c.name, i]));
    // customBars: [low, median, high] a point, drawn as the median's line
    // with its interval as a band
    const rows = data.rows.map((r, i) => [i + 1, [r[col.low], r[col.median], r[col.high]]]);
    const changed = new Set(data.changes.map(c => c.row + 1));
    const label = x => (Number.isInteger(x) && x >= 1 && x <= names.length ? names[x - 1] : '');
    const graph = new Dygraph(where, rows, {
      labels: [data.by === 'sweep' ? 'sweep' : data.columns[0].name, data.y], customBars: true,
      xlabel: `${data.columns[0].name}, oldest first`, ylabel: `${data.y}: median, 95 % interval`,
      drawPoints: true, pointSize: 2.5, legend: 'always', strokeWidth: 1.5, xRangePad: 14,
      axes: { x: { valueFormatter: label, axisLabelFormatter: label, pixelsPerLabel: 100, axisLabelWidth: 72 } },
      drawPointCallback: (g, series, ctx, cx, cy, color, size, row) => {
        ctx.beginPath();
        ctx.fillStyle = color;
        ctx.arc(cx, cy, size, 0, 2 * Math.PI);
        ctx.fill();
        if (changed.has(row + 1)) {  // a change starts here: circled
          ctx.beginPath();
          ctx.strokeStyle = '#c00';
          ctx.lineWidth = 2;
          ctx.arc(cx, cy, 7, 0, 2 * Math.PI);
          ctx.stroke();
        }
      },
      underlayCallback: (ctx, area, g) => {  // a dashed line where each change starts
        ctx.save();
        ctx.strokeStyle = '#c00';
        ctx.setLineDash([4, 4]);
        for (const x of changed) {
          const px = g.toDomXCoord(x - 0.5);
          ctx.beginPath();
          ctx.moveTo(px, area.y);
          ctx.lineTo(px, area.y + area.h);
          ctx.stroke();
        }
        ctx.restore();
      },
    });
    graph.ready(() => graph.setAnnotations(data.changes.map(c => ({
      series: data.y, x: c.row + 1, shortText: 'Δ', width: 18, height: 16, cssClass: 'history-change',
      text: c.sentence }))));
    where.dygraph = graph;  // the browser test reads its series
  }

  function showTable(data) {
    const col = Object.fromEntries(data.columns.map((c, i) => [c.name, i]));
    const digits = distinguishingDigits(data.rows.flatMap(r => [r[col.median], r[col.low], r[col.high]]));
    const table = el('table', { id: 'history-table' },
      el('thead', {}, el('tr', {}, data.columns.map(c => el('th', {}, c.name)))),
      el('tbody', {}, data.rows.map(r => el('tr', { class: r[col.change] ? 'changed' : null },
        r.map((v, i) => el('td', { class: typeof v === 'number' ? 'num' : (i === 0 ? 'mono' : null), 'data-value': fullText(v) },
          typeof v === 'number' && !Number.isInteger(v) ? shortNumber(v, digits) : cellText(v)))))));
    body.replaceChildren(el('div', { class: 'scroll' }, table));
  }
}
