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
 *   window.__gf.groups()      -> [{label, lanes, collapsed, y}] lane groups (header row at canvas y)
 *   window.__gf.toggleGroup(k), window.__gf.labelWidth() -> fold/unfold group k; label column width (px)
 *   window.__gf.laneY(l)      -> {top, h} of lane l on the main canvas (CSS px), or null when folded
 *   window.__gf.findings()    -> [{rule, severity, text, targets, window: {start, end} | null}] of the findings
 *                                panel (window: the first target's, ns relative to data.t0)
 *   window.__gf.showFinding(i [, k]) -> shows target k (default 0) of finding i as a click on it does:
 *                                {window, marks, selected}; null when there is no finding i
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

  // ---------------------------------------------------------------- data
  var LANE_H = 22, LABEL_W = 190, AXIS_H = 18, MIN_SPAN = 1000, FG_ROW = 18;
  var COL = { cpu: '#5c8ae6', gpu: '#e6a15c', nvtx: '#7cc46a', sel: '#f5e663' };
  var KIND_COL = { cuda_api: COL.cpu, kernel: COL.gpu, memcpy: '#4fc3b0', memset: '#c38ae6',
    sync: '#e0605a', nvtx: COL.nvtx };
  var KIND_LABEL = { cuda_api: 'CUDA API', kernel: 'kernel', memcpy: 'memcpy', memset: 'memset',
    sync: 'sync', nvtx: 'NVTX' };
  var CPU_SIDE = gfTimelineCpu.colours(); // OS runtime calls, CPU samples, running (js/timeline_cpu.js)
  Object.keys(CPU_SIDE).forEach(function (k) { KIND_COL[k] = CPU_SIDE[k]; KIND_LABEL[k] = gfTimelineCpu.labels[k]; });

  var lanes = (D.lanes || []).map(function (l, k, all) {
    // the reference shape had plain strings as lanes: derive the kind from the label
    if (typeof l === 'string') return { label: l, short: l, kind: /^CPU/.test(l) ? 'cpu' : /^NVTX/.test(l) ? 'nvtx' : 'gpu' };
    var kind = l.kind || 'gpu', rank = l.rank != null ? String(l.rank) + ' · ' : '';
    // lanes are grouped per (rank,) kind and process (CPU, NVTX) or device (GPU: named once, on the group;
    // the NVTX ranges a thread projected onto it in a group of their own); a group folds
    var nm = gfGpu.laneNames(l, kind, rank);
    return { label: String(l.label), kind: kind, group: nm.group, short: nm.short, band: !!nm.band, proj: !!nm.proj,
      sub: gfTimelineCpu.sub(l), subTitle: gfTimelineCpu.subTitle(l, all[k - 1]) };
  });
  var names = D.names || [], kinds = D.kinds || [], details = D.details || [], stacks = D.stacks || [];
  // Events come packed (docs/TIMELINE_DATA.md "Packed events": one base64 string of varints per column)
  // or, from older writers and the reference shape, as one array per event.
  var packed = D.events && !Array.isArray(D.events) ? D.events : null;
  var raw = packed ? [] : (D.events || []);
  var n = packed ? Math.max(0, packed.n | 0) : raw.length, fullSpan = Math.max(1, +D.span || 1);

  // Struct-of-arrays copy of the events: typed arrays keep 20,000-event loops cache-friendly.
  var S = new Float64Array(n), DU = new Float64Array(n), LN = new Int32Array(n), CR = new Float64Array(n),
      NM = new Int32Array(n), ST = new Int32Array(n), KD = new Int32Array(n), DT = new Int32Array(n);
  // A column's n varints straight into the typed array out (no per-column temporary: at a million
  // events eight of them were 64 MB of garbage); false when the column does not hold exactly n.
  function varintsInto(b, out) {
    var len = b ? b.length : 0, i = 0, k = 0;
    while (i < len && k < n) {
      var c = b[i++];
      if (c < 128) { out[k++] = c; continue; }
      var v = c & 127, mul = 128;
      do { c = b[i++]; v += (c & 127) * mul; mul *= 128; } while (c & 128 && i < len);
      out[k++] = v;
    }
    return k === n && i === len;
  }
  function decodePacked() {
    [['start', S], ['dur', DU], ['lane', LN], ['corr', CR], ['name', NM], ['stack', ST], ['kind', KD],
      ['detail', DT]].forEach(function (c) {
      if (!varintsInto(cols && cols[c[0]], c[1]))
        throw new Error('damaged page data: the ' + c[0] + ' column does not hold ' + n + ' events');
    });
    var start = 0, last = 0, nl = lanes.length, k, v;
    for (k = 0; k < n; k++) {
      v = S[k]; start += v % 2 ? -(v + 1) / 2 : v / 2; S[k] = start;
      if (LN[k] >= nl) LN[k] = 0;
      v = CR[k];
      if (v) { v -= 1; last += v % 2 ? -(v + 1) / 2 : v / 2; CR[k] = last; } else CR[k] = -1;
      ST[k] -= 1; DT[k] -= 1;
    }
  }
  if (packed) decodePacked(); else (function () {
    var order = raw.map(function (_, i) { return i; });
    var sorted = true;
    for (var i = 1; i < n; i++) if (raw[i][0] < raw[i - 1][0]) { sorted = false; break; }
    // the writer sorts by start; sort defensively (stable) so the binary searches stay correct
    if (!sorted) order.sort(function (a, b) { return raw[a][0] - raw[b][0] || a - b; });
    for (var j = 0; j < n; j++) {
      var e = raw[order[j]];
      S[j] = +e[0]; DU[j] = Math.max(0, +e[1]); LN[j] = e[2] | 0;
      CR[j] = e[3] == null ? -1 : +e[3]; NM[j] = e[4] | 0;
      ST[j] = e.length > 5 && e[5] != null ? e[5] | 0 : -1;
      KD[j] = e.length > 6 && e[6] != null ? e[6] | 0 : -1;
      DT[j] = e.length > 7 && e[7] != null ? e[7] | 0 : -1;
      if (LN[j] < 0 || LN[j] >= lanes.length) LN[j] = 0;
    }
  })();

  function kindName(i) {
    var k = kinds[KD[i]];
    if (k) return k;
    var lk = lanes[LN[i]] ? lanes[LN[i]].kind : 'gpu';
    return lk === 'cpu' ? 'cuda_api' : lk === 'nvtx' ? 'nvtx' : 'kernel';
  }
  function eventName(i) { var s = names[NM[i]]; return s == null ? '?' : String(s); }
  function laneKind(l) { return lanes[l] ? lanes[l].kind : 'gpu'; }

  // ---------------------------------------------------------------- formatting
  // fixed decimals with trailing zeros dropped ("1.50" -> "1.5"); integers keep theirs ("100")
  var fmtNum = gfPage.fmtNum, fmtDur = gfPage.fmtDur, clip = gfPage.clip, fitText = gfPage.fitText;
  function fmtBytes(b) {
    var u = ['B', 'KiB', 'MiB', 'GiB', 'TiB'], i = 0;
    while (b >= 1024 && i < u.length - 1) { b /= 1024; i++; }
    return fmtNum(b, i ? 2 : 0) + ' ' + u[i];
  }
  // Tick label: one unit per axis, chosen from the largest time on it (so 878 ms into a capture reads
  // "877.9 ms", not "877900 µs"), with as many decimals as the tick step needs.
  function tickUnit(step, maxT) {
    var m = Math.max(step, Math.abs(maxT));
    if (m >= 1e9) return [1e9, 's'];
    if (m >= 1e6) return [1e6, 'ms'];
    if (m >= 1e3) return [1e3, 'µs'];
    return [1, 'ns'];
  }
  function fmtTick(t, step, unit) {
    var dec = Math.min(9, Math.max(0, Math.ceil(-Math.log10(step / unit[0]) - 1e-9)));
    return (t / unit[0]).toFixed(dec) + ' ' + unit[1];
  }
  // ---------------------------------------------------------------- index
  // Per lane: event indices in start order plus a prefix maximum of end times. Because the prefix
  // max is monotonic, one binary search finds the first event that can reach into the view; all
  // earlier ones end before it. Visible-event queries are O(log n + events near the view).
  var laneEv = [], laneMaxEnd = [];
  (function () {
    var counts = new Int32Array(lanes.length), i, l;
    for (i = 0; i < n; i++) counts[LN[i]]++;
    for (l = 0; l < lanes.length; l++) { laneEv.push(new Int32Array(counts[l])); laneMaxEnd.push(new Float64Array(counts[l])); }
    var fill = new Int32Array(lanes.length);
    for (i = 0; i < n; i++) {
      l = LN[i]; var k = fill[l]++, end = S[i] + DU[i];
      laneEv[l][k] = i;
      laneMaxEnd[l][k] = k ? Math.max(laneMaxEnd[l][k - 1], end) : end;
    }
  })();
  // Nesting: one row per level, NVTX_ROW px each (room for a label), up to MAX_NVTX_ROWS. NVTX ranges sit
  // on their push/pop level; overlapping CUDA calls of a CPU thread on the row the writer gave them
  // (detail "row"), since nsys records calls inside calls (cudaMalloc around cudaMalloc_v3020, MPI wrappers).
  var NVTX_ROW = 16, MAX_NVTX_ROWS = 16;
  function nvtxLevel(i) {
    var d = DT[i] >= 0 ? details[DT[i]] : null;
    var r = d ? (d.nvtx_level > 0 ? d.nvtx_level : d.row > 0 ? d.row : 0) : 0;
    return r > 0 ? Math.min(MAX_NVTX_ROWS - 1, r | 0) : 0;
  }
  // the writer gives each lane's depth over all events (a preview holds only some of them)
  var laneDepth = (D.lanes || []).map(function (l) { return l && l.depth > 1 ? Math.min(MAX_NVTX_ROWS, l.depth | 0) : 1; });
  for (var li = 0; li < n; li++) if (DT[li] >= 0) laneDepth[LN[li]] = Math.max(laneDepth[LN[li]], nvtxLevel(li) + 1);
  // Lane geometry: laneTop[l] (px from the canvas top), laneHt[l]; laneTop[lanes.length] = bottom.
  // Groups: runs of consecutive lanes with the same group (the writer orders lanes by rank, kind, then
  // process or device), each under a GROUP_H header row that folds it on click.
  var GROUP_H = 16, SYNC_H = 7, groups = [];
  // Sync events are a thin band at the bottom of their stream's lane (a device-wide sync lane is the band)
  var syncKind = kinds.indexOf('sync');
  function isSync(i) { return syncKind >= 0 && KD[i] === syncKind; }
  function syncBand(l) { var y = laneTop[l], h = laneHt[l]; return lanes[l].band ? { y: y + 1, h: h - 2 } : { y: y + h - 5, h: 4 }; }
  lanes.forEach(function (ln, l) {
    var g = groups[groups.length - 1];
    if (!g || g.key !== ln.group) groups.push(g = { key: ln.group, first: l, last: l, collapsed: false, top: 0 });
    g.last = l;
  });
  var laneTop = new Float64Array(lanes.length + 1), laneHt = new Float64Array(lanes.length);
  function computeGeometry() {
    var y = AXIS_H;
    groups.forEach(function (g) {
      g.top = y; y += GROUP_H;
      for (var l = g.first; l <= g.last; l++) {
        laneTop[l] = y;
        laneHt[l] = g.collapsed ? 0 : lanes[l].band ? SYNC_H : lanes[l].sub ? gfTimelineCpu.laneHeight(lanes[l].sub)
          : laneDepth[l] > 1 ? laneDepth[l] * NVTX_ROW + 4 : LANE_H;
        y += laneHt[l];
      }
    });
    laneTop[lanes.length] = y;
  }
  computeGeometry();
  function laneAtY(y) { // lane under canvas y, or -1 (a group header, a folded lane, outside)
    if (y < AXIS_H || y >= laneTop[lanes.length] || !lanes.length) return -1;
    var lo = 0, hi = lanes.length - 1;
    while (lo < hi) { var m = (lo + hi + 1) >> 1; if (laneTop[m] <= y) lo = m; else hi = m - 1; }
    return y < laneTop[lo] + laneHt[lo] ? lo : -1;
  }
  function groupAtY(y) { // group whose header row is at canvas y, or -1
    for (var k = 0; k < groups.length; k++) if (y >= groups[k].top && y < groups[k].top + GROUP_H) return k;
    return -1;
  }
  function toggleGroup(k) {
    groups[k].collapsed = !groups[k].collapsed;
    computeGeometry();
    layoutPage();
  }
  function firstReaching(l, t) { // first position p in lane l with prefix max end >= t
    var a = laneMaxEnd[l], lo = 0, hi = a.length;
    while (lo < hi) { var m = (lo + hi) >> 1; if (a[m] < t) lo = m + 1; else hi = m; }
    return lo;
  }
  function firstReachingIn(maxEnd, t) { // the same over any prefix-max array
    var lo = 0, hi = maxEnd.length;
    while (lo < hi) { var m = (lo + hi) >> 1; if (maxEnd[m] < t) lo = m + 1; else hi = m; }
    return lo;
  }
  // Level of detail. A lane with many events gets, once at load, its busy share per bucket (bucket width
  // span / 2^k, about 16 events a bucket, at most 2^20 buckets) and coarser levels made by pairing
  // buckets. Zoomed out so far that a pixel is at least a bucket wide, the lane is drawn from the level
  // whose bucket is at most a pixel (a few thousand values), plus its events longer than a bucket (the
  // only ones that can be a pixel wide there, kept in their own list): at most a few thousand
  // rectangles per lane whatever the capture size. Zoomed in, every event is drawn as before.
  var LOD_MIN_EVENTS = 4096, lodLanes = 0;
  var lod = laneEv.map(function (ev, l) {
    var m = ev.length, zw = lanes[l].sub ? gfTimelineCpu.zeroWeight(lanes[l].sub) : 0;
    if (m < LOD_MIN_EVENTS) return null;
    var nb = 1024;
    while (nb < m / 16 && nb < 1048576) nb *= 2;
    var bw = fullSpan / nb, busy = new Float32Array(nb + 1), diff = new Float32Array(nb + 2), nlong = 0, p;
    for (p = 0; p < m; p++) {
      var i = ev[p], a = S[i] / bw, b = (S[i] + DU[i]) / bw, ia = Math.min(nb - 1, Math.floor(a)), ib = Math.min(nb - 1, Math.floor(b));
      if (DU[i] >= bw || isSync(i)) nlong++;
      if (isSync(i)) continue; // a band of its own, not the lane's busy share
      if (ia === ib) { busy[ia] += b - a || zw; continue; }
      busy[ia] += ia + 1 - a; busy[ib] += b - ib; diff[ia + 1] += 1; diff[ib] -= 1;
    }
    var run = 0;
    for (var k = 0; k < nb; k++) { run += diff[k]; busy[k] += run; }
    var levels = [busy];
    for (var w = nb; w > 256; w >>= 1) {
      var prev = levels[levels.length - 1], next = new Float32Array(w >> 1);
      for (var q = 0; q < w >> 1; q++) next[q] = (prev[2 * q] + prev[2 * q + 1]) / 2;
      levels.push(next);
    }
    var long = new Int32Array(nlong), longMaxEnd = new Float64Array(nlong), f = 0;
    for (p = 0; p < m; p++) {
      var j = ev[p];
      if (DU[j] < bw && !isSync(j)) continue;
      long[f] = j;
      longMaxEnd[f] = f ? Math.max(longMaxEnd[f - 1], S[j] + DU[j]) : S[j] + DU[j];
      f++;
    }
    return { bw: bw, levels: levels, long: long, longMaxEnd: longMaxEnd };
  });
  // Adds the lane's busy share per pixel column (from the finest level whose bucket is at most a pixel)
  // into occ; true when anything was added.
  function lodOccupancy(L) {
    var nsPx = (ve - vs) / plotW, k = Math.min(L.levels.length - 1, Math.floor(Math.log2(nsPx / L.bw) + 1e-9));
    var A = L.levels[k], W = L.bw * Math.pow(2, k), b0 = Math.max(0, Math.floor(vs / W)), b1 = Math.min(A.length - 1, Math.floor(ve / W));
    var any = false, share = W / nsPx;
    for (var b = b0; b <= b1; b++) {
      if (A[b] <= 0) continue;
      var px = Math.floor((b * W - vs) / nsPx);
      if (px < 0) px = 0;
      if (px > plotW) break;
      occ[px] += Math.min(1, A[b]) * share;
      any = true;
    }
    return any;
  }
  function firstStartAtOrAfter(t) { // global index of the first event with start >= t
    var lo = 0, hi = n;
    while (lo < hi) { var m = (lo + hi) >> 1; if (S[m] < t) lo = m + 1; else hi = m; }
    return lo;
  }
  // The partner of a CPU-lane launch is its GPU work (same CorrID), and the other way round. No index
  // over every event (a Map of a million CorrIDs costs tens of MB): a selection scans the typed array.
  function partnerOf(i) {
    if (i < 0 || CR[i] < 0) return -1;
    var c = CR[i], cpu = laneKind(LN[i]) === 'cpu', best = -1;
    for (var j = 0; j < n; j++) {
      if (CR[j] !== c || j === i || (laneKind(LN[j]) === 'cpu') === cpu) continue;
      if (best < 0 || Math.abs(S[j] - S[i]) < Math.abs(S[best] - S[i])) best = j;
    }
    return best;
  }

  // ---------------------------------------------------------------- state
  var vs = 0, ve = fullSpan;          // visible window (ns relative to t0)
  var sel = -1, partner = -1;
  var hover = -1;
  var matches = [], matchPos = -1, nameMatch = null;
  var lastDrawMs = 0;
  var minSpan = Math.min(MIN_SPAN, fullSpan);

  function setView(s, e) {
    var w = e - s;
    if (!(w > 0)) w = minSpan;
    if (w < minSpan) { var c = (s + e) / 2; s = c - minSpan / 2; w = minSpan; }
    if (w >= fullSpan) { s = 0; w = fullSpan; }
    if (s < 0) s = 0;
    if (s + w > fullSpan) s = fullSpan - w;
    vs = s; ve = s + w;
    requestDraw();
  }
  function zoomAt(t, factor) { setView(t - (t - vs) * factor, t + (ve - t) * factor); }
  function panBy(frac) { var d = (ve - vs) * frac; setView(vs + d, ve + d); }
  function centreOn(i) {
    var w = ve - vs;
    if (DU[i] > 0.8 * w) w = DU[i] / 0.6;
    var c = S[i] + DU[i] / 2;
    setView(c - w / 2, c + w / 2);
  }

  // ---------------------------------------------------------------- DOM
  var $ = gfPage.$, el = gfPage.el;
  var mainC = $('main'), miniC = $('mini'), fgC = $('fg'), tip = $('tip');
  var mctx = mainC.getContext('2d'), nctx = miniC.getContext('2d');
  var axisC = $('axis-float'), actx = axisC.getContext('2d');
  var cssW = 800, plotW = 610, mainH = AXIS_H + 4, dpr = 1;

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

  // ---------------------------------------------------------------- layout
  function layoutPage() {
    dpr = window.devicePixelRatio || 1;
    cssW = Math.max(320, mainC.parentNode.clientWidth - 24);
    plotW = cssW - LABEL_W;
    mainH = laneTop[lanes.length] + 4;
    sizeCanvas(mainC, mctx, cssW, mainH);
    sizeCanvas(miniC, nctx, cssW, 36);
    sizeCanvas(axisC, actx, cssW, AXIS_H);
    miniDensity = null;
    if (FR) FR.resize();
    requestDraw();
  }
  function sizeCanvas(c, ctx, w, h) {
    c.style.width = w + 'px'; c.style.height = h + 'px';
    c.width = Math.round(w * dpr); c.height = Math.round(h * dpr);
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  }

  // ---------------------------------------------------------------- drawing: main canvas
  var drawPending = false;
  function requestDraw() {
    if (drawPending) return;
    drawPending = true;
    requestAnimationFrame(function () { drawPending = false; drawAll(); });
  }
  function drawAll() {
    if (!n) { drawn(); return; }
    var t = performance.now();
    drawMain();
    if (preview) nctx.clearRect(0, 0, cssW, 36); else drawMini(); // the overview needs all events
    drawFloatingAxis();
    if (!preview) { clearTimeout(gpuTimer); gpuTimer = setTimeout(renderGpuTime, 100); }
    lastDrawMs = performance.now() - t;
    drawn();
  }
  function drawn() {
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
  function xOf(t) { return (t - vs) * plotW / (ve - vs); }

  function niceStep(raw) {
    var p = Math.pow(10, Math.floor(Math.log10(raw))), m = raw / p;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
  }
  function drawAxis(c) {
    c.fillStyle = '#1b1d22'; c.fillRect(0, 0, cssW, AXIS_H);
    var step = niceStep((ve - vs) / Math.max(1, plotW / 110));
    c.font = '11px system-ui, sans-serif'; c.textBaseline = 'middle';
    c.strokeStyle = '#2a2d35'; c.lineWidth = 1;
    var unit = tickUnit(step, ve);
    for (var t = Math.ceil(vs / step) * step; t <= ve; t += step) {
      var x = LABEL_W + Math.round(xOf(t)) + 0.5;
      c.beginPath(); c.moveTo(x, AXIS_H - 5); c.lineTo(x, mainH); c.stroke();
      var lab = fmtTick(t, step, unit);
      if (x + 3 + c.measureText(lab).width > cssW) continue; // would be cut at the right edge
      c.fillStyle = '#9aa0ae'; c.fillText(lab, x + 3, AXIS_H / 2);
    }
  }
  // With many lanes the page scrolls and the canvas's own axis leaves the screen: a copy of it then
  // sticks to the top of the viewport over the lanes.
  function drawFloatingAxis() {
    var r = mainC.getBoundingClientRect(), show = n > 0 && r.top < 0 && r.bottom > AXIS_H + LANE_H;
    if (axisC.hidden !== !show) axisC.hidden = !show;
    if (!show) return;
    axisC.style.left = r.left + 'px';
    actx.clearRect(0, 0, cssW, AXIS_H);
    drawAxis(actx);
  }
  function drawLabels(c) {
    c.font = '12px system-ui, sans-serif'; c.textBaseline = 'middle';
    var cw = c.measureText('abcdefghijklmnopqrstuvwxyz0123456789 ').width / 37;
    groups.forEach(function (g) {
      c.fillStyle = '#2a2d35'; c.fillRect(0, g.top, cssW, GROUP_H);
      c.fillStyle = '#e6e8ee';
      var nl = g.last - g.first + 1;
      c.fillText(fitMiddle((g.collapsed ? '▸ ' : '▾ ') + g.key + (nl > 1 || g.collapsed ? ' (' + nl + ' lane' + (nl > 1 ? 's' : '') + ')' : ''),
        cssW - 12, cw), 6, g.top + GROUP_H / 2);
    });
    for (var l = 0; l < lanes.length; l++) {
      var y = laneTop[l], h = laneHt[l];
      if (!h) continue;
      c.fillStyle = l % 2 ? '#1c1e23' : '#202228'; c.fillRect(0, y, LABEL_W, h);
      if (lanes[l].sub) { gfTimelineCpu.drawSubLabel(c, lanes[l], y, h, LABEL_W); continue; } // a thread's samples / running row
      c.fillStyle = COL[lanes[l].proj ? 'nvtx' : lanes[l].kind] || COL.gpu; c.fillRect(0, y + 2, 3, h - 4);
      c.fillStyle = '#cfd3dc';
      if (h >= 12) c.fillText(gfGpu.fitLeft(lanes[l].short, LABEL_W - 14, cw), 8, y + Math.min(h, LANE_H) / 2);
    }
    c.fillStyle = '#3a3e48'; c.fillRect(LABEL_W - 1, AXIS_H, 1, mainH - AXIS_H);
  }
  // Group headers lose their middle, not their end (lane labels lose their start: gfGpu.fitLeft).
  function fitMiddle(s, w, cw) {
    var max = Math.floor(w / cw);
    if (s.length <= max) return s;
    var tail = Math.min(16, Math.floor((max - 1) / 2));
    return s.slice(0, max - 1 - tail) + '…' + s.slice(s.length - tail);
  }

  var occ = new Float32Array(0);
  function drawMain() {
    var c = mctx;
    c.clearRect(0, 0, cssW, mainH);
    c.fillStyle = '#17181c'; c.fillRect(0, 0, cssW, mainH);
    drawAxis(c);
    drawLabels(c);
    c.save();
    c.beginPath(); c.rect(LABEL_W, AXIS_H, plotW, mainH - AXIS_H); c.clip();
    c.translate(LABEL_W, 0);
    c.font = '11px system-ui, sans-serif'; c.textBaseline = 'middle';
    var cw = c.measureText('abcdefghijklmnopqrstuvwxyz0123456789 ').width / 37;
    if (occ.length < plotW + 2) occ = new Float32Array(plotW + 2);
    var searching = nameMatch !== null;
    lodLanes = 0;
    for (var l = 0; l < lanes.length; l++) drawLane(c, l, cw, searching);
    drawFinding(c);
    drawSelection(c);
    c.restore();
    if (range) { // the range's duration label sits on the axis, outside the lanes' clip
      c.save(); c.beginPath(); c.rect(LABEL_W, 0, plotW, mainH); c.clip(); c.translate(LABEL_W, 0);
      drawRange(c);
      c.restore();
    }
  }

  // One lane: bars for events at least 1 px wide, per-pixel occupancy shading for narrower ones
  // (thousands of sub-pixel kernels would otherwise paint over each other as one solid smear).
  function drawLane(c, l, cw, searching) {
    var y = laneTop[l], LH = laneHt[l], ev = laneEv[l], scale = plotW / (ve - vs);
    if (!LH) return; // folded group
    var p = firstReaching(l, vs), cur = '', dens = false, dimmed = false, zeroW = gfTimelineCpu.zeroWeight(lanes[l].sub);
    // nested NVTX ranges get one row per level inside the lane, outermost on top
    var depth = laneDepth[l], rowH = (LH - 4) / depth, fs = depth > 1 ? Math.min(11, Math.max(7, Math.floor(rowH - 4))) : 11;
    if (fs !== 11) c.font = fs + 'px system-ui, sans-serif';
    occ.fill(0, 0, plotW + 2);
    var L = lod[l];
    if (L && !searching && (ve - vs) / plotW >= L.bw) { // zoomed out: summaries + the events wider than a bucket
      lodLanes++;
      dens = lodOccupancy(L);
      ev = L.long; p = firstReachingIn(L.longMaxEnd, vs);
    }
    for (; p < ev.length; p++) {
      var i = ev[p], s = S[i];
      if (s > ve) break;
      var e = s + DU[i];
      if (e < vs) continue;
      var x0 = (s - vs) * scale, w = DU[i] * scale;
      var dim = searching && !nameMatch[NM[i]];
      if (isSync(i)) { // a thin band, at least a pixel wide
        if (dim !== dimmed) { c.globalAlpha = dim ? 0.25 : 1; dimmed = dim; }
        if (cur !== KIND_COL.sync) { c.fillStyle = cur = KIND_COL.sync; }
        var sb = syncBand(l), sa = Math.max(-2, x0);
        c.fillRect(sa, sb.y, Math.max(1, Math.min(plotW + 2, x0 + w) - sa), sb.h);
        continue;
      }
      if (w < 1) { // accumulate covered fraction into (at most two) pixel columns
        if (dim) continue;
        var px = Math.floor(x0), f = px + 1 - x0;
        if (px >= 0 && px <= plotW) occ[px] += Math.min(w, f) || zeroW; // zero-length still shows
        if (w > f && px + 1 <= plotW) occ[px + 1] += w - f;
        dens = true;
        continue;
      }
      if (dim !== dimmed) { c.globalAlpha = dim ? 0.25 : 1; dimmed = dim; }
      var col = KIND_COL[kindName(i)] || COL.gpu;
      if (col !== cur) { c.fillStyle = col; cur = col; }
      var xa = Math.max(-2, x0), xb = Math.min(plotW + 2, x0 + w);
      var top = y + 3, h = LH - 6;
      if (depth > 1) { var lv = nvtxLevel(i); top = y + 2 + lv * rowH; h = rowH - 1; }
      c.fillRect(xa, top, Math.max(1, xb - xa - (w > 3 ? 0.5 : 0)), h);
      if (xb - xa > 36 && h >= 7) {
        var txt = fitText(eventName(i), xb - xa - 8, cw * fs / 11);
        if (txt) { c.fillStyle = '#15161a'; c.fillText(txt, xa + 4, top + h / 2 + 0.5); cur = ''; }
      }
    }
    if (fs !== 11) c.font = '11px system-ui, sans-serif';
    if (dimmed) c.globalAlpha = 1;
    if (dens) drawDensity(c, l, y);
  }
  function drawDensity(c, l, y) {
    c.fillStyle = gfTimelineCpu.densityColour(lanes[l].sub) || COL[laneKind(l)] || COL.gpu;
    var runStart = -1, runA = 0;
    for (var x = 0; x <= plotW + 1; x++) {
      // quantise to 8 levels so runs of similar occupancy become one fillRect
      var a = occ[x] > 0 ? Math.min(8, Math.ceil(occ[x] * 8)) : 0;
      if (a !== runA) {
        if (runA > 0) { c.globalAlpha = 0.2 + 0.8 * runA / 8; c.fillRect(runStart, y + 3, x - runStart, laneHt[l] - 6); }
        runStart = x; runA = a;
      }
    }
    if (runA > 0) { c.globalAlpha = 0.2 + 0.8 * runA / 8; c.fillRect(runStart, y + 3, plotW + 2 - runStart, laneHt[l] - 6); }
    c.globalAlpha = 1;
  }
  function barRect(i) { // bar of event i in plot coordinates, at least 3 px wide so it stays visible
    var x0 = xOf(S[i]), w = Math.max(3, DU[i] * plotW / (ve - vs));
    if (DU[i] * plotW / (ve - vs) < 3) x0 -= (w - DU[i] * plotW / (ve - vs)) / 2;
    var xa = Math.max(-4, x0), xb = Math.min(plotW + 4, x0 + w);
    var y = laneTop[LN[i]] + 2, h = laneHt[LN[i]] - 4, dep = laneDepth[LN[i]];
    if (isSync(i)) { var sb = syncBand(LN[i]); y = sb.y; h = sb.h; } else if (dep > 1) { h = (laneHt[LN[i]] - 4) / dep; y += nvtxLevel(i) * h; }
    return { x: xa, w: Math.max(3, xb - xa), y: y, h: h };
  }
  function drawSelection(c) {
    if (hover >= 0 && hover !== sel && inView(hover)) { // thin outline under the pointer
      var h = barRect(hover);
      c.strokeStyle = '#ffffff'; c.lineWidth = 1; c.strokeRect(h.x + 0.5, h.y + 0.5, h.w - 1, h.h - 1);
    }
    if (sel < 0) return;
    [partner, sel].forEach(function (i) {
      if (i < 0) return;
      var r = barRect(i);
      c.fillStyle = i === sel ? COL.sel : 'rgba(245,230,99,0.45)';
      c.fillRect(r.x, r.y, r.w, r.h);
      c.strokeStyle = COL.sel; c.lineWidth = 2; c.strokeRect(r.x, r.y, r.w, r.h);
    });
    if (partner >= 0) { // launch -> GPU work arrow, from the CPU call's start to the kernel's start
      var a = laneKind(LN[sel]) === 'cpu' ? sel : partner, b = a === sel ? partner : sel;
      var x1 = xOf(S[a]), y1 = laneTop[LN[a]] + laneHt[LN[a]] / 2;
      var x2 = xOf(S[b]), y2 = laneTop[LN[b]] + (LN[b] > LN[a] ? 3 : laneHt[LN[b]] - 3);
      c.strokeStyle = COL.sel; c.fillStyle = COL.sel; c.lineWidth = 1.5;
      c.beginPath(); c.moveTo(x1, y1); c.lineTo(x2, y2); c.stroke();
      var ang = Math.atan2(y2 - y1, x2 - x1);
      c.beginPath(); c.moveTo(x2, y2);
      c.lineTo(x2 - 8 * Math.cos(ang - 0.4), y2 - 8 * Math.sin(ang - 0.4));
      c.lineTo(x2 - 8 * Math.cos(ang + 0.4), y2 - 8 * Math.sin(ang + 0.4));
      c.closePath(); c.fill();
    }
  }

  // ---------------------------------------------------------------- drawing: overview minimap
  // Full-capture occupancy per lane kind (CPU / GPU / NVTX band), computed once per width with a
  // difference array so a long event costs O(1), not O(columns).
  var miniDensity = null, miniKinds = [];
  function computeMiniDensity() {
    miniKinds = ['cpu', 'gpu', 'nvtx'].filter(function (k) { return lanes.some(function (l) { return l.kind === k; }); });
    var W = plotW, bw = fullSpan / W;
    miniDensity = miniKinds.map(function (k) {
      var acc = new Float64Array(W + 2), diff = new Float64Array(W + 2), nl = 0;
      lanes.forEach(function (l) { if (l.kind === k && !l.proj && !l.sub) nl++; });
      for (var i = 0; i < n; i++) { // the GPU band is the GPU's work: NVTX ranges projected onto it stay out;
        // a thread's samples and running rows are not busy either
        if (laneKind(LN[i]) !== k || lanes[LN[i]].proj || lanes[LN[i]].sub) continue;
        var a = S[i] / bw, b = (S[i] + DU[i]) / bw, ia = Math.floor(a), ib = Math.floor(b);
        if (ia >= W) ia = W - 1;
        if (ib >= W) ib = W - 1;
        if (ia === ib) { acc[ia] += b - a; continue; }
        acc[ia] += ia + 1 - a; acc[ib] += b - ib;
        diff[ia + 1] += 1; diff[ib] -= 1;
      }
      var run = 0, out = new Float32Array(W);
      for (var x = 0; x < W; x++) { run += diff[x]; out[x] = (acc[x] + run) / Math.max(1, nl); }
      return out;
    });
  }
  // The density picture only changes with the width, so it is painted once into an offscreen canvas
  // and each frame just copies it and draws the viewport window on top.
  var miniCache = document.createElement('canvas');
  function paintMiniCache() {
    computeMiniDensity();
    var H = 36, c = miniCache.getContext('2d');
    miniCache.width = Math.round(cssW * dpr); miniCache.height = Math.round(H * dpr);
    c.setTransform(dpr, 0, 0, dpr, 0, 0);
    c.fillStyle = '#111216'; c.fillRect(0, 0, cssW, H);
    c.font = '11px system-ui, sans-serif'; c.textBaseline = 'middle'; c.fillStyle = '#8a90a0';
    c.fillText('overview (drag the window)', 8, H / 2);
    var bh = (H - 4) / Math.max(1, miniKinds.length);
    miniKinds.forEach(function (k, r) {
      var d = miniDensity[r], y = 2 + r * bh;
      c.fillStyle = COL[k];
      for (var x = 0; x < d.length; x++) {
        if (d[x] <= 0) continue;
        c.globalAlpha = Math.min(1, 0.15 + Math.sqrt(d[x]) * 0.85); // sqrt: sparse regions stay visible
        c.fillRect(LABEL_W + x, y, 1, bh - 1);
      }
    });
    c.globalAlpha = 1;
  }
  function drawMini() {
    if (!miniDensity) paintMiniCache();
    var c = nctx, H = 36;
    c.clearRect(0, 0, cssW, H);
    c.drawImage(miniCache, 0, 0, cssW, H);
    var r = miniRect();
    c.fillStyle = 'rgba(245,230,99,0.16)'; c.fillRect(r.x, 0, r.w, H);
    c.strokeStyle = COL.sel; c.lineWidth = 1.5; c.strokeRect(r.x + 0.75, 0.75, r.w - 1.5, H - 1.5);
  }
  function miniRect() {
    var x = LABEL_W + vs / fullSpan * plotW, w = Math.max(4, (ve - vs) / fullSpan * plotW);
    return { x: x, w: w };
  }

  // ---------------------------------------------------------------- hit test and tooltip
  function eventAt(cx, cy) {
    var r = mainC.getBoundingClientRect(), x = cx - r.left - LABEL_W, y = cy - r.top;
    if (x < 0) return -1;
    var l = laneAtY(y);
    if (l < 0) return -1;
    var t = vs + x * (ve - vs) / plotW, tol = 3 * (ve - vs) / plotW;
    var ev = laneEv[l], best = -1, bestScore = Infinity, dep = laneDepth[l];
    var row = dep > 1 ? Math.min(dep - 1, Math.max(0, Math.floor((y - laneTop[l] - 2) / ((laneHt[l] - 4) / dep)))) : 0;
    for (var p = firstReaching(l, t - tol); p < ev.length; p++) {
      var i = ev[p];
      if (S[i] > t + tol) break;
      var e = S[i] + DU[i];
      if (e < t - tol) continue;
      // inside beats near; then the NVTX sub-row under the pointer; then the shortest (innermost)
      // range among those inside, or the nearest edge among those near
      var inside = S[i] <= t && e >= t;
      // over a stream's sync band the sync events come first, elsewhere the work
      var band = y >= syncBand(l).y - 1, cls = (inside ? 0 : 2) + (isSync(i) !== band ? 1 : 0) +
        (dep > 1 && nvtxLevel(i) !== row ? 1 : 0);
      var score = cls * 1e18 + (inside ? DU[i] : Math.min(Math.abs(S[i] - t), Math.abs(e - t)));
      if (score < bestScore) { bestScore = score; best = i; }
    }
    return best;
  }
  function laneAtLabel(cx, cy) {
    var r = mainC.getBoundingClientRect(), x = cx - r.left;
    if (x >= LABEL_W) return -1;
    return laneAtY(cy - r.top);
  }
  function laneTip(l, cx, cy) {
    tip.textContent = '';
    tip.appendChild(el('div', 'n', clip(lanes[l].label, 300)));
    var d = el('div', 'r', 'events: '); d.appendChild(el('b', null, String(laneEv[l].length))); tip.appendChild(d);
    gfPage.placeTip(tip, cx, cy);
  }
  function detailRows(i) {
    var rows = [['lane', lanes[LN[i]] ? lanes[LN[i]].label : '?'],
      ['kind', KIND_LABEL[kindName(i)] || kindName(i)],
      ['start', '+' + fmtDur(S[i])], ['duration', fmtDur(DU[i])]];
    if (CR[i] >= 0) rows.push(['CorrID', String(CR[i])]);
    if (lanes[LN[i]] && lanes[LN[i]].proj) rows.push(['projected', 'from the first to the last GPU op launched inside this NVTX range (nvtx_gpu_proj_trace)']);
    var d = DT[i] >= 0 ? details[DT[i]] : null;
    if (d) {
      if (d.grid) rows.push(['grid', '(' + d.grid.join(', ') + ')']);
      if (d.block) rows.push(['block', '(' + d.block.join(', ') + ')']);
      if (d.regs != null) rows.push(['registers', String(d.regs)]);
      if (d.bytes != null) rows.push(['bytes', fmtBytes(+d.bytes) + ' (' + d.bytes + ' B)']);
      if (d.copy) rows.push(['copy kind', String(d.copy)]);
      if (d.bytes != null && DU[i] > 0) rows.push(['throughput', fmtNum(d.bytes / DU[i], 2) + ' GB/s']);
      if (d.domain) rows.push(['domain', String(d.domain)]);
      if (d.row > 0) rows.push(['nested', 'row ' + (d.row + 1) + ' of its thread (overlaps an earlier call)']);
      Object.keys(d).forEach(function (k) { // anything newer writers add is still shown
        if (['grid', 'block', 'regs', 'bytes', 'copy', 'domain', 'device', 'stream', 'nvtx_level', 'row'].indexOf(k) < 0) {
          rows.push([k, clip(typeof d[k] === 'object' ? JSON.stringify(d[k]) : d[k], 200)]);
        }
      });
    }
    var st = stackOf(i);
    rows.push(['backtrace', st >= 0 ? (stacks[st].length + ' frames (click)') : 'none']);
    return rows;
  }
  function showTip(i, cx, cy) {
    tip.textContent = '';
    tip.appendChild(el('div', 'n', clip(eventName(i), 300)));
    detailRows(i).forEach(function (r) {
      var d = el('div', 'r', r[0] + ': '); d.appendChild(el('b', null, clip(r[1], 300))); tip.appendChild(d);
    });
    gfPage.placeTip(tip, cx, cy);
  }
  function hideTip() { tip.style.display = 'none'; }

  // ---------------------------------------------------------------- selection and stack panel
  function stackOf(i) {
    if (i < 0) return -1;
    if (ST[i] >= 0 && stacks[ST[i]]) return ST[i];
    var p = partnerOf(i); // older writers only put the stack on the launch
    return p >= 0 && ST[p] >= 0 && stacks[ST[p]] ? ST[p] : -1;
  }
  function select(i) {
    sel = i; partner = partnerOf(i);
    renderStackPanel();
    requestDraw();
  }
  // What a GPU engineer asks next about a selected event: how long the launch took and how long the
  // work waited after it (HTA's launch overhead / launch delay), and how this name does overall.
  var nameStats = null;
  function statsOfName(nm) {
    if (!nameStats) {
      nameStats = new Map();
      for (var i = 0; i < n; i++) {
        var st = nameStats.get(NM[i]);
        if (!st) nameStats.set(NM[i], st = { count: 0, total: 0 });
        st.count++; st.total += DU[i];
      }
    }
    return nameStats.get(nm);
  }
  function selectionFacts(i) {
    var parts = [];
    if (partner >= 0) {
      var api = laneKind(LN[i]) === 'cpu' ? i : partner, work = api === i ? partner : i;
      parts.push('launch overhead ' + fmtDur(DU[api]));
      var delay = S[work] - (S[api] + DU[api]);
      parts.push('launch delay ' + (delay < 0 ? '−' + fmtDur(-delay) + ' (started before the call returned)' : fmtDur(delay)));
    }
    var st = statsOfName(NM[i]);
    if (st && st.count > 1) {
      parts.push('same name: ' + st.count + ' events on the page, total ' + fmtDur(st.total) + ', mean ' + fmtDur(st.total / st.count));
    }
    return parts.join(' · ');
  }
  // A GPU op's launch (docs/SEMANTICS.md): the thread and API call that launched it, its queue delay (kernel
  // start − launch call end) and its NVTX path (the flamegraph's: the push/pop ranges of that thread that
  // enclose the call). null for other events or work whose launch is not on the page.
  function launchInfo(i) {
    if (i < 0 || !isGpuWork(i) || partner < 0 || laneKind(LN[partner]) !== 'cpu') return null;
    var a = partner, R = rawLane(LN[a]), path = [];
    for (var l = 0; l < lanes.length; l++) {
      var N = rawLane(l);
      if (lanes[l].kind === 'nvtx' && N.pid === R.pid && N.tid === R.tid && N.rank === R.rank) {
        path = gfGpu.nvtxPath({ S: S, DU: DU, DT: DT }, laneEv[l], details, eventName, S[a], S[a] + DU[a]);
        break;
      }
    }
    return { path: path, thread: lanes[LN[a]].label, call: eventName(a), api: a, queueDelay: S[i] - (S[a] + DU[a]) };
  }
  // The GPU time breakdown of a window per device (docs/SEMANTICS.md, gpu-busy's parts) over the page's
  // events; the header shows the window in view's, a measured range its own.
  var gpuIdx = null, gpuTimer = 0, gpuTimeKey = '';
  function gpuBreakdown(a, b) {
    if (!gpuIdx) {
      var gt = gfPage.json('gf-gputime') || {};
      gpuIdx = gfGpu.breakdownIndex({ n: n, S: S, DU: DU, LN: LN, KD: KD, NM: NM },
        lanes.map(function (L, l) { var R = rawLane(l); return { kind: L.kind, proj: L.proj, deviceId: R.deviceId, device: R.device }; }),
        kinds, names, Array.isArray(gt.communication) ? gt.communication : []);
    }
    return gfGpu.breakdown(gpuIdx, a, b);
  }
  function gpuTimeLines(a, b) {
    return gpuBreakdown(a, b).map(function (r) { return r.device + ': ' + gfGpu.breakdownText(r, fmtDur); });
  }
  function renderGpuTime() {
    var key = vs + ':' + ve, box = $('gpu-time');
    if (!box || key === gpuTimeKey) return;
    gpuTimeKey = key;
    var lines = gpuTimeLines(vs, ve);
    box.textContent = '';
    box.appendChild(el('b', null, 'GPU time in view'));
    box.appendChild(document.createTextNode(lines.length ? ' · ' + lines.join(' · ') : ': no GPU work'));
    var c = pageCounts();
    if (c.shown < c.total) box.appendChild(document.createTextNode(' (over the events on the page: the longest ' + c.shown + ' of ' + c.total + ')'));
    box.title = box.textContent; // the line is one line high (timeline.css): the whole text on hover
  }
  function renderStackPanel() {
    var info = $('sel-info'), ol = $('frames'), ns = $('nostack');
    ol.textContent = ''; ns.hidden = true;
    if (sel < 0) { info.textContent = 'Click an event to see the CPU call path that launched it.'; return; }
    info.textContent = '';
    info.appendChild(el('b', null, clip(eventName(sel), 2000)));
    var desc = ' · ' + (lanes[LN[sel]] ? lanes[LN[sel]].label : '?') + ' · +' + fmtDur(S[sel]) + ' · ' + fmtDur(DU[sel]);
    if (CR[sel] >= 0) desc += ' · CorrID ' + CR[sel];
    if (partner >= 0) desc += ' · partner: ' + clip(eventName(partner), 200) + ' (' + fmtDur(DU[partner]) + ')';
    info.appendChild(document.createTextNode(desc));
    var facts = selectionFacts(sel);
    if (facts) info.appendChild(el('div', 'facts', facts));
    var li = launchInfo(sel);
    if (li) {
      info.appendChild(el('div', 'nvtx-path', 'NVTX path: ' + (li.path.length ? li.path.join(' › ') : 'none (launched outside every push/pop range)')));
      info.appendChild(el('div', 'launch', 'launched by ' + li.call + ' on ' + li.thread + ' · queue delay ' +
        (li.queueDelay < 0 ? '−' + fmtDur(-li.queueDelay) : fmtDur(li.queueDelay))));
    }
    var st = stackOf(sel);
    if (st < 0) {
      ns.hidden = false;
      ns.textContent = gfTimelineCpu.noStack(kindName(sel)) ||
        'No backtrace recorded for this event (below the --cudabacktrace threshold, or not a kernel launch).';
      return;
    }
    stacks[st].forEach(function (f) { // innermost first, as recorded; module shown dimmer
      var li = el('li'), s = String(f), m = /^(.*) (\([^()]*\))$/.exec(s);
      if (m) { li.appendChild(document.createTextNode(m[1] + ' ')); li.appendChild(el('span', 'mod', m[2])); }
      else li.textContent = s;
      ol.appendChild(li);
    });
  }
  // n / p: next / previous event (global start order) overlapping the view; if there is none, the
  // next one beyond the view is selected and centred so repeated presses walk the whole trace.
  function inView(i) { return S[i] <= ve && S[i] + DU[i] >= vs; }
  function step(dir) {
    if (!n) return;
    var i;
    if (dir > 0) {
      i = sel >= 0 && inView(sel) ? sel + 1 : firstOverlapping();
      while (i < n && !inView(i) && S[i] <= ve) i++;
      if (i >= n) return;
      select(i);
      if (!inView(i)) centreOn(i);
    } else {
      var i0 = sel >= 0 && inView(sel) ? sel - 1 : firstStartAtOrAfter(ve + 1e-9) - 1;
      i = i0;
      while (i >= 0 && !inView(i)) i--;
      if (i < 0) i = i0; // nothing earlier in view: step to the event just before it
      if (i < 0) return;
      select(i);
      if (!inView(i)) centreOn(i);
    }
  }
  function firstOverlapping() { // smallest global index overlapping the view
    var best = firstStartAtOrAfter(vs);
    for (var l = 0; l < lanes.length; l++) {
      var ev = laneEv[l], p = firstReaching(l, vs);
      for (; p < ev.length && S[ev[p]] < vs; p++) if (S[ev[p]] + DU[ev[p]] >= vs) { best = Math.min(best, ev[p]); break; }
    }
    return best;
  }
  function fitSelection() {
    if (range) { setView(range.a, range.b); return; } // a measured range wins: "zoom to what I marked"
    if (sel < 0) return;
    var a = S[sel], b = S[sel] + DU[sel];
    if (partner >= 0) { a = Math.min(a, S[partner]); b = Math.max(b, S[partner] + DU[partner]); }
    var pad = Math.max((b - a) * 0.1, 50);
    setView(a - pad, b + pad);
  }

  // ---------------------------------------------------------------- mouse: main canvas
  var drag = null, range = null;
  function timeAtClientX(cx) {
    var x = Math.min(plotW, Math.max(0, cx - mainC.getBoundingClientRect().left - LABEL_W));
    return vs + x * (ve - vs) / plotW;
  }
  function renderRange() {
    var g = range ? gpuTimeLines(range.a, range.b) : [];
    $('range-info').textContent = range ? 'measured ' + fmtDur(range.b - range.a) + ' (+' + fmtDur(range.a) +
      ' → +' + fmtDur(range.b) + ')' + (g.length ? ' · GPU time ' + g.join(' · ') : '') + ' · F zooms to it · Esc clears' : '';
  }
  // Measured range: a translucent band over all lanes with its duration on the axis.
  function drawRange(c) {
    if (!range) return;
    var xa = Math.max(-1, xOf(range.a)), xb = Math.min(plotW + 1, xOf(range.b));
    if (xb < 0 || xa > plotW) return;
    c.fillStyle = 'rgba(120,180,255,0.14)'; c.fillRect(xa, AXIS_H, xb - xa, mainH - AXIS_H);
    c.strokeStyle = '#78b4ff'; c.lineWidth = 1;
    c.beginPath(); c.moveTo(xa + 0.5, 0); c.lineTo(xa + 0.5, mainH); c.moveTo(xb - 0.5, 0); c.lineTo(xb - 0.5, mainH); c.stroke();
    var lab = fmtDur(range.b - range.a), w = c.measureText(lab).width + 8, mid = (xa + xb) / 2;
    c.fillStyle = '#78b4ff'; c.fillRect(mid - w / 2, 1, w, AXIS_H - 2);
    c.fillStyle = '#0d0e11'; c.fillText(lab, mid - w / 2 + 4, AXIS_H / 2);
  }
  on(mainC, 'mousedown', function (e) {
    if (e.button !== 0) return;
    var r0 = mainC.getBoundingClientRect(), gx = e.clientX - r0.left, gy = e.clientY - r0.top;
    if (Math.abs(gx - LABEL_W) <= 4 && gy >= AXIS_H) { // the label column's edge: drag to resize it
      labelDrag = { x: e.clientX, w: LABEL_W }; e.preventDefault(); return;
    }
    var gk = groupAtY(gy);
    if (gk >= 0) { toggleGroup(gk); e.preventDefault(); return; }
    // Shift+drag measures a time range instead of panning (shown with its duration; F zooms to it)
    drag = { x: e.clientX, vs: vs, ve: ve, moved: false, measure: e.shiftKey };
    e.preventDefault(); // no text selection while dragging; so move keyboard focus off the search box by hand
    if (document.activeElement && document.activeElement !== document.body) document.activeElement.blur();
    window.focus();
  });
  var labelDrag = null;
  on(window, 'mousemove', function (e) {
    if (miniDrag) { miniMove(e); return; }
    if (labelDrag) {
      LABEL_W = Math.max(80, Math.min(cssW - 200, labelDrag.w + e.clientX - labelDrag.x));
      layoutPage();
      return;
    }
    if (drag) {
      var dx = e.clientX - drag.x;
      if (Math.abs(dx) > 3) drag.moved = true;
      if (drag.moved && drag.measure) {
        var t0m = timeAtClientX(drag.x), t1m = timeAtClientX(e.clientX);
        range = { a: Math.min(t0m, t1m), b: Math.max(t0m, t1m) };
        requestDraw(); hideTip();
      } else if (drag.moved) {
        mainC.classList.add('panning');
        var d = -dx * (drag.ve - drag.vs) / plotW;
        setView(drag.vs + d, drag.ve + d);
        hideTip();
      }
      return;
    }
    if (e.target === mainC) {
      var rr = mainC.getBoundingClientRect(), ey = e.clientY - rr.top;
      mainC.style.cursor = Math.abs(e.clientX - rr.left - LABEL_W) <= 4 && ey >= AXIS_H ? 'col-resize'
        : groupAtY(ey) >= 0 ? 'pointer' : '';
      var l = laneAtLabel(e.clientX, e.clientY);
      if (l >= 0) {
        if (hover >= 0) { hover = -1; requestDraw(); }
        laneTip(l, e.clientX, e.clientY);
        return;
      }
      var i = eventAt(e.clientX, e.clientY);
      if (i !== hover) { hover = i; requestDraw(); }
      if (i >= 0) showTip(i, e.clientX, e.clientY); else hideTip();
    } else if (e.target !== fgC) hideTip();
  });
  on(window, 'mouseup', function (e) {
    if (miniDrag) { miniDrag = null; return; }
    if (labelDrag) { labelDrag = null; return; }
    if (!drag) return;
    var wasClick = !drag.moved, measured = drag.measure && drag.moved;
    drag = null; mainC.classList.remove('panning');
    if (wasClick && e.target === mainC) {
      if (range) { range = null; requestDraw(); } // a plain click drops the measured range
      select(eventAt(e.clientX, e.clientY));
    }
    if (measured) renderRange();
  });
  on(mainC, 'dblclick', function (e) { // double-click an event: zoom to it and its partner
    var i = eventAt(e.clientX, e.clientY);
    if (i < 0) return;
    range = null; renderRange();
    select(i); fitSelection();
  });
  on(mainC, 'mouseleave', function () {
    if (!drag) hideTip();
    if (hover >= 0) { hover = -1; requestDraw(); }
  });
  on(mainC, 'wheel', function (e) {
    e.preventDefault();
    var unit = e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? 400 : 1;
    var dx = e.deltaX * unit, dy = e.deltaY * unit;
    if (e.shiftKey && !dx) { dx = dy; dy = 0; }
    if (Math.abs(dx) > Math.abs(dy)) { panBy(dx / plotW); return; } // horizontal trackpad swipe pans
    var r = mainC.getBoundingClientRect(), x = Math.min(plotW, Math.max(0, e.clientX - r.left - LABEL_W));
    zoomAt(vs + x * (ve - vs) / plotW, Math.exp(dy * 0.002));
  }, { passive: false });

  // ---------------------------------------------------------------- mouse: minimap
  // Drag the window to move the view; a click outside it centres the view there (and keeps dragging).
  var miniDrag = null;
  on(miniC, 'mousedown', function (e) {
    if (e.button !== 0 || !n) return;
    e.preventDefault();
    var x = e.clientX - miniC.getBoundingClientRect().left, r = miniRect();
    if (x < r.x || x > r.x + r.w) { // centre on the click first
      var t = (x - LABEL_W) / plotW * fullSpan, w = ve - vs;
      setView(t - w / 2, t + w / 2);
    }
    miniDrag = { x: e.clientX, vs: vs, ve: ve };
  });
  function miniMove(e) {
    var d = (e.clientX - miniDrag.x) / plotW * fullSpan;
    setView(miniDrag.vs + d, miniDrag.ve + d);
  }

  // ---------------------------------------------------------------- keyboard
  function typing(e) {
    var t = e.target;
    return t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.tagName === 'SELECT' || t.isContentEditable);
  }
  on(document, 'keydown', function (e) {
    if (typing(e) || e.ctrlKey || e.metaKey || e.altKey || !n) return;
    var k = e.key, done = true;
    switch (k) {
      case 'ArrowLeft': case 'a': case 'A': panBy(-0.2); break;
      case 'ArrowRight': case 'd': case 'D': panBy(0.2); break;
      case '+': case '=': case 'w': case 'W': zoomAt((vs + ve) / 2, 0.8); break;
      case '-': case '_': case 's': case 'S': zoomAt((vs + ve) / 2, 1.25); break;
      case 'n': case 'N': step(1); break;
      case 'p': case 'P': step(-1); break;
      case '0': setView(0, fullSpan); break;
      case 'f': case 'F': fitSelection(); break;
      case '/': openSearch(); break;
      case 'Escape':
        if (!$('search').hidden) closeSearch();
        else if (range) { range = null; renderRange(); requestDraw(); }
        else if (FP && FP.shown().finding >= 0) clearFinding();
        else select(-1);
        break;
      default: done = false;
    }
    if (done) e.preventDefault();
  });
  on($('full'), 'click', function () { setView(0, fullSpan); });

  // ---------------------------------------------------------------- search
  // Plain text is a case-insensitive substring; /pattern/flags is a regular expression. Names are
  // matched once per query (the names table is deduplicated), events then test a byte per event.
  var q = $('q'), qcount = $('qcount');
  function openSearch() { $('search').hidden = false; q.focus(); q.select(); runSearch(); }
  function closeSearch() {
    $('search').hidden = true; nameMatch = null; matches = []; matchPos = -1; q.blur(); setFlameSearch(null); requestDraw();
  }
  function runSearch() {
    var text = q.value, test;
    matches = []; matchPos = -1;
    if (!text) { nameMatch = null; setFlameSearch(null); qcount.textContent = ''; requestDraw(); return; }
    var m = /^\/(.+)\/([a-z]*)$/.exec(text);
    if (m) {
      try { var re = new RegExp(m[1], m[2].replace(/[gy]/g, '') || 'i'); test = function (s) { return re.test(s); }; }
      catch (err) { nameMatch = null; setFlameSearch(null); qcount.textContent = 'invalid regex'; requestDraw(); return; }
    } else {
      var low = text.toLowerCase();
      test = function (s) { return s.toLowerCase().indexOf(low) >= 0; };
    }
    nameMatch = new Uint8Array(names.length);
    for (var j = 0; j < names.length; j++) nameMatch[j] = test(String(names[j])) ? 1 : 0;
    setFlameSearch(test);
    for (var i = 0; i < n; i++) if (nameMatch[NM[i]]) matches.push(i);
    qcount.textContent = matches.length ? matches.length + (matches.length === 1 ? ' match' : ' matches') : 'no match';
    requestDraw();
  }
  on(q, 'input', runSearch);
  on(q, 'keydown', function (e) {
    if (e.key === 'Escape') { e.preventDefault(); closeSearch(); return; }
    if (e.key !== 'Enter' || !matches.length) return;
    e.preventDefault();
    matchPos = (matchPos + (e.shiftKey ? -1 : 1) + matches.length) % matches.length;
    var i = matches[matchPos];
    select(i); centreOn(i);
    qcount.textContent = (matchPos + 1) + ' / ' + matches.length + (matches.length === 1 ? ' match' : ' matches');
  });

  // ---------------------------------------------------------------- launch-stack flamegraph
  // Icicle layout: the outermost frame on top, the kernel as the leaf at the bottom; a frame's
  // width is the summed GPU time of the kernels launched from that path (docs/TIMELINE_DATA.md).
  // Drawn by the pages' flame renderer (js/flame.js), in the palette table's launch colours.
  var LF = D.launchFlame || null, FT = null, FR = null, flameTest = null, flameMatched = 0;
  // A leaf is GPU work (kernel, memcpy, memset) or a CUDA API call: a backtraced launch without GPU work
  // is weighted by its API duration (docs/TIMELINE_DATA.md). Names of the kept events decide; a cu*
  // name no kept event has counts as API. Any other path end is a CPU frame whose thin subtrees the
  // writer folded into it (policy timeline.flame_min_fraction), so it keeps the CPU colour.
  var gpuNames = new Set(), apiNames = new Set();
  function leafKind(k) {
    if (!FT.leaf[k] || FT.end[k] > k + 1) return '';
    var name = FR.nameOf(k);
    if (gpuNames.has(name)) return 'gpu';
    if (apiNames.has(name) || /^cu[A-Z]/.test(name)) return 'api';
    return '';
  }
  function frameColour(k) {
    if (k === 0) return gfFlame.color('launch-root', '');
    var lk = leafKind(k), name = FR.nameOf(k);
    return gfFlame.color(lk === 'gpu' ? 'launch-gpu' : lk === 'api' ? 'launch-api' : 'launch', name);
  }
  function flamePath() {
    var z = FR.zoom(), txt = z ? clip('zoomed: ' + ['all'].concat(FR.path()).join(' → '), 400) : 'click a frame to zoom';
    if (flameTest) txt = 'search matches ' + fmtNum(100 * flameMatched / (FT.vals[0][0] || 1), 2) + ' % of launch-stack time · ' + txt;
    $('fg-path').textContent = txt;
  }
  function flameTip(k, cx, cy) {
    var unit = LF.unit || 'ns', v = FT.vals[0][k], total = FT.vals[0][0] || 1, lk = leafKind(k);
    tip.textContent = '';
    tip.appendChild(el('div', 'n', clip(FR.nameOf(k), 300)));
    var r1 = el('div', 'r', lk === 'api' ? 'API time: ' : 'GPU time: ');
    r1.appendChild(el('b', null, unit === 'ns' ? fmtDur(v) : v + ' ' + unit)); tip.appendChild(r1);
    var r2 = el('div', 'r', 'share: ');
    r2.appendChild(el('b', null, fmtNum(100 * v / total, 2) + ' % of launch-stack time')); tip.appendChild(r2);
    if (lk) tip.appendChild(el('div', 'r', lk === 'gpu' ? 'GPU work (leaf)' : 'CUDA call without GPU work (leaf, API duration)'));
    gfPage.placeTip(tip, cx, cy);
  }
  function buildFlame() {
    if (!LF || !LF.stacks || !LF.stacks.length) return;
    FT = gfFlame.fromStacks(LF.frames || [], LF.stacks);
    if (!(FT.vals[0][0] > 0)) { FT = null; return; }
    for (var gi = 0; gi < n; gi++) {
      var kn = kindName(gi);
      if (kn === 'kernel' || kn === 'memcpy' || kn === 'memset') gpuNames.add(eventName(gi));
      else if (kn === 'cuda_api') apiNames.add(eventName(gi));
    }
    FR = gfFlame.renderer(fgC, FT, {
      row: FG_ROW, font: '11px system-ui, sans-serif', inverted: true, minwidth: 0.4, inset: 22, minWidth: 300,
      rootName: 'all launches', labelMin: 30, labelColor: '#111', matchColor: gfFlame.color('match-dark', ''),
      color: frameColour,
      onHover: function (k, e) { if (k >= 0) flameTip(k, e.clientX, e.clientY); else hideTip(); },
      onClick: function (k) { // clicking the zoomed frame steps out
        FR.setZoom(k === FR.zoom() ? Math.max(0, FT.par[k]) : k);
        flamePath();
      }
    });
    on($('fg-reset'), 'click', function () { FR.setZoom(0); flamePath(); });
  }
  // The search box also searches the flamegraph (as flamegraph.pl does): matching frames turn magenta
  // and the bar says what share of the launch-stack time runs through a match (each path counted once).
  function setFlameSearch(test) {
    flameTest = test;
    if (!FR) return;
    var m = gfFlame.match(FT, test);
    flameMatched = m ? gfFlame.matchedSum(FT, m, FT.vals[0]) : 0;
    FR.setMatch(m);
    flamePath();
  }

  // ---------------------------------------------------------------- findings panel
  // The rules' findings (policy findings.pages; docs/RULES.md, "On the pages") come in their own inert
  // JSON element. A click on one (or on one of its rows) shows that target: its time window, with a
  // margin, as a band over the lanes, and the events it refers to outlined, the first one selected.
  // Which events: on the target's lanes (Device ID, and Stream ID when given: that device's GPU stream
  // lanes; PID/TID: the CPU lanes of that process/thread) those overlapping the window. A device-wide
  // window with none (a gpu-starv gap) marks the GPU work either side of it. A kernel named without a
  // window (launch-overhead) marks every event of that name.
  // The panel itself is the pages' one (js/findings.js).
  var T0 = +D.t0 || 0, fMarks = [], fWin = null, MAX_MARKS = 5000, FP = null, targetsOf = gfFindings.targetsOf;
  function num(v) { return typeof v === 'number' && isFinite(v) ? v : null; }
  function targetWindow(t) {
    var a = num(t && t.start);
    if (a === null) return null;
    var b = num(t.end);
    return { a: a - T0, b: (b === null ? a : Math.max(a, b)) - T0 };
  }
  function rawLane(l) { var L = (D.lanes || [])[l]; return L && typeof L === 'object' ? L : {}; }
  function lanesFor(t) {
    var out = [], dev = num(t.device), st = num(t.stream), pid = num(t.pid), tid = num(t.tid);
    for (var l = 0; l < lanes.length; l++) {
      var L = rawLane(l), k = lanes[l].kind;
      if (dev !== null) {
        // sync lanes hold CPU-side waits, projected NVTX lanes ranges: neither is GPU work
        if (k !== 'gpu' || L.proj || (st === null && L.sync)) continue;
        if (L.deviceId != null && L.deviceId !== dev) continue;
        if (st !== null && L.stream !== st) continue;
      } else if (pid !== null || tid !== null) {
        if (k !== 'cpu' || lanes[l].sub) continue; // a thread's samples and running rows are not its calls
        if (pid !== null && L.pid !== pid) continue;
        if (tid !== null && L.tid !== tid) continue;
      } else if (k === 'nvtx') continue;
      out.push(l);
    }
    return out;
  }
  function lanePosAtOrAfter(l, t) { // first position in lane l whose event starts at or after t
    var ev = laneEv[l], lo = 0, hi = ev.length;
    while (lo < hi) { var m = (lo + hi) >> 1; if (S[ev[m]] < t) lo = m + 1; else hi = m; }
    return lo;
  }
  var nameIdx = null;
  function eventsForTarget(t) {
    var out = [], w = targetWindow(t), gpuOnly = num(t && t.device) !== null;
    if (w) {
      var ls = lanesFor(t);
      ls.forEach(function (l) {
        var ev = laneEv[l];
        for (var p = firstReaching(l, w.a); p < ev.length && out.length < MAX_MARKS; p++) {
          var i = ev[p], e = S[i] + DU[i];
          if (S[i] > w.b) break;
          if (gpuOnly && isSync(i)) continue; // a stream's sync band is not its work
          if (!gpuOnly && kinds[KD[i]] === 'osrt') continue; // the rules speak of CUDA calls, not OS runtime calls
          if (DU[i] > 0 && w.b > w.a ? (S[i] < w.b && e > w.a) : (S[i] <= w.b && e >= w.a)) out.push(i);
        }
      });
      if (!out.length && num(t.device) !== null && num(t.stream) === null) {
        var before = -1, after = -1;
        ls.forEach(function (l) {
          var ev = laneEv[l], q = firstReaching(l, w.a + 0.5); // positions before q end by w.a
          if (q > 0) {
            var me = laneMaxEnd[l][q - 1];
            for (var p = q - 1; p >= 0; p--) {
              var i = ev[p];
              if (S[i] + DU[i] === me) { if (before < 0 || me > S[before] + DU[before]) before = i; break; }
            }
          }
          var r = lanePosAtOrAfter(l, w.b);
          if (r < ev.length && (after < 0 || S[ev[r]] < S[after])) after = ev[r];
        });
        if (before >= 0 && !isSync(before)) out.push(before);
        if (after >= 0 && !isSync(after)) out.push(after);
      }
    } else if (t && t.kernel && t.name != null) {
      if (!nameIdx) { nameIdx = new Map(); names.forEach(function (x, j) { if (!nameIdx.has(String(x))) nameIdx.set(String(x), j); }); }
      var ni = nameIdx.get(String(t.name));
      if (ni != null) for (var i = 0; i < n && out.length < MAX_MARKS; i++) if (NM[i] === ni) out.push(i);
    }
    return out.sort(function (x, y) { return x - y; });
  }
  // a target's window relative to the capture start ('' without one)
  function relWindow(t) {
    var w = targetWindow(t);
    return w ? '+' + fmtDur(w.a) + ' → +' + fmtDur(w.b) + ' (' + fmtDur(w.b - w.a) + ')' : '';
  }
  // shows target k of finding f: its window (with a margin) and events; returns the panel's line
  function showTarget(f, k) {
    var ts = targetsOf(f), t = ts[k] || null;
    fMarks = t ? eventsForTarget(t) : [];
    fWin = t ? targetWindow(t) : null;
    range = null; renderRange();
    if (fWin) {
      var pad = Math.max((fWin.b - fWin.a) * 0.15, 500);
      setView(fWin.a - pad, fWin.b + pad);
    } else if (fMarks.length) {
      var a = Infinity, b = -Infinity;
      fMarks.forEach(function (j) { a = Math.min(a, S[j]); b = Math.max(b, S[j] + DU[j]); });
      var pad2 = Math.max((b - a) * 0.05, 500);
      setView(a - pad2, b + pad2);
    }
    select(fMarks.length ? fMarks[0] : -1);
    var msg = String(f.rule);
    if (!t) msg += ': nothing on the timeline to show (this finding names no time window or kernel)';
    else {
      msg += (ts.length > 1 ? ' row ' + (t.row != null ? t.row : k + 1) : '') + ': ' + FP.targetText(t);
      if (fMarks.length) msg += ' · ' + fMarks.length + (fMarks.length === 1 ? ' event' : ' events') + ' outlined';
      else if ((D.shown != null ? D.shown : n) < (D.total != null ? D.total : n)) msg += ' · its events are not on this page (only the longest events are kept)';
      else msg += ' · no event of the page lies in it';
    }
    return { info: msg + ' · Esc clears',
      result: { window: fWin ? { start: fWin.a, end: fWin.b } : null, marks: fMarks.slice(), selected: sel } };
  }
  function clearFinding() {
    fMarks = []; fWin = null;
    FP.clear(); requestDraw();
  }
  function drawFinding(c) {
    if (fWin) {
      var xa = Math.max(-1, xOf(fWin.a)), xb = Math.min(plotW + 1, xOf(fWin.b));
      if (xb >= 0 && xa <= plotW) {
        c.fillStyle = 'rgba(240,160,240,0.13)'; c.fillRect(xa, AXIS_H, Math.max(1, xb - xa), mainH - AXIS_H);
        c.strokeStyle = '#f0a0f0'; c.lineWidth = 1;
        c.beginPath(); c.moveTo(xa + 0.5, AXIS_H); c.lineTo(xa + 0.5, mainH); c.moveTo(xb - 0.5, AXIS_H); c.lineTo(xb - 0.5, mainH); c.stroke();
      }
    }
    if (!fMarks.length) return;
    c.strokeStyle = '#f0a0f0'; c.lineWidth = 2;
    for (var k = 0; k < fMarks.length; k++) {
      if (!inView(fMarks[k])) continue;
      var r = barRect(fMarks[k]);
      c.strokeRect(r.x - 1, r.y - 1, r.w + 2, r.h + 2);
    }
  }
  // ---------------------------------------------------------------- test hook
  function clientPoint(canvas, x, y) { var r = canvas.getBoundingClientRect(); return { x: r.left + x, y: r.top + y }; }
  var api = {
    view: function () { return { start: vs, end: ve }; },
    span: function () { return fullSpan; },
    selected: function () { return sel; },
    partner: function () { return partner; },
    matches: function () { return matches.length; },
    flameZoom: function () { return FR ? (FR.zoom() ? FR.nameOf(FR.zoom()) : 'all') : null; },
    flameMatched: function () { return flameTest && FR ? flameMatched / (FT.vals[0][0] || 1) : null; },
    event: function (i) {
      return { start: S[i], dur: DU[i], lane: LN[i], laneKind: laneKind(LN[i]), name: eventName(i),
        corr: CR[i], stack: ST[i], kind: kindName(i) };
    },
    eventPoint: function (i) {
      if (i < 0 || i >= n || !inView(i) || !laneHt[LN[i]]) return null; // folded lanes show nothing
      var a = Math.max(vs, S[i]), b = Math.min(ve, S[i] + DU[i]);
      var br = barRect(i);
      return clientPoint(mainC, LABEL_W + xOf((a + b) / 2), br.y + br.h / 2);
    },
    flamePoint: function (name) {
      for (var k = 1; FR && k < FT.n; k++) {
        var b = FR.nameOf(k) === name ? FR.frameRect(k) : null;
        if (b && b.width >= 2) return { x: b.x + Math.min(b.width / 2, 20), y: b.y + FG_ROW / 2 };
      }
      return null;
    },
    setView: function (s, e) { setView(s, e); },
    laneY: function (l) { return laneHt[l] ? { top: laneTop[l], h: laneHt[l] } : null; },
    range: function () { return range ? { start: range.a, end: range.b } : null; },
    lastDrawMs: function () { return lastDrawMs; },
    counts: function () { return { inPage: n, total: D.total != null ? +D.total : n, proj: pageCounts().proj }; },
    lod: function () { return lodLanes; },
    // GPU rows: the labels drawn per lane ({label, drawn, group, proj, band}), the breakdown of window
    // [a, b] per device ({device, span, busy, compute, comm, copy, memset, idle} ns), the header's text
    // for the window in view (computed now), the launch facts of event i ({path, thread, call, api,
    // queueDelay} or null)
    laneLabels: function () {
      mctx.save(); mctx.font = '12px system-ui, sans-serif'; // as drawLabels measures
      var cw = mctx.measureText('abcdefghijklmnopqrstuvwxyz0123456789 ').width / 37;
      mctx.restore();
      return lanes.map(function (L, l) {
        return { label: L.label, drawn: laneHt[l] >= 12 ? gfGpu.fitLeft(L.short, LABEL_W - 14, cw) : '', group: L.group,
          proj: L.proj, band: L.band, height: laneHt[l], events: laneEv[l].length };
      });
    },
    breakdown: function (a, b) { return gpuBreakdown(a, b); },
    gpuTime: function () { gpuTimeKey = ''; renderGpuTime(); var b = $('gpu-time'); return b ? b.textContent : null; },
    launchInfo: function (i) { var p = partner, r; partner = partnerOf(i); r = launchInfo(i); partner = p; return r; },
    typedBytes: function () { // bytes held in the page's typed arrays (outside the JS heap's count)
      var b = 0, add = function (a) { b += a ? a.byteLength : 0; };
      [S, DU, LN, CR, NM, ST, KD, DT, laneTop, laneHt].forEach(add);
      laneEv.forEach(add); laneMaxEnd.forEach(add);
      lod.forEach(function (L) { if (L) { L.levels.forEach(add); add(L.long); add(L.longMaxEnd); } });
      return b;
    },
    groups: function () { return groups.map(function (g) { return { label: g.key, lanes: g.last - g.first + 1, collapsed: g.collapsed, y: g.top }; }); },
    toggleGroup: function (k) { toggleGroup(k); },
    labelWidth: function () { return LABEL_W; },
    findings: function () {
      return (FP ? FP.findings : []).map(function (f) {
        var t = targetsOf(f)[0], w = t ? targetWindow(t) : null;
        return { rule: f && f.rule, severity: f && f.severity, text: f && f.text, targets: targetsOf(f).length,
          window: w ? { start: w.a, end: w.b } : null };
      });
    },
    showFinding: function (i, k) { return FP ? FP.show(i, k) : null; },
    findingMarks: function () { return fMarks.slice(); },
    findingWindow: function () { return fWin ? { start: fWin.a, end: fWin.b } : null; },
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
  var gpuKind = kinds.map(function (k) { return k === 'kernel' || k === 'memcpy' || k === 'memset'; });
  function isGpuWork(i) { return KD[i] >= 0 ? !!gpuKind[KD[i]] : laneKind(LN[i]) === 'gpu'; }
  function busiestView() {
    var m = 0, i;
    for (i = 0; i < n; i++) if (isGpuWork(i)) m++;
    var gpu = !!m, idx = new Int32Array(gpu ? m : n);
    for (i = 0, m = 0; i < n; i++) if (!gpu || isGpuWork(i)) idx[m++] = i;
    var stride = Math.max(1, Math.floor(m / 100000)), sample = []; // median of at most 100,000 samples
    for (i = 0; i < m; i += stride) sample.push(DU[idx[i]]);
    sample.sort(function (a, b) { return a - b; });
    var target = Math.max(MIN_SPAN, (sample[sample.length >> 1] || 0) * plotW / 6);
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
    layoutPage();
    if (n) initialView();
    return;
  }
  buildHeader();
  FP = gfFindings.panel(gfPage.json('gf-findings'), { windowText: relWindow, noteClass: 'help',
    hint: ' · click one to show its window and events', onShow: showTarget });
  buildFlame();
  if (!FR) {
    $('fg-reset').hidden = true; fgC.hidden = true; $('fg-note').hidden = false;
    $('fg-note').textContent = 'No launch backtraces in this capture, so there is no launch-stack flamegraph ' +
      '(capture with --stacks, i.e. nsys --cudabacktrace, to record them).';
  }
  if (!n) { mainC.hidden = true; miniC.hidden = true; $('empty').hidden = false; }
  layoutPage();
  if (n) initialView();
  if (FR) flamePath();
  renderStackPanel();
  on(window, 'resize', layoutPage);
  on(window, 'scroll', drawFloatingAxis, { passive: true });
}

// Boot: the event columns are base64 (docs/TIMELINE_DATA.md "Packed events"); compressed ones
// ("varint-deflate-base64", policy timeline.compress) are inflated by the browser's own
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
    var enc = ev.encoding || 'varint-base64', raw = {};
    if (enc !== 'varint-base64' && enc !== 'varint-deflate-base64')
      fail(new Error('unknown event encoding "' + enc + '" (written by a newer gpuflame?)'));
    COLS.forEach(function (k) { raw[k] = bytesOf(ev[k]); });
    if (enc === 'varint-base64') return build(raw);
    if (typeof DecompressionStream !== 'function')
      fail(new Error('this browser has no DecompressionStream to inflate the compressed event data ' +
        '(write the page with policy timeline.compress = false)'));
    Promise.all(COLS.map(function (k) {
      var inflated = new Blob([raw[k]]).stream().pipeThrough(new DecompressionStream('deflate-raw'));
      return new Response(inflated).arrayBuffer();
    })).then(function (bufs) {
      var cols = {};
      COLS.forEach(function (k, i) { cols[k] = new Uint8Array(bufs[i]); });
      setTimeout(function () { build(cols); }); // errors while building surface as page errors
    }, function (err) {
      setTimeout(function () { fail(new Error('damaged page data: ' + err.message)); });
    });
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', boot); else boot();
})();
