// The CPU side of the timeline page (issue 25) on pages the real binary writes from real exports:
//  * tile_8x8 (OSRT_API 1025 rows, 923 samples, SCHED_EVENTS): the OS runtime calls are drawn in their
//    colour on their thread's lane, each thread with samples has a samples row drawn in the sample colour and
//    a running row; a click on a sample selects it and the panel lists its stack, frame by frame as the
//    export's SAMPLING_CALLCHAINS has it; the search finds an OS runtime call by name (count = SQL) and Enter
//    selects one; the legend names the three;
//  * cs336-jsun012 (samples, no OSRT_API): samples rows, no OS runtime entry in the legend;
//  * vectoraddition (none of the tables): no CPU-side lane, no legend entry.
// State is read through window.__gf, pixels from the main canvas.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { TOP, TMP, launch, open, frame, check, skip, notOk, done, pageData } from './timeline_lib.mjs';

const FIX = process.env.GPUFLAME_FIXTURES || path.resolve(TOP, '../shared/fixtures');
const GF = process.env.GPUFLAME_BIN || path.join(TOP, 'bin/gpuflame');
const sql = (db, q) => JSON.parse(execFileSync('python3', ['-c',
  'import sqlite3,sys,json; c=sqlite3.connect("file:"+sys.argv[1]+"?mode=ro",uri=True); print(json.dumps(c.execute(sys.argv[2]).fetchall()))',
  db, q]).toString());
const PAL = JSON.parse(execFileSync('cat', [path.join(TOP, 'templates/palettes.json')]).toString()).parts;
const hex = (s) => [1, 3, 5].map((k) => parseInt(s.slice(k, k + 2), 16));
const close = (a, b) => a && b && a.every((v, k) => Math.abs(v - b[k]) <= 3);

function render(rel, out) {
  execFileSync(GF, ['-q', 'timeline', path.join(FIX, rel), '-o', out], { stdio: ['ignore', 'ignore', 'pipe'] });
  return out;
}
// [r, g, b] of the main canvas at client point p
const pixel = (page, p) => page.evaluate(({ x, y }) => {
  const c = document.getElementById('main'), r = c.getBoundingClientRect(), k = c.width / r.width;
  return Array.from(c.getContext('2d').getImageData(Math.round((x - r.left) * k), Math.round((y - r.top) * k), 1, 1).data).slice(0, 3);
}, p);
// whether any pixel of lane l's row (in the plot) has colour col
const laneHas = (page, l, col) => page.evaluate(({ l, col }) => {
  const g = window.__gf, c = document.getElementById('main'), r = c.getBoundingClientRect(), k = c.width / r.width;
  const y = g.laneY(l);
  if (!y) return false;
  const x0 = Math.round(g.labelWidth() * k), d = c.getContext('2d').getImageData(x0, Math.round((y.top + y.h / 2) * k), c.width - x0, 1).data;
  for (let i = 0; i < d.length; i += 4) {
    if (Math.abs(d[i] - col[0]) <= 3 && Math.abs(d[i + 1] - col[1]) <= 3 && Math.abs(d[i + 2] - col[2]) <= 3) return true;
  }
  return false;
}, { l, col });

