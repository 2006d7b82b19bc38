// Browser safety (issue 8 §5): flamegraph and timeline pages rendered by the real binary from inputs
// whose names carry HTML, javascript: URLs, </script>, <!--, U+2028/U+2029, control characters, and a
// 100,000-character name. In headless Chromium: no script ran (alert/confirm/prompt overridden, each
// payload sets window.__pwned if it ever executes, no injected elements), no request left the file
// (anything not file:// or data: is aborted and recorded), and the page still works (click zooms or
// selects the hostile item, search finds it).
import { chromium } from "playwright-core";
import { execFileSync } from "node:child_process";
import { writeFileSync, existsSync, readFileSync } from "node:fs";
import { pageData, openGuarded } from "./timeline_lib.mjs";

const HOSTILE_VIEW = { width: 1300, height: 800 };

const tmp = process.env.GF_TMP || "/tmp";
const bin = process.env.GPUFLAME_BIN;
let failed = 0;
const ok = (n) => console.log(`ok - ${n}`);
const notOk = (n, why) => { console.log(`not ok - ${n}: ${why}`); failed++; };
const check = (n, cond, why) => (cond ? ok(n) : notOk(n, why || "condition false"));

if (!existsSync("/usr/bin/chromium")) {
  console.log("skip - hostile pages: /usr/bin/chromium absent");
  process.exit(0);
}

// Every payload would set window.__pwned (or call alert) if the page ever executed it.
const P = {
  img: `<img src=x onerror="window.__pwned='img'">`,
  js: `javascript:window.__pwned='js'`,
  script: `</script><script>window.__pwned='script'</script>`,
  comment: `<!--<script>window.__pwned='comment'</script>`,
  seps: `sep\u2028line\u2029para<svg onload="window.__pwned='svg'">`,
  ctl: `ctl\u0001\u0007\u001b[31m\u007f<b>bold</b>`,
  net: `"><iframe src="http://198.51.100.7/x"></iframe><link rel=stylesheet href="https://198.51.100.7/x.css">`,
  attr: `' onmouseover='window.__pwned=1' x='`,
  long: "L" + "x<".repeat(49999) + "Z", // 100,000 characters
};
const names = Object.values(P);

// --- inputs -------------------------------------------------------------------------------------------
const folded = names.map((n, i) => `gpu;nsys;cuda_kernel;${n} ${100 + i * 10}`).join("\n") + "\ngpu;nsys;cuda_api;cudaLaunchKernel 50\n";
writeFileSync(`${tmp}/hostile.folded`, folded);
const csvq = (s) => `"${s.replace(/"/g, '""')}"`;
const GH = "Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem (MB),DymSMem (MB),Bytes (MB),Throughput (MBps),SrcMemKd,DstMemKd,Device,Ctx,Strm,Name";
const AH = "Start (ns),Duration (ns),Name,Result,CorrID,Pid,Tid,T-Pri,Thread Name";
let g = GH + "\n", a = AH + "\n";
names.forEach((n, i) => {
  const t = 10000 + i * 20000;
  g += `${t + 1000},${8000 + i * 100},${i + 1},160,1,1,256,1,1,32,0.000,0.000,,,,,GPU (0),1,7,${csvq(n)}\n`;
  a += `${t},500,${csvq("cudaLaunchKernel" + (i === 0 ? P.script : ""))},0,${i + 1},42,42,20,${csvq(P.img)}\n`;
});
writeFileSync(`${tmp}/hostile_gpu.csv`, g);
writeFileSync(`${tmp}/hostile_api.csv`, a);
const fgPage = `${tmp}/hostile-fg.html`, tlPage = `${tmp}/hostile-tl.html`;
execFileSync(bin, ["-q", "flamegraph", `${tmp}/hostile.folded`, "-o", fgPage, "--title", P.script]);
execFileSync(bin, ["-q", "timeline", `${tmp}/hostile_gpu.csv`, `${tmp}/hostile_api.csv`, "-o", tlPage, "--title", P.comment]);
for (const f of [fgPage, tlPage]) {
  const html = readFileSync(f, "utf8");
  // the names themselves contain a URL (as JSON data): outside the data block there must be none
  const outside = html.replace(/<script[^>]*type="application\/json"[^>]*>[\s\S]*?<\/script>/g, "");
  check(`${f.split("/").pop()}: no http:// or https:// outside the JSON data`, !/https?:\/\//.test(outside),
    (outside.match(/.{40}https?:\/\/.{40}/) || [""])[0]);
  check(`${f.split("/").pop()}: raw payload markup never appears unescaped`,
    !html.includes("<img src=x") && !html.includes("<iframe") && !html.includes("<svg onload") &&
    !html.includes("<script>window.__pwned"));
}

const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
});


// No script ran, no element was injected: the only scripts are the page's own (counted in a benign
// render of the same template), and nothing carries an inline event handler.
async function assertSafe(label, page, log, expectedScripts) {
  const st = await page.evaluate(() => ({
    pwned: window.__pwned, alerted: window.__alerted,
    injected: document.querySelectorAll("img, iframe, object, embed, svg[onload], link[href^='http'], [onerror], [onload], [onmouseover]").length,
    scripts: document.scripts.length,
  }));
  check(`${label}: no payload executed (no __pwned, no alert/confirm/prompt)`, st.pwned === undefined && st.alerted === 0 &&
    log.dialogs.length === 0, JSON.stringify(st) + log.dialogs.join("|"));
  check(`${label}: no injected elements or handlers`, st.injected === 0, JSON.stringify(st));
  check(`${label}: only the page's own ${expectedScripts} script elements`, st.scripts === expectedScripts, JSON.stringify(st));
  check(`${label}: no network request`, log.requests.length === 0, log.requests.join(" "));
  check(`${label}: no page errors`, log.errors.length === 0, log.errors.join(" | ").slice(0, 300));
}

