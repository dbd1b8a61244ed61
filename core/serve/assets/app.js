// runner serve's dashboard: one page, routed by the URL's #fragment. Every
// table is paged, sorted and filtered by the server (/api/...); text from
// the database is only ever set as textContent, never parsed as HTML.
'use strict';

const main = document.getElementById('main');
let timers = [];         // polls of the page shown; stopped on navigation
let generation = 0;      // a page's id: answers for an older page are dropped

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'on') for (const [ev, fn] of Object.entries(v)) node.addEventListener(ev, fn);
    else if (v !== null && v !== undefined && v !== false) node.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

async function api(path, params) {
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(params || {}))
    if (v !== null && v !== undefined && v !== '') query.set(k, v);
  const url = '/api/' + path + (query.toString() ? '?' + query : '');
  const response = await fetch(url, { credentials: 'same-origin' });
  const body = await response.json().catch(() => ({ error: response.statusText }));
  if (!response.ok) throw new Error(body.error || ('HTTP ' + response.status));
  return body;
}

// A cell as text: numbers as stored, NaN and inf as the server spells them.
function cellText(v) {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : String(+v.toPrecision(10));
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  return String(v);
}
function isNumeric(v) { return typeof v === 'number' || v === 'NaN' || v === 'inf' || v === '-inf'; }

function seconds(s) {
  if (s === null || s === undefined || !isFinite(s)) return '';
  if (s < 60) return s.toFixed(1) + ' s';
  if (s < 3600) return (s / 60).toFixed(1) + ' min';
  return (s / 3600).toFixed(1) + ' h';
}

function statusSpan(status) { return el('span', { class: 'status-' + status }, status); }

function showError(where, error) {
  where.replaceChildren(el('p', { class: 'error' }, String(error.message || error)));
}

function setState(state) { document.body.dataset.state = state; }

function every(ms, fn) { timers.push(setInterval(fn, ms)); }

