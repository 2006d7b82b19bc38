// `timeline --critical-path` (issue 44; docs/CRITICAL_PATH.md "On the timeline"): on the planted kernel-bound
// export (tests/gen/critpath_export.py kernel: per step `step N`, calls at s+100/110/120/130 us launching four 2 ms
// gemm_big back to back from s+120 us, cudaDeviceSynchronize from s+200 us), the step in view has exactly its path's
// events outlined: the four gemm_big, the first launch call (its 20 us launch lag) and the synchronisation, known
// by construction, with the step start read from the export with sqlite3; the other launch calls are not.
// Screenshot: $GF_TMP/timeline-critpath.png.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { TMP, TOP, check, done, launch, open, pageData, skip } from './timeline_lib.mjs';

const bin = process.env.GPUFLAME_BIN;
if (!existsSync('/usr/bin/chromium')) { skip('timeline critical path', '/usr/bin/chromium absent'); process.exit(0); }
const db = path.join(TMP, 'critpath-kernel.sqlite');
execFileSync('python3', [`${TOP}/tests/gen/critpath_export.py`, 'kernel', db]);
let starts;
try {
  starts = execFileSync('sqlite3', [db, "SELECT start FROM NVTX_EVENTS WHERE text LIKE 'step %' ORDER BY start"])
    .toString().trim().split('\n').map(Number);
} catch (e) {
  skip('timeline critical path', `sqlite3 CLI: ${String(e.message).split('\n')[0]}`); process.exit(0);
}
const tl = path.join(TMP, 'critpath-tl.html'), tl0 = path.join(TMP, 'critpath-none-tl.html');
execFileSync(bin, ['-q', 'timeline', db, '--critical-path', '-o', tl]);
execFileSync(bin, ['-q', 'timeline', db, '-o', tl0]);
const US = 1000;
// the path's events by construction: [name prefix, start after the step's start (ns)]
const want = [['cudaLaunchKernel', 100 * US], ['gemm_big', 120 * US], ['cudaDeviceSynchronize', 200 * US]];
for (let j = 1; j < 4; j++) want.push(['gemm_big', 120 * US + j * 2000 * US]);
want.sort((x, y) => x[1] - y[1] || (x[0] < y[0] ? -1 : 1));

const browser = await launch();
try {
  const { page, log } = await open(browser, tl);
  const D = await pageData(page);
  const t0 = +D.t0 || 0;
  await page.keyboard.press('0');
  for (const k of [']', ']']) await page.keyboard.press(k);
  const cp = await page.evaluate(() => window.__gf.criticalPath());
  const cur = (await page.evaluate(() => window.__gf.steps())).current;
  check('the page carries the path of the 4 steps; the one in view is the step `]` went to',
    cp.steps === 4 && cp.index === cur, JSON.stringify([cp.steps, cp.index, cur]));
  check('its length: 8.18 ms (host 150 us, launch 20 us, 8 ms of gemm_big, sync 10 us)', cp.length_ns === 8180000,
    String(cp.length_ns));
  const got = [];
  for (const i of cp.marks) {
    const e = await page.evaluate((j) => window.__gf.event(j), i);
    got.push([String(e.name), e.start + t0 - starts[cur]]);
  }
  got.sort((x, y) => x[1] - y[1] || (x[0] < y[0] ? -1 : 1));
  const same = got.length === want.length && got.every((g, k) => g[0].startsWith(want[k][0]) && g[1] === want[k][1]);
  check('outlined: exactly the four gemm_big, the first launch call and the synchronisation of that step', same,
    JSON.stringify(got));
  await page.screenshot({ path: path.join(TMP, 'timeline-critpath.png') });
  check('critical path: no page errors', log.errors.length === 0, log.errors.join('; '));

  const { page: p0, log: log0 } = await open(browser, tl0);
  const c0 = await p0.evaluate(() => window.__gf.criticalPath());
  check('without --critical-path: no path on the page', c0.steps === 0 && c0.marks.length === 0, JSON.stringify(c0));
  check('no path: no page errors', log0.errors.length === 0, log0.errors.join('; '));
} finally {
  await browser.close();
}
done();
