// The flamegraph page in headless Chromium, opened from disk: click-to-zoom, search with `Matched:`,
// tooltips, the URL fragment, no console errors, no network requests, hostile names stay text.
import { chromium } from "playwright-core";
import { execFileSync } from "node:child_process";
import { writeFileSync, existsSync } from "node:fs";
import { pathToFileURL } from "node:url";

const tmp = process.env.GF_TMP || "/tmp";
const bin = process.env.GPUFLAME_BIN;
let failed = 0;
const ok = (n) => console.log(`ok - ${n}`);
const notOk = (n, why) => { console.log(`not ok - ${n}: ${why}`); failed++; };
const check = (n, cond, why) => (cond ? ok(n) : notOk(n, why || "condition false"));

if (!existsSync("/usr/bin/chromium")) {
  console.log("skip - flamegraph browser tests: /usr/bin/chromium absent");
  process.exit(0);
}

const hostile = "</script><img src=x onerror=alert(1)>";
const folded = [
  "gpu;nsys;cuda_kernel;ampere_sgemm_128x64_nn 600",
  "gpu;nsys;cuda_kernel;" + hostile + " 100",
  "gpu;nsys;cuda_kernel;void at::native::reduce_kernel<512, 1> 200",
  "gpu;nsys;cuda_api;cudaLaunchKernel 100",
].join("\n") + "\n";
writeFileSync(`${tmp}/in.folded`, folded);
const page1 = `${tmp}/fg.html`;
execFileSync(bin, ["-q", "flamegraph", `${tmp}/in.folded`, "-o", page1, "--title", "T <b>x</b>", "--countname", "us"]);
const page2 = `${tmp}/fg-inv.html`;
execFileSync(bin, ["-q", "flamegraph", `${tmp}/in.folded`, "-o", page2, "--inverted", "--colors", "mem"]);

const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
});
try {
  const page = await browser.newPage({ viewport: { width: 1200, height: 700 } });
  const consoleErrors = [], requests = [], dialogs = [];
  page.on("console", (m) => { if (m.type() === "error") consoleErrors.push(m.text()); });
  page.on("pageerror", (e) => consoleErrors.push(String(e)));
  page.on("request", (r) => { if (r.url() !== pathToFileURL(page1).href && r.url() !== pathToFileURL(page2).href) requests.push(r.url()); });
  page.on("dialog", async (d) => { dialogs.push(d.message()); await d.dismiss(); });
  await page.goto(pathToFileURL(page1).href);
  await page.waitForFunction(() => window.gpuflame && window.gpuflame.state().nodes > 0);

  check("title is text", (await page.textContent("#title")) === "T <b>x</b>");
  check("hostile name: no <img> element", (await page.locator("img").count()) === 0);
  check("hostile name: a frame with that exact text", await page.evaluate((h) => window.gpuflame.frameRect(h) !== null, hostile));

  // tooltip
  const r = await page.evaluate(() => window.gpuflame.frameRect("ampere_sgemm_128x64_nn"));
  await page.mouse.move(r.x + r.width / 2, r.y + r.height / 2);
  const tipText = await page.textContent("#tip");
  check("tooltip: name, value with unit, percent", tipText.includes("ampere_sgemm_128x64_nn") &&
    tipText.includes("600 us") && tipText.includes("60.00%"), tipText);

  // click to zoom
  await page.mouse.click(r.x + r.width / 2, r.y + r.height / 2);
  let st = await page.evaluate(() => window.gpuflame.state());
  check("click zooms to the frame", st.zoomName === "ampere_sgemm_128x64_nn", JSON.stringify(st));
  const r2 = await page.evaluate(() => window.gpuflame.frameRect("ampere_sgemm_128x64_nn"));
  check("zoomed frame fills the width", r2 && r2.width > r.width * 1.5, JSON.stringify([r, r2]));
  check("reset enabled when zoomed", !(await page.isDisabled("#reset")));
  check("zoom kept in the URL fragment", (await page.evaluate(() => location.hash)).includes("zoom="));

  // search
  await page.fill("#search", "sgemm|reduce");
  await page.waitForFunction(() => document.getElementById("matched").textContent.startsWith("Matched:"));
  const matched = await page.textContent("#matched");
  check("search: Matched: 80.0%", matched === "Matched: 80.0%", matched);
  check("search kept in the URL fragment", (await page.evaluate(() => location.hash)).includes("search=sgemm"));

  // reload with the fragment → same view
  await page.reload();
  await page.waitForFunction(() => window.gpuflame && window.gpuflame.state().nodes > 0);
  st = await page.evaluate(() => window.gpuflame.state());
  check("fragment restores zoom and search", st.zoomName === "ampere_sgemm_128x64_nn" && st.search === "sgemm|reduce" &&
    st.matched === "Matched: 80.0%", JSON.stringify(st));

  // reset
  await page.click("#reset");
  st = await page.evaluate(() => window.gpuflame.state());
  check("reset zoom", st.zoom === 0 && (await page.isDisabled("#reset")));

  // a bad regex is shown, not thrown
  await page.fill("#search", "([");
  await page.waitForTimeout(300);
  check("bad regex marks the box", await page.evaluate(() => document.getElementById("search").classList.contains("bad")));

  // inverted page (icicle): the root row is at the top
  await page.goto(pathToFileURL(page2).href);
  await page.waitForFunction(() => window.gpuflame && window.gpuflame.state().nodes > 0);
  const top = await page.evaluate(() => [window.gpuflame.frameRect("gpu"), document.getElementById("fg").getBoundingClientRect().top]);
  check("inverted: first frame row at the top", top[0] && Math.abs(top[0].y - (top[1] + 16)) < 2, JSON.stringify(top));

  check("no console errors", consoleErrors.length === 0, consoleErrors.join(" | "));
  check("no network requests", requests.length === 0, requests.join(" "));
  check("hostile name did not execute", dialogs.length === 0, dialogs.join(" "));
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