function readHash() {
  const hash = location.hash.replace(/^#/, '') || '/';
  const [path, query] = hash.split('?');
  return { parts: path.split('/').filter(Boolean), query: new URLSearchParams(query || '') };
}

function route() {
  timers.forEach(clearInterval);
  timers = [];
  generation++;
  setState('loading');
  const { parts, query } = readHash();
  if (parts[0] === 'sweep' && parts[1]) return sweepPage(parts[1]);
  if (parts[0] === 'plot' && parts[1]) return plotPage(parts[1], query);
  if (parts[0] === 'compare') return comparePage(query);
  if (parts[0] === 'history') return historyPage(query);
  return sweepsPage(query);
}

// --- the sweeps list -------------------------------------------------------

function sweepsPage(query) {
  const state = { q: query.get('q') || '', status: '', sort: 'id', order: 'desc', offset: 0, limit: 50 };
  const search = el('input', { id: 'sweeps-filter', type: 'search', placeholder: 'name, script, tag or id', value: state.q });
  const status = el('select', { id: 'sweeps-status' },
    ['', 'running', 'ok', 'failed', 'interrupted', 'error'].map(s => el('option', { value: s }, s || 'any status')));
  const body = el('div', { id: 'sweeps' });
  const pager = el('div', { class: 'controls' });
  main.replaceChildren(el('h1', {}, 'Sweeps'),
    el('div', { class: 'controls' }, search, status), body, pager);
  const mine = generation;
  const columns = [['id', 'id', 'id'], ['name', 'name', 'name'], ['tags', 'tags', null],
    ['script', 'script', 'script'], ['status', 'status', 'status'], ['points ok', 'points_ok', null],
    ['failed', 'points_failed', null], ['started', 'started_at', 'started'],
    ['duration', 'duration_s', 'duration']];
  // Answers may come back out of order (two quick clicks): only the newest
  // request's answer is shown.
  let latest = 0;
  async function load() {
    const request = ++latest;
    try {
      const data = await api('sweeps', state);
      if (request !== latest) return;
      if (mine !== generation) return;
      const visible = columns.filter(c => c[1] !== 'name' || data.has_names)
        .filter(c => c[1] !== 'tags' || data.has_tags);
      const head = el('tr', {}, visible.map(([label, , sort]) => el('th', {
        class: sort ? 'sortable' : null, 'data-sort': sort,
        on: sort ? { click: () => { state.order = state.sort === sort && state.order === 'desc' ? 'asc' : 'desc'; state.sort = sort; state.offset = 0; load(); } } : {}
      }, label, state.sort === sort ? (state.order === 'desc' ? ' ▼' : ' ▲') : '')));
      const rows = data.rows.map(r => el('tr', { 'data-id': r.id }, visible.map(([, key]) => {
        if (key === 'id') return el('td', { class: 'num' }, el('a', { href: '#/sweep/' + r.id }, r.id));
        if (key === 'tags') return el('td', {}, r.tags.map(t => el('span', { class: 'tag' }, t)));
        if (key === 'status') return el('td', {}, statusSpan(r.status));
        if (key === 'duration_s') return el('td', { class: 'num' }, seconds(r.duration_s));
        if (key === 'name') return el('td', { class: 'name' }, el('a', { href: '#/sweep/' + r.id }, cellText(r.name)));
        return el('td', { class: typeof r[key] === 'number' ? 'num' : null }, cellText(r[key]));
      })));
      body.replaceChildren(el('div', { class: 'scroll' }, el('table', { id: 'sweeps-table' }, el('thead', {}, head), el('tbody', {}, rows))));
      const last = Math.min(data.total, state.offset + data.rows.length);
      pager.replaceChildren(
        el('button', { id: 'sweeps-prev', disabled: state.offset === 0, on: { click: () => { state.offset = Math.max(0, state.offset - state.limit); load(); } } }, '← newer'),
        el('span', { id: 'sweeps-count' }, `${data.total ? state.offset + 1 : 0}–${last} of ${data.total}`),
        el('button', { id: 'sweeps-next', disabled: last >= data.total, on: { click: () => { state.offset += state.limit; load(); } } }, 'older →'));
      setState('loaded');
    } catch (e) { showError(body, e); setState('error'); }
  }
  let typing;
  search.addEventListener('input', () => { clearTimeout(typing); typing = setTimeout(() => { state.q = search.value; state.offset = 0; load(); }, 250); });
  status.addEventListener('change', () => { state.status = status.value; state.offset = 0; load(); });
  load();
  every(3000, load);   // new sweeps appear while the page stays open
}

// --- one sweep ---------------------------------------------------------------

async function sweepPage(id) {
  const mine = generation;
  let data;
  try { data = await api('sweep/' + encodeURIComponent(id)); } catch (e) { showError(main, e); setState('error'); return; }
  if (mine !== generation) return;
  const s = data.sweep;
  const title = el('h1', { id: 'sweep-title' }, 'Sweep ' + s.id + (s.name ? ': ' : ''), s.name ? el('span', { class: 'name' }, s.name) : null);
  const fields = [['status', statusSpan(s.status)], ['tags', (s.tags || []).map(t => el('span', { class: 'tag' }, t))],
    ['note', s.note], ['script', s.script_path], ['script sha256', s.script_sha256], ['started', s.started_at],
    ['ended', s.ended_at], ['seed', s.seed], ['runner', s.runner_version], ['git commit', s.git_commit || '(none)'],
    ['host', s.host], ['Slurm job', s.slurm_job_id ? s.slurm_job_id + (s.slurm_array_job_id ? ' (array ' + s.slurm_array_job_id + '_' + (s.slurm_array_task_id || '') + ')' : '') + (s.slurm_step_id ? ', step ' + s.slurm_step_id : '') : null],
    ['command line', s.command_line], ['options', s.options_json], ['--set', s.overrides_json]];
  const provenance = el('table', { id: 'provenance' }, fields.filter(f => f[1] !== undefined && f[1] !== null)
    .map(([k, v]) => el('tr', {}, el('th', {}, k), el('td', { class: 'mono' }, v))));
  const plugins = el('table', {}, el('tr', {}, ['plugin', 'version', 'shared object', 'sha256'].map(h => el('th', {}, h))),
    data.plugins.map(p => el('tr', {}, [p.plugin, p.plugin_version, p.so_path, p.so_sha256].map(v => el('td', { class: 'mono' }, v)))));
  const progress = el('div', { id: 'progress' });
  const compare = el('form', { class: 'controls', id: 'compare-form' }, 'Compare with sweep ',
    el('input', { id: 'compare-other', type: 'number', min: 1, size: 6 }), el('button', { type: 'submit' }, 'compare'));
  compare.addEventListener('submit', ev => { ev.preventDefault(); location.hash = `#/compare?a=${s.id}&b=${compare.querySelector('input').value}`; });
  main.replaceChildren(title, progress, findingsBlock(s.id, mine), el('details', {}, el('summary', {}, 'provenance'), provenance, plugins,
    el('h2', {}, 'script'), el('pre', { class: 'mono' }, s.script_text)), machineBlock(data.machine), compare);
  for (const section of data.sections) main.append(sectionBlock(section));
  await showProgress(s.id, progress, mine);
  setState('loaded');
}

// The machine the sweep ran on (sweep_machine, docs/serve.md): one line of
// what matters for timings, then what made them noisy, then every fact.
function machineBlock(machine) {
  if (!machine || !machine.facts.length)
    return el('p', { id: 'machine', class: 'machine-none' }, 'machine: not recorded (a runner before schema 17 ran this sweep)');
  const fact = name => (machine.facts.find(f => f.field === name) || {}).value;
  const noisy = machine.findings.filter(f => f.noisy).length;
  const summary = el('summary', {}, 'machine: ', el('span', { class: 'mono' },
    `${fact('cpu_model')}, ${fact('cpus_online')} cores, governor ${fact('governor')}, turbo ${fact('turbo')}`),
    noisy ? el('span', { class: 'noisy' }, ` · ${noisy} thing${noisy > 1 ? 's' : ''} made timings noisy`) : null);
  const findings = el('ul', { id: 'machine-findings' }, machine.findings.map(f =>
    el('li', { class: f.noisy ? 'noisy' : 'note' }, (f.noisy ? 'noisy: ' : 'note: ') + f.problem, el('br'), el('span', { class: 'mono' }, 'do: ' + f.advice))));
  const facts = el('table', { id: 'machine-facts' }, machine.facts.map(f => el('tr', {}, el('th', {}, f.field), el('td', { class: 'mono' }, f.value))));
  return el('details', { id: 'machine' }, summary, machine.findings.length ? findings : null, facts);
}

async function showProgress(id, where, mine) {
  async function poll() {
    let p;
    try { p = await api('sweep/' + id + '/progress'); } catch (e) { showError(where, e); return; }
    if (mine !== generation) return;
    const share = p.points_planned ? Math.min(1, p.points_done / p.points_planned) : 0;
    where.replaceChildren(statusSpan(p.status), ' ',
      el('span', { id: 'progress-done' }, p.points_done), ' of ', el('span', { id: 'progress-planned' }, p.points_planned),
      ' points done, ', el('span', { id: 'progress-failed' }, p.points_failed), ' failed',
      p.running ? ` · ${p.points_per_s.toFixed(1)} points/s · ETA ${p.eta_s === null ? '?' : seconds(p.eta_s)}` : ` · ${seconds(p.elapsed_s)}`,
      el('div', { class: 'bar' }, el('div', { style: null, 'data-share': share })));
    where.querySelector('.bar div').style.width = (share * 100).toFixed(1) + '%';
    where.dataset.running = p.running ? 'yes' : 'no';
    if (!p.running) { timers.forEach(clearInterval); timers = []; }
  }
  await poll();
  if (where.dataset.running === 'yes') every(1000, poll);
}

function headerCell(column) {
  return [column.name, column.unit && column.unit !== column.name ? el('span', { class: 'unit' }, ' [' + column.unit + ']') : null];
}

// A section's rows: a page at a time, sorted and filtered by the server.
function sectionBlock(section) {
  const state = { sort: '', order: 'asc', offset: 0, limit: 25, col: '', op: 'eq', value: '', after: '' };
  // Keyset paging in the default order: the server's `next` says where the
  // following page starts; the cursors of the pages before it go back.
  const cursors = [];
  const restart = () => { state.offset = 0; state.after = ''; cursors.length = 0; };
  const block = el('section', { class: 'section', 'data-section': section.id });
  const table = el('div', {});
  const pager = el('div', { class: 'controls' });
  const col = el('select', { class: 'filter-col' }, el('option', { value: '' }, 'filter on…'), section.columns.map(c => el('option', { value: c.name }, c.name)));
  const op = el('select', { class: 'filter-op' }, ['eq', 'ne', 'lt', 'le', 'gt', 'ge', 'contains'].map(o => el('option', { value: o }, o)));
  const value = el('input', { class: 'filter-value', size: 10 });
  const filter = el('form', { class: 'controls filter' }, col, op, value, el('button', { type: 'submit' }, 'filter'));
  filter.addEventListener('submit', ev => { ev.preventDefault(); Object.assign(state, { col: col.value, op: op.value, value: value.value }); restart(); load(); });
  // What the section shows first, by the rule runner show and report follow
  // (/api/section/N/view): varying columns in order, the rest folded into
  // one line, the default plot. Until it comes, every column is shown.
  const plotSlot = el('span', { class: 'plot-slot' });
  const folded = el('p', { class: 'constants' });
  let view = null;
  block.append(el('h2', {}, `${section.ordinal}. `, section.title || section.plugin, ' ', el('span', { class: 'note' }, `(${section.plugin}, ${section.points_done} of ${section.point_count} points, ${section.points_failed} failed)`), ' ', plotSlot), folded, filter, table, pager);
  const viewed = sectionView(section.id).then(v => {
    view = v;
    if (v.plot) {
      const q = new URLSearchParams({ x: v.plot.x, y: v.plot.y });
      if (v.plot.by) q.set('by', v.plot.by);
      if (v.plot.logx) q.set('logx', '1');
      if (v.plot.logy) q.set('logy', '1');
      // Named by what it opens: "plot: speedup against workers, by jitter".
      plotSlot.replaceChildren(el('a', { class: 'plot-link', href: `#/plot/${section.id}?${q}` },
        `plot: ${v.plot.y} against ${v.plot.x}` + (v.plot.by ? `, by ${v.plot.by}` : '')));
    } else {
      plotSlot.replaceChildren(el('span', { class: 'note no-plot' }, 'no plot: ' + v.no_plot));
    }
    if (v.folded.length) folded.replaceChildren('Same on every row: ', v.folded.map(f => f.text).join(' · '));
    folded.dataset.folded = v.folded.length;
  }).catch(() => { view = null; });
  const answersSlot = el('span', { class: 'answers-slot' });
  plotSlot.after(answersSlot);
  answerLinks(section.id, answersSlot, viewed.then(() => view));
  // Parallel coordinates for three or more varying parameters; a brush
  // there shows the brushed rows here instead of the server's page.
  const parallelSlot = el('div', { class: 'parallel-slot' });
  const brushed = el('span', { class: 'brushed note' });
  filter.after(parallelSlot);
  pager.after(brushed);
  let brushedRows = null;   // {columns, rows, of}: a brush is on
  // The view's order; a column it does not know (a sweep still running adds
  // some) comes last.
  function columnOrder(columns) {
    if (!view) return columns.map((c, i) => i);
    const named = view.shown.map(n => columns.findIndex(c => c.name === n)).filter(i => i >= 0);
    const foldedNames = new Set(view.folded.map(f => f.name));
    return named.concat(columns.map((c, i) => i).filter(i => !named.includes(i) && !foldedNames.has(columns[i].name)));
  }
  function drawTable(columns, rows) {
    const order = columnOrder(columns);
    const head = el('tr', {}, order.map(i => columns[i]).map(c => el('th', {
      class: 'sortable', 'data-column': c.name,
      on: { click: () => { state.order = state.sort === c.name && state.order === 'asc' ? 'desc' : 'asc'; state.sort = c.name; restart(); load(); } }
    }, headerCell(c), state.sort === c.name ? (state.order === 'desc' ? ' ▼' : ' ▲') : '')));
    // Numbers to the digits that tell the column's apart (csv and json keep all).
    const digits = order.map(i => distinguishingDigits(rows.map(r => r[i + 1])));
    const body = rows.map(r => el('tr', {}, order.map((i, k) => el('td', { class: isNumeric(r[i + 1]) ? 'num' : null, 'data-value': fullText(r[i + 1]) }, shortNumber(r[i + 1], digits[k])))));
    table.replaceChildren(el('div', { class: 'scroll' }, el('table', { class: 'rows' }, el('thead', {}, head), el('tbody', {}, body))));
  }
  function showBrushed(result) {
    brushedRows = result;
    if (!result) { brushed.textContent = ''; load(); return; }
    latest++;   // a page still on its way is not shown over the brushed rows
    drawTable(result.columns, result.rows.slice(0, SERVEI_MAX_PAGE_ROWS));
    pager.replaceChildren();
    brushed.textContent = `${result.rows.length} of ${result.of} rows brushed` +
      (result.total > result.of ? ` (the first ${result.of} of ${result.total})` : '') +
      (result.rows.length > SERVEI_MAX_PAGE_ROWS ? `; the first ${SERVEI_MAX_PAGE_ROWS} shown` : '') + '. Click an axis to clear its brush.';
  }
  viewed.then(() => {
    if (!view || !section.columns) return;
    const varying = view.shown.map(n => section.columns.find(c => c.name === n)).filter(Boolean);
    if (varying.filter(c => c.param).length >= 3) parallelView(section, varying, parallelSlot, showBrushed);
  });
  // Answers may come back out of order (two quick clicks): only the newest
  // request's answer is shown.
  let latest = 0;
  async function load() {
    const request = ++latest;
    try {
      const data = await api('section/' + section.id + '/rows', state);
      await viewed;
      if (request !== latest || brushedRows) return;
      drawTable(data.columns, data.rows);
      const last = state.offset + data.rows.length;
      pager.replaceChildren(
        el('button', { class: 'prev', disabled: state.offset === 0, on: { click: () => { state.offset = Math.max(0, state.offset - state.limit); state.after = cursors.pop() || ''; load(); } } }, '←'),
        el('span', { class: 'count' }, `rows ${data.total ? state.offset + 1 : 0}–${last} of ${data.total}`),
        el('button', { class: 'next', disabled: last >= data.total, on: { click: () => { state.offset += state.limit; if (data.next) { cursors.push(state.after); state.after = data.next; } load(); } } }, '→'));
    } catch (e) { showError(table, e); }
  }
  load();
  return block;
}

// --- parallel coordinates ----------------------------------------------------

const SERVEI_MAX_PAGE_ROWS = 500;   // the server's largest page
const PARALLEL_MAX_ROWS = 2000;     // rows drawn at most (the first ones)
const SVG = 'http://www.w3.org/2000/svg';

// A numeric axis's labels: its values when few (a grid), else its ends.
function distinctTicks(numbers, lo, hi) {
  const values = [...new Set(numbers)].sort((a, b) => a - b);
  return values.length <= 6 ? values : [lo, hi];
}

function svg(tag, attrs, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, String(v));
  for (const c of children) node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return node;
}

