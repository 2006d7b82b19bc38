// gf-test: slow
// The timeline at capture scale (issue 16): a generated export with the real schema and about a million
// events (tests/gen/big_export.py) plus one planted 50 ns kernel (tests/gen/plant_kernel.py), rendered
// with every event kept. The page must carry every event, draw the zoomed-out view from its level-of-
// detail summaries and the zoomed-in view from the events, find the 50 ns kernel by search, select it
// by a click when zoomed in, and keep the minimap and keyboard habits.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { TOP, TMP, launch, open, view, frame, check, notOk, done, pageData } from './timeline_lib.mjs';

const GF = process.env.GPUFLAME_BIN || path.join(TOP, 'bin/gpuflame');
const NEEDLE = 'needle_kernel_50ns';
const db = path.join(TMP, 'scale.sqlite'), page_ = path.join(TMP, 'scale.html');
const browser = await launch();
try {
  execFileSync('python3', [path.join(TOP, 'tests/gen/big_export.py'), db, '--ranges', '333333']);
  // planted inside the busy part of the capture, on the stream of kernel row 1000
  execFileSync('python3', [path.join(TOP, 'tests/gen/plant_kernel.py'), db, NEEDLE, '500000123', '50', '--row', '1000']);
  execFileSync(GF, ['-q', 'timeline', db, '-o', page_], { stdio: ['ignore', 'ignore', 'pipe'] });
  const { page, log } = await open(browser, page_, { width: 1400, height: 900 });
  const D = await pageData(page);
  const counts = await page.evaluate(() => window.__gf.counts());
  // big_export.py has NVTX ranges: the page also carries their projection onto the GPU (proj), counted apart
  check('every event is in the page (counts: inPage = total + projected ranges, over a million)',
    counts.inPage - counts.proj === counts.total && counts.proj > 0 &&
    counts.total === D.total && counts.inPage === D.events.length && counts.total > 1000000, JSON.stringify(counts));
  check('the header says so', (await page.textContent('#count-info')) === `all ${D.total} events + ${counts.proj} NVTX ranges projected onto the GPU`);
  const k = D.events.findIndex((e) => D.names[e[4]] === NEEDLE);
  check('the 50 ns kernel is in the page data', k >= 0 && D.events[k][1] === 50);

  // zoomed out: summaries; zoomed in: events
  await page.evaluate(() => window.__gf.setView(0, window.__gf.span()));
  await frame(page);
  const lodOut = await page.evaluate(() => window.__gf.lod());
  check('full span: lanes drawn from level-of-detail summaries', lodOut > 0, `lod lanes ${lodOut}`);
  // what one full-span frame draws is bounded by the pixels in view, not by the events: the capture's ~3,300
  // syncs and ~3,300 steps, each under a pixel, are marked per pixel column, the shading is one image a lane
  const calls = await page.evaluate(async () => {
    const P = CanvasRenderingContext2D.prototype, n = { fillRect: 0, drawImage: 0 }, orig = {};
    for (const k in n) { orig[k] = P[k]; P[k] = function () { n[k]++; return orig[k].apply(this, arguments); }; }
    window.__gf.setView(1, window.__gf.span());
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    for (const k in n) P[k] = orig[k];
    return { n, w: document.getElementById('main').clientWidth };
  });
  check('full span: under 3 rectangles a pixel column in the frame (not one per sync, step or shading run)',
    calls.n.fillRect > 0 && calls.n.fillRect + calls.n.drawImage < 3 * calls.w, JSON.stringify(calls));
  const ms = await page.evaluate(() => window.__gf.lastDrawMs());
  check('full span: one frame draws in well under a second (a sanity bound, not the benchmark)', ms < 1000, `${ms} ms`);

  // search finds it; Enter selects and centres it
  await page.keyboard.press('/');
  await page.keyboard.type(NEEDLE);
  check('search finds the one 50 ns kernel among a million events', await page.evaluate(() => window.__gf.matches()) === 1);
  await page.keyboard.press('Enter');
  check('Enter selects it', await page.evaluate(() => window.__gf.selected()) === k);
  await page.keyboard.press('Escape');
  await page.keyboard.press('Escape');

  // zoomed in around it, a click on its bar selects it
  const e = D.events[k];
  await page.evaluate(([s]) => window.__gf.setView(s - 400, s + 600), [e[0]]);
  await frame(page);
  check('zoomed in to 1 µs: drawn from events', await page.evaluate(() => window.__gf.lod()) === 0);
  const p = await page.evaluate((i) => window.__gf.eventPoint(i), k);
  if (p) await page.mouse.click(p.x, p.y);
  check('a click on the 50 ns bar selects it', p && await page.evaluate(() => window.__gf.selected()) === k, JSON.stringify(p));

  // keyboard and minimap habits
  let v0 = await view(page);
  await page.keyboard.press('s');
  let v = await view(page);
  check('s zooms out', v.end - v.start > v0.end - v0.start);
  v0 = v;
  await page.keyboard.press('d');
  v = await view(page);
  check('d pans right', v.start > v0.start && Math.abs((v.end - v.start) - (v0.end - v0.start)) < 1e-6 * D.span);
  const span = D.span;
  await page.evaluate(([a, b]) => window.__gf.setView(a, b), [span * 0.2, span * 0.3]);
  await frame(page);
  const mb = await page.evaluate(() => { const r = document.getElementById('mini').getBoundingClientRect(); return { x: r.left, y: r.top, w: r.width }; });
  const mx = mb.x + 190 + 0.25 * (mb.w - 190);
  await page.mouse.move(mx, mb.y + 18);
  await page.mouse.down();
  await page.mouse.move(mx + 100, mb.y + 18, { steps: 4 });
  await page.mouse.up();
  v = await view(page);
  const want = span * 0.2 + 100 / (mb.w - 190) * span;
  check('minimap drag moves the view', Math.abs(v.start - want) < span / (mb.w - 190) * 2 && Math.abs((v.end - v.start) - span * 0.1) < span * 1e-6,
    `${JSON.stringify(v)} want start ${want}`);
  await page.keyboard.press('0');
  v = await view(page);
  check('0 shows the full span', v.start === 0 && v.end === span);
  // lane groups: a header row per (kind, process or device) that folds its lanes on click
  const g0 = await page.evaluate(() => window.__gf.groups());
  const gpuGroup = g0.findIndex((g) => g.label.startsWith('GPU '));
  check('lanes are grouped: CPU, GPU and NVTX groups, no "GPU GPU"', g0.length >= 3 && gpuGroup >= 0 &&
    g0.every((g) => !g.label.includes('GPU GPU')), JSON.stringify(g0));
  const mr = await page.evaluate(() => { const r = document.getElementById('main').getBoundingClientRect(); return { x: r.left, y: r.top }; });
  await page.mouse.click(mr.x + 300, mr.y + g0[gpuGroup].y + 8);
  const g1 = await page.evaluate(() => window.__gf.groups());
  const kv = await page.evaluate((i) => { const e = window.__gf.event(i); window.__gf.setView(e.start - 400, e.start + 600); return 0; }, k);
  await frame(page);
  check('a click on a group header folds it (its lanes take no room, their events are not clickable)',
    g1[gpuGroup].collapsed && (gpuGroup + 1 >= g1.length || g1[gpuGroup + 1].y < g0[gpuGroup + 1].y) && kv === 0 &&
    await page.evaluate((i) => window.__gf.eventPoint(i), k) === null, JSON.stringify(g1));
  await page.mouse.click(mr.x + 300, mr.y + g1[gpuGroup].y + 8);
  check('a second click unfolds it', !(await page.evaluate(() => window.__gf.groups()))[gpuGroup].collapsed &&
    await page.evaluate((i) => window.__gf.eventPoint(i), k) !== null);
  // the label column's edge drags
  const w0 = await page.evaluate(() => window.__gf.labelWidth());
  await page.mouse.move(mr.x + w0, mr.y + g0[0].y + 30);
  await page.mouse.down();
  await page.mouse.move(mr.x + w0 + 60, mr.y + g0[0].y + 30, { steps: 3 });
  await page.mouse.up();
  check('the label column is resizable (drag its edge 60 px)', await page.evaluate(() => window.__gf.labelWidth()) === w0 + 60);
  await page.mouse.move(mr.x + w0 + 60, mr.y + g0[0].y + 30);
  await page.mouse.down();
  await page.mouse.move(mr.x + w0, mr.y + g0[0].y + 30, { steps: 3 });
  await page.mouse.up();
  check('no console errors', log.console.length === 0, JSON.stringify(log.console).slice(0, 300));
  check('no page errors', log.errors.length === 0, JSON.stringify(log.errors).slice(0, 300));
} catch (err) {
  notOk('timeline scale browser tests', String(err && err.stack || err));
} finally {
  await browser.close();
  done();
}
