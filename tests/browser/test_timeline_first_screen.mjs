// The GPU on the first screen (issue 41 item 6) on pages the real binary writes from real exports: at
// 1400x900 the first screen shows a GPU lane (GPU groups are laid out first), the findings panel is folded to
// its summary line, and a CPU group's threads with nothing in the opening window are folded into one row
// (a group whose threads all have nothing there folds whole). Which threads have something in the window is
// computed here from the page's own events and its opening view, independently of the page's code.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { TOP, TMP, launch, open, frame, check, skip, done, pageData } from './timeline_lib.mjs';

const FIX = process.env.GPUFLAME_FIXTURES || path.resolve(TOP, '../shared/fixtures');
const GF = process.env.GPUFLAME_BIN || path.join(TOP, 'bin/gpuflame');
const H = 900;

const browser = await launch();
try {
  for (const rel of ['real/cs336-jsun012/result.sqlite', 'real/nvfuser/report1.sqlite', 'real/test-cuda/report1.sqlite']) {
    if (!existsSync(path.join(FIX, rel))) { skip(rel, 'fixture absent'); continue; }
    const out = path.join(TMP, rel.replace(/\W+/g, '_') + '.html');
    execFileSync(GF, ['-q', 'timeline', path.join(FIX, rel), '-o', out], { stdio: ['ignore', 'ignore', 'pipe'] });
    const { page, log } = await open(browser, out, { width: 1400, height: H });
    await frame(page);
    const st = await page.evaluate(() => {
      const c = document.getElementById('main').getBoundingClientRect();
      return { top: c.top + scrollY, groups: window.__gf.groups(), lanes: window.__gf.laneLabels(),
        view: window.__gf.view(), findingsOpen: document.getElementById('findings').open,
        summary: document.getElementById('findings-summary').getBoundingClientRect().bottom };
    });
    const gpu = st.groups.find((g) => g.kind === 'gpu' || (g.kind === undefined && /(^| · )GPU /.test(g.label)));
    const gpuBottom = gpu ? st.top + gpu.y + 16 + 22 : Infinity; // its header and its first lane
    check(`${rel}: a GPU lane on the first screen at 1400x900 (its bottom at ${Math.round(gpuBottom)} px)`, gpuBottom <= H);
    check(`${rel}: the findings panel is folded to its summary line, on the first screen`, !st.findingsOpen && st.summary < H,
      `open=${st.findingsOpen} summary at ${st.summary}`);
    // independent: the threads (rank, pid, tid) of CPU lanes with an event overlapping the opening view
    const D = await pageData(page);
    const busy = new Set(), key = (L) => [L.rank, L.pid, L.tid].join(':');
    for (const e of D.events) {
      const L = D.lanes[e[2]];
      if (L.kind === 'cpu' && e[0] <= st.view.end && e[0] + e[1] >= st.view.start) busy.add(key(L));
    }
    let wrong = 0, folded = 0, shown = 0;
    st.lanes.forEach((L, l) => {
      const R = D.lanes[l];
      if (R.kind !== 'cpu') return;
      const quiet = !busy.has(key(R));
      if (quiet) folded += L.height === 0; else shown += L.height > 0;
      if (quiet !== (L.height === 0)) wrong++;
    });
    const cpuLanes = D.lanes.filter((L) => L.kind === 'cpu').length;
    check(`${rel}: exactly the CPU lanes of threads with nothing in the opening window are folded (${folded} folded, ${shown} shown of ${cpuLanes})`,
      wrong === 0 && folded + shown === cpuLanes, `${wrong} lanes wrong`);
    // a CPU or NVTX group is named by its process's main thread (the lane whose tid is the pid), where the
    // page has that thread's name: expected labels from the page's own lanes
    const mainName = new Map();
    for (const L of D.lanes) if (L.thread && L.pid === L.tid) mainName.set(`${L.rank}:${L.pid}`, L.thread);
    const want = new Set(D.lanes.filter((L) => L.kind === 'cpu' || L.kind === 'nvtx').map((L) =>
      `${L.rank != null ? L.rank + ' · ' : ''}${L.kind.toUpperCase()} pid ${L.pid}` +
      (mainName.has(`${L.rank}:${L.pid}`) ? ' ' + mainName.get(`${L.rank}:${L.pid}`) : '')));
    const got = new Set(st.groups.filter((g) => g.kind === 'cpu' || g.kind === 'nvtx').map((g) => g.label));
    const named = [...got].filter((g) => !/ pid \d+$/.test(g));
    check(`${rel}: CPU and NVTX groups are named by their process's main thread (${[...got].join(', ')})`,
      got.size === want.size && [...want].every((w) => got.has(w)) && named.length > 0,
      `expected ${[...want].join(', ')}`);
    const q = st.groups.findIndex((g) => g.quiet > 0);
    if (q >= 0) {
      await page.evaluate((k) => window.__gf.toggleQuiet(k), q);
      await frame(page);
      const after = await page.evaluate(() => window.__gf.laneLabels().filter((L) => L.height === 0).length);
      check(`${rel}: a click on the folded row shows its ${st.groups[q].quietThreads} threads`, after === folded - st.groups[q].quiet,
        `${after} still folded`);
    }
    check(`${rel}: no page errors`, log.errors.length === 0, log.errors.join('; '));
    await page.close();
  }
} finally {
  await browser.close();
}
done();
