// The rank-skew page (`gpuflame run rank-skew INPUTS --html FILE`): a generated 4-rank job with rank 2
// slowed (tests/gen/rank_exports.py): one bar row per rank, the straggler's row marked, the verdict shown,
// the per-iteration table, and a self-contained page without errors.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { TOP, TMP, launch, check, notOk, done } from './timeline_lib.mjs';

const GF = process.env.GPUFLAME_BIN || path.join(TOP, 'bin/gpuflame');
const browser = await launch();
try {
  const job = path.join(TMP, 'rs-job'), page_ = path.join(TMP, 'rank-skew.html');
  execFileSync('python3', [path.join(TOP, 'tests/gen/rank_exports.py'), 'job', job, '--ranks', '4', '--slow', '2', '--factor', '1.5', '--steps', '5']);
  execFileSync(GF, ['-q', 'run', 'rank-skew', job, '--html', page_], { stdio: ['ignore', 'ignore', 'pipe'] });
  const page = await browser.newPage();
  const log = { errors: [], requests: [] };
  page.on('pageerror', (e) => log.errors.push(String(e)));
  page.on('request', (r) => { if (!/^(file|data):/.test(r.url())) log.requests.push(r.url()); });
  await page.goto('file://' + page_);
  const rows = await page.$$eval('#ranks tbody tr', (trs) => trs.map((tr) => [tr.className, tr.cells[0].textContent, tr.querySelectorAll('td.bar div').length]));
  check('one bar row per rank and device, five segments each (compute, communication, copy, memset, idle)', rows.length === 4 && rows.every((r) => r[2] === 5), JSON.stringify(rows));
  const seg = await page.$$eval('#ranks tbody tr:first-child td.bar div', (ds) => ds.map((d) => parseFloat(d.style.width)));
  check('the communication segment is drawn (NCCL kernels of the job)', seg[1] > 0 && seg[2] === 0, JSON.stringify(seg));
  check('the straggler row is rank 2, and only it', rows.filter((r) => r[0] === 'straggler').map((r) => r[1]).join() === 'rank 2 (straggler)', JSON.stringify(rows));
  check('the verdict names it', (await page.textContent('#verdict')).startsWith('straggler: rank 2'));
  check('the per-iteration table: 5 iterations, slowest rank 2', JSON.stringify(await page.$$eval('#iters tbody tr', (trs) => trs.map((tr) => tr.cells[3].textContent))) ===
    JSON.stringify(['rank 2', 'rank 2', 'rank 2', 'rank 2', 'rank 2']));
  check('no page errors, no network', log.errors.length === 0 && log.requests.length === 0, JSON.stringify(log));
} catch (err) {
  notOk('rank-skew page browser tests', String(err && err.stack || err));
} finally {
  await browser.close();
  done();
}
