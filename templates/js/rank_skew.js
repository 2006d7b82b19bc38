// The rank-skew page (templates/rank_skew.html, `gpuflame run rank-skew --html`): each rank's and device's
// compute, communication, copy, memset and idle time as stacked bars, and the slowest rank of each iteration.
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
  document.getElementById('inputs').textContent = ((D.inputs || []).length ? 'inputs: ' + D.inputs.join(', ') : '') +
    (D.clock_alignment ? ' · ' + D.clock_alignment : '');
  var strag = {};
  D.stragglers.forEach(function (s) { strag[s.label] = true; });
  var max = 1;
  D.ranks.forEach(function (r) { (r.devices || []).forEach(function (g) { max = Math.max(max, g.span_ns); }); });
  var tb = document.querySelector('#ranks tbody');
  // one stacked bar per rank and device: busy split among its parts in proportion, then idle
  D.ranks.forEach(function (r) {
    (r.devices || []).forEach(function (g) {
      var tr = el('tr', strag[r.label] ? 'straggler' : '');
      tr.appendChild(el('td', null, String(r.label) + (strag[r.label] ? ' (straggler)' : '')));
      tr.appendChild(el('td', null, String(g.device_name || g.device)));
      var parts = [[g.compute_ns, 'var(--compute)'], [g.communication_ns, 'var(--nccl)'], [g.copy_ns, 'var(--copy)'],
        [g.memset_ns, 'var(--memset)']];
      var sum = parts.reduce(function (a, p) { return a + p[0]; }, 0), bar = el('td', 'bar');
      parts.map(function (p) { return [sum > 0 ? p[0] * g.busy_ns / sum : 0, p[1]]; })
        .concat([[g.idle_ns, 'var(--idle)']]).forEach(function (p) {
          var d = el('div'); d.style.width = (100 * p[0] / max).toFixed(3) + '%'; d.style.background = p[1]; bar.appendChild(d);
        });
      tr.appendChild(bar);
      [ms(g.compute_ns), ms(g.communication_ns), ms(g.copy_ns), ms(g.memset_ns), ms(g.overlap_ns), ms(g.idle_ns),
        String(r.kernels)].forEach(function (x) { tr.appendChild(el('td', 'num', x)); });
      tb.appendChild(tr);
    });
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
