// gf-test: slow
// Browser tests of templates/timeline.html on generated data (tests/gen/timeline_data.py): a page with
// everything the data contract allows at once (NVTX nesting, several streams, memcpy/memset/sync,
// launch backtraces on some kernels, launchFlame), and the 0-event page the binary never writes (it
// falls back to the flamegraph). Pages from the real binary: test_timeline_real.mjs.
// Interaction state is read through window.__gf (documented at the top of the template's script).
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { TOP, genPage, launch, open, view, frame, check, notOk, done, flamePoint, pageData } from './timeline_lib.mjs';

const near = (a, b, tol) => Math.abs(a - b) <= tol;
let browser;

function noExternal(name, file) {
  const html = readFileSync(file, 'utf8');
  check(`${name}: no external URL in the page`, !/https?:\/\//.test(html), 'found http(s)://');
}
function clean(name, log) {
  check(`${name}: no console errors`, log.console.length === 0, JSON.stringify(log.console).slice(0, 300));
  check(`${name}: no page errors`, log.errors.length === 0, JSON.stringify(log.errors).slice(0, 300));
  check(`${name}: no network requests`, log.requests.length === 0, JSON.stringify(log.requests).slice(0, 300));
}
// Zooms so event i (and j if given) fill the middle of the view, then clicks i's bar.
async function clickEvent(page, i, j = i) {
  await page.evaluate(([i, j]) => {
    const g = window.__gf, a = g.event(i), b = g.event(j);
    const s = Math.min(a.start, b.start), e = Math.max(a.start + a.dur, b.start + b.dur), pad = (e - s) * 0.2 + 500;
    g.setView(s - pad, e + pad);
  }, [i, j]);
  await frame(page);
  const p = await page.evaluate((i) => window.__gf.eventPoint(i), i);
  if (!p) throw new Error(`event ${i} not in view`);
  await page.mouse.click(p.x, p.y);
  await frame(page);
}
const data = pageData;

async function smallPage() {
  const file = genPage('small');
  noExternal('small', file);
  const { page, log } = await open(browser, file);
  const D = await data(page);
  const ev = D.events, laneKind = (i) => D.lanes[ev[i][2]].kind, kind = (i) => D.kinds[ev[i][6]];

  // header
  const meta = await page.textContent('header');
  check('header: span and event count', /Span 3\.18 ms/.test(meta) &&
    meta.includes(D.shown < D.total ? `showing ${D.shown} of ${D.total} events` : `all ${D.total} events`), meta.slice(0, 300));
  check('counts(): events in the page and in the capture', JSON.stringify(await page.evaluate(() => window.__gf.counts())) ===
    JSON.stringify({ inPage: ev.length, total: D.total, proj: 0 }));

  // initial view (policy timeline.initial_view "busiest", the default): width max(1000, median GPU-work
  // duration * plotWidth / 6), the whole span when that is not below 0.9 * span
  const plotW = await page.evaluate(() => document.getElementById('main').getBoundingClientRect().width - 190);
  const gpuWork = (e) => ['kernel', 'memcpy', 'memset'].includes(D.kinds[e[6]]);
  const durs = ev.filter(gpuWork).map((e) => e[1]).sort((a, b) => a - b);
  const target = Math.max(1000, durs[durs.length >> 1] * plotW / 6);
  const v0 = await view(page);
  check('initial view: busiest, median-GPU-work wide (here the whole span)',
    target < 0.9 * D.span ? near(v0.end - v0.start, target, 1) : v0.start === 0 && v0.end === D.span,
    `view ${JSON.stringify(v0)} target ${target} span ${D.span}`);

  // click a kernel -> its launch is the partner; click the launch -> the kernel
  const k = ev.findIndex((e, i) => kind(i) === 'kernel' && e[5] >= 0);
  const launchIdx = ev.findIndex((e, i) => i !== k && e[3] === ev[k][3] && laneKind(i) === 'cpu');
  await clickEvent(page, k, launchIdx);
  check('click kernel selects it', await page.evaluate(() => window.__gf.selected()) === k);
  check('kernel partner is its launch (same CorrID, CPU lane)', await page.evaluate(() => window.__gf.partner()) === launchIdx,
    `partner ${await page.evaluate(() => window.__gf.partner())} expected ${launchIdx}`);
  // backtrace panel: frames innermost first, as recorded
  const frames = await page.$$eval('#frames li', (l) => l.map((x) => x.textContent));
  check('stack panel lists the launch backtrace in order', JSON.stringify(frames) === JSON.stringify(D.stacks[ev[k][5]]),
    JSON.stringify(frames));
  check('stack panel: no "no backtrace" text for a backtraced kernel', await page.isHidden('#nostack'));
  await clickEvent(page, launchIdx, k);
  check('click launch -> partner is the kernel', await page.evaluate(() => [window.__gf.selected(), window.__gf.partner()]).then((r) => r[0] === launchIdx && r[1] === k));

  // a kernel without a backtrace
  const nk = ev.findIndex((e, i) => kind(i) === 'kernel' && e[5] < 0);
  await clickEvent(page, nk);
  const ns = await page.textContent('#nostack');
  check('kernel without stack shows the no-backtrace text',
    (await page.isVisible('#nostack')) && ns === 'No backtrace recorded for this event (below the --cudabacktrace threshold, or not a kernel launch).' &&
    (await page.$$('#frames li')).length === 0, ns);

  // hover tooltip
  const p = await page.evaluate((i) => window.__gf.eventPoint(i), nk);
  await page.mouse.move(p.x, p.y);
  const tipText = await page.textContent('#tip');
  check('hover tooltip shows name, CorrID, grid, block, registers',
    (await page.isVisible('#tip')) && tipText.includes(D.names[ev[nk][4]]) && tipText.includes(`CorrID: ${ev[nk][3]}`) &&
    /grid: \(\d+, 1, 1\)/.test(tipText) && tipText.includes('block: (256, 1, 1)') && /registers: \d+/.test(tipText), tipText);
  const mc = ev.findIndex((e, i) => kind(i) === 'memcpy');
  await page.evaluate((i) => { const e = window.__gf.event(i); window.__gf.setView(e.start - 1000, e.start + e.dur + 1000); }, mc);
  await frame(page);
  const pm = await page.evaluate((i) => window.__gf.eventPoint(i), mc);
  await page.mouse.move(pm.x, pm.y);
  const tip2 = await page.textContent('#tip');
  check('memcpy tooltip shows bytes and copy kind', tip2.includes('4 MiB') && tip2.includes('copy kind: Host-to-Device'), tip2);
  await page.mouse.move(5, 5);

  // keyboard
  await page.keyboard.press('0');
  let v = await view(page);
  check('key 0: full span', v.start === 0 && v.end === D.span, JSON.stringify(v));
  await page.keyboard.press('+');
  v = await view(page);
  check('key +: zoom in around the centre', near(v.end - v.start, 0.8 * D.span, 1) && near((v.start + v.end) / 2, D.span / 2, 1), JSON.stringify(v));
  await page.keyboard.press('w');
  let v2 = await view(page);
  check('key W: zoom in', near(v2.end - v2.start, 0.64 * D.span, 1), JSON.stringify(v2));
  await page.keyboard.press('ArrowLeft');
  v = await view(page);
  check('key ←: pan left by 20 %', near(v.start, v2.start - 0.2 * (v2.end - v2.start), 1), `${JSON.stringify(v2)} -> ${JSON.stringify(v)}`);
  v2 = v;
  await page.keyboard.press('d');
  v = await view(page);
  check('key D: pan right by 20 %', near(v.start, v2.start + 0.2 * (v2.end - v2.start), 1), `${JSON.stringify(v2)} -> ${JSON.stringify(v)}`);
  await page.keyboard.press('ArrowRight');
  v2 = await view(page);
  check('key →: pan right', v2.start > v.start && near(v2.end - v2.start, v.end - v.start, 1));
  await page.keyboard.press('-');
  v = await view(page);
  check('key −: zoom out', near(v.end - v.start, 1.25 * (v2.end - v2.start), 1), JSON.stringify(v));
  await page.keyboard.press('s');
  v2 = await view(page);
  check('key S: zoom out', v2.end - v2.start > v.end - v.start);

  // n / p step through events in view
  await page.evaluate(() => window.__gf.setView(200000, 400000));
  await page.keyboard.press('Escape'); // clears the selection
  await page.keyboard.press('n');
  const n1 = await page.evaluate(() => window.__gf.selected());
  const inView = (i, vv) => ev[i][0] <= vv.end && ev[i][0] + ev[i][1] >= vv.start;
  v = await view(page);
  check('key n: selects the first event in view', n1 >= 0 && inView(n1, v) && ev.every((e, i) => i >= n1 || !inView(i, v)), `n1 ${n1}`);
  await page.keyboard.press('n');
  const n2 = await page.evaluate(() => window.__gf.selected());
  check('key n again: the next event in view', n2 > n1 && inView(n2, v) && ev.every((e, i) => i <= n1 || i >= n2 || !inView(i, v)), `${n1} -> ${n2}`);
  await page.keyboard.press('p');
  check('key p: back to the previous event', await page.evaluate(() => window.__gf.selected()) === n1);
  check('n/p keep the view when the event is in it', JSON.stringify(await view(page)) === JSON.stringify(v));
  await page.keyboard.press('f');
  v = await view(page);
  check('key F: fit the selection (and its partner)', v.start <= ev[n1][0] && v.end >= ev[n1][0] + ev[n1][1] && (v.end - v.start) < D.span / 2, JSON.stringify(v));

  // double-click an event zooms to it (and its partner)
  await page.evaluate(() => window.__gf.setView(0, 1.5e6));
  await frame(page);
  const dk = ev.findIndex((e, i) => kind(i) === 'memcpy');
  const dp = await page.evaluate((i) => window.__gf.eventPoint(i), dk);
  await page.mouse.dblclick(dp.x, dp.y);
  v = await view(page);
  check('double-click zooms to the event', await page.evaluate(() => window.__gf.selected()) === dk && v.start <= ev[dk][0] &&
    v.end >= ev[dk][0] + ev[dk][1] && v.end - v.start < 1.5e6, JSON.stringify(v));

  // Full span button
  await page.click('#full');
  v = await view(page);
  check('Full span button', v.start === 0 && v.end === D.span);

  // wheel zoom around the cursor
  await page.evaluate(() => window.__gf.setView(1e6, 2e6));
  await frame(page);
  const box = await page.evaluate(() => { const r = document.getElementById('main').getBoundingClientRect(); return { x: r.left, y: r.top, w: r.width }; });
  const cx = Math.round(box.x + 190 + (box.w - 190) * 0.25), tAt = (vv) => vv.start + (cx - box.x - 190) / (box.w - 190) * (vv.end - vv.start);
  v = await view(page);
  await page.mouse.move(cx, box.y + 40);
  await page.mouse.wheel(0, -200);
  await frame(page);
  v2 = await view(page);
  check('wheel up zooms in around the cursor', (v2.end - v2.start) < (v.end - v.start) && near(tAt(v), tAt(v2), (v.end - v.start) / (box.w - 190)), `${JSON.stringify(v)} -> ${JSON.stringify(v2)}`);
  // zooming in a lot stops at the 1000 ns minimum span
  for (let i = 0; i < 12; i++) await page.mouse.wheel(0, -600);
  await frame(page);
  v = await view(page);
  check('wheel zoom stops at 1000 ns', near(v.end - v.start, 1000, 0.01), JSON.stringify(v));

  // drag pan
  await page.evaluate(() => window.__gf.setView(1e6, 2e6));
  await page.mouse.move(cx, box.y + 40);
  await page.mouse.down();
  await page.mouse.move(cx - 50, box.y + 40, { steps: 3 });
  await page.mouse.move(cx - 100, box.y + 40, { steps: 3 });
  await page.mouse.up();
  v = await view(page);
  check('drag pans by the dragged distance', near(v.start, 1e6 + 100 / (box.w - 190) * 1e6, 5), JSON.stringify(v));

  // Shift+drag measures a range; F zooms to it; Esc clears it
  await page.evaluate(() => window.__gf.setView(1e6, 2e6));
  await frame(page);
  const x1 = Math.round(box.x + 190 + (box.w - 190) * 0.2), x2 = Math.round(box.x + 190 + (box.w - 190) * 0.6);
  await page.keyboard.down('Shift');
  await page.mouse.move(x1, box.y + 40);
  await page.mouse.down();
  await page.mouse.move(x2, box.y + 40, { steps: 4 });
  await page.mouse.up();
  await page.keyboard.up('Shift');
  const px = 1e6 / (box.w - 190), tx = (x) => 1e6 + (x - box.x - 190) * px;
  const rg = await page.evaluate(() => window.__gf.range());
  v = await view(page);
  check('Shift+drag measures a range without panning', rg && near(rg.start, tx(x1), px) && near(rg.end, tx(x2), px) &&
    v.start === 1e6 && (await page.textContent('#range-info')).startsWith('measured '), JSON.stringify(rg));
  await page.keyboard.press('f');
  v = await view(page);
  check('F zooms to the measured range', near(v.start, rg.start, 1) && near(v.end, rg.end, 1), JSON.stringify(v));
  await page.keyboard.press('Escape');
  check('Esc clears the measured range', await page.evaluate(() => window.__gf.range()) === null);

  // minimap: drag the viewport window
  await page.evaluate(() => window.__gf.setView(1e6, 1.2e6));
  await frame(page);
  const mb = await page.evaluate(() => { const r = document.getElementById('mini').getBoundingClientRect(); return { x: r.left, y: r.top, w: r.width }; });
  const mx = mb.x + 190 + (1.1e6 / D.span) * (mb.w - 190);
  await page.mouse.move(mx, mb.y + 18);
  await page.mouse.down();
  await page.mouse.move(mx + 60, mb.y + 18, { steps: 4 });
  await page.mouse.up();
  v = await view(page);
  const want = 1e6 + 60 / (mb.w - 190) * D.span;
  check('minimap drag moves the view', near(v.start, want, 2) && near(v.end - v.start, 0.2e6, 1), `${JSON.stringify(v)} want start ${want}`);
  // minimap click outside the window centres the view there
  await page.mouse.click(mb.x + 190 + 0.1 * (mb.w - 190), mb.y + 18);
  v = await view(page);
  check('minimap click centres the view', near((v.start + v.end) / 2, 0.1 * D.span, D.span / (mb.w - 190) + 1) || v.start === 0, JSON.stringify(v));

  // search
  await page.keyboard.press('/');
  check('/ opens the search box with focus', await page.evaluate(() => document.activeElement && document.activeElement.id === 'q'));
  await page.keyboard.type('sgemm');
  const expect = ev.filter((e) => D.names[e[4]].toLowerCase().includes('sgemm')).length;
  const cnt = await page.textContent('#qcount');
  check('search counts matching events', expect > 1 && await page.evaluate(() => window.__gf.matches()) === expect && cnt === `${expect} matches`, `${cnt} expected ${expect}`);
  const vq = await view(page);
  await page.keyboard.press('0'); // typed into the box, must not reset the view
  await page.keyboard.press('d');
  check('keys typed into the search box do not drive the timeline', JSON.stringify(await view(page)) === JSON.stringify(vq) &&
    (await page.inputValue('#q')) === 'sgemm0d');
  await page.keyboard.press('Backspace');
  await page.keyboard.press('Backspace');
  await page.keyboard.press('Enter');
  const m1 = await page.evaluate(() => window.__gf.selected());
  v = await view(page);
  check('Enter selects and centres the first match', D.names[ev[m1][4]].includes('sgemm') && inView(m1, v) &&
    (await page.textContent('#qcount')) === `1 / ${expect} matches`);
  await page.keyboard.press('Enter');
  const m2 = await page.evaluate(() => window.__gf.selected());
  check('Enter steps to the next match', m2 > m1 && D.names[ev[m2][4]].includes('sgemm'));
  const LFs = D.launchFlame, fm = LFs.stacks.filter((st) => st[0].some((f) => LFs.frames[f].toLowerCase().includes('sgemm')))
    .reduce((a, st) => a + st[1], 0) / LFs.total;
  const fmPage = await page.evaluate(() => window.__gf.flameMatched());
  check('search also marks the flamegraph: matched share of launch-stack time', fm > 0 && near(fmPage, fm, 1e-9) &&
    (await page.textContent('#fg-path')).startsWith('search matches '), `${fmPage} vs ${fm}`);
  await page.fill('#q', '/^(burn|reduce)/');
  const expRe = ev.filter((e) => /^(burn|reduce)/i.test(D.names[e[4]])).length;
  check('regex search', expRe > 0 && await page.evaluate(() => window.__gf.matches()) === expRe, `expected ${expRe}`);
  await page.fill('#q', '/([/');
  check('invalid regex is reported, not thrown', (await page.textContent('#qcount')) === 'invalid regex');
  await page.keyboard.press('Escape');
  check('Esc closes the search', await page.isHidden('#search') && await page.evaluate(() => window.__gf.matches()) === 0);

  // launch-stack flamegraph: click a frame zooms, reset restores
  check('flamegraph starts unzoomed', await page.evaluate(() => window.__gf.flameZoom()) === 'all');
  const fp = await flamePoint(page, 'torch::autograd::Linear::forward (libtorch_cuda.so)');
  await page.mouse.click(fp.x, fp.y);
  check('click a flamegraph frame zooms to it', await page.evaluate(() => window.__gf.flameZoom()) === 'torch::autograd::Linear::forward (libtorch_cuda.so)');
  await page.mouse.move(fp.x, fp.y + 1);
  const ft = await page.textContent('#tip');
  check('flamegraph tooltip: name, GPU time, percent', ft.includes('torch::autograd::Linear::forward') && /GPU time: [\d.]+ (µs|ms|ns)/.test(ft) && /share: [\d.]+ %/.test(ft), ft);
  const tot = D.launchFlame.stacks.filter((s) => s[0].includes(D.launchFlame.frames.indexOf('torch::autograd::Linear::forward (libtorch_cuda.so)'))).reduce((a, s) => a + s[1], 0);
  check('flamegraph frame weight = sum of its stacks', ft.includes(`${(100 * tot / D.launchFlame.total).toFixed(2).replace(/\.?0+$/, '')} %`), `${ft} ${tot}`);
  await page.click('#fg-reset');
  check('reset zoom', await page.evaluate(() => window.__gf.flameZoom()) === 'all');
  await page.screenshot({ path: `${process.env.GF_TMP || '/tmp'}/timeline-small.png` });
  clean('small', log);
  await page.close();
}

async function edgePages() {
  {
    const { page, log } = await open(browser, genPage('empty'));
    check('0 events: message shown, canvases hidden', await page.isVisible('#empty') && await page.isHidden('#main') &&
      (await page.textContent('#empty')).includes('No events'));
    for (const key of ['n', 'p', '0', '+', 'ArrowLeft', '/', 'Escape']) await page.keyboard.press(key);
    check('0 events: no launch flamegraph, with a note', await page.isVisible('#fg-note') && await page.isHidden('#fg'));
    check('0 events: warning shown', (await page.textContent('#warnings')).includes('no trace events'));
    clean('empty', log);
    await page.close();
  }
  {
    // 51 lanes: scrolled down, the time axis stays on screen
    const { page, log } = await open(browser, genPage('manylanes'), { width: 1200, height: 600 });
    check('many lanes: no floating axis before scrolling', await page.isHidden('#axis-float'));
    await page.evaluate(() => window.scrollTo(0, document.getElementById('main').getBoundingClientRect().top + window.scrollY + 400));
    await frame(page);
    const ax = await page.evaluate(() => { const r = document.getElementById('axis-float').getBoundingClientRect(); return [r.top, r.height]; });
    check('many lanes: scrolled down, the time axis sticks to the top', await page.isVisible('#axis-float') && ax[0] === 0 && ax[1] === 18, JSON.stringify(ax));
    await page.screenshot({ path: `${process.env.GF_TMP || '/tmp'}/timeline-manylanes.png` });
    clean('manylanes', log);
    await page.close();
  }
  {
    // the reference page's data shape (lanes as strings, 6-element events, no kinds): still readable
    const { page, log } = await open(browser, genPage('reference'));
    await clickEvent(page, 1);
    check('reference data shape: kernel click finds its launch', await page.evaluate(() =>
      window.__gf.selected() === 1 && window.__gf.partner() === 0 && window.__gf.event(1).kind === 'kernel'));
    const frames = await page.$$eval('#frames li', (l) => l.map((x) => x.textContent));
    const p0 = await page.evaluate(() => window.__gf.eventPoint(0));
    await page.mouse.move(p0.x, p0.y);
    const t0 = await page.textContent('#tip');
    check('tooltip: 300 ns reads "300 ns", start "+0 ns"', t0.includes('duration: 300 ns') && t0.includes('start: +0 ns'), t0);
    check('reference data shape: backtrace listed', frames.join('|') === 'cudaLaunchKernel (libcudart.so.12)|main (cuda_burn)', frames.join('|'));
    clean('reference', log);
    await page.close();
  }
}

// The Performance Studio shows the page in <iframe sandbox="allow-scripts allow-same-origin">.
async function inIframe() {
  const file = genPage('small');
  const host = path.join(path.dirname(file), 'studio-host.html');
  writeFileSync(host, `<!DOCTYPE html><html><body style="margin:0"><iframe id="f" sandbox="allow-scripts allow-same-origin"
    src="${path.basename(file)}" style="width:1300px;height:800px;border:0"></iframe></body></html>`);
  const page = await browser.newPage({ viewport: { width: 1320, height: 820 } });
  const errs = [];
  page.on('pageerror', (e) => errs.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errs.push(m.text()); });
  await page.goto('file://' + host);
  const fr = page.frames().find((f) => f.url().endsWith(path.basename(file)));
  await fr.waitForFunction(() => window.__gf && window.__gf.firstDrawAt > 0);
  const box = await (await fr.$('#main')).boundingBox();
  await page.mouse.click(box.x + 300, box.y + 5); // focus the frame (click on the axis: no event there)
  await page.keyboard.press('0');
  const v = await fr.evaluate(() => window.__gf.view());
  const span = await fr.evaluate(() => window.__gf.span());
  check('sandboxed iframe: page draws and takes keys', v.start === 0 && v.end === span && errs.length === 0, JSON.stringify([v, errs]));
  await page.close();
}

