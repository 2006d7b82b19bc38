// The rank-skew page (templates/rank_skew.html, `gpuflame run rank-skew --html`): busy, idle and NCCL time
// per rank as stacked bars, and the slowest rank of each iteration.
(function () {
  'use strict';
  // Data: the `gpuflame run rank-skew --json` document (docs/TIMELINE_DATA.md). Every string reaches the
  // page through textContent.
  var D = gfPage.json('rs-data');
  var el = gfPage.el;
  function ms(ns) { return (ns / 1e6).toFixed(3); }
  var v = document.getElementById('verdict');
  v.textContent = String(D.verdict);
  if (D.stragglers.length) v.className = 'straggler';
  document.getElementById('inputs').textContent = (D.inputs || []).length ? 'inputs: ' + D.inputs.join(', ') : '';
  var strag = {};
  D.stragglers.forEach(function (s) { strag[s.label] = true; });
  var max = 1;
  D.ranks.forEach(function (r) { max = Math.max(max, r.busy_ns + r.idle_ns); });
  var tb = document.querySelector('#ranks tbody');
  D.ranks.forEach(function (r) {
    var tr = el('tr', strag[r.label] ? 'straggler' : '');
    tr.appendChild(el('td', null, String(r.label) + (strag[r.label] ? ' (straggler)' : '')));
    var bar = el('td', 'bar'), compute = Math.max(0, r.busy_ns - r.nccl_ns);
    [[compute, 'var(--compute)'], [Math.min(r.nccl_ns, r.busy_ns), 'var(--nccl)'], [r.idle_ns, 'var(--idle)']].forEach(function (p) {
      var d = el('div'); d.style.width = (100 * p[0] / max).toFixed(3) + '%'; d.style.background = p[1]; bar.appendChild(d);
    });
    tr.appendChild(bar);
    [ms(r.busy_ns), ms(r.idle_ns), ms(r.kernel_ns - r.nccl_ns), ms(r.nccl_ns), String(r.kernels)].forEach(function (x) {
      tr.appendChild(el('td', 'num', x));
    });
    tb.appendChild(tr);
  });
  if (D.iterations.length) {
    document.getElementById('iter-section').hidden = false;
    var ib = document.querySelector('#iters tbody'), SHOWN = 500;
    if (D.iterations.length > SHOWN) {
      document.getElementById('iter-note').textContent = 'the first ' + SHOWN + ' of ' + D.iterations.length +
        ' iterations (all of them: --json)';
    }
    D.iterations.slice(0, SHOWN).forEach(function (x) {
      var tr = el('tr');
      [String(x.index), String(x.name), ms(x.median_dur_ns), String(x.slowest), ms(x.slowest_compute_ns),
        (x.distance_share >= 0 ? '+' : '') + (100 * x.distance_share).toFixed(1) + '%'].forEach(function (t, k) {
        tr.appendChild(el('td', k === 2 || k >= 4 ? 'num' : '', t));
      });
      ib.appendChild(tr);
    });
  }
})();
