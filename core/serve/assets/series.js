// runner serve's live series page (docs/serve.md): series.html?sweep=ID
// [&name=NAME]. Draws one series recorded during the sweep's points, a line
// per point (value by step), and reads it again every second while the
// sweep runs; body's data-state says "live", "done" or "error".
'use strict';

const params = new URLSearchParams(location.search);
const sweep = params.get('sweep');
let graph = null;

async function api(path, query) {
  const url = '/api/' + path + (query ? '?' + new URLSearchParams(query) : '');
  const response = await fetch(url, { credentials: 'same-origin' });
  const body = await response.json().catch(() => ({ error: response.statusText }));
  if (!response.ok) throw new Error(body.error || ('HTTP ' + response.status));
  return body;
}

// Dygraphs wants rows [step, point a, point b, ...]: the points' values
// merged by step, null where a point has none.
function pivot(points) {
  const rows = new Map();
  points.forEach((p, k) => p.steps.forEach((step, i) => {
    if (!rows.has(step)) rows.set(step, [step].concat(new Array(points.length).fill(null)));
    rows.get(step)[k + 1] = p.values[i];
  }));
  return Array.from(rows.values()).sort((a, b) => a[0] - b[0]);
}

async function draw(name) {
  const data = await api('sweep/' + sweep + '/series', { name });
  const chart = document.getElementById('chart');
  const labels = ['step'].concat(data.points.map(p => 'point ' + p.point));
  const rows = pivot(data.points);
  document.getElementById('note').textContent =
    rows.length ? `${data.points.length} point${data.points.length === 1 ? '' : 's'}, ${rows.length} steps` : 'no values yet';
  if (!rows.length) return;
  const options = { labels, xlabel: 'step', ylabel: name, connectSeparatedPoints: true,
                    legend: 'always', drawPoints: rows.length < 200 };
  if (graph && graph.getLabels().join() === labels.join()) graph.updateOptions({ file: rows });
  else {
    if (graph) graph.destroy();
    graph = new Dygraph(chart, rows, options);
    chart.dygraph = graph;  // the browser test reads its series
  }
}

async function names() {
  const data = await api('sweep/' + sweep + '/series');
  const select = document.getElementById('name');
  const have = Array.from(select.options).map(o => o.value);
  for (const n of data.names)
    if (!have.includes(n.name)) select.append(new Option(n.name, n.name));
  const wanted = params.get('name');
  if (wanted && select.value !== wanted && data.names.some(n => n.name === wanted))
    select.value = wanted;
  return select.value;
}

async function tick() {
  try {
    const progress = await api('sweep/' + sweep + '/progress');
    const name = await names();
    document.getElementById('status').textContent =
      `sweep ${sweep}: ${progress.status}, ${progress.points_done} of ${progress.points_planned} points`;
    if (name) await draw(name);
    document.body.dataset.state = progress.running ? 'live' : 'done';
    if (progress.running) setTimeout(tick, 1000);
  } catch (e) {
    document.getElementById('note').textContent = String(e.message || e);
    document.body.dataset.state = 'error';
  }
}

document.getElementById('title').textContent = 'sweep ' + sweep + ': series';
document.getElementById('name').addEventListener('change', () => draw(document.getElementById('name').value));
tick();
