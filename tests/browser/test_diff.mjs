// The `gpuflame diff` page in headless Chromium, opened from disk: colours by change (red grew, blue
// shrank, hatched one-sided frames, vanished frames drawn), hover with before/after/delta and both
// totals' shares, the AFTER/BEFORE and normalised/absolute toggles, view/size/scale/zoom/search in the URL
// fragment, the ranked table, hostile names inert, no network, launch-stack view when both sides have
// backtraces.
import { chromium } from "playwright-core";
import { spawnSync } from "node:child_process";
import { writeFileSync, existsSync, readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const tmp = process.env.GF_TMP || "/tmp";
const bin = process.env.GPUFLAME_BIN;
const top = process.env.GF_TOP || new URL("../..", import.meta.url).pathname;
let failed = 0;
const ok = (n) => console.log(`ok - ${n}`);
const notOk = (n, why) => { console.log(`not ok - ${n}: ${why}`); failed++; };
const check = (n, cond, why) => (cond ? ok(n) : notOk(n, why || "condition false"));

if (!existsSync("/usr/bin/chromium")) {
  console.log("skip - diff browser tests: /usr/bin/chromium absent");
  process.exit(0);
}

const H = {
  img: `<img src=x onerror="window.__pwned='img'">`,
  script: `</script><script>window.__pwned='script'</script>`,
  net: `"><iframe src="http://198.51.100.7/x"></iframe>`,
  seps: `sep\u2028line<svg onload="window.__pwned='svg'">`,
  ctl: `ctl\u0001\u0007\u001b[31m\u007f<b>bold</b>`,
  long: "L" + "x<".repeat(49999) + "Z", // 100,000 characters
};
const P = "gpu;nsys;cuda_kernel;";
const meta = '# {"unit_ns":1}\n';
const before = meta + [
  `${P}grew_kernel 1000`, `${P}shrank_kernel 4000`, `${P}same_kernel 2000`, `${P}vanished_kernel 1000`,
  `${P}${H.img} 500`, `${P}${H.script} 500`, `${P}${H.seps} 500`,
].join("\n") + "\n";
const after = meta + [
  `${P}grew_kernel 3000`, `${P}shrank_kernel 1000`, `${P}same_kernel 2000`, `${P}new_kernel 1500`,
  `${P}${H.img} 500`, `${P}${H.script} 900`, `${P}${H.net} 400`, `${P}${H.ctl} 60`, `${P}${H.long} 40`,
].join("\n") + "\n";
writeFileSync(`${tmp}/before.folded`, before);
writeFileSync(`${tmp}/after.folded`, after);
const page1 = `${tmp}/diff.html`;
const r = spawnSync(bin, ["-q", "diff", `${tmp}/before.folded`, `${tmp}/after.folded`, "-o", page1, "--title", H.script], { encoding: "utf8" });
check("diff of folded inputs: exit 0 or 10", r.status === 0 || r.status === 10, `${r.status} ${r.stderr}`);
const html = readFileSync(page1, "utf8");
check("raw payload markup never appears unescaped", !html.includes("<img src=x") && !html.includes("<iframe") &&
  !html.includes("<svg onload") && !html.includes("<script>window.__pwned"));
const outside = html.replace(/<script[^>]*type="application\/json"[^>]*>[\s\S]*?<\/script>/g, "");
check("no http:// or https:// outside the JSON data", !/https?:\/\//.test(outside), (outside.match(/.{40}https?:\/\/.{40}/) || [""])[0]);

// a pair of sample exports with launch backtraces (tests/gen/sample_export.py), one kernel family removed
let page2 = null;
const g1 = spawnSync("python3", [`${top}/tests/gen/sample_export.py`, `${tmp}/s1.sqlite`, "--seed", "1"]);
const g2 = spawnSync("python3", [`${top}/tests/gen/sample_export.py`, `${tmp}/s2.sqlite`, "--seed", "2", "--steps", "12"]);
if (g1.status === 0 && g2.status === 0) {
  spawnSync("sqlite3", [`${tmp}/s2.sqlite`, "DELETE FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE demangledName IN (SELECT id FROM StringIds WHERE value LIKE '%nccl%')"]);
  page2 = `${tmp}/diff-launch.html`;
  // 20 steps against 12: the work differs, so the verdict is "not comparable" (exit 11; docs/DIFF.md)
  const r2 = spawnSync(bin, ["-q", "diff", `${tmp}/s1.sqlite`, `${tmp}/s2.sqlite`, "-o", page2], { encoding: "utf8" });
  check("20 steps against 12: not comparable, exit 11", r2.status === 11, `${r2.status} ${r2.stderr}`);
}

// two loops whose data loading differs by 10 ms a gap (tests/gen/steps_export.py loader, slowloader): the loop
// table's numbers are known by construction (docs/DIFF.md "The loop")
let page4 = null;
const l1 = spawnSync("python3", [`${top}/tests/gen/steps_export.py`, "loader", `${tmp}/loader.sqlite`]);
const l2 = spawnSync("python3", [`${top}/tests/gen/steps_export.py`, "slowloader", `${tmp}/slowloader.sqlite`]);
if (l1.status === 0 && l2.status === 0) {
  page4 = `${tmp}/diff-loop.html`;
  const r4 = spawnSync(bin, ["-q", "diff", `${tmp}/loader.sqlite`, `${tmp}/slowloader.sqlite`, "-o", page4], { encoding: "utf8" });
  check("loader → slowloader: a regression of the loop, exit 10", r4.status === 10, `${r4.status} ${r4.stderr}`);
}

const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
});

