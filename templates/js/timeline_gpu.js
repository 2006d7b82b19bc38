/*
 * The GPU rows of the timeline page: lane names that keep their stream, the groups of NVTX ranges projected
 * onto a device, sync bands, the time breakdown of a window per device (docs/SEMANTICS.md: compute,
 * communication, copy, memset, idle; the numbers of `gpuflame findings -r gpu-busy`) and a kernel's NVTX
 * path (the flamegraph's: push/pop ranges of the launching thread that enclose the launch call). Functions
 * over the page's columns, called by the page's parts (js/timeline_index.js, timeline_draw.js,
 * timeline_select.js, timeline.js).
 */
var gfGpu = (function () {
  'use strict';

  // A lane label cut from the left, so its end stays: "…GeForce RTX 3070 Ti (0) stream 13".
  function fitLeft(s, w, cw) {
    var max = Math.floor(w / cw);
    if (s.length <= max) return s;
    return max > 1 ? '…' + s.slice(s.length - (max - 1)) : '…';
  }

  // The group a lane folds with and the label drawn for it. GPU lanes: the device is named once, on its
  // group; a stream lane reads "stream N" (its sync events are a band on it); the device-wide syncs (no
  // stream) are a thin band of their own; the NVTX ranges one thread projected onto the device are a group
  // of their own under the device. L: the page's lane object; rank: "rank · " or ""; procName: the name of
  // the process's main thread (its tid is its pid) where a lane of the page gives it, else ''.
  function laneNames(L, kind, rank, procName) {
    var label = String(L.label);
    if (kind !== 'gpu') { // the process is named on the group: the lane is its thread
      var t = /^(?:CPU|NVTX) pid \S+ (tid .*)$/.exec(label);
      return { group: rank + (kind === 'cpu' ? 'CPU' : 'NVTX') + ' pid ' + (L.pid != null ? L.pid : '?') +
        (procName ? ' ' + procName : ''), short: t ? t[1] : label };
    }
    var dev = rank + 'GPU ' + (L.device != null ? String(L.device).replace(/^GPU /, '') : '?');
    if (L.proj) {
      var th = 'tid ' + (L.tid != null ? L.tid : '?') + (L.thread ? ' ' + String(L.thread) : '');
      var m = /^NVTX pid \S+ tid \S+ ?(.*)$/.exec(label);
      if (m && m[1] && !L.thread) th += ' ' + m[1];
      return { group: dev + ' · NVTX → GPU, pid ' + (L.pid != null ? L.pid : '?') + ' ' + th, short: 'NVTX ranges on the GPU', proj: true };
    }
    if (L.sync && !(L.stream >= 0)) return { group: dev, short: 'sync (device-wide)', band: true };
    // a stream with syncs and no work on the page: its lane holds the band alone
    return { group: dev, short: L.stream >= 0 ? 'stream ' + L.stream : label };
  }

  // SQLite's LIKE (ASCII case-insensitive; % any run, _ one character) as a RegExp.
  function likeRe(p) {
    var s = String(p).replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/%/g, '[\\s\\S]*').replace(/_/g, '[\\s\\S]');
    return new RegExp('^' + s + '$', 'i');
  }

  var PARTS = [['compute', 'compute'], ['comm', 'communication'], ['copy', 'copy'], ['memset', 'memset']];

  // Per device, each part's busy time as merged intervals (disjoint, in time order) with the running sum of
  // their lengths, so that the busy time of any window is two binary searches, whatever the number of
  // GPU ops in it (the header recomputes it for every view). About 24 bytes per merged interval, built in
  // two passes over the columns (count, then fill). ev: {n, S, DU, LN, KD, NM}, lanes: {kind, proj,
  // deviceId, device} per page lane, kinds, names, comm: LIKE patterns of policy gpu_time.communication.
  function breakdownIndex(ev, lanes, kinds, names, comm) {
    var res = (comm || []).map(likeRe), isComm = new Int8Array(names.length), devs = new Map(), order = [];
    var PART = ['busy', 'compute', 'comm', 'copy', 'memset'], i, d, l, pass;
    function commName(k) {
      if (!isComm[k]) isComm[k] = res.some(function (r) { return r.test(String(names[k])); }) ? 1 : -1;
      return isComm[k] > 0;
    }
    // the lane's device (an index into order) or -1; the kind's part code (1 compute, 3 copy, 4 memset) or 0
    var laneDev = new Int32Array(lanes.length).fill(-1), kindCode = new Int8Array(kinds.length);
    for (l = 0; l < lanes.length; l++) {
      var L = lanes[l];
      if (!L || L.kind !== 'gpu' || L.proj) continue;
      var key = L.deviceId != null ? 'id' + L.deviceId : 'nm' + L.device;
      d = devs.get(key);
      if (d == null) {
        devs.set(key, d = order.length);
        order.push({ device: L.device != null ? String(L.device) : '?', deviceId: L.deviceId != null ? L.deviceId : null,
          first: Infinity, last: -Infinity, parts: {}, run: [] });
      }
      laneDev[l] = d;
    }
    kinds.forEach(function (k, j) { kindCode[j] = k === 'kernel' ? 1 : k === 'memcpy' ? 3 : k === 'memset' ? 4 : 0; });
    order.forEach(function (D) { for (var c = 0; c < 5; c++) D.run.push({ n: 0, cs: 0, ce: -Infinity, S: null, E: null, C: null }); });
    function add(X, s, e, fill) { // interval [s, e] into part X's merged intervals
      if (s > X.ce) {
        if (fill) { X.S[X.n] = s; X.E[X.n] = e; X.C[X.n + 1] = X.C[X.n] + (e - s); }
        X.n++; X.cs = s; X.ce = e;
      } else if (e > X.ce) {
        if (fill) { X.C[X.n] += e - X.ce; X.E[X.n - 1] = e; }
        X.ce = e;
      }
    }
    for (pass = 0; pass < 2; pass++) {
      for (i = 0; i < ev.n; i++) {
        d = laneDev[ev.LN[i]];
        var kd = ev.KD[i], code = d >= 0 && kd >= 0 && kd < kindCode.length ? kindCode[kd] : 0;
        if (!code) continue;
        if (code === 1 && res.length && commName(ev.NM[i])) code = 2;
        var D = order[d], s = ev.S[i], e = s + ev.DU[i];
        if (!pass) { if (s < D.first) D.first = s; if (e > D.last) D.last = e; }
        add(D.run[0], s, e, pass);
        add(D.run[code], s, e, pass);
      }
      if (pass) break;
      order.forEach(function (D) {
        D.run.forEach(function (X) {
          X.S = new Float64Array(X.n); X.E = new Float64Array(X.n); X.C = new Float64Array(X.n + 1);
          X.n = 0; X.cs = 0; X.ce = -Infinity;
        });
      });
    }
    order.forEach(function (D) {
      PART.forEach(function (p, c) { D.parts[p] = D.run[c]; });
      delete D.run;
    });
    return order;
  }

  // Length of the union of the intervals of P (one part of device D) clipped to [a, b].
  function unionIn(D, P, a, b) {
    var lo = 0, hi = P.n, m;
    while (lo < hi) { m = (lo + hi) >> 1; if (P.E[m] <= a) lo = m + 1; else hi = m; } // first ending after a
    var first = lo;
    hi = P.n;
    while (lo < hi) { m = (lo + hi) >> 1; if (P.S[m] < b) lo = m + 1; else hi = m; } // first starting at b or later
    if (lo <= first) return 0;
    var total = P.C[lo] - P.C[first];
    if (P.S[first] < a) total -= a - P.S[first];
    if (P.E[lo - 1] > b) total -= P.E[lo - 1] - b;
    return Math.max(0, total);
  }

  // The breakdown of window [a, b] (ns relative to t0) per device that has work in it:
  // [{device, deviceId, span, busy, compute, comm, copy, memset, idle}]; span: its first op start → last op end,
  // clipped to the window (docs/SEMANTICS.md).
  function breakdown(idx, a, b) {
    var out = [];
    idx.forEach(function (d) {
      var lo = Math.max(a, d.first), hi = Math.min(b, d.last);
      if (!(hi > lo)) return;
      var r = { device: d.device, deviceId: d.deviceId, span: hi - lo };
      ['busy', 'compute', 'comm', 'copy', 'memset'].forEach(function (p) { r[p] = unionIn(d, d.parts[p], lo, hi); });
      r.idle = r.span - r.busy;
      out.push(r);
    });
    return out;
  }

  // "compute 52.1%, communication 0.0%, copy 1.2%, memset 0.1%, idle 46.6% of 12.3 ms" (the parts as shares
  // of the device's span, as `gpuflame findings -r gpu-busy` words them).
  function breakdownText(r, fmtDur) {
    var share = function (v) { return (r.span > 0 ? 100 * v / r.span : 0).toFixed(1) + '%'; };
    return PARTS.map(function (p) { return p[1] + ' ' + share(r[p[0]]); }).join(', ') + ', idle ' + share(r.idle) +
      ' of ' + fmtDur(r.span);
  }

  // The NVTX path of a launch call [cs, ce] of thread lane nv (the NVTX lane of the call's thread): its
  // push/pop ranges that enclose the call, outermost first, each "domain:name" (the flamegraph's frames).
  // ev: {S, DU, DT}, evs: the lane's events (start order), details, nameOf(i).
  function nvtxPath(ev, evs, details, nameOf, cs, ce) {
    var hit = [];
    for (var p = 0; p < evs.length; p++) {
      var j = evs[p];
      if (ev.S[j] > cs) break;
      var d = ev.DT[j] >= 0 ? details[ev.DT[j]] : null;
      if (!d || !(d.nvtx_level >= 0) || ev.S[j] + ev.DU[j] < ce) continue;
      hit.push(j);
    }
    hit.sort(function (x, y) { return ev.S[x] - ev.S[y] || (ev.S[y] + ev.DU[y]) - (ev.S[x] + ev.DU[x]) || x - y; });
    return hit.map(function (j) {
      var d = details[ev.DT[j]];
      return (d.domain ? String(d.domain) + ':' : '') + nameOf(j);
    });
  }

  return { fitLeft: fitLeft, laneNames: laneNames, likeRe: likeRe, breakdownIndex: breakdownIndex,
    breakdown: breakdown, breakdownText: breakdownText, nvtxPath: nvtxPath };
})();
