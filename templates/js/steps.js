// The steps page (templates/steps.html, `gpuflame steps --html`): a bar per step, as long as the step, split into
// the time breakdown of the GPU work it launched (busy shared among its parts in proportion, then idle) and the
// step's CPU time beyond its GPU span; warm-up steps greyed, outliers marked.
(function () {
  'use strict';
  // Data: the `gpuflame steps --json` document (docs/STEPS.md) and the inputs. Strings reach the page through
  // textContent.
  var D = gfPage.json('st-data');
  var el = gfPage.el;
  function stepMs(ns) { return (ns / 1e6).toFixed(3); }
  function sum(s, f) { return s.devices.reduce(function (a, d) { return a + d[f]; }, 0); }
  document.getElementById('rule').textContent = 'Steps: ' + String(D.rule_text);
  var m = D.summary;
  // the part of the GPU work that changed most with the drift (docs/SEMANTICS.md "Steps")
  function driftPart(d) {
    var slower = d.direction === 'slower', p = d.parts[slower ? 0 : d.parts.length - 1];
    return p.part + (slower ? ' grew' : ' shrank') + ' most (median ' + stepMs(p.first_median_ns) + ' to ' +
      stepMs(p.last_median_ns) + ' ms)';
  }
  document.getElementById('summary').textContent = m.steps + ' steps; median ' + stepMs(m.median_ns) + ' ms, p90 ' +
    stepMs(m.p90_ns) + ' ms, max ' + stepMs(m.max_ns) + ' ms (step ' + m.slowest +
    (typeof m.slowest_rank === 'string' ? ' of ' + m.slowest_rank : '') + '); ' + m.warmup + ' warm-up ' +
    (m.warmup_included ? '(every step is warm-up: counted)' : '(left out)') + '; ' + m.outliers.length +
    ' outlier(s)' + (m.outliers.length ? ': ' + m.outliers.join(', ') : '') +
    (m.gpu_bound > 0 ? '; ' + m.gpu_bound + ' of ' + m.counted + ' steps GPU-bound: their busiest GPU\'s work ' +
      'outlasts their CPU range (median ' + stepMs(m.median_duration_ns) + ' ms), and their time is that work\'s' : '') +
    (m.drift && typeof m.drift.direction === 'string' ? '; the steps get ' + m.drift.direction + ' over the run: ' +
      'the last third\'s median ' + stepMs(m.drift.last_median_ns) + ' ms against the first third\'s ' +
      stepMs(m.drift.first_median_ns) + ' ms; ' + driftPart(m.drift) : '');
  // the loop's time between its steps (docs/SEMANTICS.md "Steps"): what the steps' times leave out
  var bw = m.between;
  if (bw && typeof bw === 'object') {
    var rg = bw.ranges.map(function (r) { return r.name + ' ' + stepMs(r.total_ns) + ' ms (' + r.count + ')'; });
    var be = document.getElementById('between');
    be.hidden = false;
    be.className = bw.mostly_between ? 'warn' : '';
    be.textContent = 'Between steps: ' + (100 * bw.share).toFixed(1) + ' % of the loop (' + stepMs(bw.total_ns) +
      ' of ' + stepMs(bw.loop_ns) + ' ms in ' + bw.gaps + ' gaps; median ' + stepMs(bw.median_ns) + ' ms, longest ' +
      stepMs(bw.max_ns) + ' ms after step ' + bw.longest_after + '); the steps\' GPU work ran on into them for ' +
      stepMs(bw.tail_ns) + ' ms: ' + (100 * bw.outside_share).toFixed(1) + ' % of the loop is outside both' +
      (bw.mostly_between ? ', most of it, which the steps\' times leave out' : '') + '. In the gaps: NVTX ranges on ' +
      'the steps\' thread: ' + (rg.length ? rg.join(', ') : 'none') + '; GPU work launched: ' + bw.kernels +
      ' kernels, ' + bw.copies + ' copies, ' + bw.memsets + ' memsets, busy ' + stepMs(bw.busy_ns) + ' ms.';
  }
  document.getElementById('inputs').textContent = (D.inputs || []).length ? 'inputs: ' + D.inputs.join(', ') : '';
  // one process: no rank column
  if (!(D.processes || []).length) document.getElementById('steps').className = 'one-process';
  var max = 1;
  D.steps.forEach(function (s) { max = Math.max(max, s.duration_ns, s.gpu_span_ns); });
  var tb = document.querySelector('#steps tbody');
  D.steps.forEach(function (s) {
    var tr = el('tr', (s.warmup ? 'warmup ' : '') + (s.outlier ? 'outlier' : ''));
    var busy = sum(s, 'busy_ns'), idle = sum(s, 'idle_ns');
    var parts = [[sum(s, 'compute_ns'), 'var(--compute)'], [sum(s, 'communication_ns'), 'var(--nccl)'],
      [sum(s, 'copy_ns'), 'var(--copy)'], [sum(s, 'memset_ns'), 'var(--memset)']];
    var tot = parts.reduce(function (a, p) { return a + p[0]; }, 0), bar = el('td', 'bar');
    parts = parts.map(function (p) { return [tot > 0 ? p[0] * busy / tot : 0, p[1]]; });
    parts.push([idle, 'var(--idle)']);
    parts.forEach(function (p) {
      var d = el('div'); d.style.width = (100 * p[0] / max).toFixed(3) + '%'; d.style.background = p[1]; bar.appendChild(d);
    });
    var rest = s.duration_ns - busy - idle;
    if (rest > 0) { var c = el('div', 'cpu'); c.style.width = (100 * rest / max).toFixed(3) + '%'; bar.appendChild(c); }
    var who = typeof s.rank === 'string' ? s.rank : 'pid ' + s.pid;
    var flags = (s.warmup ? ' (warm-up)' : '') + (s.outlier ? ' (outlier)' : '');
    tr.appendChild(el('td', null, who));
    tr.appendChild(el('td', 'num', String(s.index)));
    tr.appendChild(el('td', null, String(s.name) + flags));
    tr.appendChild(bar);
    [stepMs(s.time_ns), stepMs(s.duration_ns), typeof s.gap_ns === 'number' ? stepMs(s.gap_ns) : '-', stepMs(s.gpu_span_ns), stepMs(s.compute_ns), stepMs(s.communication_ns), stepMs(sum(s, 'copy_ns')), stepMs(idle),
      String(s.kernels)].forEach(function (x) { tr.appendChild(el('td', 'num', x)); });
    var k = s.top_kernels[0];
    var kt = el('td', 'kern', k ? String(k.name) : '');
    if (k) kt.title = String(k.name) + ': ' + stepMs(k.total_ns) + ' ms in ' + k.count + ' launches';
    tr.appendChild(kt);
    tb.appendChild(tr);
  });
  if (D.ranks.length) {
    document.getElementById('rank-section').hidden = false;
    var rb = document.querySelector('#ranks tbody');
    D.ranks.forEach(function (r) {
      var tr = el('tr');
      [String(r.index), (typeof r.slowest.rank === 'string' ? r.slowest.rank : 'pid ' + r.slowest.pid) + ' (compute ' +
        stepMs(r.slowest.compute_ns) + ' ms)', stepMs(r.margin_ns),
        r.above_noise ? 'yes' : 'no (noise ' + stepMs(r.noise_ns) + ' ms)'].forEach(function (t, i) {
        tr.appendChild(el('td', i === 2 ? 'num' : '', t));
      });
      rb.appendChild(tr);
    });
  }
})();