async function open(file, hash) {
  const page = await browser.newPage({ viewport: { width: 1300, height: 900 } });
  const log = { errors: [], requests: [], dialogs: [] };
  page.on("pageerror", (e) => log.errors.push(String(e)));
  page.on("console", (m) => { if (m.type() === "error") log.errors.push(m.text()); });
  page.on("dialog", async (d) => { log.dialogs.push(d.message()); await d.dismiss(); });
  await page.route("**/*", (route) => {
    const u = route.request().url();
    if (/^(file|data):/.test(u)) return route.continue();
    log.requests.push(u);
    return route.abort();
  });
  await page.addInitScript(() => { window.__pwned = undefined; window.alert = window.confirm = window.prompt = () => { window.__alerted = 1; }; });
  await page.goto(pathToFileURL(file).href + (hash || ""));
  await page.waitForFunction(() => window.gpuflameDiff && window.gpuflameDiff.state().nodes > 0);
  return { page, log };
}
const rgb = (s) => (s.match(/\d+/g) || []).map(Number);
const frame = (page, name) => page.evaluate((n) => window.gpuflameDiff.frame(n), name);
async function pixel(page, x, y) {
  return page.evaluate(([x, y]) => {
    const c = document.getElementById("fg"), r = c.getBoundingClientRect(), d = window.devicePixelRatio || 1;
    return Array.from(c.getContext("2d").getImageData(Math.round((x - r.left) * d), Math.round((y - r.top) * d), 1, 1).data);
  }, [x, y]);
}

