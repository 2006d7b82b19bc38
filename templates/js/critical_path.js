// The critical path page (templates/critical_path.html, `gpuflame critical-path --html`): a bar per step, as long
// as its path, split into the path's parts; the longest items on it, the gating rank, the what-if length.
(function () {
  'use strict';
  // Data: the `gpuflame critical-path --json` document (docs/CRITICAL_PATH.md) and the inputs. Strings reach the
  // page through textContent.
  var D = gfPage.json('cp-data');
  var el = gfPage.el;
  var PARTS = [['host', 'var(--host)'], ['launch', 'var(--launch)'], ['queue', 'var(--queue)'],
    ['compute', 'var(--compute)'], ['copy', 'var(--copy)'], ['sync', 'var(--sync)'],
    ['communication', 'var(--comm)'], ['idle', 'var(--idle)']];
  function pathMs(ns) { return (ns / 1e6).toFixed(3); }
  document.getElementById('rule').textContent = 'Steps: ' + String(D.rule);
  document.getElementById('inputs').textContent = (D.inputs || []).length ? 'inputs: ' + D.inputs.join(', ') : '';
  var lg = document.getElementById('legend');
  PARTS.forEach(function (p) {
    var s = el('span'), sw = el('span', 'sw'); sw.style.background = p[1];
    s.appendChild(sw); s.appendChild(document.createTextNode(p[0] + ' ')); lg.appendChild(s);
  });
  if (D.what_if) {
    document.getElementById('whatif').textContent = 'What-if ' + D.what_if.rules.join(', ') + ': ' + String(D.what_if.note);
  }
  // the run's path over its counted steps (docs/CRITICAL_PATH.md "summary"): what is on most steps' paths
  var sm = D.summary;
  if (sm) {
    var box = document.getElementById('summary');
    var left = sm.steps - sm.counted;
    box.appendChild(el('h2', null, 'Over ' + sm.counted + (sm.warmup_included ? ' steps (every one a warm-up step)' :
      ' counted steps' + (left > 0 ? ' (' + left + ' warm-up left out)' : '')) + ': path median ' +
      pathMs(sm.median_length_ns) + ' ms, longest step ' + sm.longest.index + ' (' + pathMs(sm.longest.length_ns) + ' ms)'));
    var sbar = el('div', 'sbar');
    PARTS.forEach(function (p) {
      var share = sm.shares[p[0]];
      if (!share) return;
      var d = el('div'); d.style.width = (100 * share).toFixed(3) + '%'; d.style.background = p[1];
      d.title = p[0] + ': ' + (100 * share).toFixed(1) + '% of the path'; sbar.appendChild(d);
    });
    box.appendChild(sbar);
    if (sm.what_if) {
      box.appendChild(el('p', null, 'What-if: path median ' + pathMs(sm.median_length_ns) + ' → ' +
        pathMs(sm.what_if.median_length_ns) + ' ms; median saving ' + pathMs(sm.what_if.median_saved_ns) + ' ms a step.'));
    }
    var bw = D.between;
    if (bw && typeof bw === 'object' && bw.mostly_between) {
      box.appendChild(el('p', 'warn', 'Between steps: ' + (100 * bw.outside_share).toFixed(1) + '% of the loop lies ' +
        'outside the steps and their GPU work, and no path here covers it; in the gaps: ' + (bw.ranges.length ?
          bw.ranges.map(function (r) { return r.name + ' ' + pathMs(r.total_ns) + ' ms (' + r.count + ')'; }).join(', ') :
          'no NVTX range of the steps\' thread') + ' (gpuflame steps).'));
    }
    if (sm.gpu_bound > 0) {
      box.appendChild(el('p', 'note', sm.gpu_bound + ' of ' + sm.counted + ' steps are GPU-bound: their GPU work ' +
        'outlasts their range, and the path ends with the range.'));
    }
    var tab = el('table', 'sitems'), head = el('tr');
    ['ms a step', 'share of the path', 'on the path in', 'kind', 'item'].forEach(function (h) { head.appendChild(el('th', null, h)); });
    tab.appendChild(head);
    sm.on_path.slice(0, D.top).forEach(function (i) {
      var r = el('tr');
      r.appendChild(el('td', 'num', pathMs(i.ns / sm.counted)));
      r.appendChild(el('td', 'num', (100 * i.share).toFixed(1) + '%'));
      r.appendChild(el('td', 'num', i.steps + ' of ' + sm.counted));
      r.appendChild(el('td', null, i.kind));
      r.appendChild(el('td', 'items', String(i.name)));
      tab.appendChild(r);
    });
    box.appendChild(tab);
  }
  var max = 1;
  D.steps.forEach(function (s) { max = Math.max(max, s.length_ns); });
  var tb = document.querySelector('#steps tbody');
  D.steps.forEach(function (s) {
    var tr = el('tr', s.warmup ? 'warmup' : '');
    var bar = el('td', 'bar');
    PARTS.forEach(function (p) {
      var ns = s.parts[p[0] + '_ns'];
      if (!ns) return;
      var d = el('div'); d.style.width = (100 * ns / max).toFixed(3) + '%'; d.style.background = p[1];
      d.title = p[0] + ': ' + pathMs(ns) + ' ms'; bar.appendChild(d);
    });
    tr.appendChild(el('td', 'num', String(s.index)));
    tr.appendChild(el('td', null, String(s.name) + (s.warmup ? ' (warm-up)' : '')));
    tr.appendChild(bar);
    tr.appendChild(el('td', 'num', pathMs(s.length_ns)));
    var items = el('td', 'items');
    s.on_path.slice(0, 4).forEach(function (i) {
      var d = el('div', null, pathMs(i.ns) + ' ms ' + i.kind + ' ' + String(i.name) + (i.rank ? ' [' + i.rank + ']' : ''));
      d.title = String(i.name); items.appendChild(d);
    });
    tr.appendChild(items);
    var g = s.gating;
    tr.appendChild(el('td', null, g ? String(g.rank) + (g.waits.length ? ' (' + g.waits.length + ' collective wait(s))' : '') : ''));
    tr.appendChild(el('td', 'num', s.what_if ? pathMs(s.what_if.length_ns) : ''));
    tb.appendChild(tr);
  });
})();
