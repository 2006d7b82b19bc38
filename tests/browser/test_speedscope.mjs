// gf-test: slow
// gpuflame's exports opened in the real speedscope viewer (npm package `speedscope`, pinned in
// tests/package.json), offline from tests/node_modules/speedscope/dist/release/index.html:
//  * GPU time as speedscope JSON (`export --format speedscope`) from real nsys SQLite exports: the
//    hierarchical stacks as a sampled profile in ns (the Sandwich view checked), then an evented profile
//    per stream;
//  * the same time as folded stacks with gpuflame's "# {json}" metadata line (`export --format folded`);
//  * launch stacks (`export --format launch-stacks`, folded, ns) of a real export with generated
//    CUDA_CALLCHAINS rows (tests/trace/make_callchains.py), and their speedscope JSON form
//    (`export --format speedscope` of that folded file).
// Each file is loaded through speedscope's own file input; the viewer draws on canvas, so the check reads
// its Sandwich view (a DOM table: Total, Self, Symbol Name) and compares the top kernels' names and
// weights, formatted the way speedscope formats the profile's unit, with values computed from the
// exported file itself. Every request that is not file:/data:/blob: is aborted and recorded; none may
// happen. No console errors, no alert (speedscope alerts on an unrecognised format), no
// "Something went wrong".
// Without Chromium, playwright-core or tests/node_modules/speedscope the browser cases print skip; under
// CI (CI=true, as .ci/run sets) they fail instead.
import { createRequire } from 'node:module';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const TOP = process.env.GF_TOP || path.resolve(here, '../..');
const TMP = process.env.GF_TMP || '/tmp';
const GF = process.env.GPUFLAME_BIN || path.join(TOP, 'bin/gpuflame');
const FIX = process.env.GPUFLAME_FIXTURES || path.resolve(TOP, '../shared/fixtures');
const CHROMIUM = process.env.GF_CHROMIUM || '/usr/bin/chromium';
const VIEWER = path.join(TOP, 'tests/node_modules/speedscope/dist/release/index.html');
const CI = !!process.env.CI && process.env.CI !== 'false' && process.env.CI !== '0';
const t0 = Date.now();

let failed = 0;
const ok = (n) => console.log(`ok - ${n}`);
const notOk = (n, why) => { console.log(`not ok - ${n}: ${why}`); failed++; };
const skip = (n, why) => console.log(`skip - ${n}: ${why}`);
const check = (n, cond, why) => (cond ? ok(n) : notOk(n, why || 'condition false'));
// A missing browser prerequisite: skip locally, fail under CI.
const missing = (n, why) => (CI ? notOk(n, `${why} (required under CI)`) : skip(n, why));

const gf = (...args) => execFileSync(GF, ['-q', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });

// --- what speedscope shows (speedscope 1.25.0: TimeFormatter, RawValueFormatter, formatPercent) ---
const MULT = { nanoseconds: 1e-9, microseconds: 1e-6, milliseconds: 1e-3, seconds: 1 };
function fmtValue(v, unit) {
  if (!(unit in MULT)) return v.toLocaleString('en-US'); // "none": raw counts
  const s = v * MULT[unit];
  if (s / 60 >= 1) { const m = Math.floor(s / 60); return `${m}:${String(Math.floor(s - m * 60)).padStart(2, '0')}`; }
  if (s >= 1) return `${s.toFixed(2)}s`;
  if (s / 1e-3 >= 1) return `${(s / 1e-3).toFixed(2)}ms`;
  if (s / 1e-6 >= 1) return `${(s / 1e-6).toFixed(2)}\u00b5s`;
  return `${(s / 1e-9).toFixed(2)}ns`;
}
function fmtPercent(p) {
  if (p === 100) return '100%';
  if (p > 99) return '>99%';
  if (p < 0.01) return '<0.01%';
  if (p < 1) return `${p.toFixed(2)}%`;
  if (p < 10) return `${p.toFixed(1)}%`;
  return `${p.toFixed(0)}%`;
}
// A shown time ("52.35ms", "1:39") in seconds.
function seconds(text) {
  const m = /^(\d+):(\d+)|^([\d.]+)(s|ms|\u00b5s|ns) /.exec(text);
  if (!m) return NaN;
  if (m[1]) return Number(m[1]) * 60 + Number(m[2]);
  return Number(m[3]) * { s: 1, ms: 1e-3, '\u00b5s': 1e-6, ns: 1e-9 }[m[4]];
}
const cell = (v, all, unit) => `${fmtValue(v, unit)} (${fmtPercent((100 * v) / all)})`;