try {
  const { page, log } = await open(page1);
  let st = await page.evaluate(() => window.gpuflameDiff.state());
  check("defaults: kernel flame, sized by AFTER, normalised", st.view === "kernels" && st.size === "after" && st.scale === "norm", JSON.stringify(st));
  check("title is text", (await page.textContent("#title")) === H.script);
  check("verdict shown", /regression/i.test(st.verdict), st.verdict);

  // table: ranked by |delta|; the grew kernel (+2000) and shrank kernel (-3000) lead
  const firstRows = await page.$$eval("#kernels tbody tr", (rows) => rows.slice(0, 3).map((r) => r.children[1].textContent));
  check("table ranked by |Δ total time|", firstRows[0] === "shrank_kernel" && firstRows[1] === "grew_kernel", firstRows.join(" | "));
  check("new and vanished lists", (await page.textContent("#new")).includes("new_kernel") &&
    (await page.textContent("#vanished")).includes("vanished_kernel"));
  check("caveat: no capture metadata stated", (await page.textContent("#caveats")).includes("capture metadata"));

  // colours in the absolute view: grew red, shrank blue, same neutral; one-sided frames marked
  await page.click("#m-abs");
  const grew = await frame(page, "grew_kernel"), shrank = await frame(page, "shrank_kernel"), same = await frame(page, "same_kernel");
  const [gr, gg, gb] = rgb(grew.color), [sr, , sb] = rgb(shrank.color);
  check("grew is red", gr > 200 && gb < 120 && gg < 120, grew.color);
  check("shrank is blue", sb > sr + 60, shrank.color);
  check("unchanged is neutral", same.color === "rgb(238,238,238)", same.color);
  const nw = await frame(page, "new_kernel"), gone = await frame(page, "vanished_kernel");
  check("new frame marked one-sided", nw.status === "new", JSON.stringify(nw));
  check("vanished frame drawn when sized by AFTER, with its BEFORE width", gone.status === "vanished" && gone.rect &&
    gone.rect.width > 10 && gone.layoutWidth === 1000, JSON.stringify(gone));
  // intensity by relative change: +200% saturates more than a +80% change
  const hs = await frame(page, H.script);
  check("intensity grows with the relative change", rgb(hs.color)[1] > gg, `${hs.color} vs ${grew.color}`);
  // the canvas really shows them: red-dominant pixel on grew, blue-dominant pixel on vanished
  const pg = await pixel(page, grew.rect.x + grew.rect.width / 2, grew.rect.y + 8);
  check("canvas: grew frame painted red", pg[0] > 180 && pg[2] < 140, pg.join(","));
  const row = [];
  for (let i = 2; i < 12; i++) row.push(await pixel(page, gone.rect.x + i, gone.rect.y + 8));
  const blue = row.filter((p) => p[2] > p[0] + 40).length, distinct = new Set(row.map((p) => p.join())).size;
  check("canvas: vanished frame painted blue with the hatch", blue > 0 && distinct > 1, row.map((p) => p.join(",")).join(" "));
  check("legend explains colours and marks", /shrank/.test(await page.textContent("#legend")) &&
    /new: only in AFTER/.test(await page.textContent("#legend")) && /vanished: only in BEFORE/.test(await page.textContent("#legend")));
  check("scale kept in the URL", (await page.evaluate(() => location.hash)).includes("scale=abs"));

  // normalised view: same_kernel is 2000 of 9500 BEFORE and 2000 of 9300 AFTER → its share grew
  await page.click("#m-norm");
  const sameN = await frame(page, "same_kernel");
  check("normalised: an unchanged time with a smaller total is a growing share (red)", rgb(sameN.color)[0] > rgb(sameN.color)[2], sameN.color);

  // hover
  const grewN = await frame(page, "grew_kernel");
  await page.mouse.move(grewN.rect.x + grewN.rect.width / 2, grewN.rect.y + 8);
  const tipText = await page.textContent("#tip");
  check("hover: name, before, after, delta, % of both totals", tipText.includes("grew_kernel") && tipText.includes("before: 1.0 µs") &&
    tipText.includes("after: 3.0 µs") && tipText.includes("delta: +2.0 µs (+200.0%)") && tipText.includes("of BEFORE total 9.5 µs") &&
    tipText.includes("of AFTER total 9.4 µs"), tipText);
  const gr2 = await frame(page, "vanished_kernel");
  await page.mouse.move(gr2.rect.x + gr2.rect.width / 2, gr2.rect.y + 8);
  check("hover on a vanished frame says so", (await page.textContent("#tip")).includes("only in BEFORE (vanished)"));

  // toggle to BEFORE: the new frame becomes the ghost, sized by its AFTER time
  await page.click("#s-before");
  const nw2 = await frame(page, "new_kernel"), gone2 = await frame(page, "vanished_kernel");
  check("size by BEFORE: new frame drawn with its AFTER width", nw2.rect && nw2.layoutWidth > 0, JSON.stringify(nw2));
  check("size by BEFORE: vanished frame is a regular one now", gone2.rect && Math.abs(gone2.layoutWidth - 1000 / 9500) < 1e-9, JSON.stringify(gone2));
  check("size kept in the URL", (await page.evaluate(() => location.hash)).includes("size=before"));

  // search and zoom in the URL; reload restores everything
  await page.fill("#search", "^(grew|shrank|same|vanished|new)_kernel$");
  await page.waitForFunction(() => document.getElementById("matched").textContent.startsWith("Matched:"));
  check("search: matched share of the sized side", (await page.textContent("#matched")) === "Matched: 84.2% of BEFORE", await page.textContent("#matched"));
  const gk = await frame(page, "grew_kernel");
  await page.mouse.click(gk.rect.x + gk.rect.width / 2, gk.rect.y + 8);
  st = await page.evaluate(() => window.gpuflameDiff.state());
  check("click zooms", st.zoomName === "grew_kernel", JSON.stringify(st));
  const hash = await page.evaluate(() => location.hash);
  check("fragment holds size, zoom and search", /size=before/.test(hash) && /zoom=\d+/.test(hash) && /search=%5E\(grew/.test(hash), hash);
  await page.reload();
  await page.waitForFunction(() => window.gpuflameDiff && window.gpuflameDiff.state().nodes > 0);
  st = await page.evaluate(() => window.gpuflameDiff.state());
  check("reload restores size, scale, zoom and search", st.size === "before" && st.scale === "norm" && st.zoomName === "grew_kernel" &&
    st.search === "^(grew|shrank|same|vanished|new)_kernel$" && st.matched === "Matched: 84.2% of BEFORE", JSON.stringify(st));
  await page.click("#reset");
  check("reset zoom", (await page.evaluate(() => window.gpuflameDiff.state())).zoom === 0);
  // a kernel name in the table searches the flame for exactly it
  await page.click("#kernels tbody tr:nth-child(2) td:nth-child(2) a");
  await page.waitForTimeout(50);
  check("table link searches the flame", (await page.evaluate(() => window.gpuflameDiff.state())).search === "^grew_kernel$");
  check("launch view unavailable without backtraces", await page.isDisabled("#v-launch"));

  // hostile names: exact text in frames and table, nothing executed, nothing fetched
  check("hostile names are frames with that exact text", (await frame(page, H.img)) !== null && (await frame(page, H.net)) !== null &&
    (await frame(page, H.ctl)) !== null && (await frame(page, H.long)) !== null);
  const tableText = await page.textContent("#kernels");
  check("hostile names are table text", tableText.includes(H.img) && tableText.includes(H.script));
  const safe = await page.evaluate(() => ({ pwned: window.__pwned, alerted: window.__alerted,
    injected: document.querySelectorAll("img, iframe, object, embed, svg, [onerror], [onload], [onmouseover]").length, scripts: document.scripts.length }));
  check("no payload executed, no injected elements, only the page's 5 scripts", safe.pwned === undefined && !safe.alerted &&
    safe.injected === 0 && safe.scripts === 5 && log.dialogs.length === 0, JSON.stringify(safe));
  check("no network requests", log.requests.length === 0, log.requests.join(" "));
  check("folded inputs: no loop table", !(await page.isVisible("#loopwrap")));
  check("no page errors", log.errors.length === 0, log.errors.join(" | "));
  await page.close();

  // an opening fragment is honoured
  const o2 = await open(page1, "#size=before&scale=abs&search=new");
  st = await o2.page.evaluate(() => window.gpuflameDiff.state());
  check("opening with a fragment sets size, scale and search", st.size === "before" && st.scale === "abs" && st.search === "new" &&
    st.matched.startsWith("Matched:"), JSON.stringify(st));
  await o2.page.close();

  if (page4) {
    const o4 = await open(page4);
    const rows = await o4.page.$$eval("#loop tbody tr", (trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent.trim())));
    const want = [
      ["an iteration (a step's start to the next one's)", "36.667 ms", "46.667 ms", "+10.000 ms", "+27.3%"],
      ["the steps with their GPU work", "13.000 ms", "13.000 ms", "\u00b10 ns", "\u00b10.0%"],
      ["outside them", "23.667 ms", "33.667 ms", "+10.000 ms", "+42.3%"],
      ["in the gaps, NVTX range Data loading", "17.000 ms", "27.000 ms", "+10.000 ms", "+58.8%"],
    ];
    for (const w of want) {
      const got = rows.find((r) => r[0] === w[0]);
      check(`loop table: ${w[0]}`, got && JSON.stringify(got) === JSON.stringify(w), JSON.stringify(got));
    }
    check("loop table: the medians of the step and the gap", rows.some((r) => r[0] === "median gap" && r[1] === "20.000 ms" && r[2] === "30.000 ms"),
      JSON.stringify(rows));
    const where = await o4.page.textContent("#loopwhere"), note = await o4.page.textContent("#loopnote");
    check("loop: where the change is, and the steps' rule", where.includes("outside the steps and their GPU work") &&
      where.includes("step N"), where);
    check("loop: means over 6 and 6 iterations", note.includes("means over 6 and 6 iterations"), note);
    check("loop page: the verdict names the loop", (await o4.page.textContent("#reasons")).includes("the loop's mean iteration grew +27.3%"));
    check("loop page: no page errors", o4.log.errors.length === 0 && o4.log.requests.length === 0, o4.log.errors.join(" | "));
    await o4.page.close();
  } else {
    console.log("skip - the loop table: steps_export.py could not write the exports (python3)");
  }
  if (page2) {
    const o3 = await open(page2);
    check("launch view enabled when both sides have backtraces", !(await o3.page.isDisabled("#v-launch")));
    const wk = await o3.page.evaluate(() => ({ verdict: document.getElementById("verdict").textContent,
      work: [...document.querySelectorAll("#work tbody tr")].map((tr) => tr.cells[0].textContent) }));
    check("not comparable: the verdict says so and the work table names the steps",
      wk.verdict === "NOT COMPARABLE (exit 11)" && wk.work.includes("NVTX ranges step #"), JSON.stringify(wk));
    await o3.page.click("#v-launch");
    st = await o3.page.evaluate(() => window.gpuflameDiff.state());
    check("launch view: stacks ending in kernels", st.view === "launch" && (await o3.page.evaluate(() => location.hash)).includes("view=launch"),
      JSON.stringify(st));
    const nccl = await o3.page.evaluate(() => {
      for (const n of ["ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)_[G]"]) { const f = window.gpuflameDiff.frame(n); if (f) return f; }
      return null;
    });
    check("launch view: the removed kernel is a vanished leaf, drawn", nccl && nccl.status === "vanished" && nccl.rect && nccl.rect.width > 1, JSON.stringify(nccl));
    check("launch view: no page errors", o3.log.errors.length === 0 && o3.log.requests.length === 0, o3.log.errors.join(" | "));
    await o3.page.close();
  } else {
    console.log("skip - launch-stack view: sample exports could not be generated (python3)");
  }
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
