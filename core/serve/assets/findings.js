// runner serve's sweep page leads with what the sweep found
// (/api/sweep/ID/findings): the lines its script printed, then its stored
// answers (each fit with its quantities, intervals and a small plot, the
// fronts, sensitivity indices, diff --stat comparisons with verdicts).
// Also the page's number rule: a column's numbers shortened to the digits
// that tell them apart (csv and json keep every digit). app.js uses both.
'use strict';

// The significant digits (3 to 10) that keep a column's distinct numbers
// distinct; integers and a number's whole part are never cut.
function distinguishingDigits(values) {
  const numbers = [...new Set(values.filter(v => typeof v === 'number' && isFinite(v) && !Number.isInteger(v)))];
  for (let p = 3; p < 10; p++)
    if (new Set(numbers.map(v => v.toPrecision(p))).size === numbers.length) return p;
  return 10;
}

// A cell with every digit (a data- attribute: what tests and tools read).
function fullText(v) { return typeof v === 'number' ? String(v) : cellText(v); }

// A cell as text with at most `digits` significant digits (numbers only).
function shortNumber(v, digits) {
  if (typeof v !== 'number' || !isFinite(v) || Number.isInteger(v)) return cellText(v);
  const whole = Math.max(1, Math.floor(Math.log10(Math.abs(v))) + 1);
  return String(+v.toPrecision(Math.min(17, Math.max(digits, whole))));
}

// A section's view (/api/section/N/view), asked once per page.
let viewCache = { generation: -1, views: new Map() };
function sectionView(id) {
  if (viewCache.generation !== generation) viewCache = { generation, views: new Map() };
  if (!viewCache.views.has(id)) viewCache.views.set(id, api('section/' + id + '/view'));
  return viewCache.views.get(id);
}

// The plot link's query for x and y in a section: log axes by the view's
// rule (the server's section_view_log_axis, the same as the default plot's).
function plotQuery(view, x, y, by) {
  const q = new URLSearchParams({ x, y });
  if (by) q.set('by', by);
  if (view && view.log && view.log[x]) q.set('logx', '1');
  if (view && view.log && view.log[y]) q.set('logy', '1');
  return q;
}

// What a fit is called on the page: "usl fit of speedup against workers",
// with ", jitter = 2" for one curve of a --by fit.
function fitName(f, byValue) {
  return `${f.model} fit of ${f.y_column || f.y} against ${f.x_column || f.x}` +
    (byValue !== undefined && f.by_column ? `, ${f.by_column} = ${cellText(byValue)}` : f.by_column || f.by ? `, by ${f.by_column || f.by}` : '');
}

// r² to 4 digits, but never rounded up to a perfect 1.
function r2Text(r2) {
  return typeof r2 === 'number' && r2 < 1 && +r2.toPrecision(4) === 1 ? '> 0.9999' : shortNumber(r2, 4);
}

function findingsBlock(sweepId, mine) {
  const block = el('section', { id: 'findings' }, el('p', { class: 'note' }, 'Reading what this sweep found…'));
  api('sweep/' + sweepId + '/findings').then(f => {
    if (mine !== generation) return;
    const parts = [];
    if (f.printed.length)
      parts.push(el('div', { id: 'printed' }, el('h2', {}, 'What the script found'),
        el('ul', {}, f.printed.map(line => el('li', { class: 'finding' }, line.replace(/^=>\s*/, ''))))));
    const ordinalOf = id => (f.sections.find(s => s.id === id) || {}).ordinal;
    if (f.fits.length) parts.push(fitsBlock(f.fits, ordinalOf, mine));
    if (f.fronts.length)
      parts.push(el('div', { id: 'fronts' }, el('h2', {}, 'Trade-off fronts'), el('ul', {}, f.fronts.map(p =>
        el('li', { class: 'front', 'data-id': p.id }, `Section ${ordinalOf(p.section_id)}: ${p.front_size} of ${p.rows} rows on the front of ${p.objectives}` +
          (p.excluded ? ` (${p.excluded} rows left out: NaN)` : ''), frontLink(p))))));
    if (f.sensitivities.length) parts.push(sensitivityBlock(f.sensitivities, ordinalOf));
    if (f.comparisons.length)
      parts.push(el('div', { id: 'comparisons' }, el('h2', {}, 'Comparisons (runner diff --stat)'), f.comparisons.map(c => {
        return el('div', { class: 'comparison', 'data-id': c.id },
          el('p', {}, `Sweep ${c.sweep_a} against sweep ${c.sweep_b}: ${c.compared} points compared, ${c.changed} of ${c.row_count} rows changed` +
            (c.tolerance_s ? `, ${c.past_tolerance} past the tolerance of ${shortNumber(c.tolerance_s, 3)} s` : '') + '. ',
          el('a', { class: 'stat-link', href: `#/compare?a=${c.sweep_a}&b=${c.sweep_b}&stat=1` }, `every row: sweep ${c.sweep_a} against sweep ${c.sweep_b}, --stat`)),
          statTable(c.rows, null), c.row_count > c.rows.length ? el('p', { class: 'note' }, `the first ${c.rows.length} rows, changes first`) : null);
      })));
    block.classList.toggle('empty', !parts.length);
    if (!parts.length)
      parts.push(el('p', { class: 'note', id: 'no-findings' }, 'Nothing found yet: the script printed no line, and no fit, front or comparison of this sweep is stored (runner fit, pareto, sensitivity and diff --stat store them).'));
    block.replaceChildren(...parts);
    block.dataset.loaded = 'yes';
  }).catch(e => { showError(block, e); block.dataset.loaded = 'error'; });
  return block;
}