// --- expected per-frame Self/Total, from the exported files themselves ---
function weigh(stacks) { // stacks: [{frames: [names root first], w}]
  const self = new Map(), total = new Map();
  let all = 0;
  for (const { frames, w } of stacks) {
    all += w;
    const leaf = frames[frames.length - 1];
    self.set(leaf, (self.get(leaf) || 0) + w);
    for (const f of new Set(frames)) total.set(f, (total.get(f) || 0) + w);
  }
  return { self, total, all };
}
function fromSpeedscope(file) {
  const d = JSON.parse(readFileSync(file, 'utf8'));
  const p = d.profiles[0], names = d.shared.frames.map((f) => f.name);
  const w = weigh(p.samples.map((s, i) => ({ frames: s.map((j) => names[j]), w: p.weights[i] })));
  return { ...w, doc: d, prof: p, names, unit: p.unit, title: p.name };
}
function fromFolded(file) {
  const stacks = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const sp = line.lastIndexOf(' ');
    stacks.push({ frames: line.slice(0, sp).split(';'), w: Number(line.slice(sp + 1)) });
  }
  return { ...weigh(stacks), stacks, unit: 'none', title: path.basename(file) };
}
// The N heaviest leaves (by Self) among the frames that pass KEEP.
const top = (E, n, keep) => [...E.self.entries()].filter(([k, v]) => keep(k) && v > 0)
  .sort((a, b) => b[1] - a[1]).slice(0, n).map(([k]) => k);

// --- the exports (no browser needed) ---
const kernelFixtures = ['reports/dlprof/nsys_profile.sqlite', 'real/parallel-sheet-simulator/tile_8x8.sqlite']
  .filter((rel) => existsSync(path.join(FIX, rel)));
const cases = []; // {name, file, E, importer, leaves: [names to assert], roots: [names to assert]}

for (const rel of kernelFixtures) {
  const tag = path.basename(path.dirname(rel));
  const src = path.join(FIX, rel);
  const json = path.join(TMP, `${tag}.speedscope.json`);
  gf('export', '--format', 'speedscope', src, '-o', json);
  const E = fromSpeedscope(json);
  // the hierarchical GPU stacks (issue 25): a sampled profile in ns, then an evented profile per stream
  check(`${tag}: speedscope JSON: a sampled profile in nanoseconds, then one evented profile per stream`,
    E.prof.type === 'sampled' && E.unit === 'nanoseconds' && E.doc.profiles.length > 1 &&
    E.doc.profiles.slice(1).every((p) => p.type === 'evented' && p.unit === 'nanoseconds'),
    JSON.stringify(E.doc.profiles.map((p) => [p.type, p.unit])));
  check(`${tag}: frame names are unique`, new Set(E.names).size === E.names.length);
  check(`${tag}: endValue - startValue is the sum of the weights`, E.prof.endValue - E.prof.startValue === E.all,
    `${E.prof.endValue - E.prof.startValue} vs ${E.all}`);
  const kernels = top(E, 5, () => true);
  const roots = [...new Set(E.prof.samples.map((st) => E.names[st[0]]))]; // the processes
  cases.push({ name: `${tag} kernel time (speedscope JSON)`, file: json, E, importer: 'speedscope json file',
    leaves: kernels, roots: roots.length === 1 ? roots : [] });

  const folded = path.join(TMP, `${tag}.folded`);
  gf('export', '--format', 'folded', src, '-o', folded);
  const F = fromFolded(folded);
  check(`${tag}: folded export has no comment line; its metadata is in the sidecar FILE.json`,
    !readFileSync(folded, 'utf8').includes('#') && JSON.parse(readFileSync(`${folded}.json`, 'utf8')).unit_ns === 1);
  check(`${tag}: folded and speedscope exports carry the same kernel weights`,
    kernels.every((k) => F.self.get(k) === E.self.get(k)) && F.all === E.all);
  cases.push({ name: `${tag} kernel time (folded)`, file: folded, E: F,
    importer: 'collapsed stack format', leaves: kernels, roots: roots.length === 1 ? roots : [], noFramePrefix: '# ' });
}
if (kernelFixtures.length === 0) skip('kernel time exports', 'fixtures absent');

