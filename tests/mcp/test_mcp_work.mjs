// `gpuflame mcp`, long work: an .nsys-rep whose export never ends (the fake nsys, FAKE_NSYS_FAIL=export:hang)
// sends progress notifications to a request with a progressToken; notifications/cancelled stops the export
// (the nsys process is gone, the request gets no reply) and the server answers the next request; policy
// mcp.export_reports = false refuses reports without running nsys; a report the server exported is in the
// export cache the CLI uses (and the other way round: nsys runs once); policy mcp.max_result_bytes cuts a
// result, saying so. A raw JSON-RPC client on pipes.
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';

const TOP = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const GF = process.env.GPUFLAME_BIN || path.join(TOP, 'bin/gpuflame');
const FIX = process.env.GPUFLAME_FIXTURES || path.join(TOP, '../shared/fixtures');
const TMP = process.env.GF_TMP || fs.mkdtempSync(path.join(os.tmpdir(), 'gf-mcp-'));
let failed = 0;
const check = (n, cond, why) => { if (cond) console.log(`ok - ${n}`); else { failed++; console.log(`not ok - ${n}: ${String(why).slice(0, 600)}`); } };
if (!['real/test-cuda/report1.sqlite', 'real/nvfuser/report1.sqlite'].every((f) => fs.existsSync(path.join(FIX, f)))) {
  console.log('skip - mcp long work: fixtures absent (the fake nsys exports real/test-cuda/report1.sqlite; real/nvfuser)');
  process.exit(0);
}

const ROOT = path.join(TMP, 'root');
fs.mkdirSync(ROOT, { recursive: true });
const REP = path.join(ROOT, `slow-${process.pid}.nsys-rep`);
fs.writeFileSync(REP, 'fake report\n');
const env = { ...process.env, NSYS_PATH: path.join(TOP, 'tests/fake/nsys'), FAKE_NSYS_FAIL: 'export:hang',
  XDG_CACHE_HOME: path.join(TMP, 'cache'), GPUFLAME_FIXTURES: FIX };

