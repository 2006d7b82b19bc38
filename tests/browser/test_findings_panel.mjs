// gf-test: slow
// The findings panel of the timeline and flamegraph pages (docs/RULES.md, "On the pages";
// docs/TIMELINE_PAGE.md "Findings") in headless Chromium, on pages written by the real binary:
//  * tile_8x8.sqlite (a 1.46 ms GPU gap with gpu-starv's gap = 1 ms, one cudaDeviceSynchronize, 18
//    synchronous memcpys, two kernel names): the panel lists what `gpuflame findings -f json` reports
//    for the same input and policy; a click (and Enter on the focused button) moves the view onto the
//    finding's window and selects its events, a row of a many-row finding shows that row, a finding
//    with no target leaves the view alone, Esc clears;
//  * a rule on the search path whose verdict, advice and kernel name are markup: text, nothing runs;
//  * policy findings.pages = false: no panel, findings() empty;
//  * the flamegraph page of the same export: the same panel; a click on a finding that names kernels
//    searches for exactly those frames, one with only a window says so in text.
// Every page is opened with every request that is not file: or data: aborted (and recorded).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { TOP, TMP, launch, frame, check, skip, notOk, done, pageData, openGuarded } from './timeline_lib.mjs';

const FIX = process.env.GPUFLAME_FIXTURES || path.resolve(TOP, '../shared/fixtures');
const GF = process.env.GPUFLAME_BIN || path.join(TOP, 'bin/gpuflame');
const SHEET = path.join(FIX, 'real/parallel-sheet-simulator/tile_8x8.sqlite');
const SEVS = ['warning', 'info', 'ok', 'skipped', 'error']; // the pages' order (templates/*.html)
const BTN = (i) => `#findings-list button[data-f="${i}"]:not([data-k])`;

// Policies and rules live in TMP (mode 0700): as root gpuflame refuses files in world-writable dirs.
const POL = path.join(TMP, 'fp-policies');
mkdirSync(POL, { recursive: true });
const policy = (name, lua) => { const f = path.join(POL, name); writeFileSync(f, lua); return f; };
const GAP1 = policy('gap1.lua', 'return { findings = { options = { ["gpu-starv"] = { gap = 1 } } } }\n');
const NOPAGES = policy('nopages.lua', 'return { findings = { pages = false } }\n');

function gf(args, env = {}) {
  return execFileSync(GF, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, GPUFLAME_PATH: '', ...env } }).toString();
}

const tlReady = () => window.__gf && window.__gf.firstDrawAt > 0;
const fgReady = () => window.gpuflame && window.gpuflame.state().nodes > 0;

function clean(name, log) {
  check(`${name}: no console errors, page errors, dialogs or network requests`,
    !log.console.length && !log.errors.length && !log.dialogs.length && !log.requests.length,
    JSON.stringify(log).slice(0, 400));
}

// `gpuflame findings -f json` entry → what the panel shows: severity (the rule's, or skipped/error) and
// text (the verdict, or why it was skipped or failed, control characters as spaces).
const cliSeverity = (f) => f.severity || (f.skipped != null ? 'skipped' : 'error');
const cliText = (f) => String(f.verdict ?? f.skipped ?? f.error).replace(/[\x00-\x1f\x7f]/g, ' ');
// the window of row k of a CLI finding, in the trace's ns
const cliWindow = (f, k = 0) => ({ start: f.rows[k]['Start (ns)'], end: f.rows[k]['Start (ns)'] + f.rows[k]['Duration (ns)'] });

// the panel as a person sees it: one entry per finding (the top-level buttons)
const panel = (page) => page.evaluate(() => ({
  hidden: document.getElementById('findings').hidden,
  summary: document.getElementById('findings-summary').textContent,
  info: document.getElementById('finding-info').textContent,
  entries: [...document.querySelectorAll('#findings-list > li')].map((li) => {
    const b = li.querySelector(':scope > button');
    return { cls: li.className, sev: b.querySelector('.sev').textContent, rule: b.querySelector('b').textContent,
      text: b.childNodes[2] ? b.childNodes[2].textContent : '', f: b.dataset.f, rows: li.querySelectorAll(':scope details button').length };
  }),
  active: [...document.querySelectorAll('#findings-list button.active')].map((b) => `${b.dataset.f}/${b.dataset.k ?? '-'}`),
}));

