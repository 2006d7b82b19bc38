// gf-test: slow
// The GPU rows of timeline pages of real exports with NVTX (issue 25 items 4 and 6, issue 24 item 1), in
// headless Chromium, each against an answer the page does not compute:
//  * NVTX ranges projected onto the GPU: rows under the device, one event per row of `gpuflame stats -r
//    nvtx_gpu_proj_trace` (name, start, duration; the real tier proves that report equal to nsys's), drawn
//    (a click on one selects it);
//  * a kernel's selection panel: its NVTX path, launching thread and API call, queue delay; the path equals
//    the chain of NVTX frames above the same launch call and kernel in the flamegraph page of the export;
//  * no separate sync lanes (sync events a band on their stream's lane; device-wide syncs a band), lane
//    labels keep "stream N", the device named on its group;
//  * the header's GPU time breakdown for the window in view (the full span) equals a union of intervals
//    per device over the export's own rows (sqlite3), and a measured range shows its own.
// Screenshots are left in $GF_TMP/tl-gpu-*.png.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { TOP, TMP, launch, open, frame, check, skip, notOk, done } from './timeline_lib.mjs';


// pointInView(page, i): a point inside event i's bar after the page is scrolled to it (a capture with a CPU
// side has rows enough to put the GPU rows below the viewport), or null
async function pointInView(page, i) {
  await page.evaluate((k) => {
    const p = window.__gf.eventPoint(k);
    if (p && (p.y < 40 || p.y > window.innerHeight - 40)) window.scrollBy(0, p.y - window.innerHeight / 2);
  }, i);
  await frame(page);
  return page.evaluate((k) => window.__gf.eventPoint(k), i);
}

const FIX = process.env.GPUFLAME_FIXTURES || path.resolve(TOP, '../shared/fixtures');
const GF = process.env.GPUFLAME_BIN || path.join(TOP, 'bin/gpuflame');
const CASES = ['real/cs336-jsun012/result.sqlite', 'real/cs336-athrun0109/result.sqlite', 'real/nvfuser/report1.sqlite'];
// policy gpu_time.communication's default patterns (docs/SEMANTICS.md), as SQLite LIKE sees them
const COMM = ['%nccl%', '%nvshmem%', '%allreduce%', '%all_reduce%', '%allgather%', '%all_gather%',
  '%reducescatter%', '%reduce_scatter%', '%alltoall%', '%all_to_all%'];

const sql = (db, q) => execFileSync('sqlite3', ['-readonly', '-separator', '|', db, q], { maxBuffer: 1 << 28 })
  .toString().trim().split('\n').filter((l) => l).map((l) => l.split('|'));

// per device, each part's union of [start, end) intervals (docs/SEMANTICS.md), from the export's rows
function sqlBreakdown(db) {
  const has = (t) => sql(db, `SELECT count(*) FROM sqlite_master WHERE name = '${t}'`)[0][0] === '1';
  const like = COMM.map((p) => `lower(coalesce(d.value, s.value)) LIKE '${p}'`).join(' OR ');
  const parts = [];
  if (has('CUPTI_ACTIVITY_KIND_KERNEL')) {
    parts.push(`SELECT k.deviceId, k.start, k.end, CASE WHEN ${like} THEN 'comm' ELSE 'compute' END FROM CUPTI_ACTIVITY_KIND_KERNEL k
      LEFT JOIN StringIds d ON d.id = k.demangledName LEFT JOIN StringIds s ON s.id = k.shortName`);
  }
  if (has('CUPTI_ACTIVITY_KIND_MEMCPY')) parts.push(`SELECT deviceId, start, end, 'copy' FROM CUPTI_ACTIVITY_KIND_MEMCPY`);
  if (has('CUPTI_ACTIVITY_KIND_MEMSET')) parts.push(`SELECT deviceId, start, end, 'memset' FROM CUPTI_ACTIVITY_KIND_MEMSET`);
  const rows = sql(db, parts.join(' UNION ALL ') + ' ORDER BY 1, 2');
  const dev = new Map();
  for (const [d, s, e, p] of rows) {
    if (!dev.has(d)) dev.set(d, { deviceId: Number(d), iv: { busy: [], compute: [], comm: [], copy: [], memset: [] } });
    const x = dev.get(d);
    x.iv.busy.push([Number(s), Number(e)]);
    x.iv[p].push([Number(s), Number(e)]);
  }
  const union = (iv) => {
    let t = 0, cs = 0, ce = -Infinity;
    for (const [s, e] of [...iv].sort((a, b) => a[0] - b[0])) {
      if (s > ce) { if (ce > cs) t += ce - cs; cs = s; ce = e; } else if (e > ce) ce = e;
    }
    return ce > cs ? t + ce - cs : t;
  };
  return [...dev.values()].map((x) => {
    const r = { deviceId: x.deviceId, span: Math.max(...x.iv.busy.map((i) => i[1])) - Math.min(...x.iv.busy.map((i) => i[0])) };
    for (const p of Object.keys(x.iv)) r[p] = union(x.iv[p]);
    r.idle = r.span - r.busy;
    return r;
  });
}