async function tile(browser) {
  const rel = 'real/parallel-sheet-simulator/tile_8x8.sqlite', db = path.join(FIX, rel);
  const file = render(rel, path.join(TMP, 'tile_cpu.html'));
  const { page, log } = await open(browser, file);
  const D = await pageData(page), ev = D.events, K = D.kinds;
  const kind = (i) => K[ev[i][6]];
  await page.evaluate(() => window.__gf.setView(0, window.__gf.span()));
  await frame(page);
  // lanes where the export has them: a samples and a running row for the threads with samples
  const sampleThreads = sql(db, 'SELECT DISTINCT (globalTid >> 24) & 16777215, globalTid & 16777215 FROM COMPOSITE_EVENTS ORDER BY 1, 2');
  const subs = (s) => D.lanes.map((l, k) => [l, k]).filter(([l]) => l.sub === s);
  check('tile_8x8: a samples row per thread with samples (SQL)', JSON.stringify(subs('samples').map(([l]) => [l.pid, l.tid])) ===
    JSON.stringify(sampleThreads), JSON.stringify(subs('samples').map(([l]) => [l.pid, l.tid])));
  check('tile_8x8: running rows (SCHED_EVENTS)', subs('running').length > 0);
  for (const [s, part] of [['samples', 'timeline-cpu-sample'], ['running', 'timeline-cpu-running']]) {
    const main = subs(s).find(([l]) => l.pid === l.tid);
    check(`tile_8x8: the main thread's ${s} row is drawn in its colour (${PAL[part].fixed})`, main && await laneHas(page, main[1], hex(PAL[part].fixed)));
  }
  // OS runtime calls in their colour: the longest one (sem_wait on the worker thread) at its bar's centre
  let lo = -1;
  for (let i = 0; i < ev.length; i++) if (kind(i) === 'osrt' && (lo < 0 || ev[i][1] > ev[lo][1])) lo = i;
  const p = lo >= 0 && await page.evaluate((i) => window.__gf.eventPoint(i), lo);
  check('tile_8x8: the longest OS runtime call is drawn in the OS runtime colour', p && close(await pixel(page, p), hex(PAL['timeline-osrt'].fixed)),
    p && JSON.stringify(await pixel(page, p)));
  const legend = await page.textContent('#legend');
  check('tile_8x8: the legend names OS runtime, CPU samples and running', /OS runtime/.test(legend) && /CPU samples/.test(legend) && /running/.test(legend), legend);

  // a click on a sample: selected, and the panel lists its stack (SQL: its SAMPLING_CALLCHAINS rows)
  let si = -1;
  for (let i = 0; i < ev.length && si < 0; i++) if (kind(i) === 'cpu_sample' && ev[i][5] >= 0 && D.stacks[ev[i][5]].length > 3) si = i;
  await page.evaluate((i) => { const g = window.__gf, e = g.event(i); g.setView(e.start - 20000, e.start + 20000); }, si);
  await frame(page);
  const sp = await page.evaluate((i) => window.__gf.eventPoint(i), si);
  await page.mouse.click(sp.x, sp.y);
  await frame(page);
  const sel = await page.evaluate(() => window.__gf.selected());
  check('tile_8x8: a click on a sample selects it', sel === si && kind(sel) === 'cpu_sample', `selected ${sel} (${sel >= 0 ? kind(sel) : ''}), wanted ${si}`);
  const shown = await page.$$eval('#frames li', (li) => li.map((x) => x.textContent.replace(/\s+/g, ' ').trim()));
  const want = D.stacks[ev[si][5]].map((f) => f.replace(/\s+/g, ' ').trim());
  check('tile_8x8: the panel shows the sample\'s stack, innermost first', JSON.stringify(shown) === JSON.stringify(want),
    `${JSON.stringify(shown).slice(0, 200)} vs ${JSON.stringify(want).slice(0, 200)}`);
  const t0 = D.t0 + ev[si][0];
  const depth = sql(db, `SELECT count(*) FROM SAMPLING_CALLCHAINS s JOIN COMPOSITE_EVENTS c ON c.id = s.id WHERE c.start = ${t0}`)[0][0];
  check('tile_8x8: as many frames as the sample has SAMPLING_CALLCHAINS rows (SQL)', shown.length === depth, `${shown.length} vs ${depth}`);

  // search an OS runtime call by name: the count equals SQL (osrt_sum's names), Enter selects one
  const nsem = sql(db, "SELECT count(*) FROM OSRT_API o JOIN StringIds s ON s.id = o.nameId WHERE o.eventClass = 27 AND s.value = 'sem_timedwait'")[0][0];
  await page.keyboard.press('Escape');
  await page.keyboard.press('/');
  await page.keyboard.type('/^sem_timedwait$/');
  const m = await page.evaluate(() => window.__gf.matches());
  check('tile_8x8: search finds the OS runtime call sem_timedwait, count equals SQL', nsem > 0 && m === nsem, `page ${m} sql ${nsem}`);
  await page.keyboard.press('Enter');
  const s1 = await page.evaluate(() => window.__gf.selected());
  check('tile_8x8: Enter selects an OS runtime call named sem_timedwait', s1 >= 0 && kind(s1) === 'osrt' && D.names[ev[s1][4]] === 'sem_timedwait');
  const noise = log.console.filter((m) => !/willReadFrequently/.test(m)); // this test's own pixel reads
  check('tile_8x8: no page errors', log.errors.length === 0 && noise.length === 0, JSON.stringify(log).slice(0, 300));
  await page.close();
}

async function others(browser) {
  for (const [rel, osrt, samples] of [['real/cs336-jsun012/result.sqlite', false, true], ['real/vectoraddition/report1.sqlite', false, false]]) {
    if (!existsSync(path.join(FIX, rel))) { skip(`${rel}: CPU side`, 'fixtures absent'); continue; }
    const file = render(rel, path.join(TMP, path.basename(path.dirname(rel)) + '_cpu.html'));
    const { page, log } = await open(browser, file);
    const D = await pageData(page), legend = await page.textContent('#legend');
    const nsamp = D.lanes.filter((l) => l.sub === 'samples').length;
    check(`${rel}: samples rows only where the export has samples`, (nsamp > 0) === samples, `${nsamp} samples rows`);
    check(`${rel}: the legend names what the page holds`, /OS runtime/.test(legend) === osrt && /CPU samples/.test(legend) === samples, legend);
    check(`${rel}: no page errors`, log.errors.length === 0 && log.console.length === 0, JSON.stringify(log).slice(0, 300));
    await page.close();
  }
}

let browser;
try {
  if (!existsSync(path.join(FIX, 'real/parallel-sheet-simulator/tile_8x8.sqlite'))) {
    skip('timeline CPU side', 'fixtures absent');
  } else {
    browser = await launch();
    await tile(browser);
    await others(browser);
  }
} catch (e) {
  notOk('timeline CPU side browser tests', String(e && e.stack || e));
} finally {
  if (browser) await browser.close();
}
done();
