// gf-test: slow
// The preview of a big timeline page (docs/TIMELINE_DATA.md "Preview"): the events of the opening view,
// written before the page's code, are drawn while the rest of the page is still loading; the page built
// from all events then takes over. Checked on a generated export with the real schema rendered with
// policy timeline.preview_min_events = 1 (so that a small page has a preview): the preview holds exactly
// the page's events that overlap the opening view, its first frame is pixel for pixel the page's own
// frame of that view, the page reports both times, and a damaged or hostile preview changes nothing.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { TOP, TMP, launch, check, done, unpackEvents, pageData } from './timeline_lib.mjs';

const GF = process.env.GPUFLAME_BIN || path.join(TOP, 'bin/gpuflame');
const db = path.join(TMP, 'preview.sqlite'), pol = path.join(TMP, 'preview.lua');
const render = (out, policy, input = db) =>
  execFileSync(GF, ['-q', '--policy', policy, 'timeline', input, '-o', out], { stdio: ['ignore', 'ignore', 'pipe'] });
const previewOf = (html) => {
  const m = /<script id="gf-preview" type="application\/json">([\s\S]*?)<\/script>/.exec(html);
  return m ? JSON.parse(m[1]) : undefined;
};

// Opens a page with the preview asked to keep a snapshot of its canvas; waits for the page built from all
// events. Returns what the preview and the page drew and reported.
async function openBoth(browser, file) {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await page.addInitScript(() => {
    window.__gfPreview = { snapshot: true };
    window.__pwned = 0;
    window.alert = () => { window.__pwned++; };
  });
  await page.goto(pathToFileURL(file).href);
  await page.waitForFunction(() => window.__gf && window.__gf.readyAt > 0, null, { timeout: 30000 });
  const r = await page.evaluate(() => ({
    preview: { firstDrawAt: window.__gfPreview.firstDrawAt || 0, error: window.__gfPreview.error || null,
      snapshot: typeof window.__gfPreview.snapshot === 'string' ? window.__gfPreview.snapshot : null },
    firstDrawAt: window.__gf.firstDrawAt, readyAt: window.__gf.readyAt, view: window.__gf.view(),
    canvas: document.getElementById('main').toDataURL(), count: document.getElementById('count-info').textContent,
    legend: document.querySelectorAll('#legend > span').length, scripts: document.scripts.length,
    injected: document.querySelectorAll('img, iframe, [onerror]').length, pwned: window.__pwned,
  }));
  return { page, errors, ...r };
}

const browser = await launch();
try {
  execFileSync('python3', [path.join(TOP, 'tests/gen/big_export.py'), db, '--ranges', '20000']);
  writeFileSync(pol, 'return { timeline = { preview_min_events = 1 } }\n');
  const html = path.join(TMP, 'preview.html');
  render(html, pol);
  const text = readFileSync(html, 'utf8');
  const P = unpackEvents(previewOf(text));
  const D = unpackEvents(JSON.parse(/<script id="gf-data" type="application\/json">([\s\S]*?)<\/script>/.exec(text)[1]));

  // the data: the preview is the page's head with the opening view's events
  check('the preview comes before the page code, the data after it',
    text.indexOf('id="gf-preview"') < text.indexOf('function gfTimeline') && text.indexOf('function gfTimeline') < text.indexOf('id="gf-data"'));
  check('preview: plain varints, marked as a preview, same view and lanes as the page',
    P.packed.encoding === 'varint-base64' && P.preview === true && JSON.stringify(P.view) === JSON.stringify(D.view) &&
    JSON.stringify(P.lanes) === JSON.stringify(D.lanes) && P.t0 === D.t0 && P.span === D.span && P.total === D.total);
  const [vs, ve] = D.view;
  const key = (R, e) => [e[0], e[1], R.lanes[e[2]].label, e[3], R.names[e[4]], R.kinds[e[6]],
    JSON.stringify(e[7] >= 0 ? R.details[e[7]] : null)].join('|');
  const want = D.events.filter((e) => e[0] <= ve && e[0] + e[1] >= vs).map((e) => key(D, e));
  const got = P.events.map((e) => key(P, e));
  check('preview: exactly the page\'s events that overlap the opening view, in page order',
    want.length > 0 && want.length < D.events.length && JSON.stringify(got) === JSON.stringify(want),
    `preview ${got.length}, page events in view ${want.length} of ${D.events.length}`);
  check('preview: only the names its events use', P.names.length <= D.names.length &&
    P.events.every((e) => P.names[e[4]] !== undefined) && new Set(P.events.map((e) => e[4])).size === P.names.length);
  check('the opening view is the busiest window of the page, not the whole capture', ve - vs < D.span * 0.5 && ve > vs);

  // the page: the preview's first frame is the page's frame of the same view
  {
    const r = await openBoth(browser, html);
    check('preview drawn first, then the page from all events', r.preview.firstDrawAt > 0 &&
      r.firstDrawAt === r.preview.firstDrawAt && r.readyAt >= r.firstDrawAt, JSON.stringify({ ...r.preview, snapshot: !!r.preview.snapshot, first: r.firstDrawAt, ready: r.readyAt }));
    check('the page opens on the data\'s view', Math.abs(r.view.start - vs) < 1e-3 && Math.abs(r.view.end - ve) < 1e-3, JSON.stringify(r.view));
    check('the preview\'s frame is pixel for pixel the page\'s frame of the opening view',
      r.preview.snapshot !== null && r.preview.snapshot === r.canvas, `snapshot ${r.preview.snapshot ? r.preview.snapshot.length : 'missing'} bytes, page ${r.canvas.length}`);
    // (big_export.py has NVTX ranges: the page also carries their projection onto the GPU, counted apart)
    check('after the page takes over: its header, one legend', new RegExp(`^all ${D.total} events( \\+ \\d+ NVTX ranges projected onto the GPU)?$`).test(r.count) &&
      r.legend === 8, `${r.count}, legend ${r.legend}`);
    check('no page errors', r.errors.length === 0 && r.preview.error === null, r.errors.join(' | ') + r.preview.error);
    // the page answers input; the preview took none (one handler each, not two)
    const v0 = await r.page.evaluate(() => window.__gf.view());
    await r.page.keyboard.press('0');
    await r.page.evaluate(() => new Promise((res) => requestAnimationFrame(() => requestAnimationFrame(res))));
    const v1 = await r.page.evaluate(() => window.__gf.view());
    check('keys reach the page ("0": the whole capture)', v1.start === 0 && v1.end === D.span && v0.end - v0.start < D.span, JSON.stringify([v0, v1]));
    await r.page.close();
  }

} catch (e) {
  check('preview test ran', false, e.stack);
}

