#!/usr/bin/env bash
# `gpuflame critical-path` (issue 44; docs/SEMANTICS.md "Critical path", docs/CRITICAL_PATH.md), checked without
# gpuflame's code: planted exports whose path is known by construction (tests/gen/critpath_export.py: a
# host-bound step, a kernel-bound step, a sync wait, two streams joined by an event, two ranks where one arrives
# late at an all-reduce), and on the real cs336 export (`Warm-up Step N`) an independent longest path
# (tests/real/critpath_check.py: its own SQL and its own graph code) with equal lengths, parts and on-path items;
# the invariants: the path is no longer than the step, shortening an item off the path changes nothing,
# shortening an item on it by d shortens the path by at most d.
. "$(dirname "$0")/../lib/t.sh"

GEN=$TOP/tests/gen/critpath_export.py
CHECK=$TOP/tests/real/critpath_check.py

# j FILE EXPR: EXPR (Python) over the JSON document in FILE (d)
j() { python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

cp_json() { # VARIANT [ARGS...] → $TMP/VARIANT.json
  local v=$1
  shift
  [ -f "$TMP/$v.sqlite" ] || python3 "$GEN" "$v" "$TMP/$v.sqlite"
  run_gf critical-path --json "$TMP/$v.sqlite" "$@"
  printf '%s\n' "$out" >"$TMP/$v.json"
}

PARTS="[s['parts'][p + '_ns'] for p in ('host', 'launch', 'queue', 'compute', 'copy', 'sync', 'communication', 'idle')]"
KINDS="sorted(set((i['kind'], i['name']) for i in d['steps'][1]['on_path']))"

cp_json host
check_eq "host-bound: exit 0" 0 "$rc"
check_eq "host-bound: 4 steps, length = span (10 ms)" "[(10000000, 10000000), (10000000, 10000000), (10000000, 10000000), (10000000, 10000000)]" \
  "$(j "$TMP/host.json" "[(s['span_ns'], s['length_ns']) for s in d['steps']]")"
check_eq "host-bound: host code and the three 5 us calls; no kernel" "[9985000, 15000, 0, 0, 0, 0, 0, 0]" \
  "$(j "$TMP/host.json" "[$PARTS for s in d['steps']][1]")"
cp_json host --what-if 'kernel=tiny_kernel:0.5'
check_eq "host-bound: halving the off-path kernel changes nothing" "[10000000, 10000000, 10000000, 10000000]" \
  "$(j "$TMP/host.json" "[s['what_if']['length_ns'] for s in d['steps']]")"
check_eq "host-bound: the what-if says it only edits the graph" "True" "$(j "$TMP/host.json" "'graph' in d['what_if']['note']")"

cp_json kernel
check_eq "kernel-bound: parts (host 150 us, launch 20 us, compute 8 ms, sync 10 us)" \
  "[150000, 20000, 0, 8000000, 0, 10000, 0, 0]" "$(j "$TMP/kernel.json" "[$PARTS for s in d['steps']][2]")"
check_eq "kernel-bound: gemm_big 8 ms on the path" "8000000" \
  "$(j "$TMP/kernel.json" "[i['ns'] for i in d['steps'][0]['on_path'] if i['name'] == 'gemm_big'][0]")"
cp_json kernel --what-if 'kernel=gemm_big:0.5'
check_eq "kernel-bound: gemm_big x0.5 → 4 ms shorter (by at most the 4 ms taken off)" "[4180000, 4180000, 4180000, 4180000]" \
  "$(j "$TMP/kernel.json" "[s['what_if']['length_ns'] for s in d['steps']]")"
cp_json kernel --what-if 'kind=compute:0'
# no compute: the calls and host code up to the sync's start at 200 us, and the 50 us after it
check_eq "kernel-bound: no compute → the host's 250 us remain" "250000" \
  "$(j "$TMP/kernel.json" "d['steps'][0]['what_if']['length_ns']")"

s1=$(j "$TMP/kernel.json" "'%d:%d' % (d['steps'][1]['start_ns'], d['steps'][1]['start_ns'] + d['steps'][1]['span_ns'])")
run_gf critical-path --json "$TMP/kernel.sqlite" --window "$s1"
printf '%s\n' "$out" >"$TMP/window.json"
# no steps: the range `step 1` is an ordinary range of the window, the host code in it (100 us before the first
# call, 50 us after the sync) on the path as the range's
check_eq "--window (step 1's): host 150 us in range step 1, launch 20 us, compute 8 ms, sync 10 us" \
  "[150000, 20000, 0, 8000000, 0, 10000, 0, 0] 150000" \
  "$(j "$TMP/window.json" "str([$PARTS for s in d['steps']][0]) + ' ' + str([i['ns'] for i in d['steps'][0]['on_path'] if i == dict(kind='nvtx', name='step 1', ns=i['ns'])][0])")"

cp_json sync
check_eq "sync wait: parts (host 3 ms, launch 30 us, copy 3 ms, sync 15 us)" \
  "[3000000, 30000, 0, 0, 3000000, 15000, 0, 0]" "$(j "$TMP/sync.json" "[$PARTS for s in d['steps']][1]")"
check_eq "sync wait: length = span 6.045 ms" "[6045000, 6045000, 6045000, 6045000]" "$(j "$TMP/sync.json" "[s['length_ns'] for s in d['steps']]")"

cp_json event
check_eq "event: producer (5 ms) and consumer (1 ms + its 5 us after the event) on the path" \
  "[5000000, 1005000]" "$(j "$TMP/event.json" "[i['ns'] for i in d['steps'][1]['on_path'] if i['kind'] == 'kernel']")"
check_eq "event: parts (host 150 us, launch 20 us, queue 5 us, compute 6 ms, sync 10 us)" \
  "[150000, 20000, 5000, 6000000, 0, 10000, 0, 0]" "$(j "$TMP/event.json" "[$PARTS for s in d['steps']][1]")"
cp_json event --what-if 'kernel=producer:0.5'
check_eq "event: producer x0.5 → the path 2.5 ms shorter" "[3685000, 3685000, 3685000, 3685000]" \
  "$(j "$TMP/event.json" "[s['what_if']['length_ns'] for s in d['steps']]")"

cp_json ranks
check_eq "ranks: one entry per step for both ranks" "[2, 2, 2, 2]" "$(j "$TMP/ranks.json" "[s['ranks'] for s in d['steps']]")"
check_eq "ranks: the late rank gates every step" "['pid 400', 'pid 400', 'pid 400', 'pid 400']" \
  "$(j "$TMP/ranks.json" "[s['gating']['rank'] for s in d['steps']]")"
check_eq "ranks: pid 300 waited for pid 400 in the all-reduce" \
  "[('ncclKernel_AllReduce_RING_LL_Sum_float', 'pid 300', 'pid 400')]" \
  "$(j "$TMP/ranks.json" "[(w['collective'], w['waiting_rank'], w['late_rank']) for w in d['steps'][1]['gating']['waits']]")"
check_eq "ranks: parts (host 150 us, launch 20 us, compute 3 ms, sync 10 us, communication 500 us)" \
  "[150000, 20000, 0, 3000000, 0, 10000, 500000, 0]" "$(j "$TMP/ranks.json" "[$PARTS for s in d['steps']][1]")"
cp_json ranks --what-if 'kernel=fwd:0.5'
check_eq "ranks: fwd x0.5 → 1.5 ms shorter (the late rank's fwd), pid 400 still gates" "[(2180000, 'pid 400'), (2180000, 'pid 400'), (2180000, 'pid 400'), (2180000, 'pid 400')]" \
  "$(j "$TMP/ranks.json" "[(s['what_if']['length_ns'], s['what_if']['gating']['rank']) for s in d['steps']]")"

run_gf critical-path "$TMP/ranks.sqlite" --html "$TMP/cp.html"
check_eq "--html: exit 0" 0 "$rc"
check_eq "--html: the page carries the document (4 steps, gated by pid 400)" "4 pid 400" \
  "$(python3 -c 'import html, json, re, sys
t = open(sys.argv[1]).read()
d = json.loads(html.unescape(re.search(r"<script id=\"cp-data\" type=\"application/json\">(.*?)</script>", t, re.S).group(1)))
print(len(d["steps"]), d["steps"][0]["gating"]["rank"])' "$TMP/cp.html")"

# --folded / --flamegraph: only the on-path time, `step N (NAME)[;RANK];KIND;NAME ns`
# fsum FILE EXPR: EXPR (Python) over f, {stack: ns} of the folded lines in FILE, and t(N), step N's total
fsum() { python3 -c 'import sys
f = {}
for line in open(sys.argv[1]):
    k, n = line.rstrip("\n").rsplit(" ", 1)
    f[k] = f.get(k, 0) + int(n)
t = lambda i: sum(v for k, v in f.items() if k.startswith("step %d (" % i))
print(eval(sys.argv[2]))' "$1" "$2"; }
run_gf critical-path --folded "$TMP/kernel.sqlite" --flamegraph "$TMP/kernel.fg.html"
check_eq "--folded: exit 0" 0 "$rc"
printf '%s\n' "$out" >"$TMP/kernel.folded"
check_eq "--folded kernel-bound: each step totals 8.18 ms (host 150 us + launch 20 us + 8 ms + sync 10 us)" \
  "[8180000, 8180000, 8180000, 8180000]" "$(fsum "$TMP/kernel.folded" "[t(i) for i in range(4)]")"
check_eq "--folded kernel-bound: gemm_big 8 ms, the launch lag 20 us, the sync 10 us" "[8000000, 20000, 10000]" \
  "$(fsum "$TMP/kernel.folded" "[f['step 2 (step 2);kernel;gemm_big'], f['step 2 (step 2);call;cudaLaunchKernel'], f['step 2 (step 2);call;cudaDeviceSynchronize']]")"
check_eq "--flamegraph: the page holds the on-path stacks" "1" \
  "$(grep -c 'gemm_big' "$TMP/kernel.fg.html" | sed 's/^[1-9][0-9]*$/1/')"
run_gf critical-path --folded "$TMP/event.sqlite" --step 1
printf '%s\n' "$out" >"$TMP/event.folded"
check_eq "--folded --step 1, event: producer 5 ms, consumer 1.005 ms, total 6.185 ms; no other step" \
  "[5000000, 1005000, 6185000, 1]" \
  "$(fsum "$TMP/event.folded" "[f['step 1 (step 1);kernel;producer'], f['step 1 (step 1);kernel;consumer'], t(1), len(set(k.split(';')[0] for k in f))]")"
run_gf critical-path --folded "$TMP/ranks.sqlite" --step 1
printf '%s\n' "$out" >"$TMP/ranks.folded"
check_eq "--folded ranks: the late rank's fwd 3 ms, the all-reduce 500 us, total 3.68 ms" "[3000000, 500000, 3680000]" \
  "$(fsum "$TMP/ranks.folded" "[f['step 1 (step 1);pid 400;kernel;fwd'], sum(v for k, v in f.items() if k.endswith(';ncclKernel_AllReduce_RING_LL_Sum_float')), t(1)]")"
for v in host sync; do
  run_gf critical-path --folded "$TMP/$v.sqlite"
  printf '%s\n' "$out" >"$TMP/$v.folded"
  check_eq "--folded $v: each step totals its length_ns" "$(j "$TMP/$v.json" "[s['length_ns'] for s in d['steps']]")" \
    "$(fsum "$TMP/$v.folded" "[t(i) for i in range(4)]")"
done
run_gf timeline "$TMP/kernel.sqlite" --critical-path --max-events 10 -o "$TMP/cp-tl.html"
check_eq "timeline --critical-path with --max-events: usage error (2), no page" "2 no" \
  "$rc $([ -e "$TMP/cp-tl.html" ] && echo yes || echo no)"
run_gf critical-path --folded --json "$TMP/kernel.sqlite"
check_eq "--folded with --json: usage error (2)" 2 "$rc"

for v in host kernel sync event ranks; do
  check_eq "$v: parts sum to length_ns, length_ns <= span_ns" "True" \
    "$(j "$TMP/$v.json" "all(sum(s['parts'].values()) == s['length_ns'] <= s['span_ns'] and sum(i['ns'] for i in s['on_path']) == s['length_ns'] for s in d['steps'])")"
done

run_gf critical-path --json "$TMP/kernel.sqlite" --what-if 'kernel=gemm_big'
check_eq "a what-if without a factor: usage error (2)" 2 "$rc"

# --- the real cs336 export: an independent longest path ---
rel=real/cs336-jsun012/result.sqlite
if [ -f "$FIX/$rel" ]; then
  run_gf critical-path --json "$FIX/$rel"
  printf '%s\n' "$out" >"$TMP/cs336.json"
  python3 "$CHECK" "$FIX/$rel" 'Warm-up Step \d+' >"$TMP/cs336.ref.json"
  cmp=$(python3 - "$TMP/cs336.json" "$TMP/cs336.ref.json" <<'PY'
import json, sys
d, ref = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
import re
def norm(kind, name):  # copies and memsets by kind; calls without their _vNNNN (gpuflame keeps some)
    return (kind, "" if kind in ("copy", "memset", "host", "idle") else re.sub(r"_v\d+$", "", name))
bad = []
for s, r in zip(d["steps"], ref):
    mine = {}
    for i in s["on_path"]:
        mine[norm(i["kind"], i["name"])] = mine.get(norm(i["kind"], i["name"]), 0) + i["ns"]
    theirs = {}
    for k, v in r["items"].items():
        kind, name = k.split("\t", 1)
        theirs[norm(kind, name)] = theirs.get(norm(kind, name), 0) + v
    if (s["span_ns"], s["length_ns"], s["parts"]) != (r["span_ns"], r["length_ns"], r["parts"]) or mine != theirs:
        bad.append(s["name"])
print("%d %d %s" % (len(d["steps"]), len(ref), ",".join(bad) or "-"))
PY
)
  check_eq "cs336: every step's span, length, parts and on-path items equal the independent computation" "5 5 -" "$cmp"
  k=$(j "$TMP/cs336.json" "sorted(d['steps'][2]['on_path'], key=lambda i: -i['ns'] if i['kind'] == 'kernel' else 0)[0]['name']")
  off=$(j "$TMP/cs336.json" "len(d['steps'])")
  run_gf critical-path --json "$FIX/$rel" --what-if "kernel=$k:0.5"
  printf '%s\n' "$out" >"$TMP/cs336.wi.json"
  python3 "$CHECK" "$FIX/$rel" 'Warm-up Step \d+' --what-if-kernel "$k" 0.5 >"$TMP/cs336.wi.ref.json"
  check_eq "cs336: what-if (the top kernel x0.5) lengths equal the independent computation" \
    "$(j "$TMP/cs336.wi.ref.json" "[s['what_if_length_ns'] for s in d]")" \
    "$(j "$TMP/cs336.wi.json" "[s['what_if']['length_ns'] for s in d['steps']]")"
  check_eq "cs336: shortening an on-path kernel by d shortens each path by at most d (and never lengthens it)" "True" \
    "$(j "$TMP/cs336.wi.json" "all(0 <= s['what_if']['saved_ns'] <= sum(i['ns'] for i in s['on_path'] if i['kind'] == 'kernel' and i['name'] == '''$k''') * 0.5 + 1000 for s in d['steps'])")"
  check_eq "cs336: steps where that kernel is off the path keep their length" "True" \
    "$(j "$TMP/cs336.wi.json" "all(s['what_if']['saved_ns'] == 0 for s in d['steps'] if not any(i['kind'] == 'kernel' and i['name'] == '''$k''' for i in s['on_path']))")"
  check_eq "cs336: $off steps" 5 "$off"
else
  skip "cs336 critical path" "fixture absent ($FIX/$rel)"
fi
# a GPU-bound loop (tests/gen/steps_export.py gpubound: 5 ms ranges, each launching 9.5 ms of GPU work): the
# path runs through the range, and the step says that its GPU work outlasts it (the time `steps` gives it)
python3 "$TOP/tests/gen/steps_export.py" gpubound "$TMP/gpubound.sqlite"
run_gf critical-path --json --step 1 "$TMP/gpubound.sqlite"
check_eq "gpubound: step 1 is GPU-bound, its time the 9.5 ms kernel, its path the 5 ms range" "True 9500000 5000000" \
  "$(python3 -c 'import json, sys; s = json.loads(sys.stdin.read())["steps"][0]; print(s["gpu_bound"], s["step_time_ns"], s["length_ns"])' <<<"$out")"
run_gf critical-path --step 4 "$TMP/gpubound.sqlite"
check_not_contains "gpubound: step 4 (its 10 ms range outlasts its GPU work) is not GPU-bound" "$out" "GPU-bound"
run_gf critical-path --step 1 "$TMP/gpubound.sqlite"
check_contains "gpubound: the text says so" "$out" "GPU-bound: its GPU work takes 9.500 ms, longer than its range"
# --- the run's summary over its counted steps, recomputed here from the document's own steps (warm-up steps
# left out; items merged over ranks by kind and name; shares of the summed path) ---
sum_check() { # JSON → "ok" or what differs
  python3 - "$1" <<'PY'
import json, statistics, sys
d = json.load(open(sys.argv[1]))
steps = d["steps"]
sm = d.get("summary")
if len(steps) < 2:
    print("ok" if sm is None else "a summary of one step"); sys.exit()
counted = [s for s in steps if not s["warmup"]] or steps
total = sum(s["length_ns"] for s in counted)
parts = {}
for s in counted:
    for k, v in s["parts"].items():
        parts[k] = parts.get(k, 0) + v
items = {}
for s in counted:
    on = set()
    for i in s["on_path"]:
        k = (i["kind"], i["name"])
        ns, n = items.get(k, (0, 0))
        items[k] = (ns + i["ns"], n + (1 if i["ns"] > 0 and k not in on else 0))
        if i["ns"] > 0: on.add(k)
want_items = sorted(((k[0], k[1], ns, n) for k, (ns, n) in items.items()), key=lambda x: (-x[2], x[0], x[1]))
got_items = [(i["kind"], i["name"], i["ns"], i["steps"]) for i in sm["on_path"]]
longest = max(counted, key=lambda s: s["length_ns"])
bad = []
if (sm["steps"], sm["counted"], sm["warmup_included"]) != (len(steps), len(counted), len(counted) == len(steps) and all(s["warmup"] for s in steps)):
    bad.append("counts")
if sm["median_length_ns"] != statistics.median(s["length_ns"] for s in counted): bad.append("median")
if sm["longest"]["length_ns"] != longest["length_ns"]: bad.append("longest")
if sm["gpu_bound"] != sum(1 for s in counted if s.get("gpu_bound")): bad.append("gpu_bound")
if sm["parts"] != parts: bad.append("parts")
if any(abs(sm["shares"][k[:-3]] - v / total) > 1e-9 for k, v in parts.items()): bad.append("shares")
if got_items != want_items: bad.append("items")
if any(abs(i["share"] - i["ns"] / total) > 1e-9 for i in sm["on_path"]): bad.append("item shares")
if "what_if" in counted[0]:
    want = (statistics.median(s["what_if"]["length_ns"] for s in counted), statistics.median(s["what_if"]["saved_ns"] for s in counted))
    if (sm["what_if"]["median_length_ns"], sm["what_if"]["median_saved_ns"]) != want: bad.append("what_if")
elif "what_if" in sm:
    bad.append("a what-if without one")
print(",".join(bad) or "ok")
PY
}
for v in host kernel ranks event; do
  cp_json "$v"
  check_eq "$v: the summary equals the one recomputed from its steps" ok "$(sum_check "$TMP/$v.json")"
done
run_gf critical-path --json "$TMP/gpubound.sqlite"
printf '%s\n' "$out" >"$TMP/gpubound.json"
check_eq "gpubound: the summary equals the one recomputed from its steps" ok "$(sum_check "$TMP/gpubound.json")"
check_eq "gpubound: counted steps GPU-bound (the 5 ms ranges of 9.5 ms of GPU work)" \
  "$(j "$TMP/gpubound.json" "sum(1 for s in d['steps'][1:] if s.get('gpu_bound'))")" "$(j "$TMP/gpubound.json" "d['summary']['gpu_bound']")"
check_eq "host-bound: 3 counted steps of 10 ms; host 99.85 %, launch (the three 5 us calls) 0.15 %" \
  "3 10000000 0.9985 0.0015" \
  "$(j "$TMP/host.json" "' '.join(str(x) for x in (d['summary']['counted'], d['summary']['median_length_ns'], round(d['summary']['shares']['host'], 6), round(d['summary']['shares']['launch'], 6)))")"
run_gf critical-path --json "$TMP/host.sqlite" --what-if 'kind=host:0.5'
printf '%s\n' "$out" >"$TMP/host_wi.json"
check_eq "host-bound, host x0.5: the summary's what-if equals the one recomputed from its steps" ok "$(sum_check "$TMP/host_wi.json")"
check_eq "host-bound, host x0.5: the median path 10 ms → 5.0075 ms (half the 9.985 ms of host code)" "5007500 4992500" \
  "$(j "$TMP/host_wi.json" "str(d['summary']['what_if']['median_length_ns']) + ' ' + str(d['summary']['what_if']['median_saved_ns'])")"
run_gf critical-path "$TMP/host.sqlite" --what-if 'kind=host:0.5'
check_contains "host-bound, host x0.5 text: the summary's what-if line" "$out" \
  "  what-if: path median 10.000 ms → 5.008 ms; median saving 4.992 ms a step"
run_gf critical-path "$TMP/host.sqlite"
check_contains "host-bound text: the summary line" "$out" "over 3 counted steps (1 warm-up left out): path median 10.000 ms"
check_contains "host-bound text: the summary's parts and first item" "$out" "  parts: host 99.9%, launch 0.1%
    9.985 ms a step  host   host code (outside NVTX ranges)  (99.9% of the path; on it in 3 of 3 steps)"
run_gf critical-path --step 1 "$TMP/host.sqlite"
check_not_contains "one step: no summary" "$out" "counted steps"
if [ -f "$FIX/$rel" ]; then
  check_eq "cs336: the summary equals the one recomputed from its steps" ok "$(sum_check "$TMP/cs336.json")"
fi

# the loop's time between its steps, which no step's path covers (steps_export.py loader: 64.5 % of the loop
# outside the steps and their GPU work; docs/SEMANTICS.md "Steps"): said, as `steps` measures it
python3 "$TOP/tests/gen/steps_export.py" loader "$TMP/loader.sqlite"
run_gf critical-path --json "$TMP/loader.sqlite"
printf '%s\n' "$out" >"$TMP/loader_cp.json"
run_gf steps --json "$TMP/loader.sqlite"
printf '%s\n' "$out" >"$TMP/loader_steps.json"
check_eq "loader: the document's between is the steps' summary.between" True \
  "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["between"] == json.load(open(sys.argv[2]))["summary"]["between"])' "$TMP/loader_cp.json" "$TMP/loader_steps.json")"
run_gf critical-path "$TMP/loader.sqlite"
check_contains "loader text: most of the loop is between the steps, and what fills the gaps" "$out" \
  "between steps: 64.5% of the loop lies outside the steps and their GPU work, and no path above covers it; in the gaps: Data loading 102.000 ms (6), log 6.000 ms (6)"
run_gf critical-path "$TMP/host.sqlite"
check_not_contains "host-bound: steps that are most of the loop: no between line" "$out" "between steps"
t_done