const tileSrc = path.join(FIX, 'real/parallel-sheet-simulator/tile_8x8.sqlite');
if (existsSync(tileSrc)) {
  const db = path.join(TMP, 'callchains.sqlite'), exp = path.join(TMP, 'callchains.json');
  execFileSync('python3', [path.join(TOP, 'tests/trace/make_callchains.py'), tileSrc, db, exp]);
  const X = JSON.parse(readFileSync(exp, 'utf8'));
  const folded = path.join(TMP, 'tile_8x8.launch-stacks.folded');
  gf('export', '--format', 'launch-stacks', db, '-o', folded);
  const F = fromFolded(folded);
  const gpu = [...F.self.entries()].filter(([k]) => k.endsWith('_[G]')).reduce((a, [, v]) => a + v, 0);
  check('launch stacks: kernel leaves (_[G]) sum to the backtraced kernels\' GPU ns', gpu === X.kernel_total,
    `${gpu} vs ${X.kernel_total}`);
  const leaves = top(F, 3, (k) => k.endsWith('_[G]'));
  cases.push({ name: 'launch stacks (folded, ns)', file: folded, E: F, importer: 'collapsed stack format',
    leaves, roots: ['_start (trainer)'] });

  // Its speedscope form: the folded file has no unit, so the profile must not claim one (it used to say
  // "microseconds", the policy's unit, and the viewer showed 1000x the GPU time).
  const json = path.join(TMP, 'tile_8x8.launch-stacks.speedscope.json');
  gf('export', '--format', 'speedscope', folded, '-o', json);
  const J = fromSpeedscope(json);
  check('launch stacks as speedscope JSON: unit "none" (a folded file without metadata has no unit)',
    J.unit === 'none', J.unit);
  check('launch stacks as speedscope JSON: same weights as the folded file',
    J.all === F.all && leaves.every((k) => J.self.get(k) === F.self.get(k)));
  cases.push({ name: 'launch stacks (speedscope JSON from the folded file)', file: json, E: J,
    importer: 'speedscope json file', leaves, roots: ['_start (trainer)'],
    sameAs: { name: 'launch stacks (folded, ns)', how: 'text' } });

  // A folded file whose sidecar says its unit (FILE.json with unit_ns) keeps it: nanoseconds here.
  const nsFolded = path.join(TMP, 'tile_8x8.ns.folded');
  gf('export', '--format', 'folded', tileSrc, '-o', nsFolded);
  const nsJson = path.join(TMP, 'tile_8x8.ns.speedscope.json');
  gf('export', '--format', 'speedscope', nsFolded, '-o', nsJson);
  const N = fromSpeedscope(nsJson);
  check('folded with unit_ns 1 in its sidecar → speedscope unit "nanoseconds"', N.unit === 'nanoseconds', N.unit);
  const nsRoots = [...new Set(N.prof.samples.map((st) => N.names[st[0]]))];
  cases.push({ name: 'kernel time in ns (speedscope JSON from a folded file with unit_ns 1 in its sidecar)', file: nsJson, E: N,
    importer: 'speedscope json file', leaves: top(N, 2, () => true), roots: nsRoots.length === 1 ? nsRoots : [],
    sameAs: { name: 'parallel-sheet-simulator kernel time (speedscope JSON)', how: 'time' } });
} else {
  skip('launch stacks', 'fixtures absent');
}

