/*
 * Test hook (stable, used by tests/browser/test_timeline*.mjs and bench/bench_timeline_browser.mjs):
 *   window.__gf.view()        -> {start, end}  visible window, ns relative to data.t0
 *   window.__gf.span()        -> data.span (ns)
 *   window.__gf.selected()    -> index into data.events of the selected event, or -1 (event indices are
 *                                start order, which is data.events order: the writer sorts by start)
 *   window.__gf.partner()     -> index of its CorrID partner (launch <-> GPU work), or -1
 *   window.__gf.matches()     -> number of events matching the search box query
 *   window.__gf.flameZoom()   -> name of the zoomed launch-flamegraph frame ("all" when not zoomed)
 *   window.__gf.flameMatched()-> share (0..1) of launch-stack time through a frame matching the search, or null
 *   window.__gf.event(i)      -> {start, dur, lane, laneKind, name, corr, stack, kind}
 *   window.__gf.eventPoint(i) -> {x, y} client coordinates inside event i's bar, or null if not in view
 *   window.__gf.flamePoint(n) -> {x, y} client coordinates inside the first drawn frame named n, or null
 *   window.__gf.setView(s, e) -> sets the visible window (clamped like user input)
 *   window.__gf.steps()       -> {rule, count, current}: the capture's steps on the axis (js/timeline_steps.js)
 *   window.__gf.range()       -> {start, end} of the Shift+drag measured range, or null
 *   window.__gf.lastDrawMs()  -> duration of the last main-canvas draw in ms
 *   window.__gf.firstDrawAt   -> performance.now() when the page's first frame finished drawing: the
 *                                preview's, when the page has one (window.__gfPreview.firstDrawAt)
 *   window.__gf.readyAt       -> performance.now() of the first frame drawn from all events (window.__gf
 *                                exists only from then on); window.__gfPreview.snapshot = true before
 *                                load makes the preview keep its main canvas as a data URL there
 *   window.__gf.counts()      -> {inPage, total, proj}: events carried by the page, events in the capture, page
 *                                events that are NVTX ranges projected onto the GPU (in inPage, not in total)
 *   window.__gf.lod()         -> number of lanes drawn from level-of-detail summaries in the last frame
 *   window.__gf.typedBytes()  -> bytes in the page's typed arrays (events, indexes, LOD summaries)
 *   window.__gf.groups()      -> [{label, lanes, collapsed, y, kind, quiet, quietThreads, quietAll, quietY, showQuiet}]
 *                                lane groups in the writer's order (header row at canvas y; GPU groups are laid out
 *                                first; quiet: lanes folded into the row at quietY, of threads with nothing in the
 *                                opening window; quietAll: the group folded for that), toggleQuiet(k) shows them
 *   window.__gf.toggleGroup(k), window.__gf.labelWidth() -> fold/unfold group k; label column width (px)
 *   window.__gf.laneY(l)      -> {top, h} of lane l on the main canvas (CSS px), or null when folded
 *   window.__gf.findings()    -> [{rule, severity, text, targets, window: {start, end} | null}] of the findings
 *                                panel (window: the first target's, ns relative to data.t0)
 *   window.__gf.showFinding(i [, k]) -> shows target k (default 0) of finding i as a click on it does:
 *                                {window, marks, selected}; null when there is no finding i
 *   window.__gf.criticalPath() -> {steps, index, name, length_ns, marks}: the path outlined (timeline --critical-path)
 *   window.__gf.findingMarks()  -> indices of the events the shown finding refers to (highlighted)
 *   window.__gf.findingWindow() -> {start, end} of the shown finding's time window, or null
 *   window.__gf.laneLabels()  -> [{label, drawn, group, proj, band, height, events}] per lane: the label as drawn
 *   window.__gf.breakdown(a, b) -> [{device, deviceId, span, busy, compute, comm, copy, memset, idle}] (ns) of
 *                                window [a, b] per device (docs/SEMANTICS.md); gpuTime() -> the header's text now
 *   window.__gf.launchInfo(i) -> {path, thread, call, api, queueDelay} of GPU work i's launch, or null
 */
