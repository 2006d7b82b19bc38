// The hierarchical GPU flamegraph of a real capture with NVTX (issue 25), in headless Chromium: NVTX
// frames sit between the process and the launch calls and kernels, their totals and instance counts equal
// an independent SQL join over the export (GPU work whose launch call lies inside a range of that name on
// the same thread), a kernel's tooltip shows its total ns, instances, mean and share, and the page draws
// without console errors. A screenshot is left in $GF_TMP/fg-nvtx.png.
import { chromium } from "playwright-core";
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { pathToFileURL } from "node:url";

const tmp = process.env.GF_TMP || "/tmp";
const bin = process.env.GPUFLAME_BIN;
const fix = process.env.GPUFLAME_FIXTURES || `${process.env.GF_TOP}/../shared/fixtures`;
const db = `${fix}/real/cs336-athrun0109/result.sqlite`;
let failed = 0;
const ok = (n) => console.log(`ok - ${n}`);
const notOk = (n, why) => { console.log(`not ok - ${n}: ${why}`); failed++; };
const check = (n, cond, why) => (cond ? ok(n) : notOk(n, why || "condition false"));

if (!existsSync("/usr/bin/chromium")) {
  console.log("skip - flamegraph NVTX browser tests: /usr/bin/chromium absent");
  process.exit(0);
}
if (!existsSync(db)) {
  console.log("skip - flamegraph NVTX browser tests: fixture absent");
  process.exit(0);
}

// the independent answer: per range name, the GPU work (kernels, copies, memsets) launched inside it
const sql = `WITH ops AS (
    SELECT start, end, correlationId AS c, globalPid AS p FROM CUPTI_ACTIVITY_KIND_KERNEL
    UNION ALL SELECT start, end, correlationId, globalPid FROM CUPTI_ACTIVITY_KIND_MEMCPY
    UNION ALL SELECT start, end, correlationId, globalPid FROM CUPTI_ACTIVITY_KIND_MEMSET)
  SELECT n.text, count(*), sum(o.end - o.start) FROM ops AS o
  JOIN CUPTI_ACTIVITY_KIND_RUNTIME AS r ON r.correlationId = o.c AND (r.globalTid & 0xFFFFFFFFFF000000) = o.p
  JOIN NVTX_EVENTS AS n ON n.globalTid = r.globalTid AND n.start <= r.start AND n.end >= r.end
  WHERE n.eventType IN (59, 60) GROUP BY n.text ORDER BY n.text`;
let expect = {};
try {
  for (const line of execFileSync("sqlite3", ["-readonly", db, sql]).toString().trim().split("\n")) {
    const [name, count, total] = line.split("|");
    expect[name] = { count: Number(count), total: Number(total) };
  }
} catch (e) {
  console.log(`skip - flamegraph NVTX browser tests: sqlite3 CLI: ${e.message.split("\n")[0]}`);
  process.exit(0);
}

const page1 = `${tmp}/fg-nvtx.html`;
execFileSync(bin, ["-q", "flamegraph", db, "-o", page1]);
const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
});
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 800 } });
  const consoleErrors = [];
  page.on("console", (m) => { if (m.type() === "error") consoleErrors.push(m.text()); });
  page.on("pageerror", (e) => consoleErrors.push(String(e)));
  await page.goto(pathToFileURL(page1).href);
  const frames = await page.evaluate(() => window.gpuflame.frames());
  const nvtx = frames.filter((f) => f.kind === "nvtx");
  check("NVTX frames drawn", nvtx.length > 0, `kinds: ${[...new Set(frames.map((f) => f.kind))].join(",")}`);
  check("every NVTX frame sits under a process frame", nvtx.every((f) => f.depth === 2) &&
    frames.filter((f) => f.depth === 1).every((f) => f.kind === "process"), JSON.stringify(nvtx.slice(0, 3)));
  const got = {};
  for (const f of nvtx) {
    got[f.name] = got[f.name] || { count: 0, total: 0 };
    got[f.name].count += f.count;
    got[f.name].total += f.value;
  }
  check("NVTX frames: totals (ns) and instances equal the SQL join over the export",
    JSON.stringify(got, Object.keys(got).sort()) === JSON.stringify(expect, Object.keys(expect).sort()) &&
    Object.keys(got).sort().join() === Object.keys(expect).sort().join(),
    `page ${JSON.stringify(got)} vs SQL ${JSON.stringify(expect)}`);
  const under = frames.filter((f) => f.depth === 3 && f.kind === "api").length;
  check("launch calls under the NVTX frames", under > 0, "no api frame at depth 3");
  // a kernel's tooltip: total ns, instances, mean, share
  const k = frames.find((f) => f.kind === "kernel" && f.depth === 4 && f.count > 1);
  const r = k && await page.evaluate((name) => window.gpuflame.frameRect(name), k.name);
  if (!r) notOk("kernel tooltip", "no kernel frame drawn under an NVTX range");
  else {
    await page.mouse.move(r.x + Math.min(r.width / 2, 3), r.y + r.height / 2);
    const tip = await page.textContent("#tip");
    check("kernel tooltip: total ns, instances, mean, share", tip.includes(" ns (") && tip.includes("% of all") &&
      /kernel: [\d,]+ instances, mean [\d,]+ ns/.test(tip), tip);
  }
  await page.screenshot({ path: `${tmp}/fg-nvtx.png` });
  check("no console errors", consoleErrors.length === 0, consoleErrors.join(" | "));
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
