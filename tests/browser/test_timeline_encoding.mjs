// gf-test: slow
// The timeline page's event encodings (docs/TIMELINE_DATA.md "Packed events"), in headless Chromium, on
// pages the binary writes from a real export:
//  * compressed (policy timeline.compress, the default: "varint-deflate-chunks-base64") and plain
//    ("varint-base64") pages carry the same events: equal counts, equal events in the page (sampled
//    through window.__gf.event), the same opening view; the compressed page is smaller; a compressed page
//    whose columns are cut into other chunks (here, by Node's zlib at thirds of each column: inside varints)
//    shows the same events;
//  * a damaged compressed column, an unknown encoding, and a browser without DecompressionStream each
//    leave a message in place of the timeline (and no half-built page); the plain page still opens there.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { TOP, TMP, launch, open, check, skip, notOk, done } from './timeline_lib.mjs';

const FIX = process.env.GPUFLAME_FIXTURES || path.resolve(TOP, '../shared/fixtures');
const GF = process.env.GPUFLAME_BIN || path.join(TOP, 'bin/gpuflame');
const INPUT = path.join(FIX, 'real/parallel-sheet-simulator/tile_8x8.sqlite');
const POL = path.join(TMP, 'enc-policies');
mkdirSync(POL, { recursive: true });
const PLAIN = path.join(POL, 'plain.lua');
writeFileSync(PLAIN, 'return { timeline = { compress = false } }\n');

const DATA_RE = /(<script id="gf-data" type="application\/json">)(.*?)(<\/script>)/s;
const pageJson = (file) => JSON.parse(readFileSync(file, 'utf8').match(DATA_RE)[2]);
// The same page with its data object changed by edit(d).
function variant(file, name, edit) {
  const html = readFileSync(file, 'utf8'), m = html.match(DATA_RE), d = JSON.parse(m[2]);
  edit(d);
  const out = path.join(TMP, name);
  writeFileSync(out, html.replace(DATA_RE, (_, a, _b, c) => a + JSON.stringify(d).replace(/</g, '\\u003c') + c));
  return out;
}
// Opens a page that is expected not to build: returns the message shown and whether __gf exists.
async function openBroken(browser, file, { noDecompression = false } = {}) {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  if (noDecompression) await page.addInitScript(() => { delete window.DecompressionStream; });
  await page.goto(pathToFileURL(file).href);
  await page.waitForFunction(() => !document.getElementById('empty').hidden || (window.__gf && window.__gf.firstDrawAt > 0),
    null, { timeout: 15000 });
  const r = await page.evaluate(() => ({ msg: document.getElementById('empty').hidden ? '' : document.getElementById('empty').textContent,
    built: !!window.__gf }));
  await page.close();
  return { ...r, errors };
}

