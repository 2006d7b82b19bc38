// The capture's steps on the timeline page (issue 40; docs/STEPS.md, docs/TIMELINE_PAGE.md "Controls"): on a
// planted export with 8 ProfilerStep#N ranges (tests/gen/steps_export.py train), the page carries the 8 steps
// and `]` / `[` fit the view to the next / previous step, whose window equals the marker range read from the
// export with sqlite3 (less the page's t0, with the page's 2 % margin); a capture without steps has none and
// `]` leaves the view alone. Screenshot: $GF_TMP/timeline-steps.png.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { TMP, TOP, check, done, launch, open, pageData, skip } from './timeline_lib.mjs';

const bin = process.env.GPUFLAME_BIN;
if (!existsSync('/usr/bin/chromium')) { skip('timeline steps', '/usr/bin/chromium absent'); process.exit(0); }
const db = path.join(TMP, 'steps-train.sqlite'), plain = path.join(TMP, 'steps-none.sqlite');
execFileSync('python3', [`${TOP}/tests/gen/steps_export.py`, 'train', db]);
execFileSync('python3', [`${TOP}/tests/gen/busy_export.py`, 'neither', plain]);
let ranges;
try {
  ranges = execFileSync('sqlite3', [db, "SELECT start, end FROM NVTX_EVENTS WHERE text LIKE 'ProfilerStep#%' ORDER BY start"])
    .toString().trim().split('\n').map((l) => l.split('|').map(Number));
} catch (e) {
  skip('timeline steps', `sqlite3 CLI: ${String(e.message).split('\n')[0]}`); process.exit(0);
}
const tl = path.join(TMP, 'steps-tl.html'), tl0 = path.join(TMP, 'steps-none-tl.html');
execFileSync(bin, ['-q', 'timeline', db, '-o', tl]);
execFileSync(bin, ['-q', 'timeline', plain, '-o', tl0]);

const browser = await launch();
try {
  const { page, log } = await open(browser, tl);
  const D = await pageData(page);
  const t0 = +D.t0 || 0;
  const info = await page.evaluate(() => window.__gf.steps());
  check('timeline: the page carries the 8 steps and the rule', info.count === 8 && /ProfilerStep/.test(info.rule),
    JSON.stringify(info));
  await page.keyboard.press('0');
  const seen = [];
  for (const k of [']', ']', '[']) {
    await page.keyboard.press(k);
    seen.push([await page.evaluate(() => window.__gf.view()), (await page.evaluate(() => window.__gf.steps())).current]);
  }
  const want = (k) => { const [a, b] = ranges[k]; const pad = (b - a) * 0.02; return [a - t0 - pad, b - t0 + pad]; };
  const near = (v, w) => Math.abs(v.start - w[0]) < 1 && Math.abs(v.end - w[1]) < 1;
  const k0 = seen[0][1];
  check('] from the full span: the step at or after the centre, its window as the export has it',
    k0 >= 0 && near(seen[0][0], want(k0)), JSON.stringify([seen[0], want(k0)]));
  check('] again: the next step', seen[1][1] === k0 + 1 && near(seen[1][0], want(k0 + 1)), JSON.stringify(seen[1]));
  check('[: back to the previous step', seen[2][1] === k0 && near(seen[2][0], want(k0)), JSON.stringify(seen[2]));
  // every text drawn on the axis in 40 views (the full span, and windows of 60 / 35 / 20 % of it at 10 offsets
  // each): a step's number never crosses a tick label
  await page.evaluate(() => {
    const C = CanvasRenderingContext2D.prototype, fill = C.fillText;
    C.fillText = function (t, x, y) {
      if (window.__axisTexts && y < 18) window.__axisTexts.push([String(t), x, x + this.measureText(String(t)).width, this.font]);
      return fill.apply(this, arguments);
    };
  });
  await page.keyboard.press('0');
  const full = await page.evaluate(() => window.__gf.view());
  let stepCount = 0, tickCount = 0;
  const crossing = [];
  for (const f of [1, 0.6, 0.35, 0.2]) {
    for (let k = 0; k < 10; k++) {
      const a = full.start + (k * (full.end - full.start) * (1 - f)) / 9, b = a + f * (full.end - full.start);
      await page.evaluate(([x, y]) => { window.__axisTexts = []; window.__gf.setView(x, y); }, [a, b]);
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      const texts = await page.evaluate(() => window.__axisTexts);
      const steps = texts.filter((t) => t[3].startsWith('10px')), ticks = texts.filter((t) => t[3].startsWith('11px'));
      stepCount += steps.length; tickCount += ticks.length;
      crossing.push(...steps.filter((s) => ticks.some((t) => s[1] < t[2] && t[1] < s[2])).map((s) => [f, k, s[0]]));
    }
  }
  check('step numbers on the axis, none across a tick label (40 views)', stepCount > 0 && tickCount > 0 &&
    crossing.length === 0, JSON.stringify({ steps: stepCount, crossing: crossing.slice(0, 5) }));
  await page.keyboard.press('0');
  await page.screenshot({ path: path.join(TMP, 'timeline-steps.png') });
  check('timeline steps: no page errors', log.errors.length === 0, log.errors.join('; '));

  const { page: p0, log: log0 } = await open(browser, tl0);
  const v0 = await p0.evaluate(() => window.__gf.view());
  await p0.keyboard.press(']');
  const v1 = await p0.evaluate(() => window.__gf.view());
  const i0 = await p0.evaluate(() => window.__gf.steps());
  check('a capture without steps: none on the page, ] leaves the view', i0.count === 0 && v0.start === v1.start &&
    v0.end === v1.end, JSON.stringify([i0, v0, v1]));
  check('no steps: no page errors', log0.errors.length === 0, log0.errors.join('; '));
} finally {
  await browser.close();
}
done();