// --- the viewer ---
let chromium = null;
const prereq = 'speedscope viewer';
if (!existsSync(CHROMIUM)) missing(prereq, `${CHROMIUM} absent`);
else if (!existsSync(VIEWER)) missing(prereq, 'tests/node_modules/speedscope absent (cd tests && npm install)');
else {
  try {
    ({ chromium } = createRequire(import.meta.url)(path.join(TOP, 'tests/node_modules/playwright-core')));
  } catch (e) {
    missing(prereq, `playwright-core not loadable: ${String(e).split('\n')[0]}`);
  }
}

// Loads FILE into a fresh viewer page and returns what it shows in the Sandwich view.
async function openInViewer(browser, file) {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1600 } });
  const log = { errors: [], requests: [], dialogs: [], imports: [], routed: 0 };
  page.on('console', (m) => {
    if (m.type() === 'error') log.errors.push(m.text());
    const im = /^Importing (?:as|from) (.*)$/.exec(m.text());
    if (im) log.imports.push(im[1]);
  });
  page.on('pageerror', (e) => log.errors.push(String(e)));
  page.on('dialog', async (d) => { log.dialogs.push(d.message()); await d.dismiss(); });
  page.on('request', (r) => { if (!/^(file|data|blob):/.test(r.url())) log.requests.push(r.url()); });
  await page.route('**/*', (route) => {
    const u = route.request().url();
    log.routed++;
    if (/^(file|data|blob):/.test(u)) return route.continue();
    log.requests.push(u);
    return route.abort();
  });
  const res = { page, log, rows: [], body: '', failure: null };
  try {
    await page.goto(pathToFileURL(VIEWER).href, { timeout: 15000 });
    await page.waitForSelector('input[type=file]', { state: 'attached', timeout: 10000 });
    await page.setInputFiles('input[type=file]', file);
    // Loaded when the view tabs appear; failed on an alert or the error screen.
    const deadline = Date.now() + 15000;
    for (;;) {
      res.body = await page.evaluate(() => document.body.innerText);
      if (/Sandwich/.test(res.body) || /Something went wrong/.test(res.body) || log.dialogs.length) break;
      if (Date.now() > deadline) { res.failure = 'the profile did not load within 15 s'; return res; }
      await page.waitForTimeout(100);
    }
    if (!/Sandwich/.test(res.body)) { res.failure = `import failed: ${log.dialogs.join(' | ') || 'Something went wrong'}`; return res; }
    await page.getByText('Sandwich', { exact: false }).first().click({ timeout: 5000 });
    await page.waitForFunction(() => document.querySelectorAll('table tr td').length >= 3, null, { timeout: 10000 });
    res.rows = await page.evaluate(() => [...document.querySelectorAll('table tr')]
      .map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent))
      .filter((r) => r.length === 3).map(([total, self, name]) => ({ total, self, name })));
    res.body = await page.evaluate(() => document.body.innerText);
  } catch (e) {
    res.failure = String(e).split('\n')[0];
  }
  return res;
}

