// The flamegraph page (templates/flamegraph.html): the writer's tree (core/stacks.c, docs/PAGES.md) drawn
// by js/flame.js in the policy's palette (flamegraph.colors), zoom and search kept in the URL fragment,
// and the findings panel (js/findings.js), whose findings that name kernels highlight their frames.
(function () {
  'use strict';
  var $ = gfPage.$, el = gfPage.el;
  var D = gfPage.json('fg-data') || {};
  var C = gfPage.json('fg-config') || {};
  var countname = C.countname || 'samples', palette = C.colors || 'hot';
  var T = gfFlame.fromNodes(D.names || [], D.nodes || [], 1, [D.total || 0]);
  var n = T.n, val = T.vals[0], names = T.names;
  // hierarchical GPU stacks: instances per node and a kind per name (absent for folded inputs)
  var cnt = D.counts || null, kinds = D.kinds || null;
  function kindOf(k) { return k > 0 && kinds ? kinds[T.nm[k]] || '' : ''; }
  var rootCount = 0, i;
  if (cnt) for (i = 1; i < n; i++) if (T.dep[i] === 1) rootCount += cnt[i - 1];
  function countOf(k) { return !cnt ? null : k === 0 ? rootCount : cnt[k - 1]; }
  var KIND_TEXT = { process: 'process', rank: 'rank', device: 'device', stream: 'stream', nvtx: 'NVTX range',
    callchain: 'CPU frame', api: 'launch call', kernel: 'kernel', copy: 'copy', nolaunch: 'launch not in capture' };
  // the context frames of hierarchical GPU stacks: NVTX ranges green, launch calls aqua, the rest grey
  function frameColor(k) {
    var s = R.nameOf(k), kd = kindOf(k);
    if (kd === 'nvtx') return gfFlame.color('green', s);
    if (kd === 'api') return gfFlame.color('aqua', s);
    if (kd && kd !== 'kernel' && kd !== 'copy') {
      var v = gfFlame.hashName(s);
      return 'rgb(' + [205, 205, 200].map(function (x) { return (x + 30 * v[0]) | 0; }) + ')';
    }
    return gfFlame.color(palette, s);
  }
  // NVTX frames grouped by policy nvtx.group: {frame: {n: raw names merged, raw: [first few]}} (absent: none)
  var RAW = C.nvtx_raw && typeof C.nvtx_raw === 'object' ? C.nvtx_raw : null;
  function rawOf(k) {
    var r = RAW && kindOf(k) === 'nvtx' && Object.prototype.hasOwnProperty.call(RAW, R.nameOf(k)) ? RAW[R.nameOf(k)] : null;
    return r && typeof r.n === 'number' ? { n: r.n, raw: Array.isArray(r.raw) ? r.raw.map(String) : [] } : null;
  }
  var canvas = $('fg'), tip = $('tip');
  function fmt(v) { return Math.round(v).toLocaleString(); }
  function pct(a, b) { return b > 0 ? (100 * a / b).toFixed(2) + '%' : '0%'; }
  $('stats').textContent = (n - 1).toLocaleString() + ' frames, total ' + fmt(val[0]) + ' ' + countname + '.';
  if (val[0] <= 0 || n <= 1) { $('empty').style.display = 'block'; canvas.style.display = 'none'; }

  var R = gfFlame.renderer(canvas, T, {
    row: 16, font: '12px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace', inverted: !!C.inverted,
    minwidth: C.minwidth == null ? 0.1 : +C.minwidth, inset: 24,
    color: frameColor,
    onHover: function (k, ev) {
      if (k < 0) { tip.style.display = 'none'; return; }
      var z = R.zoom(), line = fmt(val[k]) + ' ' + countname + ' (' + pct(val[k], val[0]) + ' of all';
      if (z) line += ', ' + pct(val[k], val[z]) + ' of zoom';
      tip.textContent = '';
      tip.appendChild(el('b', null, R.nameOf(k)));
      tip.appendChild(el('br'));
      tip.appendChild(document.createTextNode(line + ')'));
      var ic = countOf(k), kt = KIND_TEXT[kindOf(k)];
      if (ic != null || kt) {
        tip.appendChild(el('br'));
        tip.appendChild(document.createTextNode((kt ? kt + (ic != null ? ': ' : '') : '') + (ic != null ? fmt(ic) +
          (ic === 1 ? ' instance' : ' instances') + (ic > 0 ? ', mean ' + fmt(Math.round(val[k] / ic)) + ' ' + countname : '') : '')));
      }
      var rw = rawOf(k);
      if (rw) {
        tip.appendChild(el('br'));
        tip.appendChild(document.createTextNode('groups ' + fmt(rw.n) + (rw.n === 1 ? ' raw NVTX name' : ' raw NVTX names') +
          ' (policy nvtx.group)' + (rw.raw.length ? (rw.n > rw.raw.length ? ', e.g.:' : ':') : '')));
        rw.raw.forEach(function (r) { tip.appendChild(el('br')); tip.appendChild(el('i', null, r)); });
      }
      gfPage.placeTip(tip, ev.clientX, ev.clientY);
    },
    onClick: function (k) { ctl.zoomTo(k); }
  });
  // zoom, search and the URL fragment
  var ctl = gfFlame.controls(R, {
    crumb: function (z) { return fmt(val[z]) + ' ' + countname + ', ' + pct(val[z], val[0]); },
    matched: function (m) {
      if (!m) return ['', ''];
      var sum = gfFlame.matchedSum(T, m, val);
      return ['Matched: ' + (val[0] > 0 ? (100 * sum / val[0]).toFixed(1) : '0.0') + '%', fmt(sum) + ' ' + countname + ' of ' + fmt(val[0])];
    }
  });
  window.addEventListener('resize', R.resize);

  // ---- findings panel ----
  // A finding that names kernels (launch-overhead's rows) highlights their frames through the search (an
  // exact-name regex); a time window is shown as text, since a flame graph has no time axis.
  function kernelsOf(f) { return f && Array.isArray(f.kernels) ? f.kernels.filter(function (k) { return typeof k === 'string'; }) : []; }
  function nsWindow(t) {
    if (!t || !gfPage.isNum(t.start)) return '';
    var e = gfPage.isNum(t.end) ? Math.max(t.start, t.end) : t.start;
    return fmt(t.start) + ' \u2192 ' + fmt(e) + ' ns (' + gfPage.fmtDur(e - t.start) + ')';
  }
  var targetsOf = gfFindings.targetsOf;
  var P = gfFindings.panel(gfPage.json('fg-findings'), {
    wholeFinding: true, noteClass: 'sub', windowText: nsWindow,
    onShow: function (f, k) {
      var t = k >= 0 ? targetsOf(f)[k] : null;
      var ks = t ? (t.kernel && typeof t.name === 'string' ? [t.name] : []) : kernelsOf(f);
      var msg = String(f.rule) + ': ';
      if (ks.length) {
        ctl.searchFor('^(?:' + ks.map(gfPage.reEscape).join('|') + ')$');
        msg += ks.length + (ks.length === 1 ? ' kernel' : ' kernels') + ' highlighted (' + ($('matched').textContent || 'no frame matches') + ')';
      } else {
        msg += 'names no kernel to highlight';
      }
      var w = nsWindow(t || targetsOf(f)[0]);
      if (w) msg += ' \u00b7 window ' + w;
      return { info: msg, result: { kernels: ks.slice(), search: ctl.query(), matched: $('matched').textContent } };
    }
  });

  // for tests and scripting: the state and where a frame is drawn
  window.gpuflame = {
    state: function () { var z = R.zoom(); return { zoom: z, zoomName: z ? R.nameOf(z) : null, search: ctl.query(), matched: $('matched').textContent, nodes: n - 1 }; },
    // the frames as drawn: [{name, kind, depth (1 = under the root), value, count, raw}] (kind/count: "" / null for folded
    // inputs; raw: {n, raw: [...]} for an NVTX frame grouped by policy nvtx.group, else null)
    frames: function () {
      var out = [];
      for (var k = 1; k < n; k++) out.push({ name: R.nameOf(k), kind: kindOf(k), depth: T.dep[k], value: val[k], count: countOf(k), raw: rawOf(k) });
      return out;
    },
    frameRect: function (name) {
      for (var k = 1; k < n; k++) {
        if (R.nameOf(k) !== name) continue;
        var r = R.frameRect(k);
        if (r) return r;
      }
      return null;
    },
    zoomTo: function (k) { ctl.zoomTo(k); },
    search: function (s) { ctl.searchFor(s); },
    // the findings panel: [{rule, severity, text, kernels, window: {start, end} (ns) | null}]; showFinding(i [, row])
    // does what a click on finding i (or its row) does; matchedNames() lists the frame names the search matches
    findings: function () {
      return P.findings.map(function (f) {
        var t = targetsOf(f)[0], w = t && gfPage.isNum(t.start) ? { start: t.start, end: gfPage.isNum(t.end) ? t.end : t.start } : null;
        return { rule: f && f.rule, severity: f && f.severity, text: f && f.text, kernels: kernelsOf(f), window: w };
      });
    },
    showFinding: function (i, k) { return P.show(i, k); },
    matchedNames: function () { var m = ctl.match(); return m ? names.filter(function (_, q) { return m[q]; }) : []; }
  };
  R.resize();
  ctl.restore();
})();
