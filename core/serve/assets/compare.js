// runner serve's compare page (#/compare?a=A&b=B&section=N): two sweeps'
// sections side by side as `runner diff` matches them, and with stat=1 the
// stored `runner diff --stat A B` with its verdicts and intervals. The
// rows come sorted by the server (parameters by their typed values); the
// page puts the varying parameters first and folds what is the same on
// every row into one line, as `runner show` does. app.js routes here.
'use strict';

async function comparePage(query) {
  const mine = generation;
  const state = { a: query.get('a') || '', b: query.get('b') || '', section: query.get('section') || '1',
    only: query.get('only') || '', stat: query.get('stat') || '', offset: 0, limit: 100 };
  const input = (name, size) => el('input', { id: 'compare-' + name, value: state[name], size });
  const box = (id, checked, label) => el('label', {}, el('input', { type: 'checkbox', id, checked }), label);
  const form = el('form', { class: 'controls' }, 'sweep ', input('a', 6), ' against sweep ', input('b', 6), ' section ', input('section', 3),
    box('compare-only', state.only === 'diff', ' only differing rows'),
    box('compare-stat', state.stat === '1', ' --stat: repeats against their noise'), el('button', { type: 'submit' }, 'compare'));
  form.addEventListener('submit', ev => {
    ev.preventDefault();
    const q = new URLSearchParams({ a: form.querySelector('#compare-a').value, b: form.querySelector('#compare-b').value, section: form.querySelector('#compare-section').value });
    if (form.querySelector('#compare-only').checked) q.set('only', 'diff');
    if (form.querySelector('#compare-stat').checked) q.set('stat', '1');
    location.hash = '#/compare?' + q;
  });
  const summary = el('p', { id: 'compare-summary' });
  const changes = el('div', { id: 'compare-changes' });
  const folded = el('p', { id: 'compare-folded', class: 'constants' });
  const body = el('div', { id: 'compare' });
  const pager = el('div', { class: 'controls' });
  main.replaceChildren(el('h1', {}, state.stat ? 'Compare two sweeps: diff --stat' : 'Compare two sweeps'), form, summary, changes, folded, body, pager);
  if (!state.a || !state.b) { setState('loaded'); return; }
  const pagerOf = (total, shown, load) => pager.replaceChildren(
    el('button', { disabled: state.offset === 0, on: { click: () => { state.offset = Math.max(0, state.offset - state.limit); load(); } } }, '←'),
    el('span', {}, `rows ${total ? state.offset + 1 : 0}–${state.offset + shown} of ${total}`),
    el('button', { disabled: state.offset + shown >= total, on: { click: () => { state.offset += state.limit; load(); } } }, '→'));
  // Answers may come back out of order (two quick clicks): only the newest
  // request's answer is shown.
  let latest = 0;
  async function load() {
    const request = ++latest;
    try {
      const data = await api('compare', state);
      if (request !== latest || mine !== generation) return;
      if (state.stat) showStat(data); else showRows(data);
      pagerOf(data.total, data.rows.length, load);
      setState('loaded');
    } catch (e) { showError(body, e); setState('error'); }
  }

  function showRows(data) {
    const c = data.counts;
    summary.textContent = `${c.rows} rows matched by parameters: ${c.differing} differ, ${c.only_a} only in sweep ${data.a}, ${c.only_b} only in sweep ${data.b}.`;
    // runner diff's own figures: points, then per output column.
    const p = data.points;
    const points = el('p', { id: 'compare-points', 'data-both': p.both, 'data-only-a': p.only_a, 'data-only-b': p.only_b,
      'data-status-changed': p.status_changed, 'data-rows-unmatched': p.rows_unmatched },
    `Points (as runner diff counts them): ${p.both} in both, ${p.only_a} only in sweep ${data.a}, ${p.only_b} only in sweep ${data.b}, ${p.status_changed} changed status, ${p.rows_unmatched} rows unmatched.`);
    const keys = ['name', 'rows', 'changed', 'max_abs_change', 'max_rel_change'];
    const table = el('table', { id: 'compare-columns' }, el('thead', {}, el('tr', {}, ['column', 'rows', 'changed', 'max abs change', 'max rel change'].map(h => el('th', {}, h)))),
      el('tbody', {}, data.changes.map(ch => el('tr', { class: ch.changed ? 'changed' : null }, keys.map(k =>
        el('td', { class: k === 'name' ? null : 'num', 'data-value': String(ch[k]) }, typeof ch[k] === 'number' ? shortNumber(ch[k], 4) : cellText(ch[k])))))));
    changes.replaceChildren(points, el('div', { class: 'scroll' }, table));
    // Varying parameters first, then the outputs that vary; the rest folded.
    const params = data.params.map((col, i) => ({ col, i })).filter(x => x.col.varies);
    const outputs = data.outputs.map((col, i) => ({ col, i })).filter(x => x.col.varies);
    const same = data.params.concat(data.outputs).filter(col => !col.varies && col.value !== undefined);
    folded.replaceChildren(same.length ? 'Same on every row: ' + same.map(col => `${col.name} = ${cellText(col.value)}${col.unit && col.unit !== col.name ? ' ' + col.unit : ''}`).join(' · ') : '');
    folded.dataset.folded = same.length;
    const paramDigits = params.map(({ i }) => distinguishingDigits(data.rows.map(r => r.params[i])));
    const outputDigits = outputs.map(({ i }) => distinguishingDigits(data.rows.flatMap(r => r.outputs[i])));
    const head = el('tr', {}, params.map(({ col }) => el('th', { 'data-column': col.name }, headerCell(col))),
      outputs.map(({ col }) => [el('th', {}, headerCell(col), ` (${data.a})`), el('th', {}, headerCell(col), ` (${data.b})`)]));
    const rows = data.rows.map(r => el('tr', { class: r.in_a && r.in_b ? null : 'only', 'data-differs': r.differs ? 'yes' : 'no' },
      params.map(({ i }, k) => el('td', { class: isNumeric(r.params[i]) ? 'num' : null, 'data-value': fullText(r.params[i]) }, shortNumber(r.params[i], paramDigits[k]))),
      outputs.map(({ i }, k) => {
        const [a, b] = r.outputs[i];
        const differs = r.in_a && r.in_b && cellText(a) !== cellText(b);
        return [el('td', { class: (differs ? 'differs ' : '') + 'num', 'data-value': fullText(a) }, r.in_a ? shortNumber(a, outputDigits[k]) : '—'),
          el('td', { class: (differs ? 'differs ' : '') + 'num', 'data-value': fullText(b) }, r.in_b ? shortNumber(b, outputDigits[k]) : '—')];
      })));
    body.replaceChildren(el('div', { class: 'scroll' }, el('table', { id: 'compare-table' }, el('thead', {}, head), el('tbody', {}, rows))));
  }

  // The stored diff --stat: the command's own rows, verdicts and intervals.
  function showStat(data) {
    changes.replaceChildren();
    folded.replaceChildren();
    if (!data.stat) {
      summary.replaceChildren(el('span', { id: 'compare-stat-none' }, `No diff --stat of sweep ${data.a} against sweep ${data.b} is stored. The dashboard only reads; run `),
        el('code', {}, data.command), ' and this page shows its verdicts.');
      body.replaceChildren();
      return;
    }
    const s = data.stat;
    summary.replaceChildren(el('span', { id: 'compare-stat-summary', 'data-id': s.id },
      `runner diff --stat ${data.a} ${data.b} (stored as comparison ${s.id}, ${s.created_at}): ${s.compared} points compared, ` +
      `${s.changed} of ${s.row_count} rows changed, ${s.past_tolerance} past the tolerance of ${shortNumber(s.tolerance_s, 3)} s; ` +
      `intervals at ${shortNumber(100 * s.confidence, 3)} %.`));
    body.replaceChildren(statTable(data.rows, 'compare-stat-table'));
  }
  load();
}