const shown = new Map(); // case name → Map(frame name → row)
function checkCase(c, r) {
  const { E } = c;
  const n = c.name;
  if (r.failure) { notOk(`${n}: opens in speedscope`, r.failure); return; }
  ok(`${n}: opens in speedscope`);
  check(`${n}: imported as ${c.importer}`, r.log.imports.length === 1 && r.log.imports[0] === c.importer,
    JSON.stringify(r.log.imports));
  check(`${n}: profile name ${JSON.stringify(E.title)} in the toolbar`, r.body.includes(E.title));
  const byName = new Map(r.rows.map((row) => [row.name, row]));
  shown.set(n, byName);
  // a file with evented profiles (the per-stream time order) may show a frame in more than one row
  const multi = E.doc && E.doc.profiles.length > 1;
  // (with evented profiles the viewer also lists their frames: every frame of the first profile is shown)
  check(`${n}: one Sandwich row per frame${multi ? ' name' : ''}`, multi ? [...E.total.keys()].every((k) => byName.has(k))
    : byName.size === E.total.size && byName.size === r.rows.length, `${r.rows.length} rows, ${byName.size} names, ${E.total.size} frames`);
  for (const k of c.leaves) {
    const row = byName.get(k), want = { self: cell(E.self.get(k), E.all, E.unit), total: cell(E.total.get(k), E.all, E.unit) };
    const short = k.length > 60 ? `${k.slice(0, 57)}...` : k;
    check(`${n}: ${short}: Self ${want.self}, Total ${want.total}`, row && row.self === want.self &&
      row.total === want.total, row ? `shown Self ${row.self}, Total ${row.total}` : 'no row with that name');
  }
  for (const k of c.roots) {
    const row = byName.get(k), want = cell(E.total.get(k) || 0, E.all, E.unit);
    check(`${n}: root ${k}: Total ${want}`, row && row.total === want && E.total.get(k) === E.all,
      row ? `shown ${row.total}` : 'no row with that name');
  }
  // The same data through another route must look the same in the viewer: the same raw counts, or
  // the same time within rounding (a profile with the wrong unit is off by 1000x).
  if (c.sameAs && shown.has(c.sameAs.name)) {
    const other = shown.get(c.sameAs.name), diffs = [];
    for (const k of c.leaves) {
      const a = byName.get(k), b = other.get(k);
      const same = a && b && (c.sameAs.how === 'text' ? a.self === b.self
        : Math.abs(seconds(a.self) - seconds(b.self)) <= 0.01 * seconds(b.self));
      if (!same) diffs.push(`${k.slice(0, 40)}: ${a && a.self} vs ${b && b.self}`);
    }
    check(`${n}: kernels show the same ${c.sameAs.how === 'text' ? 'counts' : 'times'} as "${c.sameAs.name}"`,
      diffs.length === 0, diffs.join('; '));
  }
  if (c.noFramePrefix) {
    check(`${n}: metadata line is not a frame`, !r.rows.some((row) => row.name.startsWith(c.noFramePrefix)));
  }
  check(`${n}: no "Something went wrong"`, !/Something went wrong/.test(r.body));
  check(`${n}: no alert`, r.log.dialogs.length === 0, r.log.dialogs.join(' | '));
  check(`${n}: no console errors`, r.log.errors.length === 0, r.log.errors.join(' | ').slice(0, 300));
  // routed > 0: the interception saw the viewer's own file:// loads, so it was active
  check(`${n}: no network request attempted`, r.log.requests.length === 0 && r.log.routed > 0,
    `${r.log.routed} routed; ${r.log.requests.join(' ').slice(0, 300)}`);
}

if (chromium && cases.length) {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    // speedscope draws with WebGL: SwiftShader (software) under --disable-gpu; the pages are local files.
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--enable-unsafe-swiftshader'],
  });
  try {
    for (const c of cases) {
      const r = await openInViewer(browser, c.file);
      checkCase(c, r);
      await r.page.close();
    }
  } finally {
    await browser.close();
  }
} else if (chromium) {
  skip(prereq, 'fixtures absent');
}
console.log(`# ${cases.length} files, ${((Date.now() - t0) / 1000).toFixed(1)} s`);
process.exitCode = failed ? 1 : 0;
