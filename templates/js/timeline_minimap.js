/*
 * The timeline page's overview minimap (js/timeline.js): the whole capture's occupancy per lane kind (CPU,
 * GPU, NVTX), painted once per width into an offscreen canvas, with the visible window drawn over it; dragging
 * the window moves the view, a click beside it centres the view there. gfTimelineMinimap(T) adds drawMini,
 * invalidateMini and the drag's miniDragging/miniMove/miniEnd (the page's window mouse handlers call them)
 * to T, the page's state.
 */
function gfTimelineMinimap(T) {
  'use strict';
  var lanes = T.lanes, n = T.n, fullSpan = T.fullSpan, S = T.S, DU = T.DU, LN = T.LN, COL = T.COL;
  var laneKind = T.laneKind, miniC = T.miniC, nctx = T.nctx, on = T.on;

  // ---------------------------------------------------------------- drawing: overview minimap
  // Full-capture occupancy per lane kind (CPU / GPU / NVTX band), computed once per width with a
  // difference array so a long event costs O(1), not O(columns).
  var miniDensity = null, miniKinds = [];
  function computeMiniDensity() {
    miniKinds = ['cpu', 'gpu', 'nvtx'].filter(function (k) { return lanes.some(function (l) { return l.kind === k; }); });
    var W = T.plotW, bw = fullSpan / W;
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
    miniCache.width = Math.round(T.cssW * T.dpr); miniCache.height = Math.round(H * T.dpr);
    c.setTransform(T.dpr, 0, 0, T.dpr, 0, 0);
    c.fillStyle = '#111216'; c.fillRect(0, 0, T.cssW, H);
    c.font = '11px system-ui, sans-serif'; c.textBaseline = 'middle'; c.fillStyle = '#8a90a0';
    c.fillText('overview (drag the window)', 8, H / 2);
    var bh = (H - 4) / Math.max(1, miniKinds.length);
    miniKinds.forEach(function (k, r) {
      var d = miniDensity[r], y = 2 + r * bh;
      c.fillStyle = COL[k];
      for (var x = 0; x < d.length; x++) {
        if (d[x] <= 0) continue;
        c.globalAlpha = Math.min(1, 0.15 + Math.sqrt(d[x]) * 0.85); // sqrt: sparse regions stay visible
        c.fillRect(T.LABEL_W + x, y, 1, bh - 1);
      }
    });
    c.globalAlpha = 1;
  }
  function drawMini() {
    if (!miniDensity) paintMiniCache();
    var c = nctx, H = 36;
    c.clearRect(0, 0, T.cssW, H);
    c.drawImage(miniCache, 0, 0, T.cssW, H);
    var r = miniRect();
    c.fillStyle = 'rgba(245,230,99,0.16)'; c.fillRect(r.x, 0, r.w, H);
    c.strokeStyle = COL.sel; c.lineWidth = 1.5; c.strokeRect(r.x + 0.75, 0.75, r.w - 1.5, H - 1.5);
  }
  function miniRect() {
    var x = T.LABEL_W + T.vs / fullSpan * T.plotW, w = Math.max(4, (T.ve - T.vs) / fullSpan * T.plotW);
    return { x: x, w: w };
  }
  // ---------------------------------------------------------------- mouse: minimap
  // Drag the window to move the view; a click outside it centres the view there (and keeps dragging).
  var miniDrag = null;
  on(miniC, 'mousedown', function (e) {
    if (e.button !== 0 || !n) return;
    e.preventDefault();
    var x = e.clientX - miniC.getBoundingClientRect().left, r = miniRect();
    if (x < r.x || x > r.x + r.w) { // centre on the click first
      var t = (x - T.LABEL_W) / T.plotW * fullSpan, w = T.ve - T.vs;
      T.setView(t - w / 2, t + w / 2);
    }
    miniDrag = { x: e.clientX, vs: T.vs, ve: T.ve };
  });
  function miniMove(e) {
    var d = (e.clientX - miniDrag.x) / T.plotW * fullSpan;
    T.setView(miniDrag.vs + d, miniDrag.ve + d);
  }

  T.drawMini = drawMini;
  T.invalidateMini = function () { miniDensity = null; };
  T.miniDragging = function () { return !!miniDrag; };
  T.miniMove = miniMove;
  T.miniEnd = function () { miniDrag = null; };
}
