/*
 * The timeline page's input (js/timeline.js): the mouse on the main canvas (drag to pan, Shift+drag to
 * measure a range, click to select, double-click to zoom to an event, the wheel to zoom or pan, the label
 * column's edge to resize it, a group header to fold it), the keyboard (docs/TIMELINE_PAGE.md "Controls") and
 * the search box (a substring or /regex/ over event names, also searching the launch-stack flamegraph).
 * gfTimelineInput(T) installs the handlers and adds renderRange and matchCount to T, the page's state.
 */
function gfTimelineInput(T) {
  'use strict';
  var $ = gfPage.$, fmtDur = gfPage.fmtDur;
  var n = T.n, fullSpan = T.fullSpan, NM = T.NM, names = T.names, AXIS_H = T.AXIS_H;
  var mainC = T.mainC, fgC = T.fgC, on = T.on;

  // ---------------------------------------------------------------- mouse: main canvas
  var drag = null;
  function timeAtClientX(cx) {
    var x = Math.min(T.plotW, Math.max(0, cx - mainC.getBoundingClientRect().left - T.LABEL_W));
    return T.vs + x * (T.ve - T.vs) / T.plotW;
  }
  function renderRange() {
    var g = T.range ? T.gpuTimeLines(T.range.a, T.range.b) : [];
    $('range-info').textContent = T.range ? 'measured ' + fmtDur(T.range.b - T.range.a) + ' (+' + fmtDur(T.range.a) +
      ' → +' + fmtDur(T.range.b) + ')' + (g.length ? ' · GPU time ' + g.join(' · ') : '') + ' · F zooms to it · Esc clears' : '';
  }
  on(mainC, 'mousedown', function (e) {
    if (e.button !== 0) return;
    var r0 = mainC.getBoundingClientRect(), gx = e.clientX - r0.left, gy = e.clientY - r0.top;
    if (Math.abs(gx - T.LABEL_W) <= 4 && gy >= AXIS_H) { // the label column's edge: drag to resize it
      labelDrag = { x: e.clientX, w: T.LABEL_W }; e.preventDefault(); return;
    }
    var gk = T.groupAtY(gy);
    if (gk >= 0) { T.toggleGroup(gk); e.preventDefault(); return; }
    var qk = T.quietAtY(gy);
    if (qk >= 0) { T.toggleQuiet(qk); e.preventDefault(); return; }
    // Shift+drag measures a time range instead of panning (shown with its duration; F zooms to it)
    drag = { x: e.clientX, vs: T.vs, ve: T.ve, moved: false, measure: e.shiftKey };
    e.preventDefault(); // no text selection while dragging; so move keyboard focus off the search box by hand
    if (document.activeElement && document.activeElement !== document.body) document.activeElement.blur();
    window.focus();
  });
  var labelDrag = null;
  on(window, 'mousemove', function (e) {
    if (T.miniDragging()) { T.miniMove(e); return; }
    if (labelDrag) {
      T.LABEL_W = Math.max(80, Math.min(T.cssW - 200, labelDrag.w + e.clientX - labelDrag.x));
      T.layoutPage();
      return;
    }
    if (drag) {
      var dx = e.clientX - drag.x;
      if (Math.abs(dx) > 3) drag.moved = true;
      if (drag.moved && drag.measure) {
        var t0m = timeAtClientX(drag.x), t1m = timeAtClientX(e.clientX);
        T.range = { a: Math.min(t0m, t1m), b: Math.max(t0m, t1m) };
        T.requestDraw(); T.hideTip();
      } else if (drag.moved) {
        mainC.classList.add('panning');
        var d = -dx * (drag.ve - drag.vs) / T.plotW;
        T.setView(drag.vs + d, drag.ve + d);
        T.hideTip();
      }
      return;
    }
    if (e.target === mainC) {
      var rr = mainC.getBoundingClientRect(), ey = e.clientY - rr.top;
      mainC.style.cursor = Math.abs(e.clientX - rr.left - T.LABEL_W) <= 4 && ey >= AXIS_H ? 'col-resize'
        : T.groupAtY(ey) >= 0 || T.quietAtY(ey) >= 0 ? 'pointer' : '';
      var l = T.laneAtLabel(e.clientX, e.clientY);
      if (l >= 0) {
        if (T.hover >= 0) { T.hover = -1; T.requestDraw(); }
        T.laneTip(l, e.clientX, e.clientY);
        return;
      }
      var i = T.eventAt(e.clientX, e.clientY);
      if (i !== T.hover) { T.hover = i; T.requestDraw(); }
      if (i >= 0) T.showTip(i, e.clientX, e.clientY); else T.hideTip();
    } else if (e.target !== fgC) T.hideTip();
  });
  on(window, 'mouseup', function (e) {
    if (T.miniDragging()) { T.miniEnd(); return; }
    if (labelDrag) { labelDrag = null; return; }
    if (!drag) return;
    var wasClick = !drag.moved, measured = drag.measure && drag.moved;
    drag = null; mainC.classList.remove('panning');
    if (wasClick && e.target === mainC) {
      if (T.range) { T.range = null; T.requestDraw(); } // a plain click drops the measured range
      T.select(T.eventAt(e.clientX, e.clientY));
    }
    if (measured) renderRange();
  });
  on(mainC, 'dblclick', function (e) { // double-click an event: zoom to it and its partner
    var i = T.eventAt(e.clientX, e.clientY);
    if (i < 0) return;
    T.range = null; renderRange();
    T.select(i); T.fitSelection();
  });
  on(mainC, 'mouseleave', function () {
    if (!drag) T.hideTip();
    if (T.hover >= 0) { T.hover = -1; T.requestDraw(); }
  });
  on(mainC, 'wheel', function (e) {
    e.preventDefault();
    var unit = e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? 400 : 1;
    var dx = e.deltaX * unit, dy = e.deltaY * unit;
    if (e.shiftKey && !dx) { dx = dy; dy = 0; }
    if (Math.abs(dx) > Math.abs(dy)) { T.panBy(dx / T.plotW); return; } // horizontal trackpad swipe pans
    var r = mainC.getBoundingClientRect(), x = Math.min(T.plotW, Math.max(0, e.clientX - r.left - T.LABEL_W));
    T.zoomAt(T.vs + x * (T.ve - T.vs) / T.plotW, Math.exp(dy * 0.002));
  }, { passive: false });

  // ---------------------------------------------------------------- keyboard
  function typing(e) {
    var t = e.target;
    return t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.tagName === 'SELECT' || t.isContentEditable);
  }
  on(document, 'keydown', function (e) {
    if (typing(e) || e.ctrlKey || e.metaKey || e.altKey || !n) return;
    var k = e.key, done = true;
    switch (k) {
      case 'ArrowLeft': case 'a': case 'A': T.panBy(-0.2); break;
      case 'ArrowRight': case 'd': case 'D': T.panBy(0.2); break;
      case '+': case '=': case 'w': case 'W': T.zoomAt((T.vs + T.ve) / 2, 0.8); break;
      case '-': case '_': case 's': case 'S': T.zoomAt((T.vs + T.ve) / 2, 1.25); break;
      case 'n': case 'N': T.step(1); break;
      case 'p': case 'P': T.step(-1); break;
      case '[': if (!T.gotoStep(-1)) done = false; break; // the capture's steps (js/timeline_steps.js)
      case ']': if (!T.gotoStep(1)) done = false; break;
      case '0': T.setView(0, fullSpan); break;
      case 'f': case 'F': T.fitSelection(); break;
      case '/': openSearch(); break;
      case 'Escape':
        if (!$('search').hidden) closeSearch();
        else if (T.range) { T.range = null; renderRange(); T.requestDraw(); }
        else if (T.findingShown()) T.clearFinding();
        else T.select(-1);
        break;
      default: done = false;
    }
    if (done) e.preventDefault();
  });
  on($('full'), 'click', function () { T.setView(0, fullSpan); });

  // ---------------------------------------------------------------- search
  // Plain text is a case-insensitive substring; /pattern/flags is a regular expression. Names are
  // matched once per query (the names table is deduplicated), events then test a byte per event.
  var q = $('q'), qcount = $('qcount'), matches = [], matchPos = -1;
  function openSearch() { $('search').hidden = false; q.focus(); q.select(); runSearch(); }
  function closeSearch() {
    $('search').hidden = true; T.nameMatch = null; matches = []; matchPos = -1; q.blur(); T.setFlameSearch(null); T.requestDraw();
  }
  function runSearch() {
    var text = q.value, test;
    matches = []; matchPos = -1;
    if (!text) { T.nameMatch = null; T.setFlameSearch(null); qcount.textContent = ''; T.requestDraw(); return; }
    var m = /^\/(.+)\/([a-z]*)$/.exec(text);
    if (m) {
      try { var re = new RegExp(m[1], m[2].replace(/[gy]/g, '') || 'i'); test = function (s) { return re.test(s); }; }
      catch (err) { T.nameMatch = null; T.setFlameSearch(null); qcount.textContent = 'invalid regex'; T.requestDraw(); return; }
    } else {
      var low = text.toLowerCase();
      test = function (s) { return s.toLowerCase().indexOf(low) >= 0; };
    }
    var nameMatch = T.nameMatch = new Uint8Array(names.length);
    for (var j = 0; j < names.length; j++) { // the raw name, or its group (policy nvtx.group)
      var gj = T.nameGroup(j);
      nameMatch[j] = test(String(names[j])) || (gj != null && test(gj)) ? 1 : 0;
    }
    T.setFlameSearch(test);
    for (var i = 0; i < n; i++) if (nameMatch[NM[i]]) matches.push(i);
    qcount.textContent = matches.length ? matches.length + (matches.length === 1 ? ' match' : ' matches') : 'no match';
    T.requestDraw();
  }
  on(q, 'input', runSearch);
  on(q, 'keydown', function (e) {
    if (e.key === 'Escape') { e.preventDefault(); closeSearch(); return; }
    if (e.key !== 'Enter' || !matches.length) return;
    e.preventDefault();
    matchPos = (matchPos + (e.shiftKey ? -1 : 1) + matches.length) % matches.length;
    var i = matches[matchPos];
    T.select(i); T.centreOn(i);
    qcount.textContent = (matchPos + 1) + ' / ' + matches.length + (matches.length === 1 ? ' match' : ' matches');
  });

  T.renderRange = renderRange;
  T.matchCount = function () { return matches.length; };
}