// The template itself: no URL, and only the slots the C renderer fills (an unknown slot is an error there).
{
  // with its include slots expanded, as gpuflame writes it (lua/gpuflame/views/page.lua)
  const expand = (t) => t.replace(/^[ \t]*\{\{include:([\w./-]+)\}\}[ \t]*$/gm,
    (_, name) => expand(readFileSync(path.join(TOP, 'templates', name), 'utf8')).replace(/\n$/, ''));
  const tpl = expand(readFileSync(path.join(TOP, 'templates/timeline.html'), 'utf8'));
  const slots = [...tpl.matchAll(/\{\{([^}]*)\}\}/g)].map((m) => m[1]);
  check('template: no http:// or https://', !/https?:\/\//.test(tpl));
  check('template: slots are {{title}}, {{json:preview}}, {{json:data}}, {{json:findings}}, {{json:gputime}}, {{json:steps}} and {{json:critpath}} only', slots.length === 8 &&
    slots.every((x) => x === 'title' || x === 'json:preview' || x === 'json:data' || x === 'json:findings' || x === 'json:gputime' ||
      x === 'json:steps' || x === 'json:critpath') &&
    (tpl.match(/\{\{/g) || []).length === 8,
    JSON.stringify(slots));
  check('template: data read with JSON.parse from an inert script element',
    tpl.includes('<script id="gf-data" type="application/json">{{json:data}}</script>') && !/innerHTML|eval\(|new Function/.test(tpl));
  check('template: the preview read with JSON.parse from an inert script element, before the code',
    tpl.includes('<script id="gf-preview" type="application/json">{{json:preview}}</script>') &&
    tpl.indexOf('{{json:preview}}') < tpl.indexOf('function gfTimeline') && tpl.indexOf('function gfTimeline') < tpl.indexOf('{{json:data}}'));
  check('template: findings read with JSON.parse from an inert script element',
    tpl.includes('<script id="gf-findings" type="application/json">{{json:findings}}</script>'));
}

browser = await launch();
try {
  await smallPage();
  await inIframe();
  await edgePages();
} catch (e) {
  notOk('timeline browser tests', String(e && e.stack || e));
} finally {
  await browser.close();
}
done();