function server(extra, env2) {
  const p = spawn(GF, [...extra, 'mcp', '--root', ROOT], { env: env2 || env, stdio: ['pipe', 'pipe', 'pipe'] });
  const msgs = [], waiters = [];
  p.stderr.on('data', () => {});
  readline.createInterface({ input: p.stdout }).on('line', (l) => {
    const m = JSON.parse(l);
    msgs.push(m);
    for (const w of [...waiters]) if (w.pred(m)) { waiters.splice(waiters.indexOf(w), 1); w.res(m); }
  });
  const send = (m) => p.stdin.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\n');
  const wait = (pred, what) => new Promise((res, rej) => {
    const hit = msgs.find(pred);
    if (hit) return res(hit);
    waiters.push({ pred, res });
    p.on('close', () => rej(new Error(`server closed while waiting for ${what}`)));
  });
  send({ id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'cancel-test' } } });
  send({ method: 'notifications/initialized' });
  return { p, msgs, send, wait };
}
const exporting = () => {
  try { return execFileSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' }).split('\n').filter((l) => l.includes(REP) && l.includes('export')); } catch { return []; }
};

try {
  const s = server([]);
  await s.wait((m) => m.id === 0, 'initialize');
  s.send({ id: 5, method: 'tools/call', params: { name: 'kernels', arguments: { input: path.basename(REP) }, _meta: { progressToken: 'p5' } } });
  const prog = await s.wait((m) => m.method === 'notifications/progress' && m.params.progressToken === 'p5' && /nsys export --type sqlite \(/.test(m.params.message || ''), 'progress during the export');
  check('progress notifications while nsys exports the report (the request\'s progressToken)', prog.params.progress > 0, JSON.stringify(prog));
  check('the export is running', exporting().length > 0, 'no nsys export process');
  s.send({ method: 'notifications/cancelled', params: { requestId: 5, reason: 'test' } });
  s.send({ id: 6, method: 'ping' });
  await s.wait((m) => m.id === 6, 'the ping after the cancellation');
  check('a ping is answered while a call works', true);
  s.send({ id: 7, method: 'tools/call', params: { name: 'kernels', arguments: { input: '../x.sqlite' } } });
  const r7 = await s.wait((m) => m.id === 7, 'a call after the cancellation');
  check('a call after the cancellation runs (and the roots rule still holds)', r7.result && r7.result.isError && /roots rule/.test(r7.result.content[0].text), JSON.stringify(r7));
  // requests are served one at a time: the answer to 7 comes after the cancelled call has ended
  check('the cancelled request gets no reply', !s.msgs.some((m) => m.id === 5), JSON.stringify(s.msgs.filter((m) => m.id === 5)));
  const left = exporting();
  check('the nsys export was stopped', left.length === 0, left.join('; '));
  const cacheDir = path.join(TMP, 'cache/gpuflame/exports');
  const tmpLeft = fs.existsSync(cacheDir) ? fs.readdirSync(cacheDir).filter((n) => n.startsWith('.tmp-') || n.endsWith('.sqlite')) : [];
  check('the cancelled export left nothing in the export cache', tmpLeft.length === 0, tmpLeft.join(', '));
  s.p.stdin.end();
  const code = await new Promise((res) => s.p.on('close', res));
  check('the server ends with exit 0 when stdin closes', code === 0, `exit ${code}`);

  const pol = path.join(TMP, 'noexport.lua');
  fs.writeFileSync(pol, 'return { extends = "default", mcp = { export_reports = false } }\n');
  const t = server(['--policy', pol]);
  t.send({ id: 1, method: 'tools/call', params: { name: 'kernels', arguments: { input: path.basename(REP) } } });
  const r1 = await t.wait((m) => m.id === 1, 'the refused report');
  check('policy mcp.export_reports = false: a report is refused by name, nsys not run', r1.result && r1.result.isError &&
    /mcp.export_reports/.test(r1.result.content[0].text) && exporting().length === 0, JSON.stringify(r1));
  t.p.stdin.end();
  await new Promise((res) => t.p.on('close', res));

  // the export cache is the CLI's: the server's export is used by `gpuflame stats`, and a report the CLI
  // exported is not exported again by the server (the fake nsys logs each run)
  const log = path.join(TMP, 'nsys.log');
  const envOk = { ...env, FAKE_NSYS_FAIL: '', FAKE_NSYS_LOG: log };
  const exports = () => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n').filter((l) => l.includes('"export"')).length : 0);
  const REP2 = path.join(ROOT, 'cached.nsys-rep'), REP3 = path.join(ROOT, 'cli-first.nsys-rep');
  fs.writeFileSync(REP2, 'fake report two\n');
  fs.writeFileSync(REP3, 'fake report three\n');
  const u = server([], envOk);
  u.send({ id: 1, method: 'tools/call', params: { name: 'kernels', arguments: { input: 'cached.nsys-rep', limit: 1000 } } });
  const k1 = await u.wait((m) => m.id === 1, 'kernels of a report');
  const n1 = exports();
  const cliRows = JSON.parse(execFileSync(GF, ['-q', 'stats', '-r', 'cuda_gpu_kern_sum', '-f', 'json', REP2], { env: envOk, encoding: 'utf8' }));
  check('export cache: the server exported the report once, the CLI reuses its export (nsys not run again)', n1 === 1 && exports() === 1, `${n1} then ${exports()}`);
  check('export cache: the same kernels from the server and the CLI', k1.result && !k1.result.isError &&
    JSON.stringify(k1.result.structuredContent.kernels.map((x) => [x.name, x.total_ns])) === JSON.stringify(cliRows.map((r) => [r.Name, r['Total Time (ns)']])), JSON.stringify(k1).slice(0, 300));
  execFileSync(GF, ['-q', 'stats', '-r', 'cuda_api_sum', '-f', 'json', REP3], { env: envOk, encoding: 'utf8' });
  u.send({ id: 2, method: 'tools/call', params: { name: 'stats', arguments: { input: 'cli-first.nsys-rep', report: 'cuda_api_sum' } } });
  const k2 = await u.wait((m) => m.id === 2, 'stats of a report the CLI exported');
  check('export cache: a report the CLI exported is not exported again by the server', k2.result && !k2.result.isError && exports() === 2, `${exports()} exports; ${JSON.stringify(k2).slice(0, 200)}`);
  u.p.stdin.end();
  await new Promise((res) => u.p.on('close', res));

  // policy mcp.max_result_bytes: a result over it is cut, and says so
  const small = path.join(TMP, 'small.lua');
  fs.writeFileSync(small, 'return { extends = "default", mcp = { max_result_bytes = 2048 } }\n');
  const NVF = path.join(FIX, 'real/nvfuser/report1.sqlite');
  fs.copyFileSync(NVF, path.join(ROOT, 'nvfuser.sqlite'));
  const all = JSON.parse(execFileSync(GF, ['-q', 'stats', '-r', 'cuda_gpu_kern_sum', '-f', 'json', NVF], { env: envOk, encoding: 'utf8' }));
  const v = server(['--policy', small], envOk);
  v.send({ id: 1, method: 'tools/call', params: { name: 'kernels', arguments: { input: 'nvfuser.sqlite', limit: 1000 } } });
  const cut = await v.wait((m) => m.id === 1, 'a cut result');
  const sc = cut.result && cut.result.structuredContent;
  check('mcp.max_result_bytes: the result is cut to fit, truncated: true and a note naming the list',
    sc && sc.truncated === true && /kernels/.test(sc.note) && sc.kernels.length > 0 && sc.kernels.length < all.length &&
    Buffer.byteLength(cut.result.content[0].text) <= 2048 && sc.total === all.length, JSON.stringify(cut).slice(0, 400));
  v.p.stdin.end();
  await new Promise((res) => v.p.on('close', res));
} catch (e) {
  check('mcp cancellation', false, e && e.stack || e);
} finally {
  for (const l of exporting()) { try { process.kill(Number(l.trim().split(/\s+/)[0]), 'SIGKILL'); } catch { /* gone */ } }
}
process.exit(failed ? 1 : 0);