function summaryOf(sevs) {
  const n = {};
  for (const s of sevs) n[s] = (n[s] || 0) + 1;
  return SEVS.filter((s) => n[s]).map((s) => `${n[s]} ${s}`).join(', ');
}

let browser;
try {
  browser = await launch();
  const sections = [timelinePanel, hostileRule, noPages, flamegraphPanel];
  for (const [k, f] of sections.entries()) {
    const t = Date.now();
    await f();
    console.log(`# section ${k + 1}/${sections.length}: ${((Date.now() - t) / 1000).toFixed(1)} s`);
  }
} catch (e) {
  notOk('findings panel browser tests', String(e && e.stack || e).slice(0, 1500));
} finally {
  if (browser) await browser.close();
}
done();

// ------------------------------------------------------------------------------------------------------
async function timelinePanel() {
  if (!existsSync(SHEET)) { skip('timeline findings panel on tile_8x8', 'fixtures absent'); return; }
  const file = path.join(TMP, 'fp-tile.html');
  gf(['-q', '--policy', GAP1, 'timeline', SHEET, '-o', file]);
  const CLI = JSON.parse(gf(['--policy', GAP1, 'findings', SHEET, '-f', 'json'])).findings;
  const { page, log } = await openGuarded(browser, file, tlReady);
  const D = await pageData(page);
  const F = await page.evaluate(() => window.__gf.findings());
  // the timeline opens with the panel folded to its summary line (issue 41: the GPU on the first screen);
  // a click on the summary opens it
  const folded = await page.evaluate(() => !document.getElementById('findings').open);
  check('tile_8x8: the panel opens folded to its summary line', folded && await page.isVisible('#findings-summary'));
  await page.click('#findings-summary');
  const P = await panel(page);
  const idx = (rule) => F.findIndex((f) => f.rule === rule);
  const cli = (rule) => CLI.find((f) => f.rule === rule);

  // 1. the panel lists what `gpuflame findings` reports
  check('tile_8x8: findings panel visible', !P.hidden && await page.isVisible('#findings-list'), JSON.stringify(P).slice(0, 200));
  check('tile_8x8: one entry per finding, as many as __gf.findings() and as `gpuflame findings -f json`',
    CLI.length > 0 && P.entries.length === F.length && F.length === CLI.length, `panel ${P.entries.length} hook ${F.length} cli ${CLI.length}`);
  const want = CLI.map((f) => ({ rule: f.rule, sev: cliSeverity(f), text: cliText(f) }));
  const hook = F.map((f) => ({ rule: f.rule, sev: f.severity, text: f.text }));
  check('tile_8x8: __gf.findings() rules, severities and texts are the CLI\'s, in order', JSON.stringify(hook) === JSON.stringify(want),
    `${JSON.stringify(hook).slice(0, 300)} vs ${JSON.stringify(want).slice(0, 300)}`);
  const shown = P.entries.map((e) => ({ rule: e.rule, sev: e.sev, text: e.text.trim() }));
  check('tile_8x8: each entry shows its severity, rule and verdict as text (severity as the entry\'s class)',
    JSON.stringify(shown) === JSON.stringify(want) && P.entries.every((e, i) => e.cls === want[i].sev && e.f === String(i)),
    `${JSON.stringify(P.entries).slice(0, 300)}`);
  check('tile_8x8: summary counts the severities', P.summary.startsWith(`Findings (tile_8x8.sqlite): ${summaryOf(want.map((w) => w.sev))} · `), P.summary);
  check('tile_8x8: the rules the click cases need warn (gpu-starv with gap = 1 ms, cuda-sync-api, cuda-sync-memcpy)',
    ['gpu-starv', 'cuda-sync-api', 'cuda-sync-memcpy'].every((r) => idx(r) >= 0 && F[idx(r)].severity === 'warning'));
  check('tile_8x8: a finding with several rows lists them (cuda-sync-memcpy)', P.entries[idx('cuda-sync-memcpy')].rows === cli('cuda-sync-memcpy').rows.length &&
    cli('cuda-sync-memcpy').rows.length > 1, String(P.entries[idx('cuda-sync-memcpy')].rows));
  check('tile_8x8: nothing shown yet', P.active.length === 0 && P.info === '' &&
    await page.evaluate(() => window.__gf.findingWindow() === null && window.__gf.findingMarks().length === 0));

  // 2. a click on a finding with a window: the view moves onto it, its events are selected
  const gs = idx('gpu-starv'), sa = idx('cuda-sync-api');
  const rel = (w) => ({ start: w.start - D.t0, end: w.end - D.t0 });
  const gw = rel(cliWindow(cli('gpu-starv'))), sw = rel(cliWindow(cli('cuda-sync-api')));
  check('tile_8x8: finding windows are the CLI rows\' Start/Duration on the page\'s axis',
    JSON.stringify(F[gs].window) === JSON.stringify(gw) && JSON.stringify(F[sa].window) === JSON.stringify(sw),
    `${JSON.stringify([F[gs].window, F[sa].window])} vs ${JSON.stringify([gw, sw])}`);
  // start far from the gap
  const away = gw.start > D.span / 2 ? [0, D.span * 0.05] : [D.span * 0.95, D.span];
  await page.evaluate(([a, b]) => window.__gf.setView(a, b), away);
  await page.click(BTN(gs));
  await frame(page);
  let st = await state(page);
  const inside = (v, w) => v.start <= w.start && v.end >= w.end;
  const marginW = (w) => (w.end - w.start) + 2 * Math.max((w.end - w.start) * 0.15, 500);
  check('gpu-starv click: the view moves onto the gap, with the documented margin',
    inside(st.view, gw) && Math.abs((st.view.end - st.view.start) - Math.max(1000, marginW(gw))) <= 2, JSON.stringify([st.view, gw]));
  check('gpu-starv click: its window is the shown window', JSON.stringify(st.win) === JSON.stringify(gw), JSON.stringify(st.win));
  const ev = (i) => page.evaluate((j) => window.__gf.event(j), i);
  const gm = await Promise.all(st.marks.map(ev));
  check('gpu-starv click: the GPU work either side of the gap is marked (ends at its start, starts at its end)',
    gm.length === 2 && gm.every((e) => e.laneKind === 'gpu') && gm[0].start + gm[0].dur === gw.start && gm[1].start === gw.end,
    JSON.stringify(gm).slice(0, 300));
  check('gpu-starv click: the first marked event is selected and drawn in view', st.sel === st.marks[0] && st.selPoint !== null, JSON.stringify(st));
  check('gpu-starv click: its button is active, no other', JSON.stringify(st.active) === JSON.stringify([`${gs}/-`]), JSON.stringify(st.active));
  check('gpu-starv click: the line under the list says what is shown', st.info.startsWith('gpu-starv: ') && st.info.includes('2 events outlined'), st.info);

  await page.click(BTN(sa));
  await frame(page);
  const st2 = await state(page);
  const se = await ev(st2.sel);
  check('cuda-sync-api click: the view moves to the sync call', inside(st2.view, sw) && st2.view.start !== st.view.start &&
    !inside(st2.view, gw), JSON.stringify([st2.view, sw]));
  check('cuda-sync-api click: the cudaDeviceSynchronize call is selected', st2.sel !== st.sel && st2.marks.includes(st2.sel) &&
    se.laneKind === 'cpu' && /^cudaDeviceSynchronize/.test(se.name) && se.start === sw.start && se.start + se.dur === sw.end, JSON.stringify(se));
  check('cuda-sync-api click: the active button moves to it', JSON.stringify(st2.active) === JSON.stringify([`${sa}/-`]), JSON.stringify(st2.active));

  // a row of a many-row finding: that row's window, the copy selected with its cudaMemcpy as partner
  const sm = idx('cuda-sync-memcpy'), mw = rel(cliWindow(cli('cuda-sync-memcpy'), 1));
  await page.click(`#findings-list > li:nth-child(${sm + 1}) details > summary`);
  await page.click(`#findings-list button[data-f="${sm}"][data-k="1"]`);
  await frame(page);
  const st3 = await state(page);
  const me = await ev(st3.sel), mp = st3.partner >= 0 ? await ev(st3.partner) : null;
  check('cuda-sync-memcpy row 2 click: the view holds that row\'s window', inside(st3.view, mw) && JSON.stringify(st3.win) === JSON.stringify(mw),
    JSON.stringify([st3.view, st3.win, mw]));
  check('cuda-sync-memcpy row 2 click: the copy is selected, its cudaMemcpy the partner', me.kind === 'memcpy' && mp && /^cudaMemcpy/.test(mp.name),
    JSON.stringify([me, mp]));
  // (the timeline marks the finding's own button too while one of its rows is shown)
  check('cuda-sync-memcpy row 2 click: the row button and its finding\'s button are active, no other',
    JSON.stringify(st3.active) === JSON.stringify([`${sm}/-`, `${sm}/1`]), JSON.stringify(st3.active));

  // the finding's own button shows its first row
  await page.click(BTN(sm));
  const st3b = await state(page);
  check('cuda-sync-memcpy click: its first row\'s window, that row and the finding active',
    JSON.stringify(st3b.win) === JSON.stringify(rel(cliWindow(cli('cuda-sync-memcpy'), 0))) &&
    JSON.stringify(st3b.active) === JSON.stringify([`${sm}/-`, `${sm}/0`]) && inside(st3b.view, st3b.win), JSON.stringify(st3b));

  // a kernel named without a window (launch-overhead): every event of that name, the view fitted to them
  const lo = idx('launch-overhead'), kname = cli('launch-overhead').rows[0].Name;
  await page.click(BTN(lo));
  const st4 = await state(page);
  const lm = await Promise.all(st4.marks.slice(0, 50).map(ev));
  const kcount = D.events.filter((e) => D.names[e[4]] === kname).length;
  check('launch-overhead click: no window, every event of its first kernel marked, the first selected',
    st4.win === null && F[lo].window === null && st4.marks.length === kcount && kcount > 0 && lm.every((e) => e.name === kname) && st4.sel === st4.marks[0],
    `${st4.marks.length} marks, ${kcount} events named ${kname.slice(0, 40)}`);
  const ext = await page.evaluate((m) => {
    let a = Infinity, b = -Infinity;
    for (const i of m) { const e = window.__gf.event(i); a = Math.min(a, e.start); b = Math.max(b, e.start + e.dur); }
    return { start: a, end: b };
  }, st4.marks);
  check('launch-overhead click: the view fits the marked events (5 % margin)', inside(st4.view, ext) &&
    st4.view.end - st4.view.start <= (ext.end - ext.start) * 1.1 + 1002, JSON.stringify([st4.view, ext]));

  // a finding with nothing to show (no window, no kernel): the view and selection stay
  const none = F.findIndex((f) => f.targets === 0);
  if (none < 0) skip('tile_8x8: finding without a target', 'none in this capture');
  else {
    await page.evaluate(([a, b]) => window.__gf.setView(a, b), [D.span * 0.4, D.span * 0.5]);
    const before = await state(page);
    await page.click(BTN(none));
    const st5 = await state(page);
    check(`${F[none].rule} click (no target): the view does not move`, JSON.stringify(st5.view) === JSON.stringify(before.view), JSON.stringify([before.view, st5.view]));
    check(`${F[none].rule} click (no target): nothing marked or selected, the line says so`, st5.win === null && st5.marks.length === 0 &&
      st5.sel === -1 && st5.info.includes('nothing on the timeline to show') && JSON.stringify(st5.active) === JSON.stringify([`${none}/-`]), JSON.stringify(st5));
  }

  // 3. keyboard: the buttons take the focus, Tab walks them, Enter shows, Esc clears
  await page.focus(BTN(0));
  let reached = false;
  for (let k = 0; k < 3 * F.length + 10 && !reached; k++) {
    await page.keyboard.press('Tab');
    reached = await page.evaluate((i) => document.activeElement && document.activeElement.matches(`#findings-list button[data-f="${i}"]:not([data-k])`), sa);
  }
  check('keyboard: Tab reaches the cuda-sync-api button', reached);
  await page.evaluate(([a, b]) => window.__gf.setView(a, b), away);
  await page.keyboard.press('Enter');
  await frame(page);
  const st6 = await state(page);
  check('keyboard: Enter on the focused finding shows it as a click does', inside(st6.view, sw) && st6.sel === st2.sel &&
    JSON.stringify(st6.active) === JSON.stringify([`${sa}/-`]), JSON.stringify(st6));
  await page.keyboard.press('Escape');
  const st7 = await state(page);
  check('keyboard: Esc clears the shown finding (the selection stays)', st7.win === null && st7.marks.length === 0 && st7.active.length === 0 &&
    st7.info === '' && st7.sel === st6.sel, JSON.stringify(st7));

  // the hook does what the click does
  const r = await page.evaluate((i) => window.__gf.showFinding(i), gs);
  check('__gf.showFinding(i) = a click: window, marks, selection', r && JSON.stringify(r.window) === JSON.stringify(gw) &&
    JSON.stringify(r.marks) === JSON.stringify(st.marks) && r.selected === st.sel, JSON.stringify(r));
  check('__gf.showFinding(out of range) -> null', await page.evaluate((n) => window.__gf.showFinding(n), F.length) === null);
  check('tile_8x8: self-contained page', !/https?:\/\//.test(readFileSync(file, 'utf8')));
  clean('tile_8x8', log);
  await page.close();
}

async function state(page) {
  return page.evaluate(() => {
    const g = window.__gf, sel = g.selected();
    return { view: g.view(), sel, partner: g.partner(), marks: g.findingMarks(), win: g.findingWindow(),
      selPoint: sel >= 0 ? g.eventPoint(sel) : null,
      info: document.getElementById('finding-info').textContent,
      active: [...document.querySelectorAll('#findings-list button.active')].map((b) => `${b.dataset.f}/${b.dataset.k ?? '-'}`) };
  });
}

// 4. A rule on the search path (GPUFLAME_PATH/rules) whose verdict, description, advice and kernel name
// are markup, on a generated export: the panel shows them as text and nothing runs.
async function hostileRule() {
  const dir = path.join(TMP, 'fp-path'), db = path.join(TMP, 'fp-planted.sqlite');
  mkdirSync(path.join(dir, 'rules'), { recursive: true });
  execFileSync('python3', [path.join(TOP, 'tests/gen/findings_export.py'), 'planted', db]);
  const H = `</script><img src=x onerror="window.__pwned='img'"><script>window.__pwned='script'</script>`;
  writeFileSync(path.join(dir, 'rules', 'evil.lua'), `local h = ${JSON.stringify(H)}
return { name = "evil", description = h, options = {}, run = function()
  return { columns = { "Start (ns)", "Duration (ns)", "Device ID", "Name" }, rows = { { 10500000000, 600000000, 0, h } },
    verdict = h, severity = "warning", advice = h }
end }
`);
  const pol = policy('evil.lua', 'return { findings = { rules = { "gpu-starv", "evil" } } }\n');
  const tl = path.join(TMP, 'fp-evil-tl.html'), fg = path.join(TMP, 'fp-evil-fg.html');
  gf(['-q', '--policy', pol, 'timeline', db, '-o', tl], { GPUFLAME_PATH: dir });
  gf(['-q', '--policy', pol, 'flamegraph', db, '-o', fg], { GPUFLAME_PATH: dir });
  for (const f of [tl, fg]) check(`hostile rule: ${path.basename(f)}: the markup never raw in the file`, !readFileSync(f, 'utf8').includes('<img src=x'));
  const safe = (page) => page.evaluate(() => ({ pwned: window.__pwned, alerted: window.__alerted,
    injected: document.querySelectorAll('img, [onerror]').length, scripts: document.scripts.length }));
  {
    const { page, log } = await openGuarded(browser, tl, tlReady);
    await page.click('#findings-summary'); // the timeline's panel opens folded (issue 41)
    const F = await page.evaluate(() => window.__gf.findings());
    const e = F.findIndex((f) => f.rule === 'evil');
    check('hostile rule (timeline): listed, its verdict as the exact text', e >= 0 && F[e].text === H && F[e].severity === 'warning', JSON.stringify(F).slice(0, 300));
    const btnText = await page.textContent(BTN(e));
    const title = await page.getAttribute(BTN(e), 'title');
    check('hostile rule (timeline): the button shows the markup as text, advice as its title', btnText.includes(H) && title === H, `${btnText.slice(0, 200)} | ${title}`);
    await page.click(BTN(e));
    await frame(page);
    const info = await page.textContent('#finding-info');
    check('hostile rule (timeline): a click shows its window; the kernel name is text in the line', info.startsWith('evil: ') && info.includes(`kernel ${H}`) &&
      JSON.stringify(await page.evaluate(() => window.__gf.findingWindow())) === JSON.stringify(F[e].window) && F[e].window !== null, info.slice(0, 300));
    const s = await safe(page);
    check('hostile rule (timeline): no script ran, nothing injected, only the page\'s 8 scripts', s.pwned === undefined && s.alerted === 0 &&
      s.injected === 0 && s.scripts === 8, JSON.stringify(s));
    clean('hostile rule (timeline)', log);
    await page.close();
  }
  {
    const { page, log } = await openGuarded(browser, fg, fgReady);
    const F = await page.evaluate(() => window.gpuflame.findings());
    const e = F.findIndex((f) => f.rule === 'evil');
    check('hostile rule (flamegraph): listed with the markup as text', e >= 0 && F[e].text === H && (await page.textContent(BTN(e))).includes(H));
    await page.click(BTN(e));
    const st = await page.evaluate(() => window.gpuflame.state());
    check('hostile rule (flamegraph): a click searches for the markup kernel name literally',
      st.search === '^(?:' + H.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + ')$', st.search);
    const s = await safe(page);
    check('hostile rule (flamegraph): no script ran, nothing injected', s.pwned === undefined && s.alerted === 0 && s.injected === 0, JSON.stringify(s));
    clean('hostile rule (flamegraph)', log);
    await page.close();
  }
}

// 5. policy findings.pages = false: the slot is null, the panel stays hidden, the hooks list nothing.
async function noPages() {
  if (!existsSync(SHEET)) { skip('findings.pages = false', 'fixtures absent'); return; }
  const tl = path.join(TMP, 'fp-nopages-tl.html'), fg = path.join(TMP, 'fp-nopages-fg.html');
  gf(['-q', '--policy', NOPAGES, 'timeline', SHEET, '-o', tl]);
  gf(['-q', '--policy', NOPAGES, 'flamegraph', SHEET, '-o', fg]);
  for (const [f, ready, hook, id] of [[tl, tlReady, () => window.__gf.findings(), 'gf-findings'],
    [fg, fgReady, () => window.gpuflame.findings(), 'fg-findings']]) {
    const name = `findings.pages = false (${path.basename(f)})`;
    const { page, log } = await openGuarded(browser, f, ready);
    const s = await page.evaluate((i) => ({ slot: document.getElementById(i).textContent.trim(),
      hidden: document.getElementById('findings').hidden, buttons: document.querySelectorAll('#findings-list button').length }), id);
    check(`${name}: null slot, panel hidden, no entries`, s.slot === 'null' && s.hidden && s.buttons === 0 && !(await page.isVisible('#findings')), JSON.stringify(s));
    check(`${name}: the findings hook lists none`, JSON.stringify(await page.evaluate(hook)) === '[]');
    clean(name, log);
    await page.close();
  }
}

// 6. the flamegraph page of the same export: the same panel; a click on a finding that names kernels
// highlights their frames through an exact-name search, one with only a window says so in text.
async function flamegraphPanel() {
  if (!existsSync(SHEET)) { skip('flamegraph findings panel on tile_8x8', 'fixtures absent'); return; }
  const file = path.join(TMP, 'fp-tile-fg.html');
  gf(['-q', '--policy', GAP1, 'flamegraph', SHEET, '-o', file]);
  const CLI = JSON.parse(gf(['--policy', GAP1, 'findings', SHEET, '-f', 'json'])).findings;
  const { page, log } = await openGuarded(browser, file, fgReady);
  const F = await page.evaluate(() => window.gpuflame.findings());
  const P = await panel(page);
  const want = CLI.map((f) => ({ rule: f.rule, sev: cliSeverity(f), text: cliText(f) }));
  check('flamegraph: findings panel visible', !P.hidden && await page.isVisible('#findings-list'));
  check('flamegraph: the entries and hook are the CLI\'s findings (rule, severity, text)', P.entries.length === CLI.length &&
    JSON.stringify(F.map((f) => ({ rule: f.rule, sev: f.severity, text: f.text }))) === JSON.stringify(want) &&
    JSON.stringify(P.entries.map((e) => ({ rule: e.rule, sev: e.sev, text: e.text.trim() }))) === JSON.stringify(want),
    JSON.stringify(P.entries).slice(0, 300));
  check('flamegraph: summary counts the severities', P.summary === `Findings (tile_8x8.sqlite): ${summaryOf(want.map((w) => w.sev))}`, P.summary);

  const lo = F.findIndex((f) => f.rule === 'launch-overhead');
  const kernels = CLI.find((f) => f.rule === 'launch-overhead').rows.map((r) => r.Name);
  check('flamegraph: launch-overhead names the CLI\'s kernels', JSON.stringify(F[lo].kernels) === JSON.stringify(kernels));
  await page.click(BTN(lo));
  let st = await page.evaluate(() => ({ s: window.gpuflame.state(), names: window.gpuflame.matchedNames(),
    info: document.getElementById('finding-info').textContent }));
  let active = (await panel(page)).active;
  check('flamegraph: launch-overhead click highlights exactly its kernels\' frames', JSON.stringify([...new Set(st.names)].sort()) ===
    JSON.stringify([...kernels].sort()) && st.s.matched.startsWith('Matched:'), JSON.stringify(st).slice(0, 400));
  check('flamegraph: launch-overhead click: button active, line says how many kernels', JSON.stringify(active) === JSON.stringify([`${lo}/-`]) &&
    st.info.startsWith(`launch-overhead: ${kernels.length} kernels highlighted (Matched:`), `${active} ${st.info}`);
  // its row 2: that kernel alone
  await page.click(`#findings-list > li:nth-child(${lo + 1}) details > summary`);
  await page.click(`#findings-list button[data-f="${lo}"][data-k="1"]`);
  st = await page.evaluate(() => ({ names: window.gpuflame.matchedNames(), info: document.getElementById('finding-info').textContent }));
  active = (await panel(page)).active;
  check('flamegraph: a row click highlights that row\'s kernel only, the row button active',
    JSON.stringify([...new Set(st.names)]) === JSON.stringify([kernels[1]]) && JSON.stringify(active) === JSON.stringify([`${lo}/1`]), JSON.stringify([st, active]).slice(0, 300));
  // a finding with a window and no kernel: the search stays, the window is text
  const gs = F.findIndex((f) => f.rule === 'gpu-starv'), gw = cliWindow(CLI.find((f) => f.rule === 'gpu-starv'));
  const before = await page.evaluate(() => window.gpuflame.state().search);
  await page.click(BTN(gs));
  st = await page.evaluate(() => ({ s: window.gpuflame.state(), info: document.getElementById('finding-info').textContent }));
  active = (await panel(page)).active;
  check('flamegraph: gpu-starv click (window, no kernel): says so, the window as text, search unchanged',
    st.info.startsWith('gpu-starv: names no kernel to highlight · window ') && st.s.search === before &&
    JSON.stringify(F[gs].window) === JSON.stringify(gw) && JSON.stringify(active) === JSON.stringify([`${gs}/-`]), JSON.stringify([st, active, F[gs].window, gw]).slice(0, 400));
  // keyboard
  await page.focus(BTN(lo));
  await page.keyboard.press('Enter');
  active = (await panel(page)).active;
  check('flamegraph: Enter on a focused finding button activates it', JSON.stringify(active) === JSON.stringify([`${lo}/-`]), JSON.stringify(active));
  clean('flamegraph', log);
  await page.close();
}