// the report's rows: name (without the default domain's ':'), projected start and duration
function projRows(db) {
  const csv = execFileSync(GF, ['stats', '-r', 'nvtx_gpu_proj_trace', '--format', 'csv', db]).toString();
  const lines = csv.split('\n').filter((l) => l);
  const head = lines.findIndex((l) => l.startsWith('Name,'));
  const out = [];
  for (const l of lines.slice(head + 1)) { // names with commas are quoted: take the numbers from the left
    const m = /^("(?:[^"]|"")*"|[^,]*),(\d+),(\d+),/.exec(l);
    if (!m) continue;
    const name = m[1].startsWith('"') ? m[1].slice(1, -1).replace(/""/g, '"') : m[1];
    out.push(`${name.replace(/^:/, '')}|${m[2]}|${m[3]}`);
  }
  return out.sort();
}

// the flamegraph page's frames as chains root → leaf (the tree is listed depth-first)
async function flameChains(browser, db) {
  const out = path.join(TMP, `fg-${path.basename(path.dirname(db))}.html`);
  execFileSync(GF, ['-q', 'flamegraph', db, '-o', out]);
  const page = await browser.newPage();
  await page.goto('file://' + out);
  const frames = await page.evaluate(() => window.gpuflame.frames());
  await page.close();
  const stack = [], chains = [];
  for (const f of frames) {
    stack.length = f.depth - 1;
    stack.push(f);
    if (f.kind === 'kernel') chains.push(stack.map((x) => ({ name: x.name, kind: x.kind })));
  }
  return chains;
}

