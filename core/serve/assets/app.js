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
      body.replaceChildren(el('table', { id: 'sweeps-table' }, el('thead', {}, head), el('tbody', {}, rows)));
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
  main.replaceChildren(title, progress, el('details', {}, el('summary', {}, 'provenance'), provenance, plugins,
    el('h2', {}, 'script'), el('pre', { class: 'mono' }, s.script_text)), compare);
  for (const section of data.sections) main.append(sectionBlock(section));
  await showProgress(s.id, progress, mine);
  setState('loaded');
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
  const viewed = api('section/' + section.id + '/view').then(v => {
    view = v;
    if (v.plot) {
      const q = new URLSearchParams({ x: v.plot.x, y: v.plot.y });
      if (v.plot.by) q.set('by', v.plot.by);
      if (v.plot.logx) q.set('logx', '1');
      if (v.plot.logy) q.set('logy', '1');
      plotSlot.replaceChildren(el('a', { class: 'plot-link', href: `#/plot/${section.id}?${q}` }, 'plot'));
    } else {
      plotSlot.replaceChildren(el('span', { class: 'note no-plot' }, 'no plot: ' + v.no_plot));
    }
    if (v.folded.length) folded.replaceChildren('Same on every row: ', v.folded.map(f => f.text).join(' · '));
    folded.dataset.folded = v.folded.length;
  }).catch(() => { view = null; });
  // Answers may come back out of order (two quick clicks): only the newest
  // request's answer is shown.
  let latest = 0;
  async function load() {
    const request = ++latest;
    try {
      const data = await api('section/' + section.id + '/rows', state);
      await viewed;
      if (request !== latest) return;
      // The view's order; a column it does not know (a sweep still running
      // adds some) comes last.
      const named = view ? view.shown.map(n => data.columns.findIndex(c => c.name === n)).filter(i => i >= 0) : [];
      const foldedNames = view ? new Set(view.folded.map(f => f.name)) : new Set();
      const order = view ? named.concat(data.columns.map((c, i) => i).filter(i => !named.includes(i) && !foldedNames.has(data.columns[i].name))) : data.columns.map((c, i) => i);
      const head = el('tr', {}, order.map(i => data.columns[i]).map(c => el('th', {
        class: 'sortable', 'data-column': c.name,
        on: { click: () => { state.order = state.sort === c.name && state.order === 'asc' ? 'desc' : 'asc'; state.sort = c.name; restart(); load(); } }
      }, headerCell(c), state.sort === c.name ? (state.order === 'desc' ? ' ▼' : ' ▲') : '')));
      const rows = data.rows.map(r => el('tr', {}, order.map(i => r[i + 1]).map(v => el('td', { class: isNumeric(v) ? 'num' : null }, cellText(v)))));
      table.replaceChildren(el('table', { class: 'rows' }, el('thead', {}, head), el('tbody', {}, rows)));
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

// --- plots -------------------------------------------------------------------

// dygraphs puts xlabel and ylabel into the page as HTML (innerHTML): a
// column name or unit reaches it escaped, so that it shows as text. (Its
// legend escapes series labels itself.)
function htmlText(text) {
  return String(text).replace(/[&<>"']/g, c => `&#${c.charCodeAt(0)};`);
}

async function plotPage(sectionId, query) {
  const mine = generation;
  const choice = { x: query.get('x') || '', y: query.get('y') || '', by: query.get('by') || '' };
  // The title names the section by its place in its sweep; the global id
  // stays in the URL.
  const heading = el('h1', { id: 'plot-title' }, 'Plot');
  main.replaceChildren(heading);
  api('section/' + encodeURIComponent(sectionId) + '/view').then(v => {
    if (mine === generation) heading.replaceChildren(`Sweep ${v.sweep_id}, section ${v.ordinal}: `, v.title || '');
  }).catch(() => {});
  let rows;
  try { rows = await api('section/' + encodeURIComponent(sectionId) + '/rows', { limit: 1 }); } catch (e) { showError(main, e); setState('error'); return; }
  if (mine !== generation) return;
  const numeric = rows.columns.filter(c => c.type === 'integer' || c.type === 'real');
  const select = (name, list, blank) => el('select', { id: 'plot-' + name }, blank ? el('option', { value: '' }, '(one line)') : null,
    list.map(c => el('option', { value: c.name, selected: c.name === choice[name] }, c.name)));
  const form = el('form', { class: 'controls' }, 'x ', select('x', numeric), ' y ', select('y', numeric), ' by ', select('by', rows.columns, true), el('button', { type: 'submit' }, 'draw'));
  form.addEventListener('submit', ev => {
    ev.preventDefault();
    const q = new URLSearchParams({ x: form.querySelector('#plot-x').value, y: form.querySelector('#plot-y').value });
    if (form.querySelector('#plot-by').value) q.set('by', form.querySelector('#plot-by').value);
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
    const data = await api('section/' + encodeURIComponent(sectionId) + '/plot', { x, y, by: choice.by });
    if (mine !== generation) return;
    const xs = data.x_unit && data.x_unit !== x ? ` [${data.x_unit}]` : '';
    const ys = data.y_unit && data.y_unit !== y ? ` [${data.y_unit}]` : '';
    const graph = new Dygraph(chart, data.rows, {
      labels: data.labels, xlabel: htmlText(x + xs), ylabel: htmlText(y + ys), labelsDiv: legend,
      connectSeparatedPoints: true, drawPoints: true, highlightCircleSize: 4, legend: 'always'
    });
    data.labels.slice(1).forEach((label, i) => {
      const box = el('input', { type: 'checkbox', checked: true, 'data-series': label });
      box.addEventListener('change', () => graph.setVisibility(i, box.checked));
      toggles.append(el('label', {}, box, label));
    });
    note.textContent = `${data.points_drawn} of ${data.points_total} points drawn` + (data.note ? ': ' + data.note : '') + '. Drag to zoom, double-click to reset.';
    setState('loaded');
  } catch (e) { showError(chart, e); setState('error'); }
}

// --- compare -----------------------------------------------------------------

async function comparePage(query) {
  const mine = generation;
  const state = { a: query.get('a') || '', b: query.get('b') || '', section: query.get('section') || '1', only: query.get('only') || '', offset: 0, limit: 100 };
  const input = (name, size) => el('input', { id: 'compare-' + name, value: state[name], size });
  const form = el('form', { class: 'controls' }, 'sweep ', input('a', 6), ' against sweep ', input('b', 6), ' section ', input('section', 3),
    el('label', {}, el('input', { type: 'checkbox', id: 'compare-only', checked: state.only === 'diff' }), ' only differing rows'), el('button', { type: 'submit' }, 'compare'));
  form.addEventListener('submit', ev => {
    ev.preventDefault();
    const q = new URLSearchParams({ a: form.querySelector('#compare-a').value, b: form.querySelector('#compare-b').value, section: form.querySelector('#compare-section').value });
    if (form.querySelector('#compare-only').checked) q.set('only', 'diff');
    location.hash = '#/compare?' + q;
  });
  const summary = el('p', { id: 'compare-summary' });
  const body = el('div', { id: 'compare' });
  const pager = el('div', { class: 'controls' });
  main.replaceChildren(el('h1', {}, 'Compare two sweeps'), form, summary, body, pager);
  if (!state.a || !state.b) { setState('loaded'); return; }
  // Answers may come back out of order (two quick clicks): only the newest
  // request's answer is shown.
  let latest = 0;
  async function load() {
    const request = ++latest;
    try {
      const data = await api('compare', state);
      if (request !== latest) return;
      if (mine !== generation) return;
      const c = data.counts;
      summary.textContent = `${c.rows} rows matched by parameters: ${c.differing} differ, ${c.only_a} only in sweep ${data.a}, ${c.only_b} only in sweep ${data.b}.`;
      const head = el('tr', {}, data.params.map(p => el('th', {}, headerCell(p))),
        data.outputs.map(o => [el('th', {}, headerCell(o), ` (${data.a})`), el('th', {}, headerCell(o), ` (${data.b})`)]));
      const rows = data.rows.map(r => el('tr', { class: r.in_a && r.in_b ? null : 'only', 'data-differs': r.differs ? 'yes' : 'no' },
        r.params.map(v => el('td', { class: isNumeric(v) ? 'num' : null }, cellText(v))),
        r.outputs.map(([a, b]) => {
          const differs = r.in_a && r.in_b && cellText(a) !== cellText(b);
          return [el('td', { class: (differs ? 'differs ' : '') + 'num' }, r.in_a ? cellText(a) : '—'),
            el('td', { class: (differs ? 'differs ' : '') + 'num' }, r.in_b ? cellText(b) : '—')];
        })));
      body.replaceChildren(el('table', { id: 'compare-table' }, el('thead', {}, head), el('tbody', {}, rows)));
      const total = data.total;
      const last = state.offset + data.rows.length;
      pager.replaceChildren(
        el('button', { disabled: state.offset === 0, on: { click: () => { state.offset = Math.max(0, state.offset - state.limit); load(); } } }, '←'),
        el('span', {}, `rows ${total ? state.offset + 1 : 0}–${last} of ${total}`),
        el('button', { disabled: last >= total, on: { click: () => { state.offset += state.limit; load(); } } }, '→'));
      setState('loaded');
    } catch (e) { showError(body, e); setState('error'); }
  }
  load();
}

window.addEventListener('hashchange', route);
route();
