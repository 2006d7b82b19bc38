// Browser performance of the timeline page (templates/timeline.html) with 20,000 events:
// time to first paint and per-frame cost while panning and zooming, in headless Chromium.
//
// Usage: node bench/bench_timeline_browser.mjs [PAGE.html...]
//   Without PAGE, the 20,000-event page (trimmed from 50,000) is generated with
//   tests/gen/timeline_data.py large. bench/bench_timeline_browser.sh also passes the page that
//   bin/gpuflame writes from the same trace as stats CSVs. Results: stdout (with bench/run RESULT lines) and $BENCH_OUT/timeline_browser.json (default bench/out).
//
// Frame cost is measured inside the page: every requestAnimationFrame a keydown (pan) or wheel
// (zoom) event is dispatched, the page redraws in its own rAF callback, and we record
//   draw  = window.__gf.lastDrawMs() (main canvas + minimap JS work of that frame)
//   frame = interval between successive rAF callbacks (includes raster/composite; vsync-paced).
import { createRequire } from 'node:module';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const top = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const { chromium } = require(path.join(top, 'tests/node_modules/playwright-core'));

const pages = process.argv.slice(2);
if (!pages.length) {
  const p = path.join(tmpdir(), `gf-bench-timeline-${process.pid}.html`);
  execFileSync('python3', [path.join(top, 'tests/gen/timeline_data.py'), 'large', '--html', p,
    '--template', path.join(top, 'templates/timeline.html')]);
  pages.push(p);
}
const pct = (a, p) => { const s = [...a].sort((x, y) => x - y); return s[Math.min(s.length - 1, Math.floor(p * s.length))]; };
const r2 = (x) => Math.round(x * 100) / 100;
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
const all = [];
for (const page_ of pages) {
  const results = { page: path.basename(page_), bytes: statSync(page_).size, loadavg: loadavg().map(r2), runs: [] };
  for (let run = 0; run < 3; run++) {
    const page = await browser.newPage({ viewport: { width: 1600, height: 900 } });
    await page.goto(pathToFileURL(page_).href);
    await page.waitForFunction(() => window.__gf && window.__gf.firstDrawAt > 0);
    const load = await page.evaluate(() => {
      const p = Object.fromEntries(performance.getEntriesByType('paint').map((e) => [e.name, e.startTime]));
      return { firstPaint: p['first-paint'], fcp: p['first-contentful-paint'], firstDraw: window.__gf.firstDrawAt,
        events: window.__gf.counts ? window.__gf.counts().inPage : JSON.parse(document.getElementById('gf-data').textContent).events.length };
    });
    const scen = {};
    for (const [name, mode, frac] of [['pan, initial zoom', 'key', 0], ['pan, half span visible', 'key', 0.5],
      ['wheel zoom, full span', 'wheel', 1]]) {
      scen[name] = await page.evaluate(async ([mode, frac]) => {
        const g = window.__gf, span = g.span(), main = document.getElementById('main');
        if (frac) g.setView(span * (1 - frac) / 2, span * (1 + frac) / 2);
        await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
        const r = main.getBoundingClientRect(), draws = [], frames = [];
        let last = performance.now();
        for (let f = 0; f < 120; f++) {
          if (mode === 'key') {
            document.dispatchEvent(new KeyboardEvent('keydown', { key: f % 40 < 20 ? 'ArrowRight' : 'ArrowLeft', bubbles: true }));
          } else {
            main.dispatchEvent(new WheelEvent('wheel', { deltaY: f % 20 < 10 ? -120 : 120, clientX: r.left + r.width / 2,
              clientY: r.top + 40, bubbles: true, cancelable: true }));
          }
          await new Promise((res) => requestAnimationFrame(res)); // the page's draw ran earlier in this frame
          const now = performance.now();
          frames.push(now - last); last = now;
          draws.push(g.lastDrawMs());
        }
        const v = g.view();
        return { draws, frames, visibleNs: v.end - v.start };
      }, [mode, frac]);
    }
    results.runs.push({ load, scen: Object.fromEntries(Object.entries(scen).map(([k, v]) => [k, {
      drawMedian: r2(pct(v.draws, 0.5)), drawP95: r2(pct(v.draws, 0.95)),
      frameMedian: r2(pct(v.frames.slice(1), 0.5)), frameP95: r2(pct(v.frames.slice(1), 0.95)) }])) });
    await page.close();
  }
  // report the median run by first draw
  const runs = [...results.runs].sort((a, b) => a.load.firstDraw - b.load.firstDraw);
  const mid = runs[runs.length >> 1];
  console.log(`timeline page ${results.page}: ${mid.load.events} events, ${(results.bytes / 1e6).toFixed(2)} MB, load average ${results.loadavg.join(' ')}`);
  console.log(`  first paint ${r2(mid.load.firstPaint)} ms, first contentful paint ${r2(mid.load.fcp)} ms, first timeline draw done ${r2(mid.load.firstDraw)} ms (median of ${runs.length} loads)`);
  for (const [k, v] of Object.entries(mid.scen)) {
    console.log(`  ${k}: draw median ${v.drawMedian} ms (p95 ${v.drawP95}), rAF frame interval median ${v.frameMedian} ms (p95 ${v.frameP95}) — target < 16 ms`);
  }
  // bench/run table rows: RESULT|case|wall s|peak RSS MB|reference s|note
  const tag = `${mid.load.events} ev, ${results.page.replace(/\.html$/, '').replace(/-\d+$/, '')}`;
  console.log(`RESULT|timeline page load (${tag})|${(mid.load.firstDraw / 1000).toFixed(3)}|-|-|first paint ${r2(mid.load.firstPaint)} ms`);
  const worst = Object.entries(mid.scen).sort((a, b) => b[1].drawMedian - a[1].drawMedian)[0];
  console.log(`RESULT|timeline frame draw (${tag})|${(worst[1].drawMedian / 1000).toFixed(4)}|-|-|worst scenario: ${worst[0]}, p95 ${worst[1].drawP95} ms, rAF interval median ${worst[1].frameMedian} ms (target < 16 ms)`);
  results.summary = mid;
  all.push(results);
}
await browser.close();
const outDir = process.env.BENCH_OUT || path.join(top, 'bench/out');
mkdirSync(outDir, { recursive: true });
writeFileSync(path.join(outDir, 'timeline_browser.json'), JSON.stringify(all, null, 1));