// One vertical axis per varying column (parameters, then results), one line
// per row; a drag along an axis brushes a range of it, a click clears it.
// onBrush gets the rows inside every brush ({columns, rows, of, total}), or
// null once no brush is left.
async function parallelView(section, varying, where, onBrush) {
  const mine = generation;
  const axes = varying.filter(c => c.param).concat(varying.filter(c => !c.param && (c.type === 'integer' || c.type === 'real')).slice(0, 4));
  let rows = [], columns = null, total = 0;
  try {
    for (let offset = 0; offset < PARALLEL_MAX_ROWS; offset += SERVEI_MAX_PAGE_ROWS) {
      const page = await api('section/' + section.id + '/rows', { offset, limit: SERVEI_MAX_PAGE_ROWS });
      columns = page.columns; total = page.total;
      rows = rows.concat(page.rows);
      if (rows.length >= total || !page.rows.length) break;
    }
  } catch (e) { showError(where, e); return; }
  if (mine !== generation) return;
  const width = 900, height = 240, top = 28, bottom = height - 16, left = 40, right = width - 70;
  const step = axes.length > 1 ? (right - left) / (axes.length - 1) : 0;
  // Each axis maps a cell to a height: numbers linearly (max on top), other
  // values as evenly spaced places in sorted order.
  const scales = axes.map((c, k) => {
    const index = columns.findIndex(d => d.name === c.name) + 1;
    const cells = rows.map(r => r[index]);
    const numbers = cells.filter(v => typeof v === 'number');
    const places = numbers.length === cells.length ? null : [...new Set(cells.map(cellText))].sort();
    const lo = numbers.length ? Math.min(...numbers) : 0, hi = numbers.length ? Math.max(...numbers) : 1;
    const at = places
      ? v => (places.length > 1 ? places.indexOf(cellText(v)) / (places.length - 1) : 0.5)
      : v => (typeof v !== 'number' ? null : hi > lo ? (v - lo) / (hi - lo) : 0.5);
    return { column: c, index, x: left + k * step, y: v => { const f = at(v); return f === null ? null : bottom - f * (bottom - top); },
      ticks: places || distinctTicks(numbers, lo, hi), brush: null };
  });
  const chart = svg('svg', { class: 'parallel', viewBox: `0 0 ${width} ${height}`, role: 'img' });
  const lines = rows.map(r => {
    const points = scales.map(s => [s.x, s.y(r[s.index])]);
    const d = points.filter(p => p[1] !== null).map((p, i) => (i ? 'L' : 'M') + p[0].toFixed(1) + ',' + p[1].toFixed(1)).join('');
    const path = svg('path', { class: 'row', d });
    chart.append(path);
    return { row: r, path };
  });
  function inside(line) { return scales.every(s => !s.brush || ((y => y !== null && y >= s.brush[0] && y <= s.brush[1])(s.y(line.row[s.index])))); }
  function apply() {
    const any = scales.some(s => s.brush);
    const kept = [];
    for (const line of lines) {
      const ok = !any || inside(line);
      line.path.classList.toggle('dim', !ok);
      if (ok) kept.push(line.row);
    }
    onBrush(any ? { columns, rows: kept, of: rows.length, total } : null);
  }
  const toSvg = ev => { const p = chart.createSVGPoint(); p.x = ev.clientX; p.y = ev.clientY; return p.matrixTransform(chart.getScreenCTM().inverse()); };
  for (const s of scales) {
    const g = svg('g', { class: 'axis', 'data-column': s.column.name });
    g.append(svg('line', { x1: s.x, x2: s.x, y1: top, y2: bottom }));
    g.append(svg('text', { x: s.x, y: top - 12, 'text-anchor': 'middle', class: 'axis-name' }, s.column.name));
    for (const t of s.ticks) g.append(svg('text', { x: s.x + 5, y: s.y(t) + 4, class: 'tick' }, typeof t === 'number' ? String(+t.toPrecision(4)) : t));
    const band = svg('rect', { class: 'brush', x: s.x - 8, width: 16, y: 0, height: 0 });
    const area = svg('rect', { class: 'brush-area', x: s.x - 10, y: top, width: 20, height: bottom - top });
    g.append(band, area);
    let from = null;
    // Within a few pixels of an end is the end: a brush from the top takes
    // the largest value in.
    const clamp = y => (y < top + 4 ? top : y > bottom - 4 ? bottom : y);
    const draw = (a, b) => { band.setAttribute('y', Math.min(a, b)); band.setAttribute('height', Math.abs(b - a)); };
    area.addEventListener('pointerdown', ev => { from = clamp(toSvg(ev).y); area.setPointerCapture(ev.pointerId); draw(from, from); });
    area.addEventListener('pointermove', ev => { if (from !== null) draw(from, clamp(toSvg(ev).y)); });
    area.addEventListener('pointerup', ev => {
      if (from === null) return;
      const to = clamp(toSvg(ev).y);
      s.brush = Math.abs(to - from) < 3 ? null : [Math.min(from, to), Math.max(from, to)];
      if (!s.brush) draw(0, 0);
      from = null;
      apply();
    });
    chart.append(g);
  }
  where.replaceChildren(el('p', { class: 'note' }, `Parallel coordinates of ${rows.length}${total > rows.length ? ' of ' + total : ''} rows: drag along an axis to brush, click it to clear.`), chart);
}

