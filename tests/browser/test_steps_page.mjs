// The page of `gpuflame steps --html` (templates/steps.html; docs/STEPS.md) on a planted export
// (tests/gen/steps_export.py train: 8 ProfilerStep#N, step 0 warm-up, step 5 the slow one): one row and bar per
// step, the warm-up step greyed and the outlier marked, bars on one scale (step 5's the longest), the rule
// and summary as text, no rank column for one process; with two ranks the per-step slowest rank table; a loop
// whose data loading lies between its steps (steps_export.py loader): the time between steps marked, and each
// step's gap.
// Screenshots: $GF_TMP/steps-page*.png.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { TMP, TOP, check, done, launch, skip } from './timeline_lib.mjs';

const bin = process.env.GPUFLAME_BIN;
if (!existsSync('/usr/bin/chromium')) { skip('steps page', '/usr/bin/chromium absent'); process.exit(0); }
const db = path.join(TMP, 'steps-page.sqlite'), out = path.join(TMP, 'steps-page.html');
execFileSync('python3', [`${TOP}/tests/gen/steps_export.py`, 'train', db]);
execFileSync(bin, ['-q', 'steps', db, '--html', out], { stdio: ['ignore', 'ignore', 'pipe'] });
const job = path.join(TMP, 'steps-job'), out2 = path.join(TMP, 'steps-page-ranks.html');
execFileSync('python3', [`${TOP}/tests/gen/rank_exports.py`, 'job', job, '--ranks', '2', '--slow', '1', '--factor', '1.5',
  '--steps', '4']);
execFileSync(bin, ['-q', 'steps', `${job}/rank0.sqlite`, `${job}/rank1.sqlite`, '--html', out2],
  { stdio: ['ignore', 'ignore', 'pipe'] });
const ddb = path.join(TMP, 'steps-drift.sqlite'), out3 = path.join(TMP, 'steps-drift.html');
execFileSync('python3', [`${TOP}/tests/gen/steps_export.py`, 'drift', ddb]);
execFileSync(bin, ['-q', 'steps', ddb, '--html', out3], { stdio: ['ignore', 'ignore', 'pipe'] });
const ldb = path.join(TMP, 'steps-loader.sqlite'), out4 = path.join(TMP, 'steps-loader.html');
execFileSync('python3', [`${TOP}/tests/gen/steps_export.py`, 'loader', ldb]);
execFileSync(bin, ['-q', 'steps', ldb, '--html', out4], { stdio: ['ignore', 'ignore', 'pipe'] });

const browser = await launch();
try {
  const page = await browser.newPage({ viewport: { width: 1300, height: 900 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(pathToFileURL(out).href);
  const r = await page.evaluate(() => {
    const rows = [...document.querySelectorAll('#steps tbody tr')];
    return {
      n: rows.length, classes: rows.map((x) => x.className.trim()),
      widths: rows.map((x) => [...x.querySelectorAll('td.bar div')].reduce((a, d) => a + parseFloat(d.style.width), 0)),
      rule: document.getElementById('rule').textContent, summary: document.getElementById('summary').textContent,
      rankCol: getComputedStyle(document.querySelector('#steps th')).display,
    };
  });
  check('steps page: one row per step', r.n === 8, JSON.stringify(r));
  check('steps page: step 0 warm-up, step 5 the outlier', r.classes[0] === 'warmup' && r.classes[5] === 'outlier' &&
    r.classes.filter((c) => c).length === 2, JSON.stringify(r.classes));
  // a bar is the longer of the step (its CPU time) and its GPU span: 25.8 ms for step 0 (its work runs 0.8 ms
  // past it), 32.8 ms for step 5, 10.8 ms for the others (as planted); the longest is the full width
  const want = [25.8, 10.8, 10.8, 10.8, 10.8, 32.8, 10.8, 10.8].map((x) => 100 * x / 32.8);
  check('steps page: bars on one scale, as long as the planted steps', r.widths.every((w, k) => Math.abs(w - want[k]) < 0.01),
    JSON.stringify([r.widths, want]));
  check('steps page: the rule and the summary', r.rule.includes('ProfilerStep#%d+') &&
    r.summary.includes('median 10.000 ms') && r.summary.includes('outlier(s): 5'), `${r.rule} | ${r.summary}`);
  check('steps page: no rank column for one process', r.rankCol === 'none', r.rankCol);
  check('steps page: a steady loop says no drift', !r.summary.includes('over the run'), r.summary);
  await page.screenshot({ path: path.join(TMP, 'steps-page.png'), fullPage: true });
  await page.goto(pathToFileURL(out2).href);
  const q = await page.evaluate(() => ({
    hidden: document.getElementById('rank-section').hidden,
    rows: [...document.querySelectorAll('#ranks tbody tr')].map((x) => x.textContent),
  }));
  check('steps page, two ranks: each step\'s slowest rank, above the noise floor', !q.hidden && q.rows.length === 4 &&
    q.rows.every((t) => t.includes('rank 1') && t.endsWith('yes')), JSON.stringify(q));
  await page.screenshot({ path: path.join(TMP, 'steps-page-ranks.png'), fullPage: true });
  await page.goto(pathToFileURL(out3).href);
  const ds = await page.evaluate(() => document.getElementById('summary').textContent);
  check('steps page, a loop that slows down: the drift and the part that grew most', ds.includes(
    'the steps get slower over the run: the last third\'s median 12.400 ms against the first third\'s 10.000 ms; ' +
    'idle grew most (median 5.700 to 7.450 ms)'), ds);
  const bt = await page.evaluate(() => { const b = document.getElementById('between'); return [b.hidden, b.className]; });
  check('steps page, a loop with 2 ms gaps between 10 ms steps: between said, not marked', !bt[0] && bt[1] === '',
    JSON.stringify(bt));
  await page.goto(pathToFileURL(out4).href);
  const lb = await page.evaluate(() => {
    const b = document.getElementById('between');
    const gaps = [...document.querySelectorAll('#steps tbody tr')].map((x) => x.children[6].textContent);
    return { hidden: b.hidden, cls: b.className, text: b.textContent, gaps };
  });
  check('steps page, data loading between the steps: marked, with its share and what fills the gaps',
    !lb.hidden && lb.cls === 'warn' && lb.text.includes('Between steps: 72.7 % of the loop (160.000 of 220.000 ms in 6 gaps') &&
    lb.text.includes('64.5 % of the loop is outside both, most of it') && lb.text.includes('Data loading 102.000 ms (6)'),
    JSON.stringify(lb));
  check('steps page: each step\'s gap after it, none after the last',
    JSON.stringify(lb.gaps) === JSON.stringify(['20.000', '20.000', '20.000', '20.000', '60.000', '20.000', '20.000', '-']),
    JSON.stringify(lb.gaps));
  await page.screenshot({ path: path.join(TMP, 'steps-page-loader.png'), fullPage: true });
  check('steps page: no page errors', errors.length === 0, errors.join('; '));
} finally {
  await browser.close();
}
done();
