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
  // of their own under the device. L: the page's lane object; rank: "rank · " or "".
  function laneNames(L, kind, rank) {
    var label = String(L.label);
    if (kind !== 'gpu') { // the process is named on the group: the lane is its thread
      var t = /^(?:CPU|NVTX) pid \S+ (tid .*)$/.exec(label);
      return { group: rank + (kind === 'cpu' ? 'CPU' : 'NVTX') + ' pid ' + (L.pid != null ? L.pid : '?'), short: t ? t[1] : label };
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

  // Per device, the events of each part in start order (the page's order) with the prefix maximum of their
  // ends: typed arrays of indices, about 24 bytes per GPU op. ev: {n, S, DU, LN, KD, NM}, lanes: {kind,
  // proj, deviceId, device} per page lane, kinds, names, comm: LIKE patterns of policy gpu_time.communication.
  function breakdownIndex(ev, lanes, kinds, names, comm) {
    var res = (comm || []).map(likeRe), isComm = new Map(), devs = new Map(), order = [];
    var PART = ['busy', 'compute', 'comm', 'copy', 'memset'], code = new Int8Array(ev.n), dev = new Int32Array(ev.n), i, d;
    function commName(k) {
      if (!isComm.has(k)) {
        var s = String(names[k]);
        isComm.set(k, res.some(function (r) { return r.test(s); }));
      }
      return isComm.get(k);
    }
    for (i = 0; i < ev.n; i++) {
      var L = lanes[ev.LN[i]], k = kinds[ev.KD[i]];
      if (!L || L.kind !== 'gpu' || L.proj || (k !== 'kernel' && k !== 'memcpy' && k !== 'memset')) continue;
      var key = L.deviceId != null ? 'id' + L.deviceId : 'nm' + L.device;
      d = devs.get(key);
      if (d == null) {
        devs.set(key, d = order.length);
        order.push({ device: L.device != null ? String(L.device) : '?', deviceId: L.deviceId != null ? L.deviceId : null,
          first: Infinity, last: -Infinity, count: [0, 0, 0, 0, 0], parts: {} });
      }
      var D = order[d], s = ev.S[i], e = s + ev.DU[i];
      D.first = Math.min(D.first, s); D.last = Math.max(D.last, e);
      code[i] = k === 'memcpy' ? 3 : k === 'memset' ? 4 : commName(ev.NM[i]) ? 2 : 1;
      dev[i] = d;
      D.count[0]++; D.count[code[i]]++;
    }
    order.forEach(function (D) {
      PART.forEach(function (p, c) { D.parts[p] = { idx: new Int32Array(D.count[c]), maxEnd: new Float64Array(D.count[c]), n: 0 }; });
    });
    for (i = 0; i < ev.n; i++) {
      if (!code[i]) continue;
      var P = order[dev[i]].parts, end = ev.S[i] + ev.DU[i];
      [P.busy, P[PART[code[i]]]].forEach(function (X) {
        X.maxEnd[X.n] = X.n ? Math.max(X.maxEnd[X.n - 1], end) : end;
        X.idx[X.n++] = i;
      });
    }
    order.forEach(function (D) { D.S = ev.S; D.DU = ev.DU; });
    return order;
  }

  // Length of the union of the intervals of P (one part of device D) clipped to [a, b].
  function unionIn(D, P, a, b) {
    var lo = 0, hi = P.n;
    while (lo < hi) { var m = (lo + hi) >> 1; if (P.maxEnd[m] <= a) lo = m + 1; else hi = m; }
    var total = 0, cs = 0, ce = -Infinity;
    for (var q = lo; q < P.n && D.S[P.idx[q]] < b; q++) {
      var i = P.idx[q], s = Math.max(D.S[i], a), e = Math.min(D.S[i] + D.DU[i], b);
      if (e <= s) continue;
      if (s > ce) { if (ce > cs) total += ce - cs; cs = s; ce = e; } else if (e > ce) ce = e;
    }
    if (ce > cs) total += ce - cs;
    return total;
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
