/*
 * The steps of the capture on the timeline page (js/timeline.js; docs/STEPS.md, docs/TIMELINE_PAGE.md
 * "Steps"): each step (gpuflame.steps: the NVTX ranges of the loop's iterations) marked on the time axis as a
 * band with its index, and `[` / `]` to go to the previous / next step (the view fits the step; the first
 * press goes to the step at or after the view's centre). Data: the gf-steps element, {rule, steps:
 * [{index, name, rank, start, end}]} in the trace's ns (data.t0 subtracted here), or null.
 * gfTimelineSteps(T) adds drawStepMarks(ctx), gotoStep(delta) and stepsInfo() to T.
 * `timeline --critical-path`: the gf-critpath element, {rule, steps: [{index, name, start, end, length_ns, events}]}
 * (events: page event indices on the step's critical path, gpuflame.critpath), or null; drawPath(ctx) outlines
 * the path of the step in view (the one whose window covers most of the view), pathInfo() says which.
 */
function gfTimelineSteps(T) {
  'use strict';
  var el = document.getElementById('gf-steps');
  var SD = el ? gfPage.json('gf-steps') : null;
  var T0 = +T.D.t0 || 0, list = [];
  if (SD && SD.steps) {
    list = SD.steps.map(function (s) { return { a: s.start - T0, b: s.end - T0, index: s.index, name: String(s.name),
      rank: s.rank }; });
  }
  var cur = -1;
  // bands on the axis (the canvas's own and the floating copy): alternating shades, the index where it fits
  // taken: [x0, x1] spans of the axis's tick labels; a step number that would cross one is left out
  function drawStepMarks(c, taken) {
    if (!list.length) return;
    var h = T.AXIS_H, w = T.ve - T.vs;
    c.save();
    c.beginPath(); c.rect(T.LABEL_W, 0, T.plotW, h); c.clip();
    c.font = '10px system-ui, sans-serif'; c.textBaseline = 'top';
    // steps under a pixel wide: one mark per pixel column and shade (thousands of steps in the whole span
    // would otherwise each paint the same columns)
    var lastCol = [-Infinity, -Infinity];
    for (var k = 0; k < list.length; k++) {
      var s = list[k];
      if (s.b < T.vs || s.a > T.ve) continue;
      var x0 = T.LABEL_W + (s.a - T.vs) * T.plotW / w, x1 = T.LABEL_W + (s.b - T.vs) * T.plotW / w;
      if (x1 - x0 < 1 && k !== cur) {
        var col = Math.floor(x0);
        if (lastCol[s.index % 2] === col) continue;
        lastCol[s.index % 2] = col;
      }
      c.fillStyle = k === cur ? 'rgba(242,142,43,0.55)' : (s.index % 2 ? 'rgba(78,121,167,0.35)' : 'rgba(118,183,178,0.35)');
      c.fillRect(x0, 0, Math.max(1, x1 - x0), 4);
      if (x1 - x0 > 18) {
        var label = String(s.index), lx1 = x0 + 4 + c.measureText(label).width;
        if (lx1 <= x1 && !crosses(taken, x0, lx1)) { c.fillStyle = '#c9ccd4'; c.fillText(label, x0 + 2, 5); }
      }
    }
    c.restore();
  }
  function crosses(spans, a, b) {
    for (var i = 0; spans && i < spans.length; i++) if (a < spans[i][1] && spans[i][0] < b) return true;
    return false;
  }
  function gotoStep(delta) {
    if (!list.length) return null;
    if (cur < 0) {
      var mid = (T.vs + T.ve) / 2;
      cur = 0;
      while (cur < list.length - 1 && list[cur].b <= mid) cur++;
      if (delta < 0 && cur > 0 && list[cur].a > mid) cur--;
    } else {
      cur = Math.max(0, Math.min(list.length - 1, cur + delta));
    }
    var s = list[cur], pad = (s.b - s.a) * 0.02;
    T.setView(s.a - pad, s.b + pad);
    T.requestDraw();
    return { index: s.index, name: s.name, rank: s.rank, current: cur };
  }
  // the critical path of the step in view, outlined
  var CP = document.getElementById('gf-critpath') ? gfPage.json('gf-critpath') : null;
  var paths = CP && CP.steps ? CP.steps.map(function (s) { return { a: s.start - T0, b: s.end - T0, index: s.index,
    name: String(s.name), length: s.length_ns, events: s.events || [] }; }) : [];
  function pathInView() {
    var best = null, most = 0;
    for (var k = 0; k < paths.length; k++) {
      var o = Math.min(paths[k].b, T.ve) - Math.max(paths[k].a, T.vs);
      if (o > most) { most = o; best = paths[k]; }
    }
    return best;
  }
  function drawPath(c) {
    var p = pathInView();
    if (!p) return;
    c.strokeStyle = '#00e5ff'; c.lineWidth = 2;
    for (var k = 0; k < p.events.length; k++) {
      var i = p.events[k];
      if (i < 0 || i >= T.n || !T.inView(i)) continue;
      var r = T.barRect(i);
      c.strokeRect(r.x - 1, r.y - 1, r.w + 2, r.h + 2);
    }
  }
  T.drawPath = drawPath;
  T.pathInfo = function () {
    var p = pathInView();
    return { steps: paths.length, index: p ? p.index : null, name: p ? p.name : null, length_ns: p ? p.length : null,
      marks: p ? p.events.slice() : [] };
  };
  T.drawStepMarks = drawStepMarks;
  T.gotoStep = gotoStep;
  T.stepsInfo = function () { return { rule: SD ? SD.rule : null, count: list.length, current: cur }; };
}
