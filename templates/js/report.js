// The NVTX report page (templates/report.html, `gpuflame report --html`): the analysis (docs/ANALYZE.md)
// and the report's extras from inert JSON elements, drawn as tables and SVG bars; every name reaches the
// page as text.
(function () {
'use strict';
const A = gfPage.json('rp-analysis');
const X = gfPage.json('rp-extra');
const el = gfPage.el;
const NS = document.getElementById('ns-probe').namespaceURI;
function svgEl(tag, attrs, text) { const e = document.createElementNS(NS, tag); for (const k in attrs || {}) e.setAttribute(k, attrs[k]); if (text !== undefined) e.textContent = text; return e; }
function showValue(v) { return v === null || v === undefined ? '\u2014' : (typeof v === 'object' ? JSON.stringify(v) : String(v)); }
function ns(v) { if (v === null || v === undefined) return '\u2014'; const a = Math.abs(v);
  if (a >= 1e9) return (v / 1e9).toFixed(3) + ' s'; if (a >= 1e6) return (v / 1e6).toFixed(3) + ' ms';
  if (a >= 1e3) return (v / 1e3).toFixed(1) + ' \u00b5s'; return (Number.isInteger(v) ? v : v.toFixed(1)) + ' ns'; }
function row(table, cells, head, plain) { const tr = el("tr"); cells.forEach((c, i) => { const td = el(head ? "th" : "td", {}, c); if (!head && !plain && i > 0 && /\d/.test(c) && !/[a-zA-Z_]{4}/.test(c.replace(/ms|µs|ns|s$/g, ''))) td.className = 'num'; tr.appendChild(td); }); table.appendChild(tr); }
const run = A.run, prov = A.provenance || {}, wl = run.workload || {}, is = A.iteration_summary || {};
const meta = document.getElementById('meta');
[['Profile', showValue(run.profile_name)], ['Run ID', showValue(run.run_id)], ['Git commit', showValue(run.git_commit)], ['Device', showValue(run.device)],
 ['Nsight Systems', showValue(prov.nsys_version)], ['Capture range', showValue(run.capture_range)], ['Warm-up passes', showValue(wl.warmup) + ' (outside the capture)'],
 ['Iterations (manifest)', showValue(wl.iterations)], ['Records', showValue(run.record_count) + (wl.record_loading ? ' (' + showValue(wl.record_loading) + ' loading)' : '')],
 ['Synchronization policy', X.sync], ['Analysis', X.path + ' (schema_version ' + showValue(A.schema_version) + ')']].forEach(r => row(meta, r, false, true));
const fl = document.getElementById('findings');
const label = { warning: 'Warning', missing: 'Missing data', first_iteration: 'First iteration', variance: 'Variance', note: 'Note' };
if (!X.findings.length) fl.appendChild(el('li', {}, 'No warnings; no missing data; no first-iteration effect or large variance detected.'));
X.findings.forEach(f => { const li = el('li', { class: 'k-' + f.kind }); li.appendChild(el('b', {}, label[f.kind] + ': ')); li.appendChild(document.createTextNode(f.text)); fl.appendChild(li); });
// the rules' findings (report --findings, or findings.json beside analysis.json): verdicts, then each rule's first rows
if (X.rules && Array.isArray(X.rules.findings)) {
  document.getElementById('rules-section').hidden = false;
  document.getElementById('rules-source').textContent = 'From ' + X.rules.path + (X.rules.input ? ' (' + X.rules.input + ')' : '') +
    ': gpuflame findings rules over the capture\u2019s trace.';
  const rt = document.getElementById('rules'), rr = document.getElementById('rule-rows');
  const sevs = ['warning', 'info', 'ok', 'skipped', 'error'];
  row(rt, ['Rule', 'Severity', 'Verdict'], true);
  X.rules.findings.forEach(f => {
    const tr = el('tr'), sev = sevs.includes(f.severity) ? f.severity : 'info';
    tr.appendChild(el('td', {}, showValue(f.rule))); tr.appendChild(el('td', { class: 'sev-' + sev }, sev)); tr.appendChild(el('td', {}, showValue(f.text)));
    if (f.advice || f.description) tr.title = String(f.advice || f.description);
    rt.appendChild(tr);
    if (!f.rows || !f.rows.length) return;
    rr.appendChild(el('h3', {}, showValue(f.rule)));
    if (f.advice) rr.appendChild(el('p', { class: 'note' }, String(f.advice)));
    const t = el('table');
    row(t, f.columns.map(String), true);
    f.rows.forEach(r => row(t, r.map(String), false, true));
    rr.appendChild(t);
    if (f.total_rows > f.rows.length) rr.appendChild(el('p', { class: 'note' }, f.rows.length + ' of ' + f.total_rows + ' rows.'));
  });
}

// per-iteration grouped bars
(function () {
  const its = A.iterations || [], box = document.getElementById('iterchart');
  if (!its.length) { box.appendChild(el('p', { class: 'note' }, 'No harness iterations were found.')); return; }
  let max = 0; its.forEach(it => { if (it.host) max = Math.max(max, it.host.inclusive_ns); if (it.gpu_projection) max = Math.max(max, it.gpu_projection.projected_ns); });
  const W = Math.max(600, Math.min(1050, 60 + its.length * 18)), H = 260, L = 70, B = 30, pw = W - L - 10, ph = H - B - 10;
  const s = svgEl('svg', { width: W, height: H, role: 'img', 'aria-label': 'per-iteration host-inclusive and GPU-projected time' });
  for (let k = 0; k <= 4; k++) { const y = 10 + ph - ph * k / 4; s.appendChild(svgEl('line', { x1: L, x2: L + pw, y1: y, y2: y, class: 'axis' }));
    s.appendChild(svgEl('text', { x: L - 6, y: y + 4, 'text-anchor': 'end' }, ns(max * k / 4))); }
  const slot = pw / its.length, bw = Math.max(1, slot * 0.4);
  its.forEach((it, i) => {
    const x0 = L + i * slot + slot * 0.1;
    [[it.host && it.host.inclusive_ns, 'var(--host)', 'host inclusive'], [it.gpu_projection && it.gpu_projection.projected_ns, 'var(--gpu)', 'GPU projected']].forEach((b, j) => {
      const x = x0 + j * bw;
      if (b[0] === null || b[0] === undefined) { s.appendChild(svgEl('text', { x: x, y: 10 + ph - 2, fill: '#b35900' }, '\u00d7')); return; }
      const h = max > 0 ? ph * b[0] / max : 0;
      const r = svgEl('rect', { x: x, y: 10 + ph - h, width: bw, height: h, fill: b[1] });
      r.appendChild(svgEl('title', {}, 'iteration ' + it.index + ': ' + b[2] + ' ' + ns(b[0])));
      s.appendChild(r);
    });
    if (its.length <= 40 || i % Math.ceil(its.length / 40) === 0) s.appendChild(svgEl('text', { x: x0 + bw, y: H - 12, 'text-anchor': 'middle' }, String(it.index)));
  });
  s.appendChild(svgEl('text', { x: L + pw / 2, y: H - 1, 'text-anchor': 'middle' }, 'iteration'));
  box.appendChild(s);
})();
const st = document.getElementById('itersummary');
row(st, ['Per iteration', 'n', 'total', 'mean', 'median', 'min', 'max', 'stddev'], true);
[['Host inclusive', is.host_inclusive, is.host_iterations], ['Host exclusive', is.host_exclusive, is.host_iterations], ['GPU projected', is.gpu_projected, is.gpu_projected_iterations]].forEach(r => {
  const s = r[1]; if (!s) { row(st, [r[0], String(r[2] || 0), '\u2014', '\u2014', '\u2014', '\u2014', '\u2014', '\u2014']); return; }
  row(st, [r[0], String(r[2]), ns(s.total_ns), ns(s.mean_ns), ns(s.median_ns), ns(s.minimum_ns), ns(s.maximum_ns), ns(s.stddev_ns)]); });

function hbars(boxId, list, val, color) {
  const box = document.getElementById(boxId);
  if (!list.length) { box.appendChild(el('p', { class: 'note' }, 'None.')); return; }
  const W = 1000, rowH = 20, L = 330, H = list.length * rowH + 10, max = Math.max.apply(null, list.map(val)) || 1;
  const s = svgEl('svg', { width: W, height: H, role: 'img' });
  list.forEach((r, i) => { const y = 5 + i * rowH, w = (W - L - 90) * val(r) / max;
    const name = r.name.length > 48 ? r.name.slice(0, 47) + '\u2026' : r.name;
    s.appendChild(svgEl('text', { x: L - 6, y: y + 13, 'text-anchor': 'end' }, name + (r.style && r.style !== 'PushPop' ? ' [' + r.style + ']' : '')));
    const rect = svgEl('rect', { x: L, y: y + 2, width: Math.max(1, w), height: rowH - 6, fill: color }); rect.appendChild(svgEl('title', {}, r.name + ': ' + ns(val(r)))); s.appendChild(rect);
    s.appendChild(svgEl('text', { x: L + w + 4, y: y + 13 }, ns(val(r)))); });
  box.appendChild(s);
}
function topN(list, val) { return list.slice().sort((a, b) => val(b) - val(a) || (a.name < b.name ? -1 : 1)).slice(0, X.top); }
const hr = topN(A.host_ranges || [], r => r.inclusive.total_ns), gr = topN(A.gpu_projected_ranges || [], r => r.projected.total_ns);
hbars('hostchart', hr, r => r.inclusive.total_ns, 'var(--host)');
hbars('gpuchart', gr, r => r.projected.total_ns, 'var(--gpu)');
const ht = document.getElementById('hosttable');
row(ht, ['Range', 'Instances', 'Inclusive total', 'Median', 'Stddev', 'Exclusive total'], true);
hr.forEach(r => row(ht, [r.name, String(r.instances), ns(r.inclusive.total_ns), ns(r.inclusive.median_ns), ns(r.inclusive.stddev_ns), ns(r.exclusive.total_ns)]));
const gt = document.getElementById('gputable');
if (gr.length) { row(gt, ['Range', 'Style', 'Instances', 'Projected total', 'Median', 'Stddev', 'GPU ops', 'Host total'], true);
  gr.forEach(r => row(gt, [r.name, r.style, String(r.instances), ns(r.projected.total_ns), ns(r.projected.median_ns), ns(r.projected.stddev_ns), String(r.gpu_operation_count), ns(r.host_total_ns)])); }
document.getElementById('source').textContent = 'Source: ' + X.path + '. Generated by gpuflame report.';
})();
