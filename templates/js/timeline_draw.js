/*
 * Drawing the timeline page's main canvas (js/timeline.js): the page's layout (canvas sizes from the
 * window's width), the time axis (and its floating copy when the page scrolls), lane labels and group
 * headers, each lane's bars, density shading for events narrower than a pixel (from the level-of-detail
 * summaries when zoomed far out), the selection, its partner and the launch arrow, and the measured range.
 * gfTimelineDraw(T) adds requestDraw, layoutPage, drawFloatingAxis, xOf and barRect to T, the page's state.
 */
function gfTimelineDraw(T) {
  'use strict';
  var fmtDur = gfPage.fmtDur, fitText = gfPage.fitText;
  var lanes = T.lanes, n = T.n, S = T.S, DU = T.DU, LN = T.LN, NM = T.NM, groups = T.groups, laneTop = T.laneTop,
    laneHt = T.laneHt, laneEv = T.laneEv, laneDepth = T.laneDepth, lod = T.lod, preview = T.preview;
  var AXIS_H = T.AXIS_H, LANE_H = T.LANE_H, GROUP_H = T.GROUP_H, COL = T.COL, KIND_COL = T.KIND_COL;
  var kindName = T.kindName, eventName = T.eventName, laneKind = T.laneKind, nvtxLevel = T.nvtxLevel,
    isSync = T.isSync, syncBand = T.syncBand, firstReaching = T.firstReaching, firstReachingIn = T.firstReachingIn;
  var mainC = T.mainC, miniC = T.miniC, axisC = T.axisC, mctx = T.mctx, nctx = T.nctx, actx = T.actx;
  T.lodLanes = 0; T.lastDrawMs = 0;

  // ---------------------------------------------------------------- formatting
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
  // ---------------------------------------------------------------- layout
  function layoutPage() {
    T.dpr = window.devicePixelRatio || 1;
    T.cssW = Math.max(320, mainC.parentNode.clientWidth - 24);
    T.plotW = T.cssW - T.LABEL_W;
    T.mainH = laneTop[lanes.length] + 4;
    sizeCanvas(mainC, mctx, T.cssW, T.mainH);
    sizeCanvas(miniC, nctx, T.cssW, 36);
    sizeCanvas(axisC, actx, T.cssW, AXIS_H);
    T.invalidateMini();
    T.resizeFlame();
    requestDraw();
  }
  function sizeCanvas(c, ctx, w, h) {
    c.style.width = w + 'px'; c.style.height = h + 'px';
    c.width = Math.round(w * T.dpr); c.height = Math.round(h * T.dpr);
    ctx.setTransform(T.dpr, 0, 0, T.dpr, 0, 0);
  }

  // ---------------------------------------------------------------- drawing: main canvas
  var drawPending = false;
  function requestDraw() {
    if (drawPending) return;
    drawPending = true;
    requestAnimationFrame(function () { drawPending = false; drawAll(); });
  }
  function drawAll() {
    if (!n) { T.drawn(); return; }
    var t = performance.now();
    drawMain();
    if (preview) nctx.clearRect(0, 0, T.cssW, 36); else T.drawMini(); // the overview needs all events
    drawFloatingAxis();
    if (!preview) T.scheduleGpuTime();
    T.lastDrawMs = performance.now() - t;
    T.drawn();
  }
  function xOf(t) { return (t - T.vs) * T.plotW / (T.ve - T.vs); }

  function niceStep(raw) {
    var p = Math.pow(10, Math.floor(Math.log10(raw))), m = raw / p;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
  }
  function drawAxis(c) {
    c.fillStyle = '#1b1d22'; c.fillRect(0, 0, T.cssW, AXIS_H);
    var step = niceStep((T.ve - T.vs) / Math.max(1, T.plotW / 110));
    c.font = '11px system-ui, sans-serif'; c.textBaseline = 'middle';
    c.strokeStyle = '#2a2d35'; c.lineWidth = 1;
    var unit = tickUnit(step, T.ve), taken = []; // the tick labels' spans: step numbers go between them
    for (var t = Math.ceil(T.vs / step) * step; t <= T.ve; t += step) {
      var x = T.LABEL_W + Math.round(xOf(t)) + 0.5;
      c.beginPath(); c.moveTo(x, AXIS_H - 5); c.lineTo(x, T.mainH); c.stroke();
      var lab = fmtTick(t, step, unit), lw = c.measureText(lab).width;
      if (x + 3 + lw > T.cssW) continue; // would be cut at the right edge
      c.fillStyle = '#9aa0ae'; c.fillText(lab, x + 3, AXIS_H / 2);
      taken.push([x, x + 3 + lw]);
    }
    if (T.drawStepMarks) T.drawStepMarks(c, taken); // the capture's steps (js/timeline_steps.js)
  }
  // With many lanes the page scrolls and the canvas's own axis leaves the screen: a copy of it then
  // sticks to the top of the viewport over the lanes.
  function drawFloatingAxis() {
    var r = mainC.getBoundingClientRect(), show = n > 0 && r.top < 0 && r.bottom > AXIS_H + LANE_H;
    if (axisC.hidden !== !show) axisC.hidden = !show;
    if (!show) return;
    axisC.style.left = r.left + 'px';
    actx.clearRect(0, 0, T.cssW, AXIS_H);
    drawAxis(actx);
  }
  function drawLabels(c) {
    c.font = '12px system-ui, sans-serif'; c.textBaseline = 'middle';
    var cw = c.measureText('abcdefghijklmnopqrstuvwxyz0123456789 ').width / 37;
    groups.forEach(function (g) {
      c.fillStyle = '#2a2d35'; c.fillRect(0, g.top, T.cssW, GROUP_H);
      c.fillStyle = '#e6e8ee';
      var nl = g.last - g.first + 1;
      c.fillText(fitMiddle((g.collapsed ? '▸ ' : '▾ ') + g.key + (nl > 1 || g.collapsed ? ' (' + nl + ' lane' + (nl > 1 ? 's' : '') + ')' : '') +
        (g.collapsed && g.quietAll ? ' · nothing in the opening window' : ''), T.cssW - 12, cw), 6, g.top + GROUP_H / 2);
      if (g.quietTop < 0) return; // the row of its threads with nothing in the opening window (js/timeline_index.js)
      c.fillStyle = '#1f2126'; c.fillRect(0, g.quietTop, T.cssW, T.QUIET_H);
      c.fillStyle = '#9aa0ae';
      c.fillText(fitMiddle((g.showQuiet ? '▾ ' : '▸ ') + g.quietThreads + ' thread' + (g.quietThreads > 1 ? 's' : '') +
        ' with nothing in the opening window (' + (g.showQuiet ? 'click to fold' : 'click to show') + ')', T.cssW - 12, cw),
        14, g.quietTop + T.QUIET_H / 2);
    });
    for (var l = 0; l < lanes.length; l++) {
      var y = laneTop[l], h = laneHt[l];
      if (!h) continue;
      c.fillStyle = l % 2 ? '#1c1e23' : '#202228'; c.fillRect(0, y, T.LABEL_W, h);
      if (lanes[l].sub) { gfTimelineCpu.drawSubLabel(c, lanes[l], y, h, T.LABEL_W); continue; } // a thread's samples / running row
      c.fillStyle = COL[lanes[l].proj ? 'nvtx' : lanes[l].kind] || COL.gpu; c.fillRect(0, y + 2, 3, h - 4);
      c.fillStyle = '#cfd3dc';
      if (h >= 12) c.fillText(gfGpu.fitLeft(lanes[l].short, T.LABEL_W - 14, cw), 8, y + Math.min(h, LANE_H) / 2);
    }
    c.fillStyle = '#3a3e48'; c.fillRect(T.LABEL_W - 1, AXIS_H, 1, T.mainH - AXIS_H);
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
    c.clearRect(0, 0, T.cssW, T.mainH);
    c.fillStyle = '#17181c'; c.fillRect(0, 0, T.cssW, T.mainH);
    drawAxis(c);
    drawLabels(c);
    c.save();
    c.beginPath(); c.rect(T.LABEL_W, AXIS_H, T.plotW, T.mainH - AXIS_H); c.clip();
    c.translate(T.LABEL_W, 0);
    c.font = '11px system-ui, sans-serif'; c.textBaseline = 'middle';
    var cw = c.measureText('abcdefghijklmnopqrstuvwxyz0123456789 ').width / 37;
    if (occ.length < T.plotW + 2) occ = new Float32Array(T.plotW + 2);
    var searching = T.nameMatch !== null;
    T.lodLanes = 0;
    for (var l = 0; l < lanes.length; l++) drawLane(c, l, cw, searching);
    T.drawFinding(c);
    if (T.drawPath) T.drawPath(c); // the critical path of the step in view (js/timeline_steps.js)
    drawSelection(c);
    c.restore();
    if (T.range) { // the range's duration label sits on the axis, outside the lanes' clip
      c.save(); c.beginPath(); c.rect(T.LABEL_W, 0, T.plotW, T.mainH); c.clip(); c.translate(T.LABEL_W, 0);
      drawRange(c);
      c.restore();
    }
  }

  // One lane: bars for events at least 1 px wide, per-pixel occupancy shading for narrower ones
  // (thousands of sub-pixel kernels would otherwise paint over each other as one solid smear), and syncs
  // narrower than a pixel marked per pixel column and filled as runs (one rectangle a run, not one a sync).
  var ln = { c: null, l: 0, y: 0, LH: 0, depth: 1, rowH: 0, fs: 11, cw: 0, searching: false, zeroW: 0,
    cur: '', dens: false, dimmed: false, syncs: false };
  var syncCol = new Uint8Array(0);
  function drawLane(c, l, cw, searching) {
    var vs = T.vs, ve = T.ve, plotW = T.plotW;
    var LH = laneHt[l];
    if (!LH) return; // folded group
    // nested NVTX ranges get one row per level inside the lane, outermost on top
    var depth = laneDepth[l], rowH = (LH - 4) / depth, fs = depth > 1 ? Math.min(11, Math.max(7, Math.floor(rowH - 4))) : 11;
    ln.c = c; ln.l = l; ln.y = laneTop[l]; ln.LH = LH; ln.depth = depth; ln.rowH = rowH; ln.fs = fs; ln.cw = cw;
    ln.searching = searching; ln.zeroW = gfTimelineCpu.zeroWeight(lanes[l].sub);
    ln.cur = ''; ln.dens = false; ln.dimmed = false; ln.syncs = false;
    if (fs !== 11) c.font = fs + 'px system-ui, sans-serif';
    occ.fill(0, 0, plotW + 2);
    if (syncCol.length < plotW + 2) syncCol = new Uint8Array(plotW + 2); else syncCol.fill(0, 0, plotW + 2);
    var L = lod[l], nsPx = (ve - vs) / plotW;
    if (L && !searching && nsPx >= L.bw) { // zoomed out: summaries + the events at least a bucket of that level long
      T.lodLanes++;
      ln.dens = lodOccupancy(L);
      var k0 = L.long.length - 1, k;
      while (k0 > 0 && L.bw * Math.pow(2, k0) > nsPx) k0--;
      // the shading first, the bars a pixel wide or more over it (a busy lane's shading is opaque: the
      // ranges a pixel wide stay in sight on an NVTX lane zoomed out)
      for (k = k0; k < L.long.length; k++) drawEvents(L.long[k].ev, firstReachingIn(L.long[k].maxEnd, vs), 1);
      if (ln.syncs) drawSyncRuns(c, l);
      if (ln.dens) drawDensity(c, l, ln.y);
      ln.syncs = ln.dens = false; ln.cur = ''; // the shading may have changed the fill colour
      for (k = k0; k < L.long.length; k++) drawEvents(L.long[k].ev, firstReachingIn(L.long[k].maxEnd, vs), 2);
    } else {
      drawEvents(laneEv[l], firstReaching(l, vs), 0);
    }
    if (fs !== 11) c.font = '11px system-ui, sans-serif';
    if (ln.dimmed) c.globalAlpha = 1;
    if (ln.syncs) drawSyncRuns(c, l);
    if (ln.dens) drawDensity(c, l, ln.y);
  }
  // the events ev[p..] of the lane in ln that reach into the view (ev in start order); mode 0: all, 1: only
  // those under a pixel (into occ and syncCol), 2: only the bars
  function drawEvents(ev, p, mode) {
    var vs = T.vs, ve = T.ve, plotW = T.plotW, nameMatch = T.nameMatch, scale = plotW / (ve - vs);
    var c = ln.c, l = ln.l, y = ln.y, LH = ln.LH, depth = ln.depth, rowH = ln.rowH, fs = ln.fs, cw = ln.cw;
    var searching = ln.searching, zeroW = ln.zeroW, cur = ln.cur, dimmed = ln.dimmed;
    for (; p < ev.length; p++) {
      var i = ev[p], s = S[i];
      if (s > ve) break;
      var e = s + DU[i];
      if (e < vs) continue;
      var x0 = (s - vs) * scale, w = DU[i] * scale;
      var dim = searching && !nameMatch[NM[i]];
      if (isSync(i)) { // a thin band, at least a pixel wide
        if (w < 1 && !dim) { // under a pixel: its column joins a run (drawSyncRuns)
          var sx = Math.floor(x0);
          if (mode !== 2 && sx >= 0 && sx <= plotW + 1) { syncCol[sx] = 1; ln.syncs = true; }
          continue;
        }
        if (mode === 1) continue;
        if (dim !== dimmed) { c.globalAlpha = dim ? 0.25 : 1; dimmed = dim; }
        if (cur !== KIND_COL.sync) { c.fillStyle = cur = KIND_COL.sync; }
        var sb = syncBand(l), sa = Math.max(-2, x0);
        c.fillRect(sa, sb.y, Math.max(1, Math.min(plotW + 2, x0 + w) - sa), sb.h);
        continue;
      }
      if (w < 1) { // accumulate covered fraction into (at most two) pixel columns
        if (dim || mode === 2) continue;
        var px = Math.floor(x0), f = px + 1 - x0;
        if (px >= 0 && px <= plotW) occ[px] += Math.min(w, f) || zeroW; // zero-length still shows
        if (w > f && px + 1 <= plotW) occ[px + 1] += w - f;
        ln.dens = true;
        continue;
      }
      if (mode === 1) continue;
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
    ln.cur = cur; ln.dimmed = dimmed;
  }
  function drawSyncRuns(c, l) {
    var sb = syncBand(l), plotW = T.plotW, run = -1;
    c.fillStyle = KIND_COL.sync; ln.cur = '';
    for (var x = 0; x <= plotW + 2; x++) {
      var on = x <= plotW + 1 && syncCol[x];
      if (on && run < 0) run = x;
      else if (!on && run >= 0) { c.fillRect(run, sb.y, x - run, sb.h); run = -1; }
    }
  }
  // The shading as one image a lane: a row of pixels (the colour, alpha by level) stretched to the lane's
  // height, instead of a rectangle per run of equal level (thousands a frame when zoomed far out).
  var strip = null, sctx = null, stripImg = null, rgbOf = {};
  function cssRgb(col) { // '#rrggbb' (or a name the canvas knows) -> [r, g, b], or null
    if (!(col in rgbOf)) {
      sctx.fillStyle = '#000000'; sctx.fillStyle = col;
      var m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(String(sctx.fillStyle));
      rgbOf[col] = m ? [parseInt(m[1], 16), parseInt(m[2], 16), parseInt(m[3], 16)] : null;
    }
    return rgbOf[col];
  }
  function drawDensity(c, l, y) {
    var plotW = T.plotW, w = plotW + 2, h = laneHt[l] - 6, x, a;
    var col = gfTimelineCpu.densityColour(lanes[l].sub) || COL[laneKind(l)] || COL.gpu;
    if (!strip) { strip = document.createElement('canvas'); strip.height = 1; sctx = strip.getContext('2d', { willReadFrequently: true }); }
    var rc = cssRgb(col);
    if (!rc || h <= 0) { drawDensityRuns(c, l, y, col); return; }
    if (strip.width !== w) { strip.width = w; stripImg = sctx.createImageData(w, 1); }
    var px = stripImg.data;
    for (x = 0; x < w; x++) {
      // quantised to 8 levels, as the runs were
      a = occ[x] > 0 ? Math.min(8, Math.ceil(occ[x] * 8)) : 0;
      px[4 * x] = rc[0]; px[4 * x + 1] = rc[1]; px[4 * x + 2] = rc[2];
      px[4 * x + 3] = a ? Math.round(255 * (0.2 + 0.8 * a / 8)) : 0;
    }
    sctx.putImageData(stripImg, 0, 0);
    var smooth = c.imageSmoothingEnabled;
    c.imageSmoothingEnabled = false;
    c.drawImage(strip, 0, 0, w, 1, 0, y + 3, w, h);
    c.imageSmoothingEnabled = smooth;
  }
  function drawDensityRuns(c, l, y, col) { // a colour the strip cannot take: a rectangle per run
    var plotW = T.plotW;
    c.fillStyle = col;
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
    var x0 = xOf(S[i]), w = Math.max(3, DU[i] * T.plotW / (T.ve - T.vs));
    if (DU[i] * T.plotW / (T.ve - T.vs) < 3) x0 -= (w - DU[i] * T.plotW / (T.ve - T.vs)) / 2;
    var xa = Math.max(-4, x0), xb = Math.min(T.plotW + 4, x0 + w);
    var y = laneTop[LN[i]] + 2, h = laneHt[LN[i]] - 4, dep = laneDepth[LN[i]];
    if (isSync(i)) { var sb = syncBand(LN[i]); y = sb.y; h = sb.h; } else if (dep > 1) { h = (laneHt[LN[i]] - 4) / dep; y += nvtxLevel(i) * h; }
    return { x: xa, w: Math.max(3, xb - xa), y: y, h: h };
  }
  function drawSelection(c) {
    if (T.hover >= 0 && T.hover !== T.sel && T.inView(T.hover)) { // thin outline under the pointer
      var h = barRect(T.hover);
      c.strokeStyle = '#ffffff'; c.lineWidth = 1; c.strokeRect(h.x + 0.5, h.y + 0.5, h.w - 1, h.h - 1);
    }
    if (T.sel < 0) return;
    [T.partner, T.sel].forEach(function (i) {
      if (i < 0) return;
      var r = barRect(i);
      c.fillStyle = i === T.sel ? COL.sel : 'rgba(245,230,99,0.45)';
      c.fillRect(r.x, r.y, r.w, r.h);
      c.strokeStyle = COL.sel; c.lineWidth = 2; c.strokeRect(r.x, r.y, r.w, r.h);
    });
    if (T.partner >= 0) { // launch -> GPU work arrow, from the CPU call's start to the kernel's start
      var a = laneKind(LN[T.sel]) === 'cpu' ? T.sel : T.partner, b = a === T.sel ? T.partner : T.sel;
      var x1 = xOf(S[a]), y1 = laneTop[LN[a]] + laneHt[LN[a]] / 2;
      var x2 = xOf(S[b]), y2 = laneTop[LN[b]] + (laneTop[LN[b]] > laneTop[LN[a]] ? 3 : laneHt[LN[b]] - 3);
      c.strokeStyle = COL.sel; c.fillStyle = COL.sel; c.lineWidth = 1.5;
      c.beginPath(); c.moveTo(x1, y1); c.lineTo(x2, y2); c.stroke();
      var ang = Math.atan2(y2 - y1, x2 - x1);
      c.beginPath(); c.moveTo(x2, y2);
      c.lineTo(x2 - 8 * Math.cos(ang - 0.4), y2 - 8 * Math.sin(ang - 0.4));
      c.lineTo(x2 - 8 * Math.cos(ang + 0.4), y2 - 8 * Math.sin(ang + 0.4));
      c.closePath(); c.fill();
    }
  }

  // Adds the lane's busy share per pixel column (from the finest level whose bucket is at most a pixel)
  // into occ; true when anything was added.
  function lodOccupancy(L) {
    var vs = T.vs, ve = T.ve, plotW = T.plotW;
    var nsPx = (ve - vs) / plotW, k = Math.min(L.levels.length - 1, Math.floor(Math.log2(nsPx / L.bw) + 1e-9));
    var A = L.levels[k], W = L.bw * Math.pow(2, k), b0 = Math.max(0, Math.floor(vs / W)), b1 = Math.min(A.length - 1, Math.floor(ve / W));
    var any = false, share = W / nsPx;
    // a bucket is at most a pixel wide: its share goes to the (one or two) columns it overlaps, in
    // proportion, so that a lane busy throughout is busy in every column (one bucket a column here and two
    // the next would otherwise stripe it)
    for (var b = b0; b <= b1; b++) {
      if (A[b] <= 0) continue;
      var x0 = (b * W - vs) / nsPx, px = Math.floor(x0), a = Math.min(1, A[b]), f = px + 1 - x0;
      if (px > plotW) break;
      if (f >= share) { if (px >= 0) occ[px] += a * share; } else {
        if (px >= 0) occ[px] += a * f;
        if (px + 1 <= plotW) occ[px + 1] += a * (share - f);
      }
      any = true;
    }
    return any;
  }
  // Measured range: a translucent band over all lanes with its duration on the axis.
  function drawRange(c) {
    if (!T.range) return;
    var xa = Math.max(-1, xOf(T.range.a)), xb = Math.min(T.plotW + 1, xOf(T.range.b));
    if (xb < 0 || xa > T.plotW) return;
    c.fillStyle = 'rgba(120,180,255,0.14)'; c.fillRect(xa, AXIS_H, xb - xa, T.mainH - AXIS_H);
    c.strokeStyle = '#78b4ff'; c.lineWidth = 1;
    c.beginPath(); c.moveTo(xa + 0.5, 0); c.lineTo(xa + 0.5, T.mainH); c.moveTo(xb - 0.5, 0); c.lineTo(xb - 0.5, T.mainH); c.stroke();
    var lab = fmtDur(T.range.b - T.range.a), w = c.measureText(lab).width + 8, mid = (xa + xb) / 2;
    c.fillStyle = '#78b4ff'; c.fillRect(mid - w / 2, 1, w, AXIS_H - 2);
    c.fillStyle = '#0d0e11'; c.fillText(lab, mid - w / 2 + 4, AXIS_H / 2);
  }

  T.requestDraw = requestDraw; T.layoutPage = layoutPage; T.drawFloatingAxis = drawFloatingAxis;
  T.xOf = xOf; T.barRect = barRect;
}