// diff --stat's rows as the command prints them: the point, the column, each
// side's mean ± sd (n), the ratio b/a with its interval, p and the verdict.
function statTable(rows, id) {
  const digits = k => distinguishingDigits(rows.map(r => r[k]));
  const d = { mean: distinguishingDigits(rows.flatMap(r => [r.mean_a, r.mean_b])), ratio: Math.max(3, digits('ratio')) };
  const side = (mean, sd, n) => `${shortNumber(mean, d.mean)} ± ${shortNumber(sd, 2)} (n = ${n})`;
  const interval = r => (r.ratio_low === null || r.ratio_low === undefined ? '' : `[${shortNumber(r.ratio_low, d.ratio)}, ${shortNumber(r.ratio_high, d.ratio)}]`);
  return el('div', { class: 'scroll' }, el('table', { id, class: 'stat' },
    el('thead', {}, el('tr', {}, ['point', 'column', 'a: mean ± sd', 'b: mean ± sd', 'ratio b/a', 'interval', 'p', 'test', 'verdict'].map(h => el('th', {}, h)))),
    el('tbody', {}, rows.map(r => el('tr', { class: r.verdict === 'no change' ? null : 'changed', 'data-position': r.position },
      el('td', { class: 'mono' }, r.point), el('td', {}, r.column_name, r.unit ? el('span', { class: 'unit' }, ` [${r.unit}]`) : null),
      el('td', { class: 'num' }, side(r.mean_a, r.sd_a, r.n_a)), el('td', { class: 'num' }, side(r.mean_b, r.sd_b, r.n_b)),
      el('td', { class: 'num ratio', 'data-value': fullText(r.ratio) }, shortNumber(r.ratio, d.ratio)),
      el('td', { class: 'num interval', 'data-low': fullText(r.ratio_low), 'data-high': fullText(r.ratio_high) }, interval(r)),
      el('td', { class: 'num', 'data-value': fullText(r.p_value) }, shortNumber(r.p_value, 2)),
      el('td', {}, r.test), el('td', { class: 'verdict' }, r.verdict))))));
}
