// `gpuflame mcp` driven by the official TypeScript SDK's client over stdio (@modelcontextprotocol/sdk) on the
// real fixtures: the ten tools listed with both schemas; summary, kernels, nvtx_ranges, findings, diff,
// rank_skew, stats, steps and critical_path equal to the CLI's JSON for the same input (and timeline_window's kernels counted
// independently with sqlite3); paths outside the roots refused (absolute, '..', a symlink); hostile lines
// answered with JSON-RPC errors while the server keeps answering; a tool dropped in as a Lua file listed
// and called without a rebuild or a restart; and the MCP Inspector's CLI mode when it is installed.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const TOP = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const GF = process.env.GPUFLAME_BIN || path.join(TOP, 'bin/gpuflame');
const FIX = process.env.GPUFLAME_FIXTURES || path.join(TOP, '../shared/fixtures');
const TMP = process.env.GF_TMP || fs.mkdtempSync(path.join(os.tmpdir(), 'gf-mcp-'));
let failed = 0;
const ok = (n) => console.log(`ok - ${n}`);
const notOk = (n, why) => { failed++; console.log(`not ok - ${n}: ${String(why).replace(/\n/g, ' ').slice(0, 600)}`); };
const skip = (n, why) => console.log(`skip - ${n}: ${why}`);
const check = (n, cond, why) => (cond ? ok(n) : notOk(n, why || 'false'));
// JSON text with object keys sorted: gpuflame's JSON writer sorts keys, nsys's column order is the CLI's
const canon = (v) => JSON.stringify(v, (_, x) => (x && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.keys(x).sort().map((k) => [k, x[k]])) : x));
const same = (n, a, b) => check(n, canon(a) === canon(b), `got ${JSON.stringify(a)?.slice(0, 300)} want ${JSON.stringify(b)?.slice(0, 300)}`);

let sdk;
try {
  sdk = {
    ...(await import('@modelcontextprotocol/sdk/client/index.js')),
    ...(await import('@modelcontextprotocol/sdk/client/stdio.js')),
    ...(await import('@modelcontextprotocol/sdk/types.js')),
  };
} catch (e) {
  skip('mcp sdk client', `@modelcontextprotocol/sdk is not installed in tests/node_modules (${e.code || e})`);
  process.exit(0);
}
const REAL = path.join(FIX, 'real');
const CS = 'cs336-jsun012/result.sqlite', NV = 'nvfuser/report1.sqlite', ATH = 'cs336-athrun0109/result.sqlite';
if (![CS, NV, ATH].every((f) => fs.existsSync(path.join(REAL, f)))) {
  skip('mcp sdk client', 'fixtures absent');
  process.exit(0);
}