// --- plots -------------------------------------------------------------------

// dygraphs puts xlabel and ylabel into the page as HTML (innerHTML): a
// column name or unit reaches it escaped, so that it shows as text. (Its
// legend escapes series labels itself.)
function htmlText(text) {
  return String(text).replace(/[&<>"']/g, c => `&#${c.charCodeAt(0)};`);
}

async function plotPage(sectionId, query) {
  const mine = generation;
  const choice = { x: query.get('x') || '', y: query.get('y') || '', by: query.get('by') || '',
    logx: query.get('logx') === '1', logy: query.get('logy') === '1' };
  // The title names the section by its place in its sweep; the global id
  // stays in the URL.
  const heading = el('h1', { id: 'plot-title' }, 'Plot');
  main.replaceChildren(heading);
  api('section/' + encodeURIComponent(sectionId) + '/view').then(v => {
    if (mine === generation) heading.replaceChildren(`Sweep ${v.sweep_id}, section ${v.ordinal}${v.title ? ': ' : ''}`, v.title || '');
  }).catch(() => {});
  let rows;
  try { rows = await api('section/' + encodeURIComponent(sectionId) + '/rows', { limit: 1 }); } catch (e) { showError(main, e); setState('error'); return; }
  if (mine !== generation) return;
  const numeric = rows.columns.filter(c => c.type === 'integer' || c.type === 'real');
  // x may also be a text parameter (a delay law): each value a place of its own.
  const xs = rows.columns.filter(c => numeric.includes(c) || c.param);
  const select = (name, list, blank) => el('select', { id: 'plot-' + name }, blank ? el('option', { value: '' }, '(one line)') : null,
    list.map(c => el('option', { value: c.name, selected: c.name === choice[name] }, c.name)));
  const box = name => el('label', {}, el('input', { type: 'checkbox', id: 'plot-' + name, checked: choice[name] }), ' ' + name);
  const form = el('form', { class: 'controls' }, 'x ', select('x', xs), ' y ', select('y', numeric), ' by ', select('by', rows.columns, true),
    box('logx'), box('logy'), el('button', { type: 'submit', id: 'plot-draw' }, 'draw'));
  form.addEventListener('submit', ev => {
    ev.preventDefault();
    const q = new URLSearchParams({ x: form.querySelector('#plot-x').value, y: form.querySelector('#plot-y').value });
    if (form.querySelector('#plot-by').value) q.set('by', form.querySelector('#plot-by').value);
    if (form.querySelector('#plot-logx').checked) q.set('logx', '1');
    if (form.querySelector('#plot-logy').checked) q.set('logy', '1');
    location.hash = `#/plot/${sectionId}?${q}`;
  });
  const chart = el('div', { id: 'chart', class: 'chart' });
  const legend = el('div', { id: 'legend', class: 'legend' });
  const note = el('p', { id: 'plot-note', class: 'note' });
  const toggles = el('div', { id: 'series', class: 'controls' });
  main.append(form, chart, toggles, legend, note);
  if (typeof Dygraph === 'undefined') {
    chart.replaceChildren(el('p', { class: 'error', id: 'no-dygraphs' }, 'Plots need dygraphs (Debian package libjs-dygraphs), which this server could not find.'));
    setState('loaded');
    return;
  }
  try {
    const x = form.querySelector('#plot-x').value, y = form.querySelector('#plot-y').value;
    const drawn = await drawChart(chart, legend, sectionId, Object.assign({}, choice, { x, y }), mine);
    if (!drawn) return;
    const { graph, data, overlay } = drawn;
    if (overlay) legend.after(answersLegend(overlay));
    data.labels.slice(1).forEach((label, i) => {
      const box = el('input', { type: 'checkbox', checked: true, 'data-series': label });
      box.addEventListener('change', () => graph.setVisibility(i, box.checked));
      toggles.append(el('label', {}, box, label));
    });
    note.textContent = `${data.points_drawn} of ${data.points_total} points drawn` + (data.note ? ': ' + data.note : '') + '. Drag to zoom, double-click to reset.';
    setState('loaded');
  } catch (e) { showError(chart, e); setState('error'); }
}

// Series colours: each data line one of these, in order; a fit curve the
// colour of the line it was fitted to (dashed, its band shaded in it).
const PALETTE = ['#1f77b4', '#ff7f0e', '#2ca02c', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf', '#393b79', '#637939', '#843c39'];
const FRONT_COLOUR = '#d62728';

// Draws section sectionId's plot of choice {x, y, by, logx, logy} into
// chart (legend: its labels), with the stored fits and fronts of x and y
// over it. Returns {graph, data, overlay}, or null when the page moved on.
async function drawChart(chart, legend, sectionId, choice, mine) {
  if (typeof Dygraph === 'undefined') throw new Error('Plots need dygraphs (Debian package libjs-dygraphs), which this server could not find.');
  const { x, y } = choice;
  const data = await api('section/' + encodeURIComponent(sectionId) + '/plot', { x, y, by: choice.by });
  const answers = data.categories ? null
    : await api('section/' + encodeURIComponent(sectionId) + '/answers', { x, y, logx: choice.logx ? 1 : '' }).catch(() => null);
  if (mine !== generation) return null;
  const xu = data.x_unit && data.x_unit !== x ? ` [${data.x_unit}]` : '';
  const yu = data.y_unit && data.y_unit !== y ? ` [${data.y_unit}]` : '';
  const options = {
    labels: data.labels, xlabel: htmlText(x + xu), ylabel: htmlText(y + yu), labelsDiv: legend,
    connectSeparatedPoints: true, drawPoints: true, highlightCircleSize: 4, legend: 'always',
    colors: data.labels.slice(1).map((l, i) => PALETTE[i % PALETTE.length]),
    // Room for "5.00e+6" and "exponential" beside and under the axes.
    logscale: choice.logy, axes: { x: { logscale: choice.logx && !data.categories }, y: { axisLabelWidth: 64 } }
  };
  if (data.categories) {
    // Places 0, 1, ... named by the values; points only (no order joins them).
    const names = data.categories;
    const name = v => (Number.isInteger(v) && names[v] !== undefined ? names[v] : '');
    Object.assign(options, {
      strokeWidth: 0, pointSize: 4, dateWindow: [-0.5, names.length - 0.5],
      axes: { y: { axisLabelWidth: 64 }, x: { axisLabelWidth: 120, ticker: () => names.map((n, i) => ({ v: i, label: htmlText(n) })), valueFormatter: v => htmlText(name(v)) } }
    });
  }
  const overlay = overlayAnswers(data, answers, options, choice.by);
  const graph = new Dygraph(chart, data.rows, options);
  chart.dygraph = graph;   // the browser test reads its series
  chart.dataset.logx = graph.getOptionForAxis('logscale', 'x') ? 'yes' : 'no';
  chart.dataset.logy = graph.getOptionForAxis('logscale', 'y') ? 'yes' : 'no';
  return { graph, data, overlay };
}

// --- fits and fronts over a plot ---------------------------------------------

// The stored answers of the plot's x and y (/api/section/N/answers): each
// fit's curve with its 95 % band and each front's rows, computed by the
// server (runner fit's models, analysis/fit_band.c); the page only draws.
// Adds their series to data and options (customBars: every value becomes
// [low, value, high], the measured ones zero-wide) and returns what to list
// beside the chart, or null when there is nothing.
function overlayAnswers(data, answers, options, by) {
  if (!answers || (!answers.fits.length && !answers.fronts.length)) return null;
  const width = data.labels.length;
  const series = [];
  // The data line a fit curve belongs to: the one of its by value (labels
  // "jitter=2"), or the only line; its index among the data lines, or -1.
  const lineOf = f => {
    const lines = data.labels.slice(1);
    if (!f.by) return lines.length === 1 ? 0 : -1;
    if (f.by !== by) return -1;
    return lines.findIndex(l => {
      const v = l.slice(f.by.length + 1);
      return l.startsWith(f.by + '=') && (v === cellText(f.by_value) || (typeof f.by_value === 'number' && v !== '' && Number(v) === f.by_value));
    });
  };
  for (const f of answers.fits)
    series.push({ label: f.title, kind: 'fit', line: lineOf(f), values: f.points.map(([x, y, lo, hi]) =>
      [x, [lo === null || lo === undefined ? y : lo, y, hi === null || hi === undefined ? y : hi]]) });
  for (const front of answers.fronts) {
    const pts = front.points;
    series.push({ label: front.title, kind: 'front', values: pts.map(([x, y]) => [x, [y, y, y]]) });
    // The boundary of what the front dominates: from each row to the next,
    // along x first when x is minimised (the next row is further right),
    // along y first when it is maximised.
    const steps = [];
    pts.forEach(([x, y], i) => {
      if (i) steps.push(front.x_direction === 'max' ? [pts[i - 1][0], y] : [x, pts[i - 1][1]]);
      steps.push([x, y]);
    });
    series.push({ label: front.title + ' boundary', kind: 'steps', values: steps.map(([x, y]) => [x, [y, y, y]]) });
  }
  const rows = data.rows.map(r => r.map((v, i) => (i === 0 || v === null ? v : [v, v, v])).concat(series.map(() => null)));
  series.forEach((s, k) => {
    for (const [x, v] of s.values) {
      const row = new Array(width + series.length).fill(null);
      row[0] = x;
      row[width + k] = v;
      rows.push(row);
    }
  });
  rows.sort((a, b) => a[0] - b[0]);
  data.rows = rows;
  data.labels = data.labels.concat(series.map(s => s.label));
  options.labels = data.labels;
  options.customBars = true;
  options.fillAlpha = 0.18;
  options.series = options.series || {};
  // A fit of no drawn line takes the next colour after the lines'.
  let spare = width - 1;
  options.colors = options.colors.concat(series.map(s => s.kind !== 'fit' ? FRONT_COLOUR
    : s.line >= 0 ? options.colors[s.line] : PALETTE[spare++ % PALETTE.length]));
  for (const s of series) {
    options.series[s.label] = s.kind === 'fit' ? { drawPoints: false, strokeWidth: 2, strokePattern: [6, 3] }
      : s.kind === 'front' ? { strokeWidth: 0, pointSize: 5 }
        : { drawPoints: false, strokeWidth: 1.5 };
  }
  return { fits: answers.fits, fronts: answers.fronts, notes: answers.notes || [] };
}

// Links beside a section's plot link: one per stored fit and
// two-objective front, each named by what it opens ("usl fit of speedup
// against workers, by jitter", "front: min round_s, max speedup") and
// opening the plot of its columns, on the axes the view's rule gives them.
function answerLinks(sectionId, where, viewed) {
  Promise.all([api('section/' + sectionId + '/answers'), viewed.catch(() => null)]).then(([a, view]) => {
    const link = (cls, text, q) => [' ', el('a', { class: cls, href: `#/plot/${sectionId}?${q}` }, text)];
    where.replaceChildren(...[
      a.fits.map(f => link('fit-link', fitName(f), plotQuery(view, f.x, f.y, f.by))),
      a.fronts.map(f => link('front-link', `front: ${f.x_direction} ${f.x}, ${f.y_direction} ${f.y}`, plotQuery(view, f.x, f.y)))].flat(2));
  }).catch(() => {});
}

// Each fit's quantities with their intervals, as runner fit prints them,
// and each front's size: beside the chart, as text.
function answersLegend(overlay) {
  const number = v => (v === null || v === undefined ? '' : String(+v.toPrecision(6)));
  const tables = overlay.fits.map(f => el('table', { class: 'fit-params', 'data-fit': f.id },
    el('caption', {}, `${f.title}: y = ${f.formula}`,
      el('span', { class: 'note' }, ` · n = ${f.n}, r² = ${number(f.r2)}` + (f.weights ? `, weights ${f.weights}` : '') +
        (f.band_note ? ` · no band: ${f.band_note}` : ` · shaded: the curve's 95 % interval`))),
    el('thead', {}, el('tr', {}, ['quantity', 'value', 'stderr', 'ci95_low', 'ci95_high', 'unit'].map(h => el('th', {}, h)))),
    el('tbody', {}, f.params.map(p => el('tr', { 'data-name': p.name }, el('td', {}, p.name),
      ['value', 'stderr', 'ci_low', 'ci_high'].map(k => el('td', { class: 'num', 'data-value': p[k] === null ? '' : String(p[k]) }, number(p[k]))),
      el('td', {}, p.unit || ''))))));
  const fronts = overlay.fronts.map(f => el('p', { class: 'front-note', 'data-front': f.id },
    `${f.title}: ${f.front_size} of ${f.rows} rows on the front` + (f.points_drawn < f.front_size ? `, the first ${f.points_drawn} by ${f.x} drawn` : '') + ' (red circles; the line bounds what they beat).'));
  return el('div', { id: 'answers' }, tables, fronts, overlay.notes.map(n => el('p', { class: 'note' }, n)));
}

window.addEventListener('hashchange', route);
route();
