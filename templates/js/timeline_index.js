/*
 * The timeline page's events and their indexes (js/timeline.js builds the page from these): the data's
 * lanes and event columns as typed arrays (struct of arrays, decoded from packed varints or rows), the
 * per-lane start-ordered index with its prefix maximum of end times, NVTX nesting depth, lane groups and
 * their geometry, the level-of-detail summaries of busy lanes, and CorrID partners. gfTimelineIndex(T, cols)
 * fills T, the page's shared state, with them (cols: column name -> Uint8Array of varints, or null).
 */
function gfTimelineIndex(T, cols) {
  'use strict';
  var D = T.D;

  // ---------------------------------------------------------------- data
  var LANE_H = 22, AXIS_H = 18, MIN_SPAN = 1000, FG_ROW = 18;
  T.LABEL_W = 190; // the label column's width (dragging its edge resizes it: js/timeline_input.js)
  var COL = { cpu: '#5c8ae6', gpu: '#e6a15c', nvtx: '#7cc46a', sel: '#f5e663' };
  var KIND_COL = { cuda_api: COL.cpu, kernel: COL.gpu, memcpy: '#4fc3b0', memset: '#c38ae6',
    sync: '#e0605a', nvtx: COL.nvtx };
  var KIND_LABEL = { cuda_api: 'CUDA API', kernel: 'kernel', memcpy: 'memcpy', memset: 'memset',
    sync: 'sync', nvtx: 'NVTX' };
  var CPU_SIDE = gfTimelineCpu.colours(); // OS runtime calls, CPU samples, running (js/timeline_cpu.js)
  Object.keys(CPU_SIDE).forEach(function (k) { KIND_COL[k] = CPU_SIDE[k]; KIND_LABEL[k] = gfTimelineCpu.labels[k]; });

  // A process is named by its main thread (tid = pid), as the flamegraph names its process frames: any lane
  // of the page (a CPU thread, its NVTX ranges, their projection onto a GPU) may be the one that names it.
  var procNames = {};
  (D.lanes || []).forEach(function (l) {
    if (l && typeof l === 'object' && l.thread && l.pid != null && l.tid === l.pid)
      procNames[(l.rank != null ? l.rank + '/' : '') + l.pid] = String(l.thread);
  });
  var lanes = (D.lanes || []).map(function (l, k, all) {
    // the reference shape had plain strings as lanes: derive the kind from the label
    if (typeof l === 'string') return { label: l, short: l, kind: /^CPU/.test(l) ? 'cpu' : /^NVTX/.test(l) ? 'nvtx' : 'gpu' };
    var kind = l.kind || 'gpu', rank = l.rank != null ? String(l.rank) + ' · ' : '';
    // lanes are grouped per (rank,) kind and process (CPU, NVTX) or device (GPU: named once, on the group;
    // the NVTX ranges a thread projected onto it in a group of their own); a group folds
    var nm = gfGpu.laneNames(l, kind, rank, procNames[(l.rank != null ? l.rank + '/' : '') + l.pid] || '');
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
  // NVTX names grouped by policy nvtx.group (D.nameGroups: name index -> group): search and tooltip use them
  var NG = D.nameGroups && typeof D.nameGroups === 'object' ? D.nameGroups : {}, groupSize = {};
  Object.keys(NG).forEach(function (j) { var g = String(NG[j]); groupSize[g] = (groupSize[g] || 0) + 1; });
  function nameGroup(j) { return Object.prototype.hasOwnProperty.call(NG, j) ? String(NG[j]) : null; }
  function laneKind(l) { return lanes[l] ? lanes[l].kind : 'gpu'; }

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
  // The GPU on the first screen (issue 41, docs/TIMELINE_PAGE.md): the groups of GPU lanes (a device's
  // streams, the NVTX ranges projected onto it) are laid out first, then the CPU and NVTX groups in the
  // writer's order; lane indices keep the writer's order, gorder/disp are the display order of groups/lanes.
  // A CPU group's threads with nothing in the opening window fold into one row (g.quiet: their lanes), a
  // group whose threads all have nothing there folds whole (foldQuiet, once the opening view is known).
  var QUIET_H = 16;
  var gorder = groups.map(function (g, k) { return k; }), disp = [];
  function gpuGroup(g) { return lanes[g.first].kind === 'gpu'; }
  gorder.sort(function (a, b) { return (gpuGroup(groups[b]) - gpuGroup(groups[a])) || a - b; });
  gorder.forEach(function (k) { for (var l = groups[k].first; l <= groups[k].last; l++) disp.push(l); });
  var laneTop = new Float64Array(lanes.length + 1), laneHt = new Float64Array(lanes.length);
  function computeGeometry() {
    var y = AXIS_H;
    gorder.forEach(function (k) {
      var g = groups[k], hide = g.quiet && !g.showQuiet ? g.quietSet : null;
      g.top = y; y += GROUP_H;
      for (var l = g.first; l <= g.last; l++) {
        laneTop[l] = y;
        laneHt[l] = g.collapsed || (hide && hide[l]) ? 0 : lanes[l].band ? SYNC_H : lanes[l].sub ? gfTimelineCpu.laneHeight(lanes[l].sub)
          : laneDepth[l] > 1 ? laneDepth[l] * NVTX_ROW + 4 : LANE_H;
        y += laneHt[l];
      }
      g.quietTop = -1;
      if (g.quiet && !g.collapsed) { g.quietTop = y; y += QUIET_H; }
    });
    laneTop[lanes.length] = y;
  }
  computeGeometry();
  function laneAtY(y) { // lane under canvas y, or -1 (a group header, a folded lane, outside)
    if (y < AXIS_H || y >= laneTop[lanes.length] || !lanes.length) return -1;
    var lo = 0, hi = disp.length - 1; // tops do not decrease in display order
    while (lo < hi) { var m = (lo + hi + 1) >> 1; if (laneTop[disp[m]] <= y) lo = m; else hi = m - 1; }
    var l = disp[lo];
    return y < laneTop[l] + laneHt[l] ? l : -1;
  }
  function groupAtY(y) { // group whose header row is at canvas y, or -1
    for (var k = 0; k < groups.length; k++) if (y >= groups[k].top && y < groups[k].top + GROUP_H) return k;
    return -1;
  }
  function quietAtY(y) { // group whose row of folded threads is at canvas y, or -1
    for (var k = 0; k < groups.length; k++) if (groups[k].quietTop >= 0 && y >= groups[k].quietTop && y < groups[k].quietTop + QUIET_H) return k;
    return -1;
  }
  function toggleGroup(k) {
    groups[k].collapsed = !groups[k].collapsed;
    computeGeometry();
    T.layoutPage();
  }
  function toggleQuiet(k) {
    groups[k].showQuiet = !groups[k].showQuiet;
    computeGeometry();
    T.layoutPage();
  }
  // A thread (its calls lane and its samples and running rows) has something in [vs, ve] when one of its
  // lanes has an event overlapping it (a call that spans the window counts: the thread waits in it).
  function foldQuiet(vs, ve) {
    var busy = {};
    function key(l) { var L = (D.lanes || [])[l] || {}; return [L.rank, L.pid, L.tid].join(':'); }
    for (var l = 0; l < lanes.length; l++) {
      if (lanes[l].kind !== 'cpu') continue;
      var p = firstReaching(l, vs);
      if (p < laneEv[l].length && S[laneEv[l][p]] <= ve) busy[key(l)] = 1;
    }
    groups.forEach(function (g) {
      if (lanes[g.first].kind !== 'cpu') return;
      var q = [], set = {}, threads = {};
      for (var l = g.first; l <= g.last; l++) if (!busy[key(l)]) { q.push(l); set[l] = 1; threads[key(l)] = 1; }
      if (!q.length) return;
      if (q.length === g.last - g.first + 1) { g.collapsed = true; g.quietAll = true; return; }
      g.quiet = q; g.quietSet = set; g.quietThreads = Object.keys(threads).length;
    });
    computeGeometry();
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
  // whose bucket is at most a pixel (a few thousand values), plus its events at least that bucket long (the
  // only ones that can be a pixel wide there, kept in lists by size class) and its syncs: at most a few
  // thousand rectangles per lane whatever the capture size. Zoomed in, every event is drawn as before.
  var LOD_MIN_EVENTS = 4096;
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
    // The long events by size class: class c holds those at least bw * 2^c long (below the next class; the top
    // class also every sync, drawn at any zoom). Drawn from level k, only classes k and up can be a pixel wide,
    // so a frame walks the events near a pixel or wider, not every event longer than the finest bucket.
    var top = levels.length - 1, cls = new Uint8Array(nlong), ccount = new Int32Array(top + 1), f = 0;
    for (p = 0; p < m; p++) {
      var j = ev[p];
      if (DU[j] < bw && !isSync(j)) continue;
      var c = isSync(j) ? top : lodClass(DU[j], bw, top);
      cls[f++] = c; ccount[c]++;
    }
    var long = [], q2;
    for (q2 = 0; q2 <= top; q2++) long.push({ ev: new Int32Array(ccount[q2]), maxEnd: new Float64Array(ccount[q2]), n: 0 });
    for (p = 0, f = 0; p < m; p++) {
      var j2 = ev[p];
      if (DU[j2] < bw && !isSync(j2)) continue;
      var X = long[cls[f++]], end = S[j2] + DU[j2];
      X.maxEnd[X.n] = X.n ? Math.max(X.maxEnd[X.n - 1], end) : end;
      X.ev[X.n++] = j2;
    }
    return { bw: bw, levels: levels, long: long };
  });
  // the size class of an event dur >= bw long: the largest c <= top with bw * 2^c <= dur (exact comparisons:
  // the draw's level test is the same one, so an event a pixel wide is never left out)
  function lodClass(dur, bw, top) {
    var c = Math.max(0, Math.min(top, Math.floor(Math.log2(dur / bw))));
    while (c > 0 && bw * Math.pow(2, c) > dur) c--;
    while (c < top && bw * Math.pow(2, c + 1) <= dur) c++;
    return c;
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
  function rawLane(l) { var L = (D.lanes || [])[l]; return L && typeof L === 'object' ? L : {}; }
  var gpuKind = kinds.map(function (k) { return k === 'kernel' || k === 'memcpy' || k === 'memset'; });
  function isGpuWork(i) { return KD[i] >= 0 ? !!gpuKind[KD[i]] : laneKind(LN[i]) === 'gpu'; }

  [['LANE_H', LANE_H], ['AXIS_H', AXIS_H], ['MIN_SPAN', MIN_SPAN], ['FG_ROW', FG_ROW], ['COL', COL],
    ['KIND_COL', KIND_COL], ['KIND_LABEL', KIND_LABEL], ['GROUP_H', GROUP_H]].forEach(function (c) { T[c[0]] = c[1]; });
  T.lanes = lanes; T.names = names; T.kinds = kinds; T.details = details; T.stacks = stacks;
  T.n = n; T.fullSpan = fullSpan;
  T.S = S; T.DU = DU; T.LN = LN; T.CR = CR; T.NM = NM; T.ST = ST; T.KD = KD; T.DT = DT;
  T.nameGroup = nameGroup; T.groupSize = groupSize;
  T.kindName = kindName; T.eventName = eventName; T.laneKind = laneKind; T.rawLane = rawLane; T.isGpuWork = isGpuWork;
  T.laneEv = laneEv; T.laneMaxEnd = laneMaxEnd; T.nvtxLevel = nvtxLevel; T.laneDepth = laneDepth;
  T.groups = groups; T.laneTop = laneTop; T.laneHt = laneHt; T.isSync = isSync; T.syncBand = syncBand;
  T.laneAtY = laneAtY; T.groupAtY = groupAtY; T.toggleGroup = toggleGroup; T.quietAtY = quietAtY;
  T.toggleQuiet = toggleQuiet; T.foldQuiet = foldQuiet; T.gorder = gorder; T.QUIET_H = QUIET_H;
  T.firstReaching = firstReaching; T.firstReachingIn = firstReachingIn; T.lod = lod;
  T.firstStartAtOrAfter = firstStartAtOrAfter; T.partnerOf = partnerOf;
}