try {
  // below policy timeline.preview_min_events: null preview, same data otherwise
  writeFileSync(path.join(TMP, 'nothing.lua'), 'return {}\n');
  const plain = path.join(TMP, 'plain.html');
  render(plain, path.join(TMP, 'nothing.lua'));
  const text = readFileSync(plain, 'utf8');
  check('below preview_min_events (default 100,000): the preview slot is null', previewOf(text) === null);
  // an opening view of the whole capture would make the preview the page again: none
  writeFileSync(path.join(TMP, 'full.lua'), 'return { timeline = { preview_min_events = 1, initial_view = "full" } }\n');
  const fullPage = path.join(TMP, 'full.html');
  render(fullPage, path.join(TMP, 'full.lua'));
  check('initial_view "full": no preview (it would hold every event)', previewOf(readFileSync(fullPage, 'utf8')) === null);
  const r = await openBoth(browser, plain);
  check('without a preview the first frame is the page\'s own', r.preview.firstDrawAt === 0 && r.firstDrawAt === r.readyAt && r.readyAt > 0);
  await r.page.close();

  // a damaged preview is only a slower start
  const withPreview = readFileSync(path.join(TMP, 'preview.html'), 'utf8');
  const broken = path.join(TMP, 'broken.html');
  writeFileSync(broken, withPreview.replace('<script id="gf-preview" type="application/json">{', '<script id="gf-preview" type="application/json">{"x":'));
  const b = await openBoth(browser, broken);
  const D = await pageData(b.page);
  check('damaged preview: no preview frame, the page builds from all events without errors',
    b.preview.firstDrawAt === 0 && b.readyAt > 0 && b.errors.length === 0 &&
    (await b.page.evaluate(() => window.__gf.counts().inPage)) === D.events.length, b.errors.join(' | '));
  await b.page.close();

  // a page whose data is damaged after its preview drew: the message, and the preview no longer shown
  const badData = path.join(TMP, 'baddata.html');
  writeFileSync(badData, withPreview.replace(/("start":\[?")([A-Za-z0-9+/]{16})/g, (m, a) => a + 'AAAAAAAAAAAAAAAA'));
  {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.addInitScript(() => { window.__gfPreview = {}; });
    await page.goto(pathToFileURL(badData).href);
    await page.waitForFunction(() => !document.getElementById('empty').hidden, null, { timeout: 30000 });
    const st = await page.evaluate(() => ({ text: document.getElementById('empty').textContent,
      mainHidden: document.getElementById('main').hidden, preview: window.__gfPreview.firstDrawAt || 0,
      count: document.getElementById('count-info').textContent }));
    // (on a page this small the first frame may come after the failure; either way nothing drawn stays)
    check('damaged data behind a preview: the page says why, no timeline and no "loading" left on screen',
      /cannot show its events: damaged page data/.test(st.text) && st.mainHidden && st.count === '',
      JSON.stringify(st));
    await page.close();
  }

  // hostile names in the opening view stay text in the preview too
  const evil = path.join(TMP, 'evil.sqlite');
  execFileSync('cp', [db, evil]);
  execFileSync('sqlite3', [evil, "UPDATE StringIds SET value = '</script><img src=x onerror=alert(1)>' || value " +
    'WHERE id IN (SELECT DISTINCT shortName FROM CUPTI_ACTIVITY_KIND_KERNEL UNION SELECT DISTINCT demangledName FROM CUPTI_ACTIVITY_KIND_KERNEL)']);
  const evilPage = path.join(TMP, 'evil.html');
  render(evilPage, pol, evil);
  const EP = previewOf(readFileSync(evilPage, 'utf8'));
  check('hostile: the preview carries the hostile kernel names', EP && EP.names.some((x) => x.startsWith('</script><img')));
  const h = await openBoth(browser, evilPage);
  check('hostile: nothing injected or run, the page\'s own 8 scripts, preview and page drawn',
    h.injected === 0 && h.pwned === 0 && h.scripts === 8 && h.preview.firstDrawAt > 0 && h.errors.length === 0,
    JSON.stringify({ injected: h.injected, pwned: h.pwned, scripts: h.scripts, errors: h.errors }));
  await h.page.close();
} catch (e) {
  check('preview test ran', false, e.stack);
} finally {
  await browser.close();
  done();
}