function frontLink(p) {
  const objectives = p.objectives.split(', ').map(o => o.split(' '));
  if (objectives.length !== 2) return null;
  const [[dx, x], [dy, y]] = objectives;
  const link = el('a', { class: 'front-link', href: '#' }, ` front: ${dx} ${x}, ${dy} ${y}`);
  sectionView(p.section_id).then(v => { link.href = `#/plot/${p.section_id}?${plotQuery(v, x, y)}`; }).catch(() => {});
  return [' · ', link];
}

// Fits by group: a caption, a small plot of the fitted section with every
// curve of the group, then a row per curve with each quantity and its
// interval.
function fitsBlock(fits, ordinalOf, mine) {
  const groups = new Map();
  for (const f of fits) {
    if (!groups.has(f.group)) groups.set(f.group, []);
    groups.get(f.group).push(f);
  }
  return el('div', { id: 'fits' }, el('h2', {}, 'Fits'), [...groups.values()].map(curves => {
    const f = curves[0];
    const names = [...new Set(curves.flatMap(c => c.params.map(p => p.name)))];
    const digits = Object.fromEntries(names.map(n => [n, distinguishingDigits(curves.flatMap(c => c.params.filter(p => p.name === n).flatMap(p => [p.value, p.ci_low, p.ci_high])))]));
    const chart = el('div', { class: 'chart small' });
    const legend = el('div', { class: 'legend small' });
    const link = el('a', { class: 'fit-link', href: '#' }, fitName(f));
    const rows = curves.map(c => {
      const name = fitName(c, c.by_column ? c.by_value : undefined);
      const curveLink = el('a', { class: 'fit-curve-link', href: '#' }, name);
      sectionView(c.section_id).then(v => { curveLink.href = `#/plot/${c.section_id}?${plotQuery(v, c.x_column, c.y_column, c.by_column)}`; }).catch(() => {});
      return el('tr', { 'data-fit': c.id }, el('td', {}, curveLink),
        el('td', { class: 'num' }, c.n), el('td', { class: 'num', 'data-value': fullText(c.r2) }, r2Text(c.r2)),
        names.map(n => {
          const p = c.params.find(q => q.name === n);
          if (!p) return el('td', {});
          return el('td', { class: 'num', 'data-name': n, 'data-value': fullText(p.value) }, shortNumber(p.value, digits[n]),
            p.ci_low === null || p.ci_low === undefined ? null
              : el('span', { class: 'interval' }, ` [${shortNumber(p.ci_low, digits[n])}, ${shortNumber(p.ci_high, digits[n])}]`));
        }));
    });
    const units = Object.fromEntries(curves[0].params.map(p => [p.name, p.unit]));
    const table = el('table', { class: 'fit-summary', 'data-group': f.group },
      el('caption', {}, `Section ${ordinalOf(f.section_id)}: y = ${f.formula}`, el('span', { class: 'note' }, ` · 95 % intervals in brackets`)),
      el('thead', {}, el('tr', {}, el('th', {}, 'fit'), el('th', {}, 'n'), el('th', {}, 'r²'),
        names.map(n => el('th', {}, n, units[n] ? el('span', { class: 'unit' }, ` [${units[n]}]`) : null)))),
      el('tbody', {}, rows));
    sectionView(f.section_id).then(v => {
      if (mine !== generation) return;
      const q = plotQuery(v, f.x_column, f.y_column, f.by_column);
      link.href = `#/plot/${f.section_id}?${q}`;
      return drawChart(chart, legend, f.section_id, { x: f.x_column, y: f.y_column, by: f.by_column || '', logx: q.has('logx'), logy: q.has('logy') }, mine);
    }).catch(e => showError(chart, e));
    return el('div', { class: 'fit-group', 'data-group': f.group }, el('h3', {}, link), el('div', { class: 'fit-row' }, chart, el('div', { class: 'scroll' }, table, legend)));
  }));
}

function sensitivityBlock(indices, ordinalOf) {
  const byAnalysis = new Map();
  for (const i of indices) {
    if (!byAnalysis.has(i.id)) byAnalysis.set(i.id, []);
    byAnalysis.get(i.id).push(i);
  }
  const ci = (v, lo, hi) => [shortNumber(v, 3), lo === null || lo === undefined ? '' : ` [${shortNumber(lo, 3)}, ${shortNumber(hi, 3)}]`];
  return el('div', { id: 'sensitivities' }, el('h2', {}, 'Sensitivity (Sobol indices)'), [...byAnalysis.values()].map(list =>
    el('table', { class: 'sensitivity', 'data-id': list[0].id },
      el('caption', {}, `Section ${ordinalOf(list[0].section_id)}: what ${list[0].y_column} depends on (${list[0].base_samples} base samples)`),
      el('thead', {}, el('tr', {}, ['parameter', 'first order', 'total'].map(h => el('th', {}, h)))),
      el('tbody', {}, list.map(i => el('tr', {}, el('td', {}, i.parameter),
        el('td', { class: 'num' }, ci(i.first_order, i.first_low, i.first_high)), el('td', { class: 'num' }, ci(i.total, i.total_low, i.total_high))))))));
}