let browser;
try {
  try { statSync(INPUT); } catch { skip('timeline encodings', `fixture ${INPUT} missing`); process.exit(0); }
  const zPage = path.join(TMP, 'enc-deflate.html'), pPage = path.join(TMP, 'enc-plain.html');
  execFileSync(GF, ['timeline', INPUT, '-o', zPage], { stdio: ['ignore', 'ignore', 'pipe'] });
  execFileSync(GF, ['--policy', PLAIN, 'timeline', INPUT, '-o', pPage], { stdio: ['ignore', 'ignore', 'pipe'] });
  const zd = pageJson(zPage), pd = pageJson(pPage);
  check('default page: events compressed (varint-deflate-chunks-base64)', zd.events.encoding === 'varint-deflate-chunks-base64', zd.events.encoding);
  check('timeline.compress = false: plain varints (varint-base64)', pd.events.encoding === 'varint-base64', pd.events.encoding);
  check('the compressed page is smaller', statSync(zPage).size < statSync(pPage).size,
    `${statSync(zPage).size} vs ${statSync(pPage).size} bytes`);
  browser = await launch();
  const z = await open(browser, zPage), p = await open(browser, pPage);
  const state = (page) => page.evaluate(() => {
    const g = window.__gf, c = g.counts(), n = c.inPage, ev = [];
    for (let k = 0; k < 200 && n; k++) ev.push(g.event(Math.floor((k * n) / 200)));
    ev.push(g.event(n - 1));
    return { counts: c, view: g.view(), ev };
  });
  const zs = await state(z.page), ps = await state(p.page);
  check('both pages: the same event counts', JSON.stringify(zs.counts) === JSON.stringify(ps.counts) && zs.counts.inPage > 1000,
    JSON.stringify([zs.counts, ps.counts]));
  check('both pages: the same events (201 sampled, first to last)', JSON.stringify(zs.ev) === JSON.stringify(ps.ev),
    JSON.stringify(zs.ev.find((e, i) => JSON.stringify(e) !== JSON.stringify(ps.ev[i]))));
  check('both pages: the same opening view', JSON.stringify(zs.view) === JSON.stringify(ps.view), JSON.stringify([zs.view, ps.view]));
  check('compressed page: no page or console errors', z.log.errors.length === 0 && z.log.console.length === 0,
    JSON.stringify(z.log).slice(0, 300));

  // every column inflated, joined, cut at its thirds (inside varints, as the writer's 1 MiB cuts may be) and
  // each part compressed on its own by Node's zlib
  const COLS = ['start', 'dur', 'lane', 'corr', 'name', 'stack', 'kind', 'detail'];
  const rechunked = variant(zPage, 'enc-rechunked.html', (d) => {
    for (const c of COLS) {
      const all = Buffer.concat(d.events[c].map((k) => inflateRawSync(Buffer.from(k, 'base64'))));
      const a = Math.floor(all.length / 3), b = Math.floor((2 * all.length) / 3);
      d.events[c] = [all.subarray(0, a), all.subarray(a, b), all.subarray(b)].map((x) => deflateRawSync(x).toString('base64'));
    }
  });
  const rc = await open(browser, rechunked), rs = await state(rc.page);
  check('a compressed page cut into other chunks (3 a column, by another compressor): the same events and view',
    JSON.stringify(rs) === JSON.stringify(zs) && rc.log.errors.length === 0, JSON.stringify(rc.log.errors).slice(0, 300));
  await rc.page.close();
  const damaged = variant(zPage, 'enc-damaged.html', (d) => { d.events.dur = [Buffer.from('not deflate data at all').toString('base64')]; });
  let r = await openBroken(browser, damaged);
  check('a damaged compressed column: a message in place of the timeline', /damaged page data/.test(r.msg), r.msg);
  const flat = variant(zPage, 'enc-flat.html', (d) => { d.events.kind = d.events.kind[0]; });
  r = await openBroken(browser, flat);
  check('a compressed column that is not an array of chunks: the message names it', /damaged page data: the kind column is not an array of chunks/.test(r.msg) && !r.built, r.msg);
  const short = variant(zPage, 'enc-short.html', (d) => { d.events.n += 1; });
  r = await openBroken(browser, short);
  check('a column with fewer values than n: the message says which', /the start column does not hold/.test(r.msg) &&
    r.errors.length > 0, JSON.stringify(r));
  const unknown = variant(zPage, 'enc-unknown.html', (d) => { d.events.encoding = 'varint-zstd-base64'; });
  r = await openBroken(browser, unknown);
  check('an unknown encoding: named in the message, nothing built', /unknown event encoding "varint-zstd-base64"/.test(r.msg) && !r.built, JSON.stringify(r));
  r = await openBroken(browser, zPage, { noDecompression: true });
  check('no DecompressionStream: the message names timeline.compress = false', /timeline\.compress = false/.test(r.msg) && !r.built, JSON.stringify(r));
  r = await openBroken(browser, pPage, { noDecompression: true });
  check('no DecompressionStream: the plain page still opens', r.built && r.msg === '', JSON.stringify(r));
} catch (e) {
  notOk('timeline encoding browser tests', String(e && e.stack || e));
} finally {
  if (browser) await browser.close();
}
done();