function benignScripts(args, ready) {
  return (async () => {
    const f = `${tmp}/benign-${args[0]}.html`;
    execFileSync(bin, ["-q", ...args, "-o", f]);
    const { page } = await openGuarded(browser, f, ready, HOSTILE_VIEW);
    const n = await page.evaluate(() => document.scripts.length);
    await page.close();
    return n;
  })();
}

try {
  // --- flamegraph ---------------------------------------------------------------------------------------
  writeFileSync(`${tmp}/benign.folded`, "gpu;nsys;cuda_kernel;k 5\n");
  const fgReady = () => window.gpuflame && window.gpuflame.state().nodes > 0;
  const fgScripts = await benignScripts(["flamegraph", `${tmp}/benign.folded`], fgReady);
  {
    const { page, log } = await openGuarded(browser, fgPage, fgReady, HOSTILE_VIEW);
    check("flamegraph: title is the literal text", (await page.textContent("#title")) === P.script);
    for (const [k, n] of Object.entries(P)) {
      const has = await page.evaluate((x) => window.gpuflame.frameRect(x) !== null, n);
      check(`flamegraph: frame '${k}' exists with its exact name`, has);
    }
    // click the <img> frame: zoom; hover shows the name as text
    const r = await page.evaluate((x) => window.gpuflame.frameRect(x), P.img);
    await page.mouse.move(r.x + r.width / 2, r.y + r.height / 2);
    check("flamegraph: tooltip shows the markup as text", (await page.textContent("#tip")).includes(P.img));
    await page.mouse.click(r.x + r.width / 2, r.y + r.height / 2);
    const st = await page.evaluate(() => window.gpuflame.state());
    check("flamegraph: click zooms to the hostile frame", st.zoomName === P.img, JSON.stringify(st).slice(0, 200));
    await page.click("#reset");
    // the 100,000-char frame: click zooms too
    const rl = await page.evaluate((x) => window.gpuflame.frameRect(x), P.long);
    if (rl) await page.mouse.click(rl.x + rl.width / 2, rl.y + rl.height / 2);
    check("flamegraph: click zooms to the 100,000-char frame",
      rl && (await page.evaluate(() => window.gpuflame.state().zoomName)) === P.long);
    await page.click("#reset");
    // search finds hostile names (a literal '<iframe' and the U+2028 one)
    await page.fill("#search", "iframe|onload");
    await page.waitForFunction(() => document.getElementById("matched").textContent.startsWith("Matched:"));
    const m = await page.textContent("#matched");
    check("flamegraph: search finds the hostile names", m.startsWith("Matched:") && m !== "Matched: 0.0%", m);
    await page.evaluate((x) => { location.hash = "#zoom=" + encodeURIComponent(x); }, P.js);
    await page.waitForTimeout(200);
    await assertSafe("flamegraph", page, log, fgScripts);
    await page.close();
  }

  // --- timeline -------------------------------------------------------------------------------------------
  const tlReady = () => window.__gf && window.__gf.firstDrawAt > 0;
  writeFileSync(`${tmp}/benign_gpu.csv`, GH + "\n2000,500,1,1,1,1,1,1,1,32,0.000,0.000,,,,,GPU (0),1,7,k\n");
  writeFileSync(`${tmp}/benign_api.csv`, AH + "\n1000,300,cudaLaunchKernel,0,1,42,42,20,python3\n");
  const tlScripts = await benignScripts(["timeline", `${tmp}/benign_gpu.csv`, `${tmp}/benign_api.csv`], tlReady);
  {
    const { page, log } = await openGuarded(browser, tlPage, tlReady, HOSTILE_VIEW);
    const D = await pageData(page);
    check("timeline: title is the literal text", (await page.textContent("h1")) === P.comment);
    for (const [k, n] of Object.entries(P)) {
      const has = k === "long" ? D.names.some((x) => x.startsWith("Lx<x<")) : D.names.includes(n);
      check(`timeline: name '${k}' round-trips through the page data`, has);
    }
    // select the <img> kernel by clicking it
    const ki = D.events.findIndex((e) => D.names[e[4]] === P.img);
    await page.evaluate((i) => { const g = window.__gf, e = g.event(i); g.setView(e.start - 2000, e.start + e.dur + 2000); }, ki);
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    const p = await page.evaluate((i) => window.__gf.eventPoint(i), ki);
    if (p) await page.mouse.click(p.x, p.y);
    check("timeline: click selects the hostile kernel", p && (await page.evaluate(() => window.__gf.selected())) === ki);
    check("timeline: selection shows the name as text", p && (await page.textContent("#sel-info b")) === P.img);
    // search: '/' then a literal markup fragment
    await page.keyboard.press("Escape");
    await page.keyboard.press("/");
    await page.keyboard.type("<iframe");
    const want = D.events.filter((e) => D.names[e[4]].includes("<iframe")).length;
    check("timeline: search for markup finds the hostile event", want > 0 && (await page.evaluate(() => window.__gf.matches())) === want,
      `want ${want}`);
    await page.keyboard.press("Escape");
    await assertSafe("timeline", page, log, tlScripts);
    await page.close();
  }
} catch (e) {
  notOk("hostile pages", String((e && e.stack) || e).slice(0, 800));
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
