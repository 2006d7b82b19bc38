// Helpers every gpuflame page shares (inlined by an include slot of the template; docs/PAGES.md):
// DOM elements built from text (a name never reaches the page as HTML), data read from inert JSON
// script elements, number and duration formats, the tooltip's placement and the URL fragment.
var gfPage = (function () {
  'use strict';
  function $(id) { return document.getElementById(id); }
  // el(tag [, cls [, text]]): cls is a class name or an {attribute: value} object; text becomes textContent
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls && typeof cls === 'object') Object.keys(cls).forEach(function (k) { e.setAttribute(k, cls[k]); });
    else if (cls) e.className = cls;
    if (text != null) e.textContent = String(text);
    return e;
  }
  // the JSON of script element id, or null when it is absent, empty or not JSON
  function json(id) {
    var s = $(id);
    try { return s ? JSON.parse(s.textContent) : null; } catch (e) { return null; }
  }
  function isNum(v) { return typeof v === 'number' && isFinite(v); }
  // fixed decimals with trailing zeros dropped ("1.50" -> "1.5"); integers keep theirs ("100")
  function fmtNum(v, d) { var s = v.toFixed(d); return d > 0 ? s.replace(/\.?0+$/, '') : s; }
  function fmtDur(ns) {
    var a = Math.abs(ns);
    if (a < 1e3) return fmtNum(ns, 0) + ' ns';
    if (a < 1e6) return fmtNum(ns / 1e3, 2) + ' \u00b5s';
    if (a < 1e9) return fmtNum(ns / 1e6, 3) + ' ms';
    return fmtNum(ns / 1e9, 4) + ' s';
  }
  function clip(s, max) { s = String(s); return s.length > max ? s.slice(0, max) + '\u2026 (' + s.length + ' chars)' : s; }
  // the longest head of s that fits w px at cw px a character, with an ellipsis; '' when under 2 characters fit
  function fitText(s, w, cw) {
    var max = Math.floor(w / cw);
    if (max < 2) return '';
    return s.length > max ? s.slice(0, max - 1) + '\u2026' : s;
  }
  function reEscape(s) { return String(s).replace(/[.*+?^${}()|[\]\\]/g, '\\$&'); }
  // shows the tooltip element tip near the pointer (client cx, cy), inside the window
  function placeTip(tip, cx, cy) {
    tip.style.display = 'block';
    var w = tip.offsetWidth, h = tip.offsetHeight, x = cx + 14, y = cy + 14;
    if (x + w > window.innerWidth - 4) x = Math.max(4, cx - w - 14);
    if (y + h > window.innerHeight - 4) y = Math.max(4, cy - h - 14);
    tip.style.left = x + 'px'; tip.style.top = y + 'px';
  }
  // the URL fragment as {key: value} (values decoded; a damaged value reads as '')
  function readHash() {
    var o = {};
    (location.hash || '').replace(/^#/, '').split('&').forEach(function (kv) {
      if (!kv) return;
      var m = kv.split('='), v = m.slice(1).join('=');
      try { o[m[0]] = decodeURIComponent(v); } catch (e) { o[m[0]] = ''; }
    });
    return o;
  }
  // writes [[key, value], ...] as the fragment (none: no fragment), without a history entry
  function writeHash(pairs) {
    var h = pairs.map(function (p) { return p[0] + '=' + (p[0] === 'search' ? encodeURIComponent(p[1]) : p[1]); });
    try { history.replaceState(null, '', h.length ? '#' + h.join('&') : location.pathname + location.search); } catch (e) { /* sandboxed */ }
  }
  return { $: $, el: el, json: json, isNum: isNum, fmtNum: fmtNum, fmtDur: fmtDur, clip: clip, fitText: fitText,
    reEscape: reEscape, placeTip: placeTip, readHash: readHash, writeHash: writeHash };
})();
