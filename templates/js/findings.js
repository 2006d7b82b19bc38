// The findings panel (docs/RULES.md "On the pages"; docs/PAGES.md): the rules' findings a page carries as
// inert JSON (the findings document), listed by severity with each finding's rows, in the page's
// <details id="findings"> (#findings-summary, #findings-list, #finding-info). Inlined where a
// template includes js/findings.js, after js/util.js. A click on a finding or one of its rows
// asks the page to show it (o.onShow); the page decides what showing means (the flamegraph highlights
// kernels, the timeline a time window and events). A finding that speaks of busy, idle or utilization
// carries its devices' time by its parts (f.busy: "GPU 0 busy 41.0% (compute 12.0%, H2D copy 29.0%),
// idle 59.0% of ..." lines, formatted by gpuflame.gpu_time); they are shown under it with a link to the
// definitions the document carries (FD.definitions, docs/SEMANTICS.md), listed at the end of the panel.
var gfFindings = (function () {
  'use strict';
  var SEVS = ['warning', 'info', 'ok', 'skipped', 'error'];
  var el = gfPage.el, $ = gfPage.$, clip = gfPage.clip, isNum = gfPage.isNum;
  function targetsOf(f) { return f && Array.isArray(f.targets) ? f.targets : []; }
  function sevOf(f) { return f && SEVS.indexOf(f.severity) >= 0 ? f.severity : 'info'; }
  // what a target names besides its time window
  function describe(t) {
    var parts = [];
    if (t.name != null) parts.push((t.kernel ? 'kernel ' : '') + clip(t.name, 160));
    if (isNum(t.device)) parts.push('device ' + t.device);
    if (isNum(t.stream)) parts.push('stream ' + t.stream);
    if (isNum(t.pid)) parts.push('pid ' + t.pid);
    if (isNum(t.tid) && t.tid !== t.pid) parts.push('tid ' + t.tid);
    return parts.join(' \u00b7 ');
  }
  // panel(FD, o) builds the panel from the findings document FD (null: the page has no panel) and returns
  // {findings, show(i [, k]), clear(), shown(), targetText(t)}. o.windowText(t): the target's time window as
  // text ('' without one); o.onShow(f, k, i) -> {info, result}: shows target k of finding i (k -1: the
  // finding as a whole) and says what it showed; o.wholeFinding: a finding's own button shows the whole
  // finding (k -1) rather than its first row; o.hint: added to the summary line; o.noteClass: the note's class.
  function panel(FD, o) {
    if (!FD || typeof FD !== 'object') FD = null;
    var FL = FD && Array.isArray(FD.findings) ? FD.findings : [], cur = -1, row = -1;
    function targetText(t) { return [o.windowText(t), describe(t)].filter(Boolean).join(' \u00b7 '); }
    function render(info) {
      var btns = $('findings-list').querySelectorAll('button');
      for (var b = 0; b < btns.length; b++) {
        var bk = btns[b].dataset.k == null ? -1 : +btns[b].dataset.k;
        var on = +btns[b].dataset.f === cur && (bk === row || (bk < 0 && !o.wholeFinding));
        btns[b].classList.toggle('active', cur >= 0 && on);
      }
      $('finding-info').textContent = info || '';
    }
    function show(i, k) {
      var f = FL[i];
      if (!f || typeof f !== 'object') return null;
      var n = targetsOf(f).length;
      if (k == null || k < 0) k = o.wholeFinding ? -1 : 0;
      else k = Math.max(0, Math.min(n - 1, k | 0));
      cur = i; row = k;
      var r = o.onShow(f, k, i) || {};
      render(r.info);
      return r.result;
    }
    function clear() { cur = -1; row = -1; render(''); }
    // the definitions of busy, idle and the parts (FD.definitions), once at the end of the panel
    function buildDefs(box) {
      var d = FD.definitions, terms = d && Array.isArray(d.terms) ? d.terms : [];
      var det = el('details', { id: 'findings-defs' }), dl = el('dl');
      det.appendChild(el('summary', null, 'What busy, idle and the parts mean' +
        (d && d.doc ? ' (gpuflame ' + clip(d.doc, 100) + ')' : '')));
      terms.forEach(function (t) {
        if (!Array.isArray(t)) return;
        dl.appendChild(el('dt', null, clip(t[0], 100)));
        dl.appendChild(el('dd', null, clip(t[1], 1000)));
      });
      det.appendChild(dl);
      box.appendChild(det);
      return det;
    }
    // f.busy's lines under the finding, each device's parts, and the link to the definitions
    function busyLines(f, defs) {
      var box = el('div', 'busy');
      f.busy.forEach(function (s) { box.appendChild(el('div', null, clip(s, 400))); });
      var a = el('a', { href: '#findings-defs', 'class': 'defs' }, 'what busy, idle and the parts mean');
      // the page's own URL fragment is its view: open the definitions without changing it
      a.addEventListener('click', function (ev) { ev.preventDefault(); defs.open = true; defs.scrollIntoView({ block: 'nearest' }); });
      box.appendChild(a);
      return box;
    }
    function buildList() {
      var box = $('findings'), list = $('findings-list'), counts = {};
      box.hidden = false;
      FL.forEach(function (f) { var sv = sevOf(f); counts[sv] = (counts[sv] || 0) + 1; });
      var parts = SEVS.filter(function (sv) { return counts[sv]; }).map(function (sv) { return counts[sv] + ' ' + sv; });
      $('findings-summary').textContent = 'Findings' + (FD.input ? ' (' + clip(FD.input, 200) + ')' : '') + ': ' +
        (FL.length ? parts.join(', ') : 'none') + (o.hint || '');
      if (FD.note) box.insertBefore(el('div', o.noteClass || 'sub', String(FD.note)), list);
      var defs = FL.some(function (f) { return f && Array.isArray(f.busy) && f.busy.length; }) ? buildDefs(box) : null;
      FL.forEach(function (f, i) {
        if (!f || typeof f !== 'object') return;
        var ts = targetsOf(f), li = el('li', sevOf(f)), b = el('button');
        b.type = 'button'; b.dataset.f = String(i);
        b.appendChild(el('span', 'sev', sevOf(f)));
        b.appendChild(el('b', null, clip(f.rule, 100)));
        b.appendChild(document.createTextNode(' ' + clip(f.text == null ? '' : f.text, 1000)));
        var w = ts[0] ? o.windowText(ts[0]) : '';
        if (w) b.appendChild(el('span', 'win', w));
        if (f.advice || f.description) b.title = clip(f.advice || f.description, 1000);
        b.addEventListener('click', function () { show(i); });
        li.appendChild(b);
        if (defs && Array.isArray(f.busy) && f.busy.length) li.appendChild(busyLines(f, defs));
        if (ts.length > 1) {
          var det = el('details'), ol = el('ol');
          det.appendChild(el('summary', null, ts.length + ' rows' + (f.total_rows > ts.length ? ' (of ' + f.total_rows + ')' : '')));
          ts.forEach(function (t, k) {
            var rb = el('button', null, (t.row != null ? t.row : k + 1) + '. ' + targetText(t));
            rb.type = 'button'; rb.dataset.f = String(i); rb.dataset.k = String(k);
            rb.addEventListener('click', function () { show(i, k); });
            ol.appendChild(el('li')).appendChild(rb);
          });
          det.appendChild(ol); li.appendChild(det);
        }
        list.appendChild(li);
      });
    }
    if (FD) buildList(); // no document: no panel (not made from an SQLite export, or policy findings.pages = false)
    return { findings: FL, show: show, clear: clear, targetText: targetText,
      shown: function () { return { finding: cur, row: row }; } };
  }
  return { panel: panel, targetsOf: targetsOf };
})();
