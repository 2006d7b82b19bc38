/*
 * The timeline page's findings panel (js/timeline.js; docs/RULES.md "On the pages"): the panel itself is the
 * pages' one (js/findings.js); this file shows a finding's target on the timeline (its window as a band,
 * its events outlined, the first selected). gfTimelineFindings(T) adds buildFindings, drawFinding,
 * clearFinding, findingShown and the test hook's findingList, showFinding, findingMarks and findingWindow
 * to T, the page's state.
 */
function gfTimelineFindings(T) {
  'use strict';
  var fmtDur = gfPage.fmtDur;
  var D = T.D, lanes = T.lanes, n = T.n, S = T.S, DU = T.DU, NM = T.NM, KD = T.KD, names = T.names, kinds = T.kinds;
  var laneEv = T.laneEv, laneMaxEnd = T.laneMaxEnd, AXIS_H = T.AXIS_H, rawLane = T.rawLane, isSync = T.isSync,
    firstReaching = T.firstReaching;

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
    T.range = null; T.renderRange();
    if (fWin) {
      var pad = Math.max((fWin.b - fWin.a) * 0.15, 500);
      T.setView(fWin.a - pad, fWin.b + pad);
    } else if (fMarks.length) {
      var a = Infinity, b = -Infinity;
      fMarks.forEach(function (j) { a = Math.min(a, S[j]); b = Math.max(b, S[j] + DU[j]); });
      var pad2 = Math.max((b - a) * 0.05, 500);
      T.setView(a - pad2, b + pad2);
    }
    T.select(fMarks.length ? fMarks[0] : -1);
    var msg = String(f.rule);
    if (!t) msg += ': nothing on the timeline to show (this finding names no time window or kernel)';
    else {
      msg += (ts.length > 1 ? ' row ' + (t.row != null ? t.row : k + 1) : '') + ': ' + FP.targetText(t);
      if (fMarks.length) msg += ' · ' + fMarks.length + (fMarks.length === 1 ? ' event' : ' events') + ' outlined';
      else if ((D.shown != null ? D.shown : n) < (D.total != null ? D.total : n)) msg += ' · its events are not on this page (only the longest events are kept)';
      else msg += ' · no event of the page lies in it';
    }
    return { info: msg + ' · Esc clears',
      result: { window: fWin ? { start: fWin.a, end: fWin.b } : null, marks: fMarks.slice(), selected: T.sel } };
  }
  function clearFinding() {
    fMarks = []; fWin = null;
    FP.clear(); T.requestDraw();
  }
  function drawFinding(c) {
    if (fWin) {
      var xa = Math.max(-1, T.xOf(fWin.a)), xb = Math.min(T.plotW + 1, T.xOf(fWin.b));
      if (xb >= 0 && xa <= T.plotW) {
        c.fillStyle = 'rgba(240,160,240,0.13)'; c.fillRect(xa, AXIS_H, Math.max(1, xb - xa), T.mainH - AXIS_H);
        c.strokeStyle = '#f0a0f0'; c.lineWidth = 1;
        c.beginPath(); c.moveTo(xa + 0.5, AXIS_H); c.lineTo(xa + 0.5, T.mainH); c.moveTo(xb - 0.5, AXIS_H); c.lineTo(xb - 0.5, T.mainH); c.stroke();
      }
    }
    if (!fMarks.length) return;
    c.strokeStyle = '#f0a0f0'; c.lineWidth = 2;
    for (var k = 0; k < fMarks.length; k++) {
      if (!T.inView(fMarks[k])) continue;
      var r = T.barRect(fMarks[k]);
      c.strokeRect(r.x - 1, r.y - 1, r.w + 2, r.h + 2);
    }
  }

  function buildFindings() {
    FP = gfFindings.panel(gfPage.json('gf-findings'), { windowText: relWindow, noteClass: 'help',
      hint: ' · click one to show its window and events', onShow: showTarget });
  }
  T.buildFindings = buildFindings; T.drawFinding = drawFinding; T.clearFinding = clearFinding;
  T.findingShown = function () { return !!(FP && FP.shown().finding >= 0); };
  T.findingList = function () {
    return (FP ? FP.findings : []).map(function (f) {
      var t = targetsOf(f)[0], w = t ? targetWindow(t) : null;
      return { rule: f && f.rule, severity: f && f.severity, text: f && f.text, targets: targetsOf(f).length,
        window: w ? { start: w.a, end: w.b } : null };
    });
  };
  T.showFinding = function (i, k) { return FP ? FP.show(i, k) : null; };
  T.findingMarks = function () { return fMarks.slice(); };
  T.findingWindow = function () { return fWin ? { start: fWin.a, end: fWin.b } : null; };
}