async function one(browser, rel) {
  const db = path.join(FIX, rel), tag = rel.split('/')[1];
  if (!existsSync(db)) { skip(tag, `fixture absent: ${rel}`); return; }
  const file = path.join(TMP, `tl-gpu-${tag}.html`);
  execFileSync(GF, ['-q', 'timeline', db, '-o', file]);
  const { page, log } = await open(browser, file, { width: 1400, height: 1000 });
  const t0 = await page.evaluate(() => JSON.parse(document.getElementById('gf-data').textContent).t0);
  const labels = await page.evaluate(() => window.__gf.laneLabels ? window.__gf.laneLabels() : null);
  if (!labels) { notOk(`${tag}: the page reports its lane labels (window.__gf.laneLabels)`, 'absent'); await page.close(); return; }
  const raw = await page.evaluate(() => JSON.parse(document.getElementById('gf-data').textContent).lanes);

  // ---- NVTX projected onto the GPU
  const projLanes = labels.map((l, k) => (l.proj ? k : -1)).filter((k) => k >= 0);
  check(`${tag}: NVTX → GPU rows under the device`, projLanes.length > 0 &&
    projLanes.every((k) => raw[k].kind === 'gpu' && raw[k].device && labels[k].group.startsWith('GPU ' + String(raw[k].device).replace(/^GPU /, ''))),
  JSON.stringify(projLanes.map((k) => labels[k])));
  const evs = await page.evaluate((lanes) => {
    const out = [], n = window.__gf.counts().inPage;
    for (let i = 0; i < n; i++) { const e = window.__gf.event(i); if (lanes.includes(e.lane)) out.push({ i, ...e }); }
    return out;
  }, projLanes);
  const want = projRows(db);
  const got = evs.map((e) => `${e.name}|${e.start + t0}|${e.dur}`).sort();
  check(`${tag}: one projected row per nvtx_gpu_proj_trace row (${want.length}), equal names, starts and durations`,
    JSON.stringify(got) === JSON.stringify(want),
    `page ${got.length} rows, report ${want.length}; page-only ${got.filter((x) => !want.includes(x)).slice(0, 2)}, report-only ${want.filter((x) => !got.includes(x)).slice(0, 2)}`);
  const ci = await page.textContent('#count-info');
  check(`${tag}: the header counts the capture's events and the projected ranges apart`,
    ci === `all ${await page.evaluate(() => window.__gf.counts().total)} events + ${want.length} NVTX ranges projected onto the GPU`, ci);
  const lo = Math.min(...evs.map((e) => e.start)), hi = Math.max(...evs.map((e) => e.start + e.dur));
  const wlo = Math.min(...want.map((w) => Number(w.split('|').at(-2)))) - t0;
  const whi = Math.max(...want.map((w) => Number(w.split('|').at(-2)) + Number(w.split('|').at(-1)))) - t0;
  check(`${tag}: projected rows span the report's extent`, lo === wlo && hi === whi, `${lo}..${hi} vs ${wlo}..${whi}`);
  // a group per launching thread, which folds like any other
  const gi = await page.evaluate(() => window.__gf.groups().findIndex((g) => / · NVTX → GPU, pid /.test(g.label)));
  if (gi < 0) notOk(`${tag}: the NVTX → GPU group folds`, 'no such group');
  else {
    await page.evaluate((k) => window.__gf.toggleGroup(k), gi);
    const folded = await page.evaluate(() => window.__gf.laneLabels().filter((l) => l.proj).map((l) => l.height));
    await page.evaluate((k) => window.__gf.toggleGroup(k), gi);
    const open2 = await page.evaluate(() => window.__gf.laneLabels().filter((l) => l.proj).map((l) => l.height));
    check(`${tag}: the NVTX → GPU group folds and unfolds`, folded.some((h) => h === 0) && open2.every((h) => h > 0),
      `${folded} / ${open2}`);
  }
  // drawn: the longest projected range, zoomed to, is under the pointer and selectable
  const longest = evs.reduce((a, b) => (b.dur > a.dur ? b : a), evs[0]);
  if (longest) {
    await page.evaluate((e) => window.__gf.setView(e.start - e.dur * 0.05, e.start + e.dur * 1.05), longest);
    await frame(page);
    const p = await pointInView(page, longest.i);
    if (p) await page.mouse.click(p.x, p.y);
    const sel = await page.evaluate(() => window.__gf.selected());
    const selEv = sel >= 0 ? await page.evaluate((i) => window.__gf.event(i), sel) : null;
    check(`${tag}: a projected range is drawn where it is (a click selects it)`, p && selEv && projLanes.includes(selEv.lane) &&
      selEv.name === longest.name, `point ${JSON.stringify(p)}, selected ${JSON.stringify(selEv)}`);
  }

  // ---- a kernel's launch: NVTX path, thread, API call, queue delay; the flamegraph's path
  const pick = await page.evaluate(() => {
    const n = window.__gf.counts().inPage;
    let best = null;
    for (let i = 0; i < n; i++) {
      const e = window.__gf.event(i);
      if (e.kind !== 'kernel') continue;
      const li = window.__gf.launchInfo(i);
      if (li && li.path.length && (!best || li.path.length > best.li.path.length)) best = { i, e, li };
      if (best && best.li.path.length >= 3) break;
    }
    return best;
  });
  if (!pick) notOk(`${tag}: a kernel launched inside an NVTX range`, 'none on the page');
  else {
    await page.evaluate((e) => window.__gf.setView(e.start - 2e4, e.start + e.dur + 2e4), pick.e);
    await frame(page);
    const p = await pointInView(page, pick.i);
    if (p) await page.mouse.click(p.x, p.y);
    const nv = await page.textContent('#sel-info .nvtx-path').catch(() => null);
    const la = await page.textContent('#sel-info .launch').catch(() => null);
    check(`${tag}: selecting a kernel shows its NVTX path`, nv === 'NVTX path: ' + pick.li.path.join(' › '), `${nv} vs ${pick.li.path}`);
    const api = await page.evaluate((i) => window.__gf.event(i), pick.li.api);
    const qd = pick.e.start - (api.start + api.dur);
    check(`${tag}: … its launching thread, API call and queue delay (kernel start − call end)`,
      la && la.includes(`launched by ${api.name} on ${pick.li.thread}`) && la.includes('queue delay') && qd === pick.li.queueDelay &&
      /^CPU pid \d+ tid \d+/.test(pick.li.thread), `${la} (queue delay ${qd})`);
    const chains = await flameChains(browser, db);
    const match = chains.some((c) => c.at(-1).name === pick.e.name && c.at(-2).kind === 'api' && c.at(-2).name === api.name &&
      JSON.stringify(c.filter((f) => f.kind === 'nvtx').map((f) => f.name)) === JSON.stringify(pick.li.path));
    check(`${tag}: the kernel's NVTX path is the flamegraph's (NVTX frames above its launch call and kernel)`, match,
      `path ${JSON.stringify(pick.li.path)}; flamegraph chains of ${pick.e.name}: ${JSON.stringify(chains.filter((c) => c.at(-1).name === pick.e.name).slice(0, 3).map((c) => c.map((f) => f.name)))}`);
  }

  // ---- lanes a person can read
  const syncLanes = labels.filter((l) => / sync/.test(l.drawn) || (/ sync$/.test(l.label) && !l.band && !/stream \d+$/.test(l.drawn)));
  check(`${tag}: no separate sync lanes (sync events on their stream's lane, device-wide ones a band)`, syncLanes.length === 0 &&
    labels.filter((l) => l.band).every((l) => l.height <= 8), JSON.stringify(syncLanes.map((l) => l.label)));
  const streams = raw.map((r, k) => ({ r, l: labels[k] })).filter((x) => x.r.kind === 'gpu' && x.r.stream >= 0);
  check(`${tag}: stream lanes read "stream N", the device named on the group`, streams.length > 0 && streams.every((x) =>
    x.l.drawn.endsWith(`stream ${x.r.stream}`) && !x.l.drawn.includes(String(x.r.device)) && x.l.group.includes(String(x.r.device).replace(/^GPU /, ''))),
  JSON.stringify(streams.map((x) => x.l.drawn)));
  const drawnSync = await page.evaluate(() => {
    const n = window.__gf.counts().inPage, out = [];
    for (let i = 0; i < n && out.length < 1; i++) { const e = window.__gf.event(i); if (e.kind === 'sync') out.push(e); }
    return out;
  });
  check(`${tag}: sync events sit on a stream lane or a band`, drawnSync.every((e) => labels[e.lane] &&
    (labels[e.lane].band || /stream \d+$/.test(labels[e.lane].drawn))), JSON.stringify(drawnSync));

  // ---- GPU time of the window in view = the union of intervals per device over the export
  const span = await page.evaluate(() => window.__gf.span());
  await page.evaluate((s) => window.__gf.setView(0, s), span);
  await frame(page);
  const header = await page.evaluate(() => window.__gf.gpuTime());
  const rows = await page.evaluate((s) => window.__gf.breakdown(0, s), span);
  const want2 = sqlBreakdown(db);
  const keys = ['span', 'busy', 'compute', 'comm', 'copy', 'memset', 'idle'];
  const bad = want2.filter((w) => { const r = rows.find((x) => x.deviceId === w.deviceId); return !r || keys.some((k) => r[k] !== w[k]); });
  check(`${tag}: the window's GPU time per device equals the union of intervals over the export (${want2.length} device(s))`,
    rows.length === want2.length && bad.length === 0, `page ${JSON.stringify(rows)} vs SQL ${JSON.stringify(want2)}`);
  const pct = (v, s) => (s > 0 ? 100 * v / s : 0).toFixed(1) + '%';
  check(`${tag}: the header names the parts for the window in view`, want2.every((w) => header.includes(
    `compute ${pct(w.compute, w.span)}, communication ${pct(w.comm, w.span)}, copy ${pct(w.copy, w.span)}, memset ${pct(w.memset, w.span)}, idle ${pct(w.idle, w.span)}`)),
  `${header} vs ${JSON.stringify(want2)}`);
  // a measured range (Shift+drag) shows its own window's breakdown
  await page.evaluate(() => window.scrollTo(0, 0));
  const box = await page.evaluate(() => { const r = document.getElementById('main').getBoundingClientRect(); return { x: r.left, y: r.top, w: r.width }; });
  const lw = await page.evaluate(() => window.__gf.labelWidth());
  const gy = box.y + 45; // the first lane, below the axis and its group header
  await page.keyboard.down('Shift');
  await page.mouse.move(box.x + lw + 20, gy);
  await page.mouse.down();
  await page.mouse.move(box.x + box.w - 20, gy, { steps: 5 });
  await page.mouse.up();
  await page.keyboard.up('Shift');
  const rng = await page.evaluate(() => window.__gf.range());
  const ri = await page.textContent('#range-info');
  const rrows = rng ? await page.evaluate((r) => window.__gf.breakdown(r.start, r.end), rng) : [];
  check(`${tag}: a measured range shows its GPU time`, rng && rrows.length > 0 && ri.includes('GPU time') &&
    rrows.every((r) => ri.includes(`idle ${pct(r.idle, r.span)}`)), `${ri} / ${JSON.stringify(rrows)}`);
  await page.keyboard.press('Escape');
  await page.evaluate(() => window.__gf.setView(0, window.__gf.span()));
  await frame(page);
  await page.screenshot({ path: path.join(TMP, `tl-gpu-${tag}.png`), fullPage: true });
  check(`${tag}: no console or page errors`, log.errors.length === 0 && log.console.filter((m) => !/warning/i.test(m)).length === 0,
    [...log.errors, ...log.console].join(' | '));
  await page.close();
}

try {
  execFileSync('sqlite3', ['-version']);
} catch (e) {
  skip('timeline GPU rows', 'no sqlite3 CLI');
  process.exit(0);
}
const browser = await launch();
try {
  for (const c of CASES) await one(browser, c);
} finally {
  await browser.close();
}
done();