// The page, built from the data D once its event columns are bytes (cols: column name -> Uint8Array of
// varints; null for pages whose events are rows). The boot script below reads and, when compressed,
// inflates them first.
function gfTimeline(D, cols, mode) {
  'use strict';
  // A preview (docs/TIMELINE_DATA.md "Preview": the opening view's events, drawn while the page's data is
  // still loading) draws once and takes no input; the page built from all events then takes over.
  var preview = !!(mode && mode.preview);
  function on(target, type, fn, opts) { if (!preview) target.addEventListener(type, fn, opts); }

  // The page's shared state T: the data, the event columns and their indexes (js/timeline_index.js), the
  // view, selection and layout below, and the functions each part of the page adds to it (js/timeline_draw.js,
  // timeline_minimap.js, timeline_select.js, timeline_input.js, timeline_flame.js, timeline_findings.js).
  var $ = gfPage.$, el = gfPage.el, fmtDur = gfPage.fmtDur;
  var T = { D: D, preview: preview, on: on };
  gfTimelineIndex(T, cols);
  var lanes = T.lanes, kinds = T.kinds, n = T.n, fullSpan = T.fullSpan, S = T.S, DU = T.DU, LN = T.LN, CR = T.CR,
    NM = T.NM, ST = T.ST, KD = T.KD, DT = T.DT, laneEv = T.laneEv, laneMaxEnd = T.laneMaxEnd, laneTop = T.laneTop,
    laneHt = T.laneHt, groups = T.groups, lod = T.lod, AXIS_H = T.AXIS_H, MIN_SPAN = T.MIN_SPAN, COL = T.COL,
    KIND_COL = T.KIND_COL;
  var kindName = T.kindName, eventName = T.eventName, laneKind = T.laneKind, nvtxLevel = T.nvtxLevel,
    isGpuWork = T.isGpuWork;

  // ---------------------------------------------------------------- state
  T.vs = 0; T.ve = fullSpan;          // visible window (ns relative to t0)
  T.sel = -1; T.partner = -1;
  T.hover = -1;
  T.nameMatch = null;                 // per name: 1 when it matches the search (js/timeline_input.js)
  T.range = null;                     // the Shift+drag measured range {a, b}
  var minSpan = Math.min(MIN_SPAN, fullSpan);

  function setView(s, e) {
    var w = e - s;
    if (!(w > 0)) w = minSpan;
    if (w < minSpan) { var c = (s + e) / 2; s = c - minSpan / 2; w = minSpan; }
    if (w >= fullSpan) { s = 0; w = fullSpan; }
    if (s < 0) s = 0;
    if (s + w > fullSpan) s = fullSpan - w;
    T.vs = s; T.ve = s + w;
    T.requestDraw();
  }
  function zoomAt(t, factor) { setView(t - (t - T.vs) * factor, t + (T.ve - t) * factor); }
  function panBy(frac) { var d = (T.ve - T.vs) * frac; setView(T.vs + d, T.ve + d); }
  function centreOn(i) {
    var w = T.ve - T.vs;
    if (DU[i] > 0.8 * w) w = DU[i] / 0.6;
    var c = S[i] + DU[i] / 2;
    setView(c - w / 2, c + w / 2);
  }
  T.setView = setView; T.zoomAt = zoomAt; T.panBy = panBy; T.centreOn = centreOn;

  // ---------------------------------------------------------------- DOM
  var mainC = T.mainC = $('main'), miniC = T.miniC = $('mini'), fgC = T.fgC = $('fg');
  T.tip = $('tip');
  var mctx = T.mctx = mainC.getContext('2d');
  T.nctx = miniC.getContext('2d');
  T.axisC = $('axis-float'); T.actx = T.axisC.getContext('2d');
  T.cssW = 800; T.plotW = 610; T.mainH = AXIS_H + 4; T.dpr = 1;

  // The capture's events on the page and in all (the NVTX ranges projected onto the GPU are counted apart:
  // the page carries them as events, the capture has them as ranges)
  function pageCounts() {
    var proj = 0;
    lanes.forEach(function (L, l) { if (L.proj) proj += laneEv[l].length; });
    var shown = (D.shown != null ? D.shown : n) - proj;
    return { shown: shown, total: D.total != null ? D.total : shown, proj: proj };
  }
  function buildHeader() {
    var lg = $('legend');
    lg.textContent = ''; $('warnings').textContent = ''; // a preview built them first
    function item(colour, text, title) {
      var s = el('span'), sw = el('span', 'sw');
      sw.style.background = colour;
      s.appendChild(sw); s.appendChild(document.createTextNode(text));
      if (title) s.title = title;
      lg.appendChild(s);
    }
    item(KIND_COL.cuda_api, 'CPU (CUDA API)'); item(KIND_COL.kernel, 'GPU kernel'); item(KIND_COL.memcpy, 'memcpy');
    item(KIND_COL.memset, 'memset'); item(KIND_COL.sync, 'sync', 'a thin band under its stream (device-wide: under the device)'); item(KIND_COL.nvtx, 'NVTX');
    gfTimelineCpu.legend(item, kinds, KD);
    item(COL.sel, 'selection');
    item('linear-gradient(90deg, rgba(230,161,92,0.2), rgba(230,161,92,1))', 'density',
      'events narrower than a pixel: shade = fraction of the pixel column the lane is busy');
    $('span-info').textContent = 'Span ' + fmtDur(fullSpan);
    var c = pageCounts();
    $('count-info').textContent = (c.shown < c.total ? 'showing ' + c.shown + ' of ' + c.total + ' events (longest kept)'
      : 'all ' + c.total + ' events') + (c.proj ? ' + ' + c.proj + ' NVTX ranges projected onto the GPU' : '');
    if (D.source) $('source-info').textContent = String(D.source) + (D.clockAlignment ? ' · ' + D.clockAlignment : '');
    var w = $('warnings');
    (D.warnings || []).forEach(function (m) { w.appendChild(el('p', null, '⚠ ' + String(m))); });
  }
  T.pageCounts = pageCounts;
  function drawn() { // after each frame: the preview's and the page's first-frame times (test hook)
    if (preview) {
      if (!window.__gfPreview.firstDrawAt) window.__gfPreview.firstDrawAt = performance.now();
      if (window.__gfPreview.snapshot === true) window.__gfPreview.snapshot = mainC.toDataURL(); // tests
      return;
    }
    if (!api.readyAt) {
      api.readyAt = performance.now();
      api.firstDrawAt = (window.__gfPreview && window.__gfPreview.firstDrawAt) || api.readyAt;
    }
  }
  T.drawn = drawn;

  // ---------------------------------------------------------------- the page's parts
  gfTimelineSteps(T);
  gfTimelineDraw(T);
  gfTimelineMinimap(T);
  gfTimelineSelect(T);
  gfTimelineInput(T);
  gfTimelineFlame(T);
  gfTimelineFindings(T);

  // ---------------------------------------------------------------- test hook
  function clientPoint(canvas, x, y) { var r = canvas.getBoundingClientRect(); return { x: r.left + x, y: r.top + y }; }
  var api = {
    view: function () { return { start: T.vs, end: T.ve }; },
    span: function () { return fullSpan; },
    selected: function () { return T.sel; },
    partner: function () { return T.partner; },
    matches: function () { return T.matchCount(); },
    flameZoom: function () { return T.flameZoom(); },
    flameMatched: function () { return T.flameMatched(); },
    event: function (i) {
      return { start: S[i], dur: DU[i], lane: LN[i], laneKind: laneKind(LN[i]), name: eventName(i),
        corr: CR[i], stack: ST[i], kind: kindName(i) };
    },
    eventPoint: function (i) {
      if (i < 0 || i >= n || !T.inView(i) || !laneHt[LN[i]]) return null; // folded lanes show nothing
      var a = Math.max(T.vs, S[i]), b = Math.min(T.ve, S[i] + DU[i]);
      var br = T.barRect(i);
      return clientPoint(mainC, T.LABEL_W + T.xOf((a + b) / 2), br.y + br.h / 2);
    },
    flamePoint: function (name) { return T.flamePoint(name); },
    setView: function (s, e) { setView(s, e); },
    steps: function () { return T.stepsInfo(); },
    criticalPath: function () { return T.pathInfo(); },
    laneY: function (l) { return laneHt[l] ? { top: laneTop[l], h: laneHt[l] } : null; },
    range: function () { return T.range ? { start: T.range.a, end: T.range.b } : null; },
    lastDrawMs: function () { return T.lastDrawMs; },
    counts: function () { return { inPage: n, total: D.total != null ? +D.total : n, proj: pageCounts().proj }; },
    lod: function () { return T.lodLanes; },
    // GPU rows: the labels drawn per lane ({label, drawn, group, proj, band}), the breakdown of window
    // [a, b] per device ({device, span, busy, compute, comm, copy, memset, idle} ns), the header's text
    // for the window in view (computed now), the launch facts of event i ({path, thread, call, api,
    // queueDelay} or null)
    laneLabels: function () {
      mctx.save(); mctx.font = '12px system-ui, sans-serif'; // as drawLabels (js/timeline_draw.js) measures
      var cw = mctx.measureText('abcdefghijklmnopqrstuvwxyz0123456789 ').width / 37;
      mctx.restore();
      return lanes.map(function (L, l) {
        return { label: L.label, drawn: laneHt[l] >= 12 ? gfGpu.fitLeft(L.short, T.LABEL_W - 14, cw) : '', group: L.group,
          proj: L.proj, band: L.band, height: laneHt[l], events: laneEv[l].length };
      });
    },
    breakdown: function (a, b) { return T.gpuBreakdown(a, b); },
    gpuTime: function () { return T.gpuTimeNow(); },
    launchInfo: function (i) { var p = T.partner, r; T.partner = T.partnerOf(i); r = T.launchInfo(i); T.partner = p; return r; },
    typedBytes: function () { // bytes held in the page's typed arrays (outside the JS heap's count)
      var b = 0, add = function (a) { b += a ? a.byteLength : 0; };
      [S, DU, LN, CR, NM, ST, KD, DT, laneTop, laneHt].forEach(add);
      laneEv.forEach(add); laneMaxEnd.forEach(add);
      lod.forEach(function (L) { if (L) { L.levels.forEach(add); L.long.forEach(function (X) { add(X.ev); add(X.maxEnd); }); } });
      return b;
    },
    groups: function () {
      return groups.map(function (g) {
        return { label: g.key, lanes: g.last - g.first + 1, collapsed: g.collapsed, y: g.top, kind: lanes[g.first].kind,
          quiet: g.quiet ? g.quiet.length : 0, quietThreads: g.quietThreads || 0, quietAll: !!g.quietAll,
          quietY: g.quietTop, showQuiet: !!g.showQuiet };
      });
    },
    toggleGroup: function (k) { T.toggleGroup(k); },
    toggleQuiet: function (k) { T.toggleQuiet(k); },
    labelWidth: function () { return T.LABEL_W; },
    findings: function () { return T.findingList(); },
    showFinding: function (i, k) { return T.showFinding(i, k); },
    findingMarks: function () { return T.findingMarks(); },
    findingWindow: function () { return T.findingWindow(); },
    firstDrawAt: 0,  // the page's first frame: the preview's when it had one
    readyAt: 0       // the first frame drawn from all events
  };
  if (!preview) window.__gf = api;

  // ---------------------------------------------------------------- start
  // Initial view (policy timeline.initial_view, in the data as initialView). The writer decides it
  // (data.view, core/trace_view.c: the same rules with a width of timeline.view_events median events) so
  // that a preview opens on the same window; the rules below serve data without a view:
  //   busiest — a window as wide as about 200 median GPU-work events (the median ~6 px wide; at least
  //     1 µs), placed where the GPU-work time inside it is largest (two pointers over the start-sorted
  //     events), so the first screen shows the work, not a prologue or one long memcpy;
  //   nvtx — the first outermost NVTX range (busiest when there is none); full — the whole capture.
  function busiestView() {
    var m = 0, i;
    for (i = 0; i < n; i++) if (isGpuWork(i)) m++;
    var gpu = !!m, idx = new Int32Array(gpu ? m : n);
    for (i = 0, m = 0; i < n; i++) if (!gpu || isGpuWork(i)) idx[m++] = i;
    var stride = Math.max(1, Math.floor(m / 100000)), sample = []; // median of at most 100,000 samples
    for (i = 0; i < m; i += stride) sample.push(DU[idx[i]]);
    sample.sort(function (a, b) { return a - b; });
    var target = Math.max(MIN_SPAN, (sample[sample.length >> 1] || 0) * T.plotW / 6);
    if (!(target < 0.9 * fullSpan)) { setView(0, fullSpan); return; }
    var best = 0, bestSum = -1, j = 0, sum = 0;
    for (var a = 0; a < m; a++) {
      while (j < m && S[idx[j]] <= S[idx[a]] + target) { sum += Math.min(DU[idx[j]], target); j++; }
      if (sum > bestSum) { bestSum = sum; best = a; }
      sum -= Math.min(DU[idx[a]], target);
    }
    var s0 = S[idx[best]] - target * 0.02;
    setView(s0, s0 + target);
  }
  function initialView() {
    var how = D.initialView || 'busiest';
    // decided by the writer (policy timeline.initial_view) when the data says: a preview and the page then
    // open on the same window
    if (D.view && D.view.length === 2 && isFinite(D.view[0]) && isFinite(D.view[1])) { setView(+D.view[0], +D.view[1]); return; }
    if (how === 'full') { setView(0, fullSpan); return; }
    if (how === 'nvtx') {
      for (var i = 0; i < n; i++) {
        if (kindName(i) !== 'nvtx' || nvtxLevel(i) !== 0) continue;
        var pad = Math.max(DU[i] * 0.02, MIN_SPAN / 2);
        setView(S[i] - pad, S[i] + DU[i] + pad);
        return;
      }
    }
    busiestView();
  }
  if (preview) {
    buildHeader();
    $('count-info').textContent = 'loading all ' + (D.total != null ? D.total : n) + ' events…';
    T.layoutPage();
    if (n) { initialView(); T.foldQuiet(T.vs, T.ve); T.layoutPage(); }
    return;
  }
  buildHeader();
  T.buildFindings();
  T.buildFlame();
  if (!T.hasFlame()) {
    $('fg-reset').hidden = true; fgC.hidden = true; $('fg-note').hidden = false;
    $('fg-note').textContent = 'No launch backtraces in this capture, so there is no launch-stack flamegraph ' +
      '(capture with --stacks, i.e. nsys --cudabacktrace, to record them).';
  }
  if (!n) { mainC.hidden = true; miniC.hidden = true; $('empty').hidden = false; }
  T.layoutPage();
  if (n) { initialView(); T.foldQuiet(T.vs, T.ve); T.layoutPage(); } // the GPU on the first screen (js/timeline_index.js)
  if (T.hasFlame()) T.flamePath();
  T.renderStackPanel();
  on(window, 'resize', T.layoutPage);
  on(window, 'scroll', T.drawFloatingAxis, { passive: true });
}

