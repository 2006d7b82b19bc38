// The timeline page at capture scale (issue 16): opens each page in headless Chromium and measures
// time to first frame (the preview's, when the page has one: docs/TIMELINE_DATA.md "Preview"), time until
// the page is built from all events (readyAt), the JS heap, and the draw time of every frame of a zoom-and-pan sweep over the
// whole span (6 zoom levels from the full span to 1/1024 of it, 10 positions each, left to right), and each
// redraw's thread CPU time from a Chrome trace (cpuP50/cpuP95: robust to other processes' load).
// Usage: node bench/bench_timeline_scale.mjs PAGE.html... → one JSON line per page on stdout.
import { createRequire } from 'node:module';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';

const top = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const { chromium } = require(path.join(top, 'tests/node_modules/playwright-core'));
const pct = (a, p) => { const s = [...a].sort((x, y) => x - y); return s[Math.min(s.length - 1, Math.floor(p * s.length))]; };
const r2 = (x) => Math.round(x * 100) / 100;

const browser = await chromium.launch({ executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
for (const file of process.argv.slice(2)) {
  const page = await browser.newPage({ viewport: { width: 1600, height: 900 } });
  const cdp = await page.context().newCDPSession(page);
  const t0 = Date.now();
  await page.goto(pathToFileURL(file).href, { timeout: 600000 });
  await page.waitForFunction(() => window.__gf && window.__gf.firstDrawAt > 0, null, { timeout: 600000, polling: 100 });
  const wall = Date.now() - t0;
  const first = await page.evaluate(() => window.__gf.firstDrawAt);
  const ready = await page.evaluate(() => window.__gf.readyAt);
  const preview = await page.evaluate(() => !!(window.__gfPreview && window.__gfPreview.firstDrawAt));
  const counts = await page.evaluate(() => window.__gf.counts());
  const typedMB = r2(await page.evaluate(() => window.__gf.typedBytes()) / 1048576);
  // the sweep under a Chrome trace: each redraw's thread CPU time (tdur of FireAnimationFrame), which other
  // processes' load does not inflate as it does the wall-clock draw time
  await browser.startTracing(page, { categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline'] });
  const sweep = await page.evaluate(async () => {
    const g = window.__gf, span = g.span(), draws = [], lod = [];
    const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    for (const z of [1, 1 / 4, 1 / 16, 1 / 64, 1 / 256, 1 / 1024]) {
      const w = span * z;
      for (let k = 0; k < 10; k++) {
        const s = (span - w) * k / 9;
        g.setView(s, s + w);
        await frame();
        draws.push(g.lastDrawMs());
        lod.push(g.lod());
      }
    }
    return { draws, lodFrames: lod.filter((x) => x > 0).length };
  });
  const trace = JSON.parse((await browser.stopTracing()).toString()).traceEvents;
  // the sweep's redraws: the second requestAnimationFrame of each frame only waits (well under 0.5 ms)
  const cpu = trace.filter((e) => e.name === 'FireAnimationFrame' && e.ph === 'X' && e.tdur != null && e.tdur > 500)
    .map((e) => e.tdur / 1000);
  await cdp.send('HeapProfiler.collectGarbage');
  const heap = await cdp.send('Runtime.getHeapUsage');
  // the renderer's resident memory: the largest chromium renderer process (one page is open)
  let rendererMB = null;
  try {
    const ps = execFileSync('ps', ['-C', 'chromium', '-o', 'rss=,args='], { encoding: 'utf8' });
    for (const line of ps.split('\n')) {
      const m = /^\s*(\d+)\s+(.*)$/.exec(line);
      if (m && m[2].includes('--type=renderer')) rendererMB = Math.max(rendererMB || 0, r2(+m[1] / 1024));
    }
  } catch (e) { rendererMB = null; }
  console.log(JSON.stringify({ page: path.basename(file), inPage: counts.inPage, total: counts.total,
    firstFrameMs: Math.round(first), readyMs: Math.round(ready), preview, openWallMs: wall, v8HeapMB: r2(heap.usedSize / 1048576), typedMB,
    heapMB: r2(heap.usedSize / 1048576 + typedMB), rendererRssMB: rendererMB,
    drawP50: r2(pct(sweep.draws, 0.5)), drawP95: r2(pct(sweep.draws, 0.95)), frames: sweep.draws.length,
    cpuP50: cpu.length ? r2(pct(cpu, 0.5)) : null, cpuP95: cpu.length ? r2(pct(cpu, 0.95)) : null,
    lodFrames: sweep.lodFrames }));
  await page.close();
}
await browser.close();
