// The one flame graph renderer of the pages (docs/PAGES.md): the flamegraph page, the diff page's
// differential flame and the timeline's launch-stack flame draw with it. Inlined by an include slot
// of the template, after js/util.js; the template also carries templates/palettes.json, the colour table
// the policy schema reads too, in <script type="application/json" id="gf-palettes">.
//
// A tree is preorder arrays (children right after their parent): nm (name index, -1 for the root),
// dep, par, end (one past the last node of the subtree) and vals (one Float64Array per weight column).
// A renderer draws a tree on a canvas with frame widths the page gives (layout), zoom on one frame,
// search matches in magenta and the frame under the pointer outlined.
var gfFlame = (function () {
  'use strict';
  // ---- colours: templates/palettes.json ----
  var PAL = null, cache = {};
  function table() {
    if (!PAL) {
      var t = gfPage.json('gf-palettes') || {};
      PAL = {};
      (t.palettes || []).forEach(function (e) { PAL[e.name] = e; });
      Object.keys(t.parts || {}).forEach(function (k) { PAL[k] = t.parts[k]; });
    }
    return PAL;
  }
  // flamegraph.pl's name hash: three numbers in [0, 1), the same for the same name on every page
  function hashName(s) {
    var v1 = 0, v2 = 0, max = 1, mod = 10, k;
    for (k = 0; k < s.length && k < 16; k++) { var c = s.charCodeAt(k) % mod; v1 += c / (mod - 1) * max; mod++; max *= 0.7; }
    var h = 2166136261;
    for (k = 0; k < s.length; k++) { h ^= s.charCodeAt(k); h = Math.imul(h, 16777619); }
    v2 = ((h >>> 0) % 1000) / 1000;
    return [v1 / (1 / 0.3 + 1) * 1.0 % 1, v2, ((h >>> 10) % 1000) / 1000];
  }
  function channel(c, v) { return c[0] + c[1] * v[c[2]]; }
  // color(palette, name) -> CSS colour of a frame named name (an unknown palette is "hot")
  function color(pal, s) {
    var key = pal + '\u0000' + s, c = cache[key];
    if (c) return c;
    var P = table(), e = P[pal] || P.hot, seen = 0;
    while (e && e.rules && seen++ < 8) {
      var next = e['else'];
      for (var i = 0; i < e.rules.length; i++) {
        var r = e.rules[i];
        if (new RegExp(r[0], r[1]).test(s)) { next = r[2]; break; }
      }
      e = P[next];
    }
    if (!e) c = '#888';
    else if (e.fixed) c = e.fixed;
    else if (e.hsl) { var w = hashName(s); c = 'hsl(' + channel(e.hsl[0], w) + ',' + channel(e.hsl[1], w) + '%,' + channel(e.hsl[2], w) + '%)'; }
    else { var v = hashName(s); c = 'rgb(' + (channel(e.rgb[0], v) | 0) + ',' + (channel(e.rgb[1], v) | 0) + ',' + (channel(e.rgb[2], v) | 0) + ')'; }
    cache[key] = c;
    return c;
  }
  // rgb(entry) -> [r, g, b] of a fixed "rgb(r,g,b)" entry (the diff's gradient ends)
  function rgb(name) { return (color(name, '').match(/\d+/g) || [0, 0, 0]).map(Number); }

  // ---- trees ----
  function alloc(n, k) {
    var T = { n: n, nm: new Int32Array(n), dep: new Int32Array(n), par: new Int32Array(n), end: new Int32Array(n), vals: [], maxDepth: 0 };
    for (var c = 0; c < k; c++) T.vals.push(new Float64Array(n));
    T.nm[0] = -1; T.par[0] = -1;
    return T;
  }
  // fromNodes(names, raw, k, totals): the writer's flat nodes [name, v1..vk, depth] per frame (core/stacks.c,
  // core/stackdiff.c) below a root "all" whose weights are totals
  function fromNodes(names, raw, k, totals) {
    var stride = k + 2, n = raw.length / stride + 1, T = alloc(n, k), stack = [0], i, j, c;
    T.names = names;
    for (c = 0; c < k; c++) T.vals[c][0] = totals[c] || 0;
    for (i = 1, j = 0; i < n; i++, j += stride) {
      T.nm[i] = raw[j];
      for (c = 0; c < k; c++) T.vals[c][i] = raw[j + 1 + c];
      var d = raw[j + stride - 1] + 1;
      T.dep[i] = d;
      if (d > T.maxDepth) T.maxDepth = d;
      while (stack.length > d) T.end[stack.pop()] = i;
      T.par[i] = stack[stack.length - 1];
      stack.push(i);
    }
    while (stack.length) T.end[stack.pop()] = n;
    return T;
  }
  // fromStacks(frames, stacks): [[frame index path, weight], ...] (the timeline's launchFlame) -> a tree with
  // one weight column, children widest first; T.leaf[k] = 1 where a stack ends
  function fromStacks(frames, stacks) {
    var root = { name: '', v: 0, kids: new Map(), leaf: false }, count = 1;
    stacks.forEach(function (st) {
      var path = st[0] || [], w = +st[1] || 0, node = root;
      if (w <= 0) return;
      root.v += w;
      path.forEach(function (fi, d) {
        var name = frames[fi] == null ? '?' : String(frames[fi]), kid = node.kids.get(name);
        if (!kid) { kid = { name: name, v: 0, kids: new Map(), leaf: false }; node.kids.set(name, kid); count++; }
        kid.v += w;
        if (d === path.length - 1) kid.leaf = true;
        node = kid;
      });
    });
    var T = alloc(count, 1), names = [], idx = new Map(), k = 0;
    T.leaf = new Uint8Array(count);
    (function put(node, d, p) {
      var me = k++;
      if (me) {
        var ni = idx.get(node.name);
        if (ni == null) { ni = names.length; names.push(node.name); idx.set(node.name, ni); }
        T.nm[me] = ni;
      }
      T.vals[0][me] = node.v; T.dep[me] = d; T.par[me] = p; T.leaf[me] = node.leaf ? 1 : 0;
      if (d > T.maxDepth) T.maxDepth = d;
      Array.from(node.kids.values()).sort(function (a, b) { return b.v - a.v || (a.name < b.name ? -1 : 1); })
        .forEach(function (kid) { put(kid, d + 1, me); });
      T.end[me] = k;
    })(root, 0, -1);
    T.names = names;
    return T;
  }
  // match(T, test) -> Uint8Array over T.names (test: a RegExp or a function of the name), or null
  function match(T, test) {
    if (!test) return null;
    var m = new Uint8Array(T.names.length);
    for (var q = 0; q < T.names.length; q++) m[q] = (typeof test === 'function' ? test(T.names[q]) : test.test(T.names[q])) ? 1 : 0;
    return m;
  }
  // matchedSum(T, m, vals) -> the weight through a matching frame, each path counted once (at its outermost match)
  function matchedSum(T, m, vals) {
    var sum = 0, k = 1;
    while (k < T.n) { if (m[T.nm[k]]) { sum += vals[k]; k = T.end[k]; } else k++; }
    return sum;
  }

  // ---- the renderer ----
  // o: row (px), font, inverted (root on top), minwidth (px; narrower frames are not drawn), inset and
  // minWidth (canvas width: the parent's width less inset, at least minWidth), rootName, color(k),
  // overlay(g, k, x, y, w) (drawn over a frame), matchColor, labelMin (px; narrower frames have no label),
  // onHover(k, ev) (k -1: off any frame), onClick(k, ev)
  function renderer(canvas, T, o) {
    var g = canvas.getContext('2d'), n, nm, dep, end, par, lw, x0;
    var ROW = o.row || 16, minw = o.minwidth == null ? 0.1 : +o.minwidth, labelMin = o.labelMin || 28;
    var zoom = 0, hover = -1, nameMatch = null, W = 0, H = 0, dpr = 1, cw = 7.2;
    // draws tree t from now on (unzoomed, no match), frames as wide as its first weight column until layout
    function setTree(t) {
      T = t; n = T.n; nm = T.nm; dep = T.dep; end = T.end; par = T.par;
      x0 = new Float64Array(n); zoom = 0; hover = -1; nameMatch = null;
      layout(T.vals[0]);
    }
    function nameOf(k) { return k === 0 ? (o.rootName || 'all') : T.names[nm[k]]; }
    // widths: a frame's drawn width in weight units (a child's extent lies inside its parent's)
    function layout(widths) {
      lw = widths;
      var next = [0];
      x0[0] = 0;
      for (var k = 1; k < n; k++) {
        var d = dep[k], p = par[k];
        while (next.length <= d) next.push(0);
        if (next[d] < x0[p] || k === p + 1) next[d] = x0[p];
        x0[k] = next[d]; next[d] += lw[k];
      }
    }
    function rowY(d) { return o.inverted ? d * ROW : H - (d + 1) * ROW - 2; }
    function view() { return [x0[zoom], x0[zoom] + lw[zoom]]; }
    function resize() {
      dpr = window.devicePixelRatio || 1;
      W = canvas.parentNode.clientWidth - (o.inset || 0);
      if (W < (o.minWidth || 100)) W = o.minWidth || 100;
      H = (T.maxDepth + 1) * ROW + 4;
      canvas.width = Math.round(W * dpr); canvas.height = Math.round(H * dpr);
      canvas.style.width = W + 'px'; canvas.style.height = H + 'px';
      g.font = o.font;
      cw = g.measureText('abcdefghijklmnopqrstuvwxyz0123456789 ').width / 37 || 7.2;
      draw();
    }
    function draw() {
      g.setTransform(dpr, 0, 0, dpr, 0, 0);
      g.clearRect(0, 0, W, H);
      g.font = o.font; g.textBaseline = 'middle';
      var v = view(), vx = v[0], vw = v[1] - v[0];
      if (!(vw > 0)) return;
      var scale = W / vw, k = 0, zd = dep[zoom];
      while (k < n) {
        var a = x0[k], w = lw[k];
        if (a + w <= vx || a >= vx + vw || w * scale < minw) { k = end[k]; continue; }
        var left = Math.max(a, vx), right = Math.min(a + w, vx + vw);
        var px = (left - vx) * scale, pw = (right - left) * scale, y = rowY(dep[k]);
        g.globalAlpha = dep[k] < zd ? 0.55 : 1;
        g.fillStyle = nameMatch && k > 0 && nameMatch[nm[k]] ? o.matchColor || color('match', '') : o.color(k);
        g.fillRect(px, y, Math.max(pw - 0.5, 0.5), ROW - 1);
        if (o.overlay) o.overlay(g, k, px, y, pw);
        if (k === hover) { g.strokeStyle = '#000'; g.lineWidth = 1; g.strokeRect(px + 0.5, y + 0.5, Math.max(pw - 1.5, 0.5), ROW - 2); }
        if (pw > labelMin) {
          var label = gfPage.fitText(nameOf(k), pw - 6, cw);
          if (label) { g.fillStyle = o.labelColor || '#000'; g.fillText(label, px + 3, y + ROW / 2); }
        }
        k++;
      }
      g.globalAlpha = 1;
    }
    // the frame under a canvas point, walking down from the root (children are contiguous after their parent)
    function nodeAt(cx, cy) {
      var d = o.inverted ? Math.floor(cy / ROW) : Math.floor((H - 2 - cy) / ROW);
      if (d < 0 || d > T.maxDepth) return -1;
      var v = view(), vw = v[1] - v[0], xv = v[0] + cx / W * vw, cur = 0;
      if (xv < x0[0] || xv >= x0[0] + lw[0]) return -1;
      for (var lvl = 1; lvl <= d; lvl++) {
        var c = cur + 1, found = -1;
        while (c < end[cur]) { if (xv >= x0[c] && xv < x0[c] + lw[c]) { found = c; break; } c = end[c]; }
        if (found < 0) return -1;
        cur = found;
      }
      if (lw[cur] * W / vw < minw) return -1;
      return cur;
    }
    // where frame k is drawn, in client coordinates (null: not in the view)
    function frameRect(k) {
      var v = view(), vw = v[1] - v[0], a = Math.max(x0[k], v[0]), b = Math.min(x0[k] + lw[k], v[1]);
      if (!(b > a)) return null;
      var r = canvas.getBoundingClientRect();
      return { x: r.left + (a - v[0]) / vw * W, y: r.top + rowY(dep[k]), width: (b - a) / vw * W, height: ROW - 1 };
    }
    function find(name) { for (var k = 1; k < n; k++) if (nameOf(k) === name) return k; return -1; }
    function point(ev) { var r = canvas.getBoundingClientRect(); return nodeAt(ev.clientX - r.left, ev.clientY - r.top); }
    canvas.addEventListener('mousemove', function (ev) {
      var k = point(ev);
      if (k !== hover) { hover = k; draw(); }
      if (o.onHover) o.onHover(k, ev);
    });
    canvas.addEventListener('mouseleave', function (ev) {
      if (hover >= 0) { hover = -1; draw(); }
      if (o.onHover) o.onHover(-1, ev);
    });
    canvas.addEventListener('click', function (ev) { var k = point(ev); if (k >= 0 && o.onClick) o.onClick(k, ev); });
    setTree(T);
    return {
      setTree: setTree, tree: function () { return T; }, nameOf: nameOf, layout: layout, resize: resize, draw: draw, nodeAt: nodeAt, frameRect: frameRect, find: find,
      zoom: function () { return zoom; },
      setZoom: function (k) { zoom = k >= 0 && k < n ? k : 0; draw(); return zoom; },
      // the zoomed frame's path from the root's child down ([] at the root)
      path: function () { var parts = [], p = zoom; while (p > 0) { parts.unshift(nameOf(p)); p = par[p]; } return parts; },
      setMatch: function (m) { nameMatch = m; draw(); },
      clearHover: function () { hover = -1; }
    };
  }

  // ---- the flame pages' controls (flamegraph, diff) ----
  // The elements #search (a regular expression), #matched, #reset and #crumb, the keys Ctrl+F and Esc, and
  // the state in the URL fragment: o.state() -> the page's own [key, value] pairs, then zoom and search;
  // o.restore(h) applies the page's own keys of fragment h first. o.crumb(z) says what zoomed frame z holds;
  // o.matched(m) -> [text, title] for the search's match array m (null: no search).
  function controls(R, o) {
    var box = gfPage.$('search'), matchedEl = gfPage.$('matched'), resetBtn = gfPage.$('reset'), crumb = gfPage.$('crumb');
    var nameMatch = null;
    function save() {
      var h = o.state ? o.state() : [];
      if (R.zoom()) h.push(['zoom', R.zoom()]);
      if (box.value) h.push(['search', box.value]);
      gfPage.writeHash(h);
    }
    function zoomTo(k, noHash) {
      var z = R.setZoom(k);
      resetBtn.disabled = z === 0;
      crumb.textContent = z ? 'Zoomed: ' + R.path().join(' \u203a ') + ' (' + o.crumb(z) + ')' : '';
      if (!noHash) save();
    }
    function showMatched() {
      var t = o.matched(nameMatch);
      matchedEl.textContent = t[0]; matchedEl.title = t[1];
    }
    function search(re, noHash) {
      var rx = null;
      box.classList.remove('bad');
      if (re) { try { rx = new RegExp(re); } catch (e) { box.classList.add('bad'); } }
      nameMatch = match(R.tree(), rx);
      showMatched();
      R.setMatch(nameMatch);
      if (!noHash) save();
    }
    function restore() {
      var h = gfPage.readHash();
      if (o.restore) o.restore(h);
      box.value = h.search || '';
      search(box.value, true);
      zoomTo(parseInt(h.zoom, 10) || 0, true);
    }
    resetBtn.addEventListener('click', function () { zoomTo(0); });
    var timer = null;
    box.addEventListener('input', function () { clearTimeout(timer); timer = setTimeout(function () { search(box.value); }, 120); });
    document.addEventListener('keydown', function (ev) {
      if ((ev.ctrlKey || ev.metaKey) && ev.key === 'f') { ev.preventDefault(); box.focus(); box.select(); }
      else if (ev.key === 'Escape') { if (document.activeElement === box && box.value) { box.value = ''; search(''); } else zoomTo(0); }
    });
    window.addEventListener('hashchange', restore);
    return { zoomTo: zoomTo, search: search, save: save, restore: restore, showMatched: showMatched,
      match: function () { return nameMatch; }, query: function () { return box.value; },
      // sets the search box to re and searches (a finding's kernels, a table row's name)
      searchFor: function (re) { box.value = re; search(re); } };
  }
  return { hashName: hashName, color: color, rgb: rgb, fromNodes: fromNodes, fromStacks: fromStacks, match: match,
    matchedSum: matchedSum, renderer: renderer, controls: controls };
})();
