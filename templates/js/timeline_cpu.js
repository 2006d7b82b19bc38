// The CPU side of the timeline page (issue 25, docs/TIMELINE_DATA.md "CPU side"): OS runtime calls
// (kind "osrt", on their thread's lane), CPU samples ("cpu_sample", zero-length events on the thread's
// "samples" sub-lane, drawn as a density row whose stack the panel shows on click) and running intervals
// ("cpu_running", on the thread's "running" sub-lane). Their colours come from templates/palettes.json
// (parts "timeline-osrt", "timeline-cpu-sample", "timeline-cpu-running"); js/timeline_draw.js draws the
// lanes and asks this module for colours, labels, legend entries, sub-lane heights and density weights.
var gfTimelineCpu = (function () {
  'use strict';
  var PART = { osrt: 'timeline-osrt', cpu_sample: 'timeline-cpu-sample', cpu_running: 'timeline-cpu-running' };
  var LABEL = { osrt: 'OS runtime', cpu_sample: 'CPU sample', cpu_running: 'running' };
  var SUB_KIND = { samples: 'cpu_sample', running: 'cpu_running' };
  var SUB_H = 12; // a sub-lane (samples, running) is a thin row under its thread's calls
  var cols = null;
  function colours() {
    if (cols) return cols;
    var t = gfPage.json('gf-palettes') || {}, parts = t.parts || {};
    cols = {};
    Object.keys(PART).forEach(function (k) {
      var p = parts[PART[k]];
      cols[k] = p && typeof p.fixed === 'string' ? p.fixed : '#9a9aa6';
    });
    return cols;
  }
  // legend(item, kinds, KD): one entry per CPU-side kind the page's events (kind indices KD) hold
  // (item(colour, text, title))
  function legend(item, allKinds, KD) {
    var c = colours(), seen = new Uint8Array(allKinds.length), kinds = [];
    for (var i = 0; i < KD.length; i++) if (KD[i] >= 0 && KD[i] < seen.length) seen[KD[i]] = 1;
    allKinds.forEach(function (k, j) { if (seen[j]) kinds.push(k); });
    if (kinds.indexOf('osrt') >= 0) item(c.osrt, 'OS runtime', 'OS runtime calls (OSRT_API): blocking calls, locks, I/O, on their thread');
    if (kinds.indexOf('cpu_sample') >= 0) {
      item(c.cpu_sample, 'CPU samples', 'the samples row under a thread: shade = samples per pixel column; click one for its stack');
    }
    if (kinds.indexOf('cpu_running') >= 0) item(c.cpu_running, 'running', 'the running row under a thread: scheduled on a CPU (SCHED_EVENTS); gaps: not running');
  }
  // the lane's sub-lane ("samples", "running") or '' (a thread's calls, GPU and NVTX lanes)
  function sub(rawLane) { return rawLane && typeof rawLane.sub === 'string' && SUB_KIND[rawLane.sub] ? rawLane.sub : ''; }
  return {
    colours: colours,
    labels: LABEL,
    legend: legend,
    sub: sub,
    // height of a sub-lane, or 0 (the lane keeps its own)
    laneHeight: function (s) { return s ? SUB_H : 0; },
    // colour of a lane's density shading, or null (the lane kind's)
    densityColour: function (s) { return s ? colours()[SUB_KIND[s]] : null; },
    // what one zero-length event adds to its pixel column's shade: a sample stands out at any zoom
    // (1 sample = half a pixel column, 2 or more = full colour); other instants keep their faint 0.15
    zeroWeight: function (s) { return s === 'samples' ? 0.5 : 0.15; },
    // the thread a sub-lane belongs to, when the lane above is not that thread's ("tid 55123 pt_main"): a
    // thread with samples but no CUDA calls has no calls lane to hang under
    subTitle: function (l, prev) {
      if (!sub(l)) return '';
      if (prev && prev.kind === 'cpu' && prev.pid === l.pid && prev.tid === l.tid) return '';
      return 'tid ' + l.tid + (l.thread ? ' ' + l.thread : '');
    },
    // the label of a sub-lane, indented under its thread's lane: "└ samples", "└ running" (or
    // "tid 55123 pt_main · samples" for a thread without a calls lane)
    drawSubLabel: function (c, lane, y, h, w) {
      var s = lane.sub;
      c.fillStyle = colours()[SUB_KIND[s]]; c.fillRect(lane.subTitle ? 0 : 10, y + 2, 3, h - 4);
      c.fillStyle = lane.subTitle ? '#cfd3dc' : '#9aa0ad'; c.font = '10px system-ui, sans-serif';
      var x = lane.subTitle ? 8 : 16, suffix = lane.subTitle ? ' \u00b7 ' + s : '\u2514 ' + s;
      var cw = c.measureText('abcdefghijklmnopqrstuvwxyz0123456789 ').width / 37;
      var title = lane.subTitle ? gfPage.fitText(lane.subTitle, w - x - 6 - suffix.length * cw, cw) : '';
      c.fillText(title + suffix, x, y + h / 2);
      c.font = '12px system-ui, sans-serif';
    },
    noStack: function (kind) {
      return kind === 'cpu_sample' ? 'This sample has no callchain in the export (SAMPLING_CALLCHAINS).'
        : kind === 'osrt' ? 'No backtrace recorded for this OS runtime call (OSRT_CALLCHAINS: nsys records them for calls above --osrt-threshold with --osrt-backtrace-*).'
          : kind === 'cpu_running' ? 'A running interval has no stack: select a sample in the samples row for what ran.' : null;
    }
  };
})();
