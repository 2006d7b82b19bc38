/*
 * The timeline page's hit test, tooltips and selection (js/timeline.js): the event (or lane label) under the
 * pointer, the tooltip of an event's details, the selected event with its CorrID partner, the stack panel
 * (its backtrace, launch overhead and delay, NVTX path, how its name does overall), the header's GPU time
 * of the window in view, stepping through events (n / p) and fitting the view to the selection (F).
 * gfTimelineSelect(T) adds these to T, the page's state.
 */
function gfTimelineSelect(T) {
  'use strict';
  var $ = gfPage.$, el = gfPage.el, fmtNum = gfPage.fmtNum, fmtDur = gfPage.fmtDur, clip = gfPage.clip;
  var lanes = T.lanes, n = T.n, S = T.S, DU = T.DU, LN = T.LN, CR = T.CR, NM = T.NM, ST = T.ST, KD = T.KD, DT = T.DT;
  var names = T.names, kinds = T.kinds, details = T.details, stacks = T.stacks, laneEv = T.laneEv, laneTop = T.laneTop,
    laneHt = T.laneHt, laneDepth = T.laneDepth, KIND_LABEL = T.KIND_LABEL;
  var kindName = T.kindName, eventName = T.eventName, laneKind = T.laneKind, nvtxLevel = T.nvtxLevel, isSync = T.isSync,
    syncBand = T.syncBand, laneAtY = T.laneAtY, firstReaching = T.firstReaching, firstStartAtOrAfter = T.firstStartAtOrAfter,
    partnerOf = T.partnerOf, rawLane = T.rawLane, isGpuWork = T.isGpuWork, pageCounts = T.pageCounts;
  var mainC = T.mainC, tip = T.tip;

  // ---------------------------------------------------------------- hit test and tooltip
  function eventAt(cx, cy) {
    var r = mainC.getBoundingClientRect(), x = cx - r.left - T.LABEL_W, y = cy - r.top;
    if (x < 0) return -1;
    var l = laneAtY(y);
    if (l < 0) return -1;
    var t = T.vs + x * (T.ve - T.vs) / T.plotW, tol = 3 * (T.ve - T.vs) / T.plotW;
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
    if (x >= T.LABEL_W) return -1;
    return laneAtY(cy - r.top);
  }
  function laneTip(l, cx, cy) {
    tip.textContent = '';
    tip.appendChild(el('div', 'n', clip(lanes[l].label, 300)));
    var d = el('div', 'r', 'events: '); d.appendChild(el('b', null, String(laneEv[l].length))); tip.appendChild(d);
    gfPage.placeTip(tip, cx, cy);
  }
  function fmtBytes(b) {
    var u = ['B', 'KiB', 'MiB', 'GiB', 'TiB'], i = 0;
    while (b >= 1024 && i < u.length - 1) { b /= 1024; i++; }
    return fmtNum(b, i ? 2 : 0) + ' ' + u[i];
  }
  function detailRows(i) {
    var rows = [['lane', lanes[LN[i]] ? lanes[LN[i]].label : '?'],
      ['kind', KIND_LABEL[kindName(i)] || kindName(i)],
      ['start', '+' + fmtDur(S[i])], ['duration', fmtDur(DU[i])]];
    if (CR[i] >= 0) rows.push(['CorrID', String(CR[i])]);
    var grp = T.nameGroup(NM[i]), gn = grp != null ? T.groupSize[grp] : 0;
    if (grp != null) rows.push(['group', grp + ' (policy nvtx.group: ' + gn + (gn === 1 ? ' raw name' : ' raw names') + ' on this page)']);
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
    T.sel = i; T.partner = partnerOf(i);
    renderStackPanel();
    T.requestDraw();
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
    if (T.partner >= 0) {
      var api = laneKind(LN[i]) === 'cpu' ? i : T.partner, work = api === i ? T.partner : i;
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
    if (i < 0 || !isGpuWork(i) || T.partner < 0 || laneKind(LN[T.partner]) !== 'cpu') return null;
    var a = T.partner, R = rawLane(LN[a]), path = [];
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
    var key = T.vs + ':' + T.ve, box = $('gpu-time');
    if (!box || key === gpuTimeKey) return;
    gpuTimeKey = key;
    var lines = gpuTimeLines(T.vs, T.ve);
    box.textContent = '';
    box.appendChild(el('b', null, 'GPU time in view'));
    box.appendChild(document.createTextNode(lines.length ? ' · ' + lines.join(' · ') : ': no GPU work'));
    var c = pageCounts();
    if (c.shown < c.total) box.appendChild(document.createTextNode(' (over the events on the page: the longest ' + c.shown + ' of ' + c.total + ')'));
    box.title = box.textContent; // the line is one line high (timeline.css): the whole text on hover
  }
  function scheduleGpuTime() { clearTimeout(gpuTimer); gpuTimer = setTimeout(renderGpuTime, 100); }
  function renderStackPanel() {
    var info = $('sel-info'), ol = $('frames'), ns = $('nostack');
    ol.textContent = ''; ns.hidden = true;
    if (T.sel < 0) { info.textContent = 'Click an event to see the CPU call path that launched it.'; return; }
    info.textContent = '';
    info.appendChild(el('b', null, clip(eventName(T.sel), 2000)));
    var desc = ' · ' + (lanes[LN[T.sel]] ? lanes[LN[T.sel]].label : '?') + ' · +' + fmtDur(S[T.sel]) + ' · ' + fmtDur(DU[T.sel]);
    if (CR[T.sel] >= 0) desc += ' · CorrID ' + CR[T.sel];
    if (T.partner >= 0) desc += ' · partner: ' + clip(eventName(T.partner), 200) + ' (' + fmtDur(DU[T.partner]) + ')';
    info.appendChild(document.createTextNode(desc));
    var facts = selectionFacts(T.sel);
    if (facts) info.appendChild(el('div', 'facts', facts));
    var li = launchInfo(T.sel);
    if (li) {
      info.appendChild(el('div', 'nvtx-path', 'NVTX path: ' + (li.path.length ? li.path.join(' › ') : 'none (launched outside every push/pop range)')));
      info.appendChild(el('div', 'launch', 'launched by ' + li.call + ' on ' + li.thread + ' · queue delay ' +
        (li.queueDelay < 0 ? '−' + fmtDur(-li.queueDelay) : fmtDur(li.queueDelay))));
    }
    var st = stackOf(T.sel);
    if (st < 0) {
      ns.hidden = false;
      ns.textContent = gfTimelineCpu.noStack(kindName(T.sel)) ||
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
  function inView(i) { return S[i] <= T.ve && S[i] + DU[i] >= T.vs; }
  function step(dir) {
    if (!n) return;
    var i;
    if (dir > 0) {
      i = T.sel >= 0 && inView(T.sel) ? T.sel + 1 : firstOverlapping();
      while (i < n && !inView(i) && S[i] <= T.ve) i++;
      if (i >= n) return;
      select(i);
      if (!inView(i)) T.centreOn(i);
    } else {
      var i0 = T.sel >= 0 && inView(T.sel) ? T.sel - 1 : firstStartAtOrAfter(T.ve + 1e-9) - 1;
      i = i0;
      while (i >= 0 && !inView(i)) i--;
      if (i < 0) i = i0; // nothing earlier in view: step to the event just before it
      if (i < 0) return;
      select(i);
      if (!inView(i)) T.centreOn(i);
    }
  }
  function firstOverlapping() { // smallest global index overlapping the view
    var best = firstStartAtOrAfter(T.vs);
    for (var l = 0; l < lanes.length; l++) {
      var ev = laneEv[l], p = firstReaching(l, T.vs);
      for (; p < ev.length && S[ev[p]] < T.vs; p++) if (S[ev[p]] + DU[ev[p]] >= T.vs) { best = Math.min(best, ev[p]); break; }
    }
    return best;
  }
  function fitSelection() {
    if (T.range) { T.setView(T.range.a, T.range.b); return; } // a measured range wins: "zoom to what I marked"
    if (T.sel < 0) return;
    var a = S[T.sel], b = S[T.sel] + DU[T.sel];
    if (T.partner >= 0) { a = Math.min(a, S[T.partner]); b = Math.max(b, S[T.partner] + DU[T.partner]); }
    var pad = Math.max((b - a) * 0.1, 50);
    T.setView(a - pad, b + pad);
  }

  T.eventAt = eventAt; T.laneAtLabel = laneAtLabel; T.laneTip = laneTip; T.showTip = showTip; T.hideTip = hideTip;
  T.select = select; T.launchInfo = launchInfo; T.gpuBreakdown = gpuBreakdown; T.gpuTimeLines = gpuTimeLines;
  T.scheduleGpuTime = scheduleGpuTime; T.renderStackPanel = renderStackPanel; T.inView = inView; T.step = step;
  T.fitSelection = fitSelection;
  // the header's GPU time of the window in view, computed now (the test hook's gpuTime())
  T.gpuTimeNow = function () { gpuTimeKey = ''; renderGpuTime(); var b = $('gpu-time'); return b ? b.textContent : null; };
}
