// gf-test: slow
// The findings panel names the parts of each device's time (issue 24 item 1; docs/SEMANTICS.md): on the
// pages of a real export (cs336-jsun012: one RTX 3070 Ti, kernels, H2D and D2D copies, memsets, NVTX) —
// the capture's own flamegraph page (fake nsys), `flamegraph` and `timeline` of the export — every finding
// that speaks of busy, idle or utilization (gpu-busy, gpu-low-util, gpu-starv, launch-overhead) shows
// "GPU 0 busy B% (compute C%, H2D copy H%, D2D copy D%, memset M%), idle I% of S ms" with the shares SQL
// gives over the export (tests/real/breakdown_check.py, not gpuflame's code), and a link that opens the
// definitions at the end of the panel without changing the page's URL fragment (its view). A finding that
// does not speak of time (cuda-sync-api) has no such line. A screenshot of the capture's panel is kept.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { TOP, TMP, launch, check, skip, notOk, done, openGuarded } from './timeline_lib.mjs';

const FIX = process.env.GPUFLAME_FIXTURES || path.resolve(TOP, '../shared/fixtures');
const GF = process.env.GPUFLAME_BIN || path.join(TOP, 'bin/gpuflame');
const DB = path.join(FIX, 'real/cs336-jsun012/result.sqlite');
const BUSY_RULES = ['gpu-busy', 'gpu-low-util', 'gpu-starv', 'launch-overhead'];

const POL = path.join(TMP, 'fb-policies');
mkdirSync(POL, { recursive: true });
const COMM = path.join(POL, 'comm.lua');
writeFileSync(COMM, 'return { gpu_time = { communication = { "%nccl%" } } }\n');

function gf(args, env = {}) {
  return execFileSync(GF, ['-q', '--policy', COMM, ...args],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, GPUFLAME_PATH: '', ...env } }).toString();
}

// the line SQL gives for device 0 (breakdown_check.expected: its own union of intervals per kind)
function sqlLine() {
  const py = `import sys; sys.path.insert(0, sys.argv[2]); from breakdown_check import expected
w = expected(sys.argv[1], ["%nccl%"])[0]
pc = lambda k: "%.1f%%" % (100.0 * w[k] / w["Span (ns)"])
print("GPU 0 busy %s (compute %s, H2D copy %s, D2D copy %s, memset %s), idle %s of %.3f ms" % (pc("Busy (ns)"),
  pc("Compute (ns)"), pc("H2D (ns)"), pc("D2D (ns)"), pc("Memset (ns)"), pc("Idle (ns)"), w["Span (ns)"] / 1e6))`;
  return execFileSync('python3', ['-c', py, DB, path.join(TOP, 'tests/real')]).toString().trim();
}

const panelBusy = (page) => page.evaluate(() => [...document.querySelectorAll('#findings-list > li')].map((li) => ({
  rule: li.querySelector(':scope > button b').textContent,
  lines: [...li.querySelectorAll(':scope > .busy > div')].map((d) => d.textContent),
  link: !!li.querySelector(':scope > .busy > a.defs'),
})));

async function checkPage(browser, name, file, ready, want, shot) {
  const { page, log } = await openGuarded(browser, file, ready);
  // the timeline's panel opens folded to its summary line (issue 41); open it as a reader does
  if (!(await page.evaluate(() => document.getElementById('findings').open))) await page.click('#findings-summary');
  const P = await panelBusy(page);
  for (const rule of BUSY_RULES) {
    const e = P.find((x) => x.rule === rule);
    check(`${name}: ${rule} names the parts as SQL gives them, with a link to the definitions`,
      e && JSON.stringify(e.lines) === JSON.stringify([want]) && e.link, JSON.stringify(e));
  }
  const sync = P.find((x) => x.rule === 'cuda-sync-api');
  check(`${name}: a finding that does not speak of GPU time has no busy line`, sync && sync.lines.length === 0 && !sync.link,
    JSON.stringify(sync));
  const hash = await page.evaluate(() => location.hash);
  const closed = await page.evaluate(() => !document.getElementById('findings-defs').open);
  await page.click('#findings-list > li .busy a.defs');
  const d = await page.evaluate(() => ({ open: document.getElementById('findings-defs').open, hash: location.hash,
    summary: document.querySelector('#findings-defs > summary').textContent,
    terms: [...document.querySelectorAll('#findings-defs dt')].map((t) => t.textContent) }));
  check(`${name}: the link opens the definitions (docs/SEMANTICS.md) and leaves the URL fragment alone`,
    closed && d.open && d.hash === hash && d.summary.includes('docs/SEMANTICS.md') &&
    ['span', 'busy', 'idle', 'compute', 'communication', 'copy', 'memset', 'overlap'].every((t) => d.terms.includes(t)),
    JSON.stringify(d));
  check(`${name}: no console errors, page errors, dialogs or network requests`,
    !log.console.length && !log.errors.length && !log.dialogs.length && !log.requests.length, JSON.stringify(log).slice(0, 400));
  if (shot) await page.locator('#findings').screenshot({ path: shot });
  await page.close();
}

let browser;
try {
  if (!existsSync(DB)) {
    skip('findings panel names the parts', 'fixture real/cs336-jsun012 absent');
  } else {
    const want = sqlLine();
    browser = await launch();
    const cap = path.join(TMP, 'fb-capture');
    gf(['capture', '--nsys', path.join(TOP, 'tests/fake/nsys'), '--out', cap, '--', 'true'], { FAKE_NSYS_SQLITE: DB });
    const fgReady = () => window.gpuflame && window.gpuflame.state().nodes > 0;
    const tlReady = () => window.__gf && window.__gf.firstDrawAt > 0;
    const shot = process.env.GF_SHOT || path.join(TMP, 'fb-capture-panel.png');
    await checkPage(browser, 'capture flamegraph page', path.join(cap, 'flamegraph.html'), fgReady, want, shot);
    const fg = path.join(TMP, 'fb-fg.html');
    gf(['flamegraph', DB, '-o', fg]);
    await checkPage(browser, 'flamegraph page', fg, fgReady, want);
    const tl = path.join(TMP, 'fb-tl.html');
    gf(['timeline', DB, '-o', tl]);
    await checkPage(browser, 'timeline page', tl, tlReady, want);
  }
} catch (e) {
  notOk('findings busy panel', String(e && e.stack || e).slice(0, 600));
} finally {
  if (browser) await browser.close();
  done();
}
