/*
 * The timeline page's launch-stack flamegraph (js/timeline.js; docs/TIMELINE_DATA.md): the CPU call paths
 * that launched GPU work, weighted by its GPU time, drawn by the pages' flame renderer (js/flame.js) with
 * its tooltip, zoom path and the search's share of launch-stack time. gfTimelineFlame(T) adds buildFlame,
 * hasFlame, flamePath, setFlameSearch, resizeFlame and the test hook's flameZoom, flameMatched and
 * flamePoint to T, the page's state.
 */
function gfTimelineFlame(T) {
  'use strict';
  var $ = gfPage.$, el = gfPage.el, fmtNum = gfPage.fmtNum, fmtDur = gfPage.fmtDur, clip = gfPage.clip;
  var D = T.D, n = T.n, FG_ROW = T.FG_ROW, kindName = T.kindName, eventName = T.eventName;
  var fgC = T.fgC, tip = T.tip, on = T.on;

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
      onHover: function (k, e) { if (k >= 0) flameTip(k, e.clientX, e.clientY); else T.hideTip(); },
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

  T.buildFlame = buildFlame; T.flamePath = flamePath; T.setFlameSearch = setFlameSearch;
  T.hasFlame = function () { return !!FR; };
  T.resizeFlame = function () { if (FR) FR.resize(); };
  T.flameZoom = function () { return FR ? (FR.zoom() ? FR.nameOf(FR.zoom()) : 'all') : null; };
  T.flameMatched = function () { return flameTest && FR ? flameMatched / (FT.vals[0][0] || 1) : null; };
  T.flamePoint = function (name) {
    for (var k = 1; FR && k < FT.n; k++) {
      var b = FR.nameOf(k) === name ? FR.frameRect(k) : null;
      if (b && b.width >= 2) return { x: b.x + Math.min(b.width / 2, 20), y: b.y + FG_ROW / 2 };
    }
    return null;
  };
}