// Boot: the event columns are base64 (docs/TIMELINE_DATA.md "Packed events"); compressed ones
// ("varint-deflate-chunks-base64", policy timeline.compress) are inflated by the browser's own
// DecompressionStream, which is asynchronous: the page is built when they are ready. A big page first
// draws its preview (the opening view's events, plain varints, placed before this script) while the
// parser is still reading the data below.
(function () {
  'use strict';
  var COLS = ['start', 'dur', 'lane', 'corr', 'name', 'stack', 'kind', 'detail'];
  function fail(err) {
    var box = document.getElementById('empty');
    box.hidden = false;
    box.textContent = 'This page cannot show its events: ' + (err && err.message);
    // nothing drawn stays on screen as if it were the page (a preview draws before the data is read)
    document.getElementById('main').hidden = true;
    document.getElementById('mini').hidden = true;
    document.getElementById('count-info').textContent = '';
    throw err;
  }
  function bytesOf(text) {
    if (typeof Uint8Array.fromBase64 === 'function') return Uint8Array.fromBase64(text || '');
    var bin = atob(text || ''), out = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  }
  window.__gfPreview = window.__gfPreview || {};
  var P = null;
  try { P = JSON.parse(document.getElementById('gf-preview').textContent); } catch (err) { P = null; }
  if (P && P.events && P.events.encoding === 'varint-base64' && document.readyState === 'loading') {
    var pc = {};
    COLS.forEach(function (k) { pc[k] = bytesOf(P.events[k]); });
    // a preview that cannot be drawn is only a slower start: the page below still builds
    try { gfTimeline(P, pc, { preview: true }); } catch (err) { window.__gfPreview.error = String(err); }
  }
  function boot() {
    var D = JSON.parse(document.getElementById('gf-data').textContent);
    var ev = D.events && !Array.isArray(D.events) ? D.events : null;
    function build(cols) {
      try { gfTimeline(D, cols); } catch (err) { fail(err); }
    }
    if (!ev) return build(null);
    var enc = ev.encoding || 'varint-base64';
    if (enc !== 'varint-base64' && enc !== 'varint-deflate-chunks-base64')
      fail(new Error('unknown event encoding "' + enc + '" (written by a newer gpuflame?)'));
    if (enc === 'varint-base64') {
      var raw = {};
      COLS.forEach(function (k) { raw[k] = bytesOf(ev[k]); });
      return build(raw);
    }
    if (typeof DecompressionStream !== 'function')
      fail(new Error('this browser has no DecompressionStream to inflate the compressed event data ' +
        '(write the page with policy timeline.compress = false)'));
    // each column is an array of chunks, each its own raw DEFLATE stream: inflated, they join into the
    // column's varints
    function inflate(text) {
      var inflated = new Blob([bytesOf(text)]).stream().pipeThrough(new DecompressionStream('deflate-raw'));
      return new Response(inflated).arrayBuffer();
    }
    Promise.all(COLS.map(function (k) {
      if (!Array.isArray(ev[k])) return Promise.reject(new Error('the ' + k + ' column is not an array of chunks'));
      return Promise.all(ev[k].map(inflate)).then(function (parts) {
        var len = parts.reduce(function (a, b) { return a + b.byteLength; }, 0), col = new Uint8Array(len), at = 0;
        parts.forEach(function (b) { col.set(new Uint8Array(b), at); at += b.byteLength; });
        return col;
      });
    })).then(function (bufs) {
      var cols = {};
      COLS.forEach(function (k, i) { cols[k] = bufs[i]; });
      setTimeout(function () { build(cols); }); // errors while building surface as page errors
    }, function (err) {
      setTimeout(function () { fail(new Error('damaged page data: ' + err.message)); });
    });
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', boot); else boot();
})();

