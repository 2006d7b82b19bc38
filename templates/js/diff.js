// The diff page (templates/diff.html, docs/DIFF.md): the verdict, the caveats, the captures side by side,
// the ranked kernel table, and the differential flame (core/stackdiff.c's tree with both sides' weights)
// drawn by js/flame.js, red where a frame grew and blue where it shrank.
(function () {
  "use strict";
  var $ = gfPage.$, el = gfPage.el;
  var M = gfPage.json("model-data") || {};
  var FLAMES = { kernels: gfPage.json("flame-data"), launch: gfPage.json("launch-data") };
  var unit = M.unit === "count" ? "count" : "ns";

  // ---- formatting ----
  function fmtT(v) {
    if (v === null || v === undefined) return "\u2014";
    if (unit !== "ns") return Math.round(v).toLocaleString();
    var a = Math.abs(v);
    if (a >= 1e9) return (v / 1e9).toFixed(3) + " s";
    if (a >= 1e6) return (v / 1e6).toFixed(3) + " ms";
    if (a >= 1e3) return (v / 1e3).toFixed(1) + " \u00b5s";
    return Math.round(v) + " ns";
  }
  function sgn(v, s) { return (v > 0 ? "+" : v < 0 ? "\u2212" : "\u00b1") + s; }
  function fmtD(v) { return sgn(v, fmtT(Math.abs(v))); }
  function fmtP(x, signed) {
    if (x === null || x === undefined || !isFinite(x)) return "\u2014";
    var s = (Math.abs(x) * 100).toFixed(Math.abs(x) < 0.001 && x !== 0 ? 3 : 1) + "%";
    return signed ? sgn(x, s) : s;
  }
  function fmtN(v) { return v === null || v === undefined ? "\u2014" : Math.round(v).toLocaleString(); }
  function td(text, cls) { return el("td", cls, text); }

  // ---- verdict, caveats, captures, totals ----
  var V = M.verdict;
  var vEl = $("verdict");
  if (V && V.comparable === false) {
    vEl.textContent = "NOT COMPARABLE (exit " + V.exit_code + ")";
    vEl.className = "warn";
    vEl.title = "the captures did different work (policy diff.work): compare the normalised figures below";
    (V.reasons || []).forEach(function (r) { $("reasons").appendChild(el("li", null, r)); });
  } else if (V) {
    vEl.textContent = V.regression ? "REGRESSION (exit " + V.exit_code + ")" : "no regression (exit " + V.exit_code + ")";
    vEl.className = V.regression ? "bad" : "good";
    (V.reasons || []).forEach(function (r) { $("reasons").appendChild(el("li", null, r)); });
    if (V.notes_why) {
      $("reasons").appendChild(el("li", "note", V.notes_why + ":"));
      (V.notes || []).forEach(function (r) { $("reasons").appendChild(el("li", "note", r)); });
    }
    vEl.title = "decided by " + (V.decided_by === "policy" ? "the policy's diff.verdict" : "the default rule: total GPU time +" +
      fmtP(V.threshold) + ", or a top-" + V.top_kernels + " kernel +" + fmtP(V.kernel_threshold) +
      (M.loop ? ", or the loop's mean iteration +" + fmtP(M.loop.threshold) : ""));
  } else {
    vEl.textContent = M.read_back ? "read back from a differential folded file" : "no verdict";
  }
  var cav = M.caveats || [];
  if (!cav.length) $("caveats").appendChild(el("li", null, M.read_back ? "A differential folded file carries no capture metadata." :
    "None found: same GPUs, drivers, Nsight Systems version, command line (hash) and host, and capture lengths within tolerance.")).style.color = "var(--muted)";
  cav.forEach(function (c) { $("caveats").appendChild(el("li", null, c.message)); });

  // ---- the work each capture did, the figures that still compare, the processes ----
  function fmtW(what, v) {
    if (v === null || v === undefined) return "\u2014";
    if (/^bytes /.test(what)) {
      var u = ["B", "KiB", "MiB", "GiB", "TiB"], i = 0;
      while (Math.abs(v) >= 1024 && i < u.length - 1) { v /= 1024; i++; }
      return (i ? (Math.round(v * 10) / 10).toLocaleString() : v.toLocaleString()) + " " + u[i];
    }
    return (Math.round(v * 10) / 10).toLocaleString();
  }
  var WC = (V && V.work_changes) || [];
  if (V && V.work_compared === false) $("worknote").textContent = "(not compared: an input without a trace)";
  else if (!WC.length) $("worknote").textContent = V ? "(the same work on both sides, within policy diff.work)" : "";
  var wtb = $("work").tBodies[0];
  WC.forEach(function (c) {
    var tr = el("tr"), nt = td(c.what, "name");
    tr.appendChild(nt); tr.appendChild(td(fmtW(c.what, c.before), "n")); tr.appendChild(td(fmtW(c.what, c.after), "n"));
    tr.appendChild(td(c.change === null ? "\u2014" : fmtP(c.change, true), "n"));
    wtb.appendChild(tr);
  });
  $("work").style.display = WC.length ? "" : "none";
  var NF = M.normalised || [], ntb = $("normalised").tBodies[0];
  function fmtU(v, unit) { return v === null || v === undefined ? "\u2014" : (v < 10 ? v.toPrecision(3) : Math.round(v).toLocaleString()) + " " + unit; }
  NF.forEach(function (f) {
    var tr = el("tr");
    tr.appendChild(td(f.what, "name")); tr.appendChild(td(fmtU(f.before, f.unit), "n")); tr.appendChild(td(fmtU(f.after, f.unit), "n"));
    tr.appendChild(td(f.change === null ? "\u2014" : fmtP(f.change, true), "n"));
    var dt = td(""); dt.appendChild(el("span", "tag " + f.direction, f.direction)); tr.appendChild(dt);
    ntb.appendChild(tr);
  });
  $("normwrap").style.display = NF.length ? "" : "none";
  // ---- the loop (docs/DIFF.md "The loop"): the mean iteration, the steps with their GPU work, the rest ----
  var L = M.loop, ltb = $("loop").tBodies[0];
  function loopRow(label, b, a, cls) {
    var tr = el("tr", cls || null);
    tr.appendChild(el("th", null, label)); tr.appendChild(td(fmtT(b), "n")); tr.appendChild(td(fmtT(a), "n"));
    tr.appendChild(td(fmtD(a - b), "n" + (a > b ? " up" : a < b ? " down" : "")));
    tr.appendChild(td(b > 0 ? fmtP((a - b) / b, true) : "\u2014", "n"));
    ltb.appendChild(tr);
  }
  if (L) {
    var lb = L.before, la = L.after;
    loopRow("an iteration (a step's start to the next one's)", lb.iteration_ns, la.iteration_ns);
    loopRow("\u2003the steps with their GPU work", lb.in_steps_ns, la.in_steps_ns, "part");
    loopRow("\u2003outside them", lb.outside_ns, la.outside_ns, "part");
    L.ranges.forEach(function (r) { loopRow("\u2003in the gaps, NVTX range " + r.name, r.before_ns, r.after_ns, "part"); });
    loopRow("median step (its time)", lb.step_median_ns, la.step_median_ns, "median");
    loopRow("median gap", lb.gap_median_ns, la.gap_median_ns, "median");
    $("loopnote").textContent = "(both captures have steps: means over " + lb.iterations.toLocaleString() + " and " +
      la.iterations.toLocaleString() + " iterations; between the steps " + fmtP(lb.between_share) + " \u2192 " +
      fmtP(la.between_share) + " of the loop)";
    $("loopwhere").textContent = (L.where === "outside" ? "Most of the change per iteration is outside the steps and their GPU work. " :
      L.where === "steps" ? "Most of the change per iteration is in the steps and their GPU work. " :
      "The mean iteration changed by at most " + fmtP(L.threshold) + " (policy diff.loop_threshold). ") +
      (L.where !== "none" && Math.min(lb.iterations, la.iterations) < L.min_iterations ? "Too few iterations for the verdict " +
      "(policy diff.loop_min_iterations " + L.min_iterations + "). " : "") +
      (L.same_rule ? "Steps: " + lb.rule + "." : "The steps were found by different rules (" + lb.rule + "; " + la.rule +
      "): the iterations may not be the same unit.");
  }
  $("loopwrap").style.display = L ? "" : "none";
  var PR = M.processes || [], ptb = $("processes").tBodies[0];
  function pids(l) { return l && l.length ? l.map(function (p) { return "pid " + p; }).join(", ") : "\u2014"; }
  PR.forEach(function (p) {
    var tr = el("tr");
    tr.appendChild(td(p.key, "name")); tr.appendChild(td(pids(p.before))); tr.appendChild(td(pids(p.after)));
    ptb.appendChild(tr);
  });
  $("procwrap").style.display = PR.length ? "" : "none";

  var B = M.before || {}, A = M.after || {};
  var mb = B.meta || {}, ma = A.meta || {};
  function metaText(v) {
    if (v === null || v === undefined) return "\u2014";
    if (Array.isArray(v)) return v.length ? v.join(", ") : "\u2014";
    if (v === true) return "yes"; if (v === false) return "no";
    return String(v);
  }
  var rows = [
    ["input", B.input, A.input], ["read", B.report ? B.report + " (exported)" : B.file, A.report ? A.report + " (exported)" : A.file],
    ["what", B.kind, A.kind], ["Nsight Systems (recorded)", mb.recorded_version, ma.recorded_version], ["Nsight Systems (export)", mb.nsys_version, ma.nsys_version], ["export schema", mb.schema_version, ma.schema_version],
    ["GPUs", mb.gpus, ma.gpus], ["NVIDIA driver", mb.driver, ma.driver], ["CUDA driver", mb.cuda_driver, ma.cuda_driver],
    ["OS", mb.os, ma.os], ["CPU", mb.cpu, ma.cpu], ["host (hash)", mb.host_hash, ma.host_hash],
    ["command line (hash)", mb.command_hash, ma.command_hash],
    ["capture duration", mb.duration_ns == null ? null : fmtT(mb.duration_ns), ma.duration_ns == null ? null : fmtT(ma.duration_ns)],
    ["capture start (UTC)", mb.start_utc, ma.start_utc], ["launch backtraces", mb.launch_backtraces, ma.launch_backtraces]
  ];
  var ctb = $("captures").tBodies[0];
  rows.forEach(function (r) {
    var tr = el("tr"), a = metaText(r[1]), b = metaText(r[2]);
    if (a !== b && r[0] !== "input" && r[0] !== "read") tr.className = "differs";
    tr.appendChild(el("th", null, r[0])); tr.appendChild(td(a)); tr.appendChild(td(b));
    ctb.appendChild(tr);
  });
  var T = M.total || { before_ns: 0, after_ns: 0, delta_ns: 0 };
  var ttb = $("totals").tBodies[0];
  function totRow(label, b, a, f) {
    var tr = el("tr"); tr.appendChild(el("th", null, label));
    tr.appendChild(td(f(b), "n")); tr.appendChild(td(f(a), "n"));
    var ok = b !== null && b !== undefined && a !== null && a !== undefined;
    tr.appendChild(td(ok ? (f === fmtT ? fmtD(a - b) : sgn(a - b, fmtN(Math.abs(a - b)))) : "\u2014", "n" + (ok && a > b ? " up" : ok && a < b ? " down" : "")));
    tr.appendChild(td(ok && b > 0 ? fmtP((a - b) / b, true) : "\u2014", "n"));
    ttb.appendChild(tr);
  }
  totRow(unit !== "ns" ? "total" : B.kind === "api" && A.kind === "api" ? "CUDA API time" : "GPU time (kernels)", T.before_ns, T.after_ns, fmtT);
  totRow("kernels", B.kernels, A.kernels, fmtN);
  totRow("instances", B.instances, A.instances, fmtN);
  totRow("capture duration", mb.duration_ns, ma.duration_ns, fmtT);
  function nameList(id, list) {
    var ul = $(id);
    if (!list || !list.length) { ul.appendChild(el("li", null, "none")).style.color = "var(--muted)"; return; }
    list.slice(0, 200).forEach(function (n) { var li = el("li"); li.appendChild(kernelLink(n)); ul.appendChild(li); });
    if (list.length > 200) ul.appendChild(el("li", null, "\u2026 and " + (list.length - 200) + " more (see the table)"));
  }

  // ---- kernel table ----
  var K = M.kernels || [], shown = 0, PAGE = 100;
  $("kcount").textContent = "(" + K.length.toLocaleString() + " kernels, ranked by |\u0394 total time|" + (M.normalize_name === "policy" ? "; names normalised by the policy" : "") + ")";
  function kernelLink(name) {
    var a = el("a", null, name); a.href = "#"; a.title = "show in the flamegraph";
    a.addEventListener("click", function (ev) { ev.preventDefault(); ctl.searchFor("^" + gfPage.reEscape(name) + "$"); $("fg").scrollIntoView(); });
    return a;
  }
  function pair(b, a, f) { return f(b) + " \u2192 " + f(a); }
  function addRows(n) {
    var tb = $("kernels").tBodies[0], end = Math.min(K.length, shown + n);
    for (var i = shown; i < end; i++) {
      var k = K[i], b = k.before || {}, a = k.after || {}, tr = el("tr");
      tr.appendChild(td(k.rank, "n"));
      var nt = td("", "name"); nt.appendChild(kernelLink(k.name));
      if (k.matched && k.matched.length) nt.title = "matched names: " + k.matched.join(" | ");
      tr.appendChild(nt);
      var st = td(""); st.appendChild(el("span", "tag " + k.status, k.status)); tr.appendChild(st);
      tr.appendChild(td(fmtT(b.total_ns), "n")); tr.appendChild(td(fmtT(a.total_ns), "n"));
      tr.appendChild(td(fmtD(k.delta_ns), "n" + (k.delta_ns > 0 ? " up" : k.delta_ns < 0 ? " down" : "")));
      tr.appendChild(td(k.status === "new" ? "new" : fmtP(k.change, true), "n"));
      tr.appendChild(td(pair(b.instances, a.instances, fmtN), "n"));
      tr.appendChild(td(pair(b.mean_ns, a.mean_ns, fmtT), "n"));
      tr.appendChild(td(pair(b.share, a.share, fmtP), "n"));
      tb.appendChild(tr);
    }
    shown = end;
    var more = $("more");
    more.style.display = shown < K.length ? "" : "none";
    more.textContent = "Show all " + K.length.toLocaleString() + " kernels";
  }
  $("more").addEventListener("click", function () { addRows(K.length); });

  // ---- the differential flame ----
  var canvas = $("fg"), tip = $("tip");
  var view = "kernels", size = "after", scale = "norm";
  var FT = null, n = 0, vb, va, end, lw, TB = 0, TA = 0, R = null;
  var NEUTRAL = gfFlame.rgb("diff-neutral"), RED = gfFlame.rgb("diff-grew"), BLUE = gfFlame.rgb("diff-shrank");

  function load(v) {
    var D = FLAMES[v] || FLAMES.kernels || {};
    view = FLAMES[v] ? v : "kernels";
    TB = D.total ? D.total[0] : 0; TA = D.total ? D.total[1] : 0;
    FT = gfFlame.fromNodes(D.names || [], D.nodes || [], 2, [TB, TA]);
    n = FT.n; vb = FT.vals[0]; va = FT.vals[1]; end = FT.end; lw = new Float64Array(n);
    if (R) R.setTree(FT);
    else { R = gfFlame.renderer(canvas, FT, renderOpts); ctl = gfFlame.controls(R, ctlOpts); }
    var note = D.folded ? D.folded.toLocaleString() + " subtrees below " + fmtP(M.min_fraction) + " of both totals left out" : "";
    $("flamenote").textContent = (view === "launch" ? "(launch stacks ending in kernels" : "(GPU kernel time") + (note ? "; " + note : "") + ")";
    $("stats").textContent = (n - 1).toLocaleString() + " frames; BEFORE " + fmtT(TB) + ", AFTER " + fmtT(TA) + ".";
    var empty = TB <= 0 && TA <= 0;
    $("empty").style.display = empty ? "block" : "none"; canvas.style.display = empty ? "none" : "block";
  }
  // value of node k on a side, in the current scale
  function sideValue(k, side) {
    var v = side === "before" ? vb[k] : va[k], t = side === "before" ? TB : TA;
    return scale === "norm" ? (t > 0 ? v / t : 0) : v;
  }
  function present(k, side) { return (side === "before" ? vb[k] : va[k]) > 0; }
  // frame widths: a frame present on the size side gets its value; a frame only on the other side (a
  // "ghost": vanished when sizing by AFTER, new when sizing by BEFORE) is drawn with the other side's value
  // and widens its ancestors by that much, so nothing is dropped.
  function widths() {
    var other = size === "after" ? "before" : "after";
    for (var k = n - 1; k >= 0; k--) {
      var own = present(k, size) ? sideValue(k, size) : sideValue(k, other), extra = 0;
      if (present(k, size)) {
        for (var c = k + 1; c < end[k]; c = end[c]) extra += present(c, size) ? lw[c] - sideValue(c, size) : lw[c];
      }
      lw[k] = own + extra;
    }
    R.layout(lw);
  }

  // ---- colours ----
  function relChange(k) {
    var b = sideValue(k, "before"), a = sideValue(k, "after");
    if (b <= 0) return a > 0 ? Infinity : 0;
    return (a - b) / b;
  }
  function status(k) {
    var pb = vb[k] > 0, pa = va[k] > 0;
    return pb && pa ? "both" : pa ? "new" : pb ? "vanished" : "none";
  }
  function mix(c, t) { return "rgb(" + Math.round(NEUTRAL[0] + (c[0] - NEUTRAL[0]) * t) + "," + Math.round(NEUTRAL[1] + (c[1] - NEUTRAL[1]) * t) + "," + Math.round(NEUTRAL[2] + (c[2] - NEUTRAL[2]) * t) + ")"; }
  function changeColor(k) {
    var s = status(k);
    if (s === "new") return gfFlame.color("diff-new", "");
    if (s === "vanished") return gfFlame.color("diff-vanished", "");
    var r = relChange(k), t = Math.min(1, Math.sqrt(Math.abs(r)));
    return r > 0 ? mix(RED, t) : r < 0 ? mix(BLUE, t) : mix(RED, 0);
  }
  var hatch = null;
  function hatchPattern(g) {
    if (hatch) return hatch;
    var c = document.createElement("canvas"); c.width = 8; c.height = 8;
    var x = c.getContext("2d"); x.strokeStyle = "rgba(255,255,255,0.85)"; x.lineWidth = 2;
    x.beginPath(); x.moveTo(0, 8); x.lineTo(8, 0); x.moveTo(-2, 2); x.lineTo(2, -2); x.moveTo(6, 10); x.lineTo(10, 6); x.stroke();
    hatch = g.createPattern(c, "repeat");
    return hatch;
  }

  // ---- tooltip ----
  function tipLines(k) {
    var L = [], b = vb[k], a = va[k], s = status(k);
    L.push("before: " + fmtT(b) + " (" + fmtP(TB > 0 ? b / TB : 0) + " of BEFORE total " + fmtT(TB) + ")");
    L.push("after: " + fmtT(a) + " (" + fmtP(TA > 0 ? a / TA : 0) + " of AFTER total " + fmtT(TA) + ")");
    L.push("delta: " + fmtD(a - b) + (b > 0 ? " (" + fmtP((a - b) / b, true) + ")" : ""));
    var sb = TB > 0 ? b / TB : 0, sa = TA > 0 ? a / TA : 0;
    L.push("share of total: " + fmtP(sb) + " \u2192 " + fmtP(sa) + " (" + sgn(sa - sb, (Math.abs(sa - sb) * 100).toFixed(2)) + " pp" +
      (sb > 0 ? ", " + fmtP((sa - sb) / sb, true) + " relative" : "") + ")");
    if (s === "new") L.push("only in AFTER (new)" + (size === "before" ? "; drawn with its AFTER width" : ""));
    if (s === "vanished") L.push("only in BEFORE (vanished)" + (size === "after" ? "; drawn with its BEFORE width" : ""));
    return L;
  }
  var renderOpts = {
    row: 16, font: "12px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace", minwidth: 0.1,
    color: changeColor,
    overlay: function (g, k, px, y, pw) {
      var s = status(k);
      if ((s === "new" || s === "vanished") && pw > 2) { g.fillStyle = hatchPattern(g); g.fillRect(px, y, Math.max(pw - 0.5, 0.5), 15); }
    },
    onHover: function (k, ev) {
      if (k < 0) { tip.style.display = "none"; return; }
      tip.textContent = "";
      tip.appendChild(el("b", null, R.nameOf(k)));
      tipLines(k).forEach(function (l) { tip.appendChild(el("div", "row", l)); });
      gfPage.placeTip(tip, ev.clientX, ev.clientY);
    },
    onClick: function (k) { ctl.zoomTo(k); }
  };

  // ---- state: view, size and scale, then zoom and search (js/flame.js controls); kept in the URL fragment ----
  var ctl = null, ctlOpts = {
    state: function () {
      var h = [];
      if (view !== "kernels") h.push(["view", view]);
      if (size !== "after") h.push(["size", size]);
      if (scale !== "norm") h.push(["scale", scale]);
      return h;
    },
    restore: function (h) { setMode({ view: h.view || "kernels", size: h.size || "after", scale: h.scale || "norm" }, true); },
    crumb: function (z) { return "BEFORE " + fmtT(vb[z]) + ", AFTER " + fmtT(va[z]); },
    matched: function (m) {
      if (!m) return ["", ""];
      var sum = [gfFlame.matchedSum(FT, m, vb), gfFlame.matchedSum(FT, m, va)];
      var s = size === "after" ? 1 : 0, t = s ? TA : TB;
      return ["Matched: " + (t > 0 ? (100 * sum[s] / t).toFixed(1) : "0.0") + "% of " + size.toUpperCase(),
        "BEFORE " + fmtT(sum[0]) + " (" + fmtP(TB > 0 ? sum[0] / TB : 0) + "), AFTER " + fmtT(sum[1]) + " (" + fmtP(TA > 0 ? sum[1] / TA : 0) + ")"];
    }
  };
  function press() {
    ["kernels", "launch"].forEach(function (v) { $("v-" + v).setAttribute("aria-pressed", String(view === v)); });
    $("v-launch").disabled = !FLAMES.launch;
    $("v-launch").title = FLAMES.launch ? "launch stacks ending in kernels" : ((M.launch_stacks && M.launch_stacks.why) || "no launch backtraces");
    $("s-after").setAttribute("aria-pressed", String(size === "after"));
    $("s-before").setAttribute("aria-pressed", String(size === "before"));
    $("m-norm").setAttribute("aria-pressed", String(scale === "norm"));
    $("m-abs").setAttribute("aria-pressed", String(scale === "abs"));
    $("modeNote").textContent = "Frames sized by " + size.toUpperCase() + (scale === "norm" ? ", each side as a share of its own total" : ", absolute time") + ".";
  }
  function setMode(o, noHash) {
    var reload = o.view && o.view !== view;
    if (reload) load(o.view);
    if (o.size === "after" || o.size === "before") size = o.size;
    if (o.scale === "norm" || o.scale === "abs") scale = o.scale;
    var z = reload ? 0 : R.zoom();
    widths();
    press();
    if (reload) { R.resize(); ctl.search(ctl.query(), true); }
    ctl.showMatched();
    ctl.zoomTo(z, true);
    if (!noHash) ctl.save();
  }
  document.querySelectorAll("[data-view]").forEach(function (b) { b.addEventListener("click", function () { setMode({ view: b.getAttribute("data-view") }); }); });
  document.querySelectorAll("[data-size]").forEach(function (b) { b.addEventListener("click", function () { setMode({ size: b.getAttribute("data-size") }); }); });
  document.querySelectorAll("[data-scale]").forEach(function (b) { b.addEventListener("click", function () { setMode({ scale: b.getAttribute("data-scale") }); }); });
  window.addEventListener("resize", function () { R.resize(); });

  // for tests and scripting
  window.gpuflameDiff = {
    state: function () {
      var z = R.zoom();
      return { view: view, size: size, scale: scale, zoom: z, zoomName: z ? R.nameOf(z) : null, search: ctl.query(),
        matched: $("matched").textContent, nodes: n - 1, kernelsShown: shown, verdict: vEl.textContent };
    },
    frame: function (name) {
      var k = R.find(name);
      if (k < 0) return null;
      return { index: k, status: status(k), color: changeColor(k), before: vb[k], after: va[k], layoutWidth: lw[k], rect: R.frameRect(k) };
    },
    setMode: function (o) { setMode(o); },
    zoomTo: function (k) { ctl.zoomTo(k); },
    search: function (s) { ctl.searchFor(s); }
  };

  load("kernels");
  nameList("new", M["new"]);
  nameList("vanished", M.vanished);
  addRows(PAGE);
  widths();
  press();
  R.resize();
  ctl.restore();
})();