// a second root of our own: a symlink that leads out of it, and the user's tool directory
const ROOT2 = path.join(TMP, 'root2'), LUA = path.join(TMP, 'lua');
fs.mkdirSync(ROOT2, { recursive: true });
fs.mkdirSync(path.join(LUA, 'mcp_tools'), { recursive: true });
try { fs.symlinkSync('/etc/passwd', path.join(ROOT2, 'escape.sqlite')); } catch { /* rerun */ }
const ENV = { ...process.env, GPUFLAME_PATH: LUA, XDG_CACHE_HOME: path.join(TMP, 'cache'), HOME: TMP };
const cli = (args) => {
  const r = spawnSync(GF, ['-q', ...args], { env: ENV, encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0 && r.status !== 10 && r.status !== 11) throw new Error(`gpuflame ${args.join(' ')}: exit ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout);
};
const F = (f) => path.join(REAL, f);

const transport = new sdk.StdioClientTransport({ command: GF, args: ['mcp', '--root', REAL, '--root', ROOT2], env: ENV, stderr: 'pipe' });
let stderr = '';
const client = new sdk.Client({ name: 'gpuflame-test', version: '1' });
try {
  const errStream = transport.stderr;
  if (errStream) errStream.on('data', (d) => { stderr += d; });
  await client.connect(transport);
  ok('the SDK client connects and initializes');
  const call = async (name, args, opts) => client.callTool({ name, arguments: args }, undefined, opts);
  const body = (r) => r.structuredContent;

  // ---- tools/list --------------------------------------------------------------------------------------
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name);
  const ten = ['critical_path', 'diff', 'findings', 'kernels', 'nvtx_ranges', 'rank_skew', 'stats', 'steps', 'summary', 'timeline_window'];
  check('tools/list has the ten tools', ten.every((n) => names.includes(n)), names.join());
  check('each tool has an inputSchema and an outputSchema of type object',
    tools.every((t) => t.inputSchema?.type === 'object' && t.outputSchema?.type === 'object'),
    JSON.stringify(tools.filter((t) => !t.outputSchema).map((t) => t.name)));

  // ---- results equal the CLI's ------------------------------------------------------------------------
  const busy = cli(['findings', '-r', 'gpu-busy', '-f', 'json', F(CS)]).findings[0].breakdown.devices;
  const progress = [];
  const s = await call('summary', { input: CS }, { onprogress: (p) => { progress.push(p); } });
  const parts = ['device', 'compute_ns', 'communication_ns', 'copy_ns', 'memset_ns', 'idle_ns', 'span_ns'];
  const pick = (d) => Object.fromEntries(parts.map((k) => [k, d[k]]));
  same('summary: per device compute/communication/copy/memset/idle/span ns = findings -r gpu-busy', body(s).devices.map(pick), busy.map(pick));
  const ksum = cli(['stats', '-r', 'cuda_gpu_kern_sum', '-f', 'json', F(CS)]);
  same('summary: top kernels = stats cuda_gpu_kern_sum', body(s).top_kernels.map((k) => [k.name, k.total_ns]),
    ksum.slice(0, 5).map((r) => [r.Name, r['Total Time (ns)']]));
  check('summary: findings headlines, one per rule of the policy', body(s).findings.length >= 5 && body(s).findings.every((f) => f.rule), JSON.stringify(body(s).findings));
  // the loop: `steps --json`'s between (checked against SQL in tests/real/test_steps_reports.sh) per iteration
  const sb = cli(['steps', F(CS), '--json']).summary, bw = sb.between, it = (v) => Math.floor(v / bw.gaps + 0.5);
  const L = body(s).loop;
  same('summary: the loop per iteration = steps --json between / gaps', L && [L.iterations, L.iteration_ns, L.in_steps_ns,
    L.outside_ns, L.step_median_ns, L.gap_median_ns], [bw.gaps, it(bw.loop_ns), it(bw.loop_ns - bw.total_ns + bw.tail_ns),
    it(bw.total_ns - bw.tail_ns), sb.median_ns, bw.median_ns]);
  check('summary: the same result as text for clients without structuredContent', JSON.stringify(JSON.parse(s.content[0].text)) === JSON.stringify(body(s)));

  const k = body(await call('kernels', { input: CS, limit: 1000 }));
  same('kernels = stats -r cuda_gpu_kern_sum -f json (name, total_ns, instances, avg, med, min, max)', k.kernels.map((x) => [x.name, x.total_ns, x.instances, x.avg_ns, x.med_ns, x.min_ns, x.max_ns]),
    ksum.map((r) => [r.Name, r['Total Time (ns)'], r.Instances, r['Avg (ns)'], r['Med (ns)'], r['Min (ns)'], r['Max (ns)']]));
  const p1 = body(await call('kernels', { input: CS, limit: 3 }));
  const p2 = body(await call('kernels', { input: CS, limit: 3, cursor: p1.next_cursor }));
  same('kernels: the second page (cursor) continues the first', [...p1.kernels, ...p2.kernels].map((x) => x.name), ksum.slice(0, 6).map((r) => r.Name));
  check('kernels: total counts every kernel, next_cursor absent on the last page', p1.total === ksum.length && !body(await call('kernels', { input: CS, limit: 1000 })).next_cursor);

  const nsum = cli(['stats', '-r', 'nvtx_sum', '-f', 'json', F(NV)]);
  const nr = body(await call('nvtx_ranges', { input: NV, limit: 1000 }));
  same('nvtx_ranges = stats -r nvtx_sum -f json', nr.ranges.map((x) => [x.range, x.style, x.total_ns, x.instances]),
    nsum.map((r) => [r.Range, r.Style, r['Total Time (ns)'], r.Instances]));
  const levels = path.join(TMP, 'levels.lua');
  fs.writeFileSync(levels, 'return { extends = "default", flamegraph = { levels = { "nvtx", "kernel" } } }\n');
  const folded = spawnSync(GF, ['-q', '--policy', levels, 'collapse', F(NV)], { env: ENV, encoding: 'utf8', maxBuffer: 1 << 28 }).stdout;
  const want = new Map();
  for (const line of folded.split('\n').filter(Boolean)) {
    const sp = line.lastIndexOf(' ');
    want.set(line.slice(0, sp), Number(line.slice(sp + 1)));
  }
  const rk = body(await call('nvtx_ranges', { input: NV, by_kernel: true, limit: 1000 }));
  const got = new Map(rk.range_kernels.map((x) => [(x.nvtx_path ? x.nvtx_path + ';' : '') + x.kernel, x.total_ns]));
  same('nvtx_ranges by_kernel = the folded stacks of collapse with levels nvtx,kernel', [...got].sort(), [...want].sort().slice(0, 1000));

  const fd = cli(['findings', '-f', 'json', F(CS)]);
  const fm = await call('findings', { input: F(CS) });
  if (body(fm).truncated) skip('findings = findings -f json', `the document is over policy mcp.max_result_bytes: ${body(fm).note}`);
  else same('findings = findings -f json (every rule, verdict, row)', body(fm).findings, fd.findings);

  const dcli = cli(['diff', F(CS), F(ATH), '--json']);
  const dm = body(await call('diff', { before: CS, after: ATH, limit: 10 }));
  same('diff: the verdict = diff --json', dm.verdict, dcli.verdict);
  same('diff: the totals = diff --json', dm.total, dcli.total);
  same('diff: the top 10 kernel changes = diff --json', dm.kernels, dcli.kernels.slice(0, 10));

  same('rank_skew = run rank-skew --json', body(await call('rank_skew', { inputs: [CS] })), cli(['run', 'rank-skew', '--json', F(CS)]));

  same('stats cuda_api_sum = stats -r cuda_api_sum -f json', body(await call('stats', { report: 'cuda_api_sum', input: CS, limit: 1000 })).rows,
    cli(['stats', '-r', 'cuda_api_sum', '-f', 'json', F(CS)]));

  // timeline_window: every kernel of the capture, counted by sqlite3 over the export (an independent count)
  const nk = Number(execFileSync('sqlite3', [F(NV), 'SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL']).toString().trim());
  const tw = body(await call('timeline_window', { input: NV, start_ns: 0, end_ns: 2 ** 53, kinds: ['kernel'], limit: 5 }));
  check('timeline_window: kinds [kernel] over the whole capture counts the export\'s kernels (sqlite3)', tw.total === nk, `${tw.total} vs ${nk}`);
  check('timeline_window: events in start order, in the window', tw.events.length === 5 && tw.events.every((e, i) => e.kind === 'kernel' && (i === 0 || e.start_ns >= tw.events[i - 1].start_ns)), JSON.stringify(tw.events[0]));

  const scli = cli(['steps', '--json', F(CS)]);
  const sm = body(await call('steps', { input: CS, limit: 1000 }));
  same('steps: the steps, rule and summary = steps --json', [sm.steps, sm.rule, sm.summary, sm.ranks], [scli.steps, scli.rule, scli.summary, scli.ranks]);
  const sp = body(await call('steps', { input: CS, limit: 2 }));
  check('steps: paged (limit 2 of all, a next_cursor)', sp.steps.length === Math.min(2, scli.steps.length) && sp.total === scli.steps.length && (scli.steps.length <= 2 || sp.next_cursor), JSON.stringify(sp).slice(0, 200));
  const ccli = cli(['critical-path', '--json', F(CS)]);
  const cm = body(await call('critical_path', { input: CS, limit: 1000 }));
  same('critical_path: the steps, rule and summary = critical-path --json', [cm.steps, cm.rule, cm.summary], [ccli.steps, ccli.rule, ccli.summary]);
  const cp = body(await call('critical_path', { input: CS, limit: 2 }));
  check('critical_path: paged (limit 2 of all, a next_cursor)', cp.steps.length === 2 && cp.total === ccli.steps.length && cp.next_cursor, JSON.stringify(cp).slice(0, 200));
  const wcli = cli(['critical-path', '--json', '--step', '2', '--what-if', 'kind=host:0.5', F(CS)]);
  const wm = body(await call('critical_path', { input: CS, step: '2', what_if: ['kind=host:0.5'] }));
  same('critical_path: one step with a what-if = critical-path --json --step 2 --what-if', [wm.steps, wm.what_if], [wcli.steps, wcli.what_if]);
  const bad = await call('critical_path', { input: CS, what_if: ['kernel=x'] });
  check('critical_path: a what-if without a factor is a tool error that says the syntax', bad.isError && /kernel=NAME:F/.test(bad.content[0].text), JSON.stringify(bad));
  check('progress notifications reach the client (summary imports a capture)', progress.length > 0 && progress.every((p, i) => i === 0 || p.progress > progress[i - 1].progress), JSON.stringify(progress));

  // ---- the roots rule ------------------------------------------------------------------------------------
  for (const [what, input] of [['an absolute path outside', '/etc/passwd'], ['a path through ..', 'nvfuser/../../../../etc/passwd'],
    ['a symlink leading out', path.join(ROOT2, 'escape.sqlite')]]) {
    const r = await call('kernels', { input });
    check(`${what} is refused with a tool error naming the rule`, r.isError && /roots rule/.test(r.content[0].text), JSON.stringify(r));
  }
  // a directory leads to files: each is held to the rule (a capture directory's summary.json, a report in it)
  fs.mkdirSync(path.join(ROOT2, 'cap'), { recursive: true });
  fs.writeFileSync(path.join(ROOT2, 'cap', 'summary.json'), JSON.stringify({ artifacts: { sqlite: '/etc/passwd' } }));
  const dcap = await call('diff', { before: path.join(ROOT2, 'cap'), after: CS });
  check('diff: a capture directory whose summary.json names a file outside the roots is refused', dcap.isError && /roots rule/.test(dcap.content[0].text), JSON.stringify(dcap));
  const rdir = await call('rank_skew', { inputs: [ROOT2] });
  check('rank_skew: a directory whose report is a symlink leading out is refused', rdir.isError && /roots rule/.test(rdir.content[0].text), JSON.stringify(rdir));
  const kdir = await call('kernels', { input: 'nvfuser' });
  check('kernels: a directory is not a capture file (a tool error)', kdir.isError && /directory/.test(kdir.content[0].text), JSON.stringify(kdir));
  let threw = '';
  try { await call('kernels', { input: 42 }); } catch (e) { threw = String(e); }
  check('a wrong argument type is a JSON-RPC invalid-params error', /-32602|Invalid/.test(threw), threw);

  // ---- a tool dropped in as a Lua file -------------------------------------------------------------------
  fs.writeFileSync(path.join(LUA, 'mcp_tools', 'hello.lua'), `return { name = "hello", description = "test tool",
  inputSchema = { type = "object", properties = { who = { type = "string" } } },
  outputSchema = { type = "object", properties = { greeting = { type = "string" } }, required = { "greeting" } },
  run = function(args) return { greeting = "hello " .. (args.who or "?") } end }\n`);
  const again = (await client.listTools()).tools.map((t) => t.name);
  check('a tool dropped in as a Lua file appears in tools/list (no rebuild, no restart)', again.includes('hello'), again.join());
  same('the dropped-in tool runs', body(await call('hello', { who: 'mcp' })), { greeting: 'hello mcp' });

  // a cancelled call leaves the server answering
  const ac = new AbortController();
  const pending = call('summary', { input: NV }, { signal: ac.signal }).catch((e) => e);
  setTimeout(() => ac.abort(), 50);
  await pending;
  await client.ping();
  ok('after a cancelled call the server still answers');
} catch (e) {
  notOk('mcp sdk client', `${e && e.stack || e}; server stderr: ${stderr.slice(-800)}`);
} finally {
  await client.close().catch(() => {});
}

// ---- the client's roots (no --root): only files under them are readable ----------------------------------
{
  const t2 = new sdk.StdioClientTransport({ command: GF, args: ['mcp'], env: ENV, stderr: 'pipe' });
  const c2 = new sdk.Client({ name: 'gpuflame-roots-test', version: '1' }, { capabilities: { roots: { listChanged: true } } });
  c2.setRequestHandler(sdk.ListRootsRequestSchema, async () => ({ roots: [{ uri: 'file://' + path.join(REAL, 'nvfuser').split('/').map(encodeURIComponent).join('/'), name: 'nvfuser' }] }));
  try {
    await c2.connect(t2);
    const inside = await c2.callTool({ name: 'kernels', arguments: { input: 'report1.sqlite', limit: 1 } });
    check('client roots: a file under the client\'s root is read (relative to it)', !inside.isError && inside.structuredContent.kernels.length === 1, JSON.stringify(inside).slice(0, 300));
    const outside = await c2.callTool({ name: 'kernels', arguments: { input: F(CS) } });
    check('client roots: a file outside them is refused by the roots rule', outside.isError && /roots rule/.test(outside.content[0].text), JSON.stringify(outside));
  } catch (e) {
    notOk('client roots', e && e.stack || e);
  } finally {
    await c2.close().catch(() => {});
  }
}

// ---- hostile lines on a raw pipe -----------------------------------------------------------------------
async function raw(lines) {
  const p = spawn(GF, ['mcp', '--root', ROOT2], { env: ENV, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  p.stdout.on('data', (d) => { out += d; });
  p.stderr.on('data', () => {});
  for (const l of lines) p.stdin.write(l);
  p.stdin.end();
  const code = await new Promise((res) => p.on('close', res));
  return { code, replies: out.split('\n').filter(Boolean) };
}
const init = JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw' } } }) + '\n';
const hostile = [
  'not json\n', '{"jsonrpc":"2.0","id":1,"method":', '\n', '[]\n', '[{"jsonrpc":"2.0","id":2,"method":"ping"}]\n', '"str"\n', '42\n',
  '{"jsonrpc":"2.0","id":3,"method":"no/such"}\n', '{"jsonrpc":"1.0","id":4,"method":"ping"}\n', '{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}\n',
  '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":[1]}\n', '{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":7}}\n',
  '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"kernels","arguments":{"input":"x","limit":"many"}}}\n',
  '{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"kernels","arguments":{"input":"x","bogus":1}}}\n',
  '{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"../../etc/passwd"}}\n',
  '['.repeat(200000) + '\n', '{"a":'.repeat(5000) + '1' + '}'.repeat(5000) + '\n',
  '{"jsonrpc":"2.0","id":10,"method":"ping","params":{"x":"' + 'A'.repeat(2 * 1024 * 1024) + '"}}\n',
  '{"jsonrpc":"2.0","id":11,"method":"ping","x":1e999}\n', '\xff\xfe\x00garbage\n',
  '{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"timeline_window","arguments":{"input":"x","start_ns":-1,"end_ns":1}}}\n',
  '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":999}}\n',
  '{"jsonrpc":"2.0","id":99,"method":"ping"}\n',
];
const h = await raw([init, ...hostile]);
let parsed = [];
try { parsed = h.replies.map((l) => JSON.parse(l)); ok('hostile lines: every reply is one JSON line'); } catch (e) { notOk('hostile lines: every reply is one JSON line', e); }
check('hostile lines: the server exits cleanly at the end of stdin (no crash)', h.code === 0, `exit ${h.code}`);
check('hostile lines: the last ping is still answered', parsed.some((m) => m.id === 99 && m.result), JSON.stringify(parsed.slice(-3)));
const codes = parsed.filter((m) => m.error).map((m) => m.error.code);
check('hostile lines: parse errors (-32700), invalid requests (-32600), unknown methods (-32601), invalid params (-32602)',
  [-32700, -32600, -32601, -32602].every((c) => codes.includes(c)), JSON.stringify(codes));
check('hostile lines: a 2 MiB request is refused, not read (policy mcp.max_request_bytes)', parsed.some((m) => m.error && /max_request_bytes/.test(m.error.message)), JSON.stringify(parsed.map((m) => m.error?.message)));
check('hostile lines: no reply to notifications; every request with a valid id answered once',
  [0, 3, 4, 5, 6, 7, 8, 9, 12, 99].every((id) => parsed.filter((m) => m.id === id).length === 1), JSON.stringify(parsed.map((m) => m.id)));

// ---- the MCP Inspector's CLI mode ----------------------------------------------------------------------
const insp = path.join(TOP, 'tests/node_modules/.bin/mcp-inspector');
if (!fs.existsSync(insp)) {
  skip('mcp inspector --cli', '@modelcontextprotocol/inspector is not installed in tests/node_modules');
} else {
  const r = spawnSync(insp, ['--cli', GF, 'mcp', '--root', REAL, '--method', 'tools/call', '--tool-name', 'kernels', '--tool-arg', `input=${CS}`],
    { env: ENV, encoding: 'utf8', timeout: 120000, maxBuffer: 1 << 26 });
  let res;
  try { res = JSON.parse(r.stdout); } catch { /* below */ }
  const ks = res && res.structuredContent && res.structuredContent.kernels;
  const ksum = cli(['stats', '-r', 'cuda_gpu_kern_sum', '-f', 'json', F(CS)]);
  check('mcp inspector --cli: tools/call kernels = stats -r cuda_gpu_kern_sum (first page)',
    ks && JSON.stringify(ks.map((x) => [x.name, x.total_ns])) === JSON.stringify(ksum.slice(0, ks.length).map((x) => [x.Name, x['Total Time (ns)']])) && ks.length > 0,
    `exit ${r.status}: ${(r.stdout || '').slice(0, 300)} ${(r.stderr || '').slice(-300)}`);
}
process.exit(failed ? 1 : 0);
