// NVTX names grouped by policy nvtx.group (issue 40 item 1) in the pages, on planted PyTorch emit_nvtx ranges (a
// copy of the test-cuda export, as tests/cli/test_nvtx_group.sh plants them): the flamegraph draws one
// "aten::mm" frame for three raw names and its tooltip lists them; on the timeline (a fleet rule renaming
// aten:: to torch.) the search finds the raw ranges by their grouped name and an event's tooltip shows its
// group. Screenshots are left in $GF_TMP/nvtx-group-*.png.
import { execFileSync } from 'node:child_process';
import { copyFileSync, chmodSync, existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { TMP, TOP, check, done, launch, open, skip } from './timeline_lib.mjs';

const bin = process.env.GPUFLAME_BIN;
const fix = process.env.GPUFLAME_FIXTURES || `${TOP}/../shared/fixtures`;
const src = `${fix}/real/test-cuda/report1.sqlite`;
if (!existsSync('/usr/bin/chromium')) { skip('nvtx.group pages', '/usr/bin/chromium absent'); process.exit(0); }
if (!existsSync(src)) { skip('nvtx.group pages', 'fixture absent'); process.exit(0); }
const db = path.join(TMP, 'nvtx-group.sqlite');
copyFileSync(src, db); chmodSync(db, 0o644);
const T = '281761330250412';
const MM1 = 'aten::mm, seq = 1, op_id = 10, sizes = [[2, 3], [3, 4]], input_op_ids = [(1, 0), (2, 0)]';
const MM2 = 'aten::mm, seq = 2, op_id = 11, sizes = [[2, 3], [3, 4]], input_op_ids = [(3, 0)]';
try {
  execFileSync('sqlite3', [db, `CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL,
      globalTid INTEGER, endGlobalTid INTEGER, text TEXT, textId INTEGER, domainId INTEGER);
    INSERT INTO NVTX_EVENTS VALUES (1412367000, 1453800000, 59, ${T}, NULL, 'Batch 0', NULL, 0);
    INSERT INTO NVTX_EVENTS VALUES (1412367100, 1453600000, 59, ${T}, NULL, '${MM1}', NULL, 0);
    INSERT INTO NVTX_EVENTS VALUES (1453605000, 1453640000, 59, ${T}, NULL, '${MM2}', NULL, 0);
    INSERT INTO NVTX_EVENTS VALUES (1453661000, 1453730000, 59, ${T}, NULL, 'aten::mm, op_id = 12', NULL, 0);
    INSERT INTO NVTX_EVENTS VALUES (1453755000, 1453780000, 59, ${T}, NULL, 'aten::add, seq = 3', NULL, 0);`]);
} catch (e) {
  skip('nvtx.group pages', `sqlite3 CLI: ${String(e.message).split('\n')[0]}`); process.exit(0);
}
const fg = path.join(TMP, 'nvtx-group-fg.html'), tl = path.join(TMP, 'nvtx-group-tl.html');
const fleet = path.join(TMP, 'fleet.lua');
writeFileSync(fleet, 'return { nvtx = { group = { ["50-torch"] = { { "^aten::", "torch." } } } } }\n');
execFileSync(bin, ['-q', 'flamegraph', db, '-o', fg]);
execFileSync(bin, ['-q', '--policy', fleet, 'timeline', db, '-o', tl]);

const browser = await launch();
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 700 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(pathToFileURL(fg).href);
  const frames = await page.evaluate(() => window.gpuflame.frames());
  const mm = frames.filter((f) => f.kind === 'nvtx' && f.name === 'aten::mm');
  check('flamegraph: one aten::mm frame, no raw emit_nvtx name drawn',
    mm.length === 1 && !frames.some((f) => /op_id = |seq = /.test(f.name)), JSON.stringify(frames.map((f) => f.name)));
  check('flamegraph: the frame says it merges 3 raw names', mm[0] && mm[0].raw && mm[0].raw.n === 3,
    JSON.stringify(mm[0] && mm[0].raw));
  const r = await page.evaluate(() => window.gpuflame.frameRect('aten::mm'));
  await page.mouse.move(r.x + 5, r.y + 5);
  const tip = await page.textContent('#tip');
  check('flamegraph tooltip: how many raw names and the raw names themselves',
    tip.includes('groups 3 raw NVTX names') && tip.includes(MM1) && tip.includes(MM2), tip);
  await page.screenshot({ path: path.join(TMP, 'nvtx-group-fg.png') });
  check('flamegraph: no page errors', errors.length === 0, errors.join('; '));

  const { page: tp, log } = await open(browser, tl);
  await tp.keyboard.press('/');
  await tp.fill('#q', 'torch.mm');
  const n = await tp.evaluate(() => window.__gf.matches());
  const raw = await tp.evaluate(() => { // the ranges and their projections onto the GPU, by their raw names
    let c = 0;
    for (let i = 0; i < window.__gf.counts().inPage; i++) if (window.__gf.event(i).name.startsWith('aten::mm')) c++;
    return c;
  });
  check('timeline search: the grouped name finds every raw aten::mm range (3, and their GPU projections)',
    n === raw && raw >= 3, `${n} matches, ${raw} raw aten::mm events`);
  const idx = await tp.evaluate((name) => {
    for (let i = 0; i < window.__gf.counts().inPage; i++) if (window.__gf.event(i).name === name) return i;
    return -1;
  }, MM2);
  await tp.keyboard.press('Escape');
  await tp.evaluate((i) => { const e = window.__gf.event(i); window.__gf.setView(e.start - e.dur, e.start + 2 * e.dur); }, idx);
  await tp.evaluate(() => new Promise((res) => requestAnimationFrame(() => requestAnimationFrame(res))));
  const pt = await tp.evaluate((i) => window.__gf.eventPoint(i), idx);
  if (pt) await tp.mouse.move(pt.x, pt.y);
  const ttip = pt ? await tp.textContent('#tip') : '';
  check('timeline tooltip: the raw name, its group and the group\'s raw-name count',
    ttip.includes(MM2) && ttip.includes('group: torch.mm (policy nvtx.group: 3 raw names on this page)'), ttip || 'no point');
  await tp.screenshot({ path: path.join(TMP, 'nvtx-group-tl.png') });
  check('timeline: no page errors', log.errors.length === 0, log.errors.join('; '));
} finally {
  await browser.close();
}
done();
