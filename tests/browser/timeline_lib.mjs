// Helpers for the timeline browser tests (not a test itself: tests/run only runs test_*.mjs).
// Pages come from tests/gen/timeline_data.py (generated cases) or from bin/gpuflame (real exports).
import { createRequire } from 'node:module';
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { inflateRawSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);
const here = path.dirname(fileURLToPath(import.meta.url));
export const TOP = process.env.GF_TOP || path.resolve(here, '../..');
export const TMP = process.env.GF_TMP || mkdtempSync(path.join(tmpdir(), 'gf-tl-'));
const { chromium } = require(path.join(TOP, 'tests/node_modules/playwright-core'));

let failed = 0;
export function ok(name) { console.log(`ok - ${name}`); }
export function notOk(name, why) { console.log(`not ok - ${name}: ${why}`); failed++; }
export function skip(name, why) { console.log(`skip - ${name}: ${why}`); }
export function check(name, cond, why) { if (cond) ok(name); else notOk(name, why || 'condition false'); }
export function done() { process.exitCode = failed ? 1 : 0; }

// Writes the generated case CASE as a filled page and returns its path.
export function genPage(kase, extra = []) {
  const out = path.join(TMP, `timeline-${kase}.html`);
  execFileSync('python3', [path.join(TOP, 'tests/gen/timeline_data.py'), kase, '--html', out,
    '--template', path.join(TOP, 'templates/timeline.html'), ...extra]);
  return out;
}

export async function launch() {
  return chromium.launch({ executablePath: process.env.GF_CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
}

// Opens FILE in a fresh page and records console errors, page errors and any request that is not
// file: or data: (the page must be self-contained).
export async function open(browser, file, { width = 1400, height = 900 } = {}) {
  const page = await browser.newPage({ viewport: { width, height } });
  const log = { console: [], errors: [], requests: [] };
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') log.console.push(m.text()); });
  page.on('pageerror', (e) => log.errors.push(String(e)));
  page.on('request', (r) => { if (!/^(file|data):/.test(r.url())) log.requests.push(r.url()); });
  await page.goto(pathToFileURL(file).href);
  await page.waitForFunction(() => window.__gf && window.__gf.firstDrawAt > 0, null, { timeout: 15000 });
  return { page, log };
}

export const view = (page) => page.evaluate(() => window.__gf.view());
// Let the page's requestAnimationFrame draw run.
export const frame = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
// Scrolls the launch-flamegraph frame NAME into the viewport and returns its client point (or null).
export const flamePoint = (page, name) => page.evaluate((n) => {
  const p = window.__gf.flamePoint(n);
  if (p && (p.y < 0 || p.y > innerHeight)) window.scrollBy(0, p.y - innerHeight / 2);
  return window.__gf.flamePoint(n);
}, name);

// The page's embedded data with packed events (docs/TIMELINE_DATA.md "Packed events") decoded into the
// row form [start, dur, lane, corr, name, stack, kind, detail] (tests/trace/page_data.py does the same
// in Python), so the tests assert on rows whatever the writer's encoding.
export function unpackEvents(D) {
  const ev = D.events;
  if (!ev || Array.isArray(ev)) return D;
  const cols = {}, deflated = ev.encoding === 'varint-deflate-chunks-base64';
  if (!['varint-base64', 'varint-deflate-chunks-base64', undefined].includes(ev.encoding)) throw new Error(`unknown encoding ${ev.encoding}`);
  for (const c of ['start', 'dur', 'lane', 'corr', 'name', 'stack', 'kind', 'detail']) {
    // compressed: an array of chunks, each its own raw DEFLATE stream; inflated, they join into the column
    const bytes = deflated ? Buffer.concat(ev[c].map((k) => inflateRawSync(Buffer.from(k, 'base64')))) : Buffer.from(ev[c], 'base64');
    const out = [];
    let v = 0, mul = 1;
    for (const b of bytes) {
      v += (b & 127) * mul;
      if (b & 128) mul *= 128; else { out.push(v); v = 0; mul = 1; }
    }
    if (out.length !== ev.n) throw new Error(`packed column ${c}: ${out.length} values, n = ${ev.n}`);
    cols[c] = out;
  }
  const unzig = (x) => (x % 2 ? -(x + 1) / 2 : x / 2);
  const rows = [];
  let start = 0, last = 0;
  for (let i = 0; i < ev.n; i++) {
    start += unzig(cols.start[i]);
    const c = cols.corr[i];
    if (c) last += unzig(c - 1);
    rows.push([start, cols.dur[i], cols.lane[i], c ? last : -1, cols.name[i], cols.stack[i] - 1, cols.kind[i], cols.detail[i] - 1]);
  }
  return { ...D, packed: ev, events: rows };
}
export const pageData = async (page) =>
  unpackEvents(await page.evaluate(() => JSON.parse(document.getElementById('gf-data').textContent)));

// A page opened with hostile-input guards: every request that is not file: or data: aborted and
// recorded, dialogs dismissed and recorded, alert/confirm/prompt counted (window.__alerted), a
// window.__pwned flag a successful injection would set; waits until ready() holds in the page.
export async function openGuarded(browser, file, ready, { width = 1400, height = 900 } = {}) {
  const page = await browser.newPage({ viewport: { width, height } });
  const log = { console: [], errors: [], requests: [], dialogs: [] };
  page.on('console', (m) => { if (m.type() === 'error') log.console.push(m.text()); });
  page.on('pageerror', (e) => log.errors.push(String(e)));
  page.on('dialog', async (d) => { log.dialogs.push(d.message()); await d.dismiss(); });
  await page.route('**/*', (route) => {
    const u = route.request().url();
    if (/^(file|data):/.test(u)) return route.continue();
    log.requests.push(u);
    return route.abort();
  });
  page.on('request', (r) => { if (!/^(file|data):/.test(r.url()) && !log.requests.includes(r.url())) log.requests.push(r.url()); });
  await page.addInitScript(() => {
    window.__pwned = undefined;
    window.__alerted = 0;
    window.alert = window.confirm = window.prompt = () => { window.__alerted++; };
  });
  await page.goto(pathToFileURL(file).href);
  await page.waitForFunction(ready, null, { timeout: 20000 });
  return { page, log };
}
