// The critical path page (`gpuflame critical-path INPUT --html FILE`) of a planted host-bound loop
// (tests/gen/critpath_export.py host: 4 steps of 10 ms, the first a warm-up, each 9.985 ms of host code and three
// 5 us launches): the run's summary above the steps (3 counted steps, the parts' shares as one bar, the items on
// the path with their time a step and in how many steps; with --what-if the median path before and after), one
// row per step, no page errors and no network.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { TOP, TMP, launch, check, notOk, done } from './timeline_lib.mjs';

const GF = process.env.GPUFLAME_BIN || path.join(TOP, 'bin/gpuflame');
const browser = await launch();
try {
  const db = path.join(TMP, 'cp-host.sqlite'), out = path.join(TMP, 'cp-host.html');
  execFileSync('python3', [path.join(TOP, 'tests/gen/critpath_export.py'), 'host', db]);
  execFileSync(GF, ['-q', 'critical-path', db, '--html', out], { stdio: ['ignore', 'ignore', 'pipe'] });
  const page = await browser.newPage();
  const log = { errors: [], requests: [] };
  page.on('pageerror', (e) => log.errors.push(String(e)));
  page.on('request', (r) => { if (!/^(file|data):/.test(r.url())) log.requests.push(r.url()); });
  await page.goto('file://' + out);
  const head = await page.textContent('#summary h2');
  check('the summary heading: 3 counted steps, 1 warm-up left out, the median and the longest step',
    /^Over 3 counted steps \(1 warm-up left out\): path median 10\.000 ms, longest step \d \(10\.000 ms\)$/.test(head), head);
  const bar = await page.$$eval('#summary .sbar div', (ds) => ds.map((d) => [d.title, parseFloat(d.style.width)]));
  check('the parts bar: host 99.85 % and launch 0.15 % of the path',
    bar.length === 2 && Math.abs(bar[0][1] - 99.85) < 0.01 && Math.abs(bar[1][1] - 0.15) < 0.01 && /^host/.test(bar[0][0]), JSON.stringify(bar));
  const items = await page.$$eval('#summary table.sitems tr', (trs) => trs.slice(1).map((tr) => [...tr.cells].map((c) => c.textContent)));
  check('the items on the path: host code 9.985 ms a step in 3 of 3 steps, then the launches (0.015 ms)',
    JSON.stringify(items) === JSON.stringify([['9.985', '99.9%', '3 of 3', 'host', 'host code (outside NVTX ranges)'],
      ['0.015', '0.1%', '3 of 3', 'call', 'cudaLaunchKernel']]), JSON.stringify(items));
  check('one row per step below it', (await page.$$('#steps tbody tr')).length === 4);
  check('no page errors, no network', log.errors.length === 0 && log.requests.length === 0, JSON.stringify(log));
  const pol = path.join(TMP, 'cp-top1.lua'), one = path.join(TMP, 'cp-host-top1.html');
  fs.writeFileSync(pol, 'return { extends = "default", critical_path = { top = 1 } }\n');
  execFileSync(GF, ['-q', '--policy', pol, 'critical-path', db, '--html', one], { stdio: ['ignore', 'ignore', 'pipe'] });
  await page.goto('file://' + one);
  check('policy critical_path.top = 1: the summary lists one item', (await page.$$('#summary table.sitems tr')).length === 2);
  const wi = path.join(TMP, 'cp-host-wi.html');
  execFileSync(GF, ['-q', 'critical-path', db, '--what-if', 'kind=host:0.5', '--html', wi], { stdio: ['ignore', 'ignore', 'pipe'] });
  await page.goto('file://' + wi);
  const line = await page.$$eval('#summary p', (ps) => ps.map((p) => p.textContent));
  check('with a what-if: the summary says the median path before and after (host code halved: 10 → 5.008 ms)',
    line.includes('What-if: path median 10.000 → 5.008 ms; median saving 4.992 ms a step.'), JSON.stringify(line));
  check('host-bound: no between-steps note (the steps are the loop)', !line.some((t) => t.startsWith('Between steps')),
    JSON.stringify(line));
  // a loop whose data loading lies between its steps (steps_export.py loader): the note under the summary
  const ldb = path.join(TMP, 'cp-loader.sqlite'), lo = path.join(TMP, 'cp-loader.html');
  execFileSync('python3', [path.join(TOP, 'tests/gen/steps_export.py'), 'loader', ldb]);
  execFileSync(GF, ['-q', 'critical-path', ldb, '--html', lo], { stdio: ['ignore', 'ignore', 'pipe'] });
  await page.goto('file://' + lo);
  const note = await page.$$eval('#summary p.warn', (ps) => ps.map((p) => p.textContent));
  check('data loading between the steps: the summary says most of the loop is outside every path, and what fills it',
    note.length === 1 && note[0].startsWith('Between steps: 64.5% of the loop lies outside the steps and their GPU work') &&
    note[0].includes('Data loading 102.000 ms (6)'), JSON.stringify(note));
} catch (err) {
  notOk('critical path page browser tests', String(err && err.stack || err));
} finally {
  await browser.close();
  done();
}
