// The NVTX report page (gpuflame report --html) in headless Chromium: charts drawn (per-iteration host vs
// GPU bars with the first-iteration effect visible, top ranges by host and GPU totals), no console
// errors, no network requests, hostile range names stay text.
import { chromium } from "playwright-core";
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync } from "node:fs";
import { pathToFileURL } from "node:url";

const tmp = process.env.GF_TMP || "/tmp";
const bin = process.env.GPUFLAME_BIN;
const top = process.env.GF_TOP || ".";
const fix = (process.env.GPUFLAME_FIXTURES || `${top}/../shared/fixtures`) + "/real/roboflow-inference";
let failed = 0;
const ok = (n) => console.log(`ok - ${n}`);
const notOk = (n, why) => { console.log(`not ok - ${n}: ${why}`); failed++; };
const check = (n, cond, why) => (cond ? ok(n) : notOk(n, why || "condition false"));

if (!existsSync("/usr/bin/chromium")) { console.log("skip - report browser tests: /usr/bin/chromium absent"); process.exit(0); }
if (!existsSync(`${fix}/nvtx_pushpop_trace.csv`)) { console.log("skip - report browser tests: fixtures absent"); process.exit(0); }

const run = `${tmp}/run`;
mkdirSync(`${run}/stats`, { recursive: true });
copyFileSync(`${top}/tests/data/nvtx_minimal_manifest.yaml`, `${run}/manifest.yaml`);
copyFileSync(`${fix}/nvtx_pushpop_trace.csv`, `${run}/stats/nsys_nvtx_pushpop_trace.csv`);
copyFileSync(`${fix}/nvtx_gpu_proj_trace.csv`, `${run}/stats/nsys_nvtx_gpu_proj_trace.csv`);
const hostile = "</script><img src=x onerror=alert(1)>";
for (const f of ["nsys_nvtx_pushpop_trace.csv", "nsys_nvtx_gpu_proj_trace.csv"])
  execFileSync(bin, ["run", `${top}/tests/lib/nvtx_csv.lua`, `${run}/stats/${f}`, "rename", "4", ":" + hostile]);
execFileSync(bin, ["-q", "analyze", "--run-dir", run, "--no-export", "--nsys-version", "NVIDIA Nsight Systems version 2025.1.3"]);
const page1 = `${tmp}/report.html`;
execFileSync(bin, ["-q", "report", "--run-dir", run, "--html", "-o", page1]);

const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking"] });
try {
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  const errors = [], requests = [], dialogs = [];
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("request", (r) => { if (r.url() !== pathToFileURL(page1).href) requests.push(r.url()); });
  page.on("dialog", async (d) => { dialogs.push(d.message()); await d.dismiss(); });
  await page.goto(pathToFileURL(page1).href);
  await page.waitForSelector("#iterchart svg");
  check("title", (await page.textContent("#title")) === "NVTX analysis: smoke-tensor / jarvis-smoke");
  const bars = await page.$$eval("#iterchart svg rect", (rs) => rs.map((r) => ({ h: +r.getAttribute("height"), t: r.querySelector("title").textContent })));
  check("iteration chart: host and GPU bar per iteration", bars.length === 4, JSON.stringify(bars));
  const host0 = bars.find((b) => b.t.startsWith("iteration 0: host")), host1 = bars.find((b) => b.t.startsWith("iteration 1: host"));
  check("first-iteration effect visible: iteration 0 bar ~3x iteration 1", host0 && host1 && host0.h / host1.h > 3 && host0.h / host1.h < 3.3,
    JSON.stringify([host0, host1]));
  check("bar tooltips carry units", bars.some((b) => b.t === "iteration 0: GPU projected 191.6 \u00b5s"), JSON.stringify(bars.map((b) => b.t)));
  check("top host ranges chart: 4 bars", (await page.$$eval("#hostchart svg rect", (r) => r.length)) === 4);
  check("top GPU ranges chart: 4 bars", (await page.$$eval("#gpuchart svg rect", (r) => r.length)) === 4);
  const findings = await page.textContent("#findings");
  check("findings: first-iteration effect", findings.includes("First-iteration effect (host-inclusive): iteration 0 took 432.0 \u00b5s"), findings);
  check("no 'GPU latency' wording", !(await page.textContent("body")).toLowerCase().includes("latency"));
  check("hostile name is text, not markup", (await page.locator("img").count()) === 0 &&
    (await page.textContent("#hosttable")).includes(hostile));
  check("meta: Nsight version and sync policy", (await page.textContent("#meta")).includes("NVIDIA Nsight Systems version 2025.1.3") &&
    (await page.textContent("#meta")).includes("synchronize_each_iteration=false"));
  check("no console errors", errors.length === 0, errors.join(" | "));
  check("no network requests", requests.length === 0, requests.join(" "));
  check("no dialogs", dialogs.length === 0, dialogs.join(" "));
  await page.screenshot({ path: `${tmp}/report.png`, fullPage: true });
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
