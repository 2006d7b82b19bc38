#!/usr/bin/env bash
# gpuflame diff of two runs (issue 41, items 1-2): processes known by what they are, not their pid, so two
# runs of one program line up frame by frame; the work of both captures compared before the verdict, a 16x
# larger input "not comparable" (exit 11) with the differences named, a capture against itself comparable.
# Planted exports (tests/gen/work_exports.py): what differs is known by construction; the expected numbers
# are read back from the exports with sqlite3, never from gpuflame.
. "$(dirname "$0")/../lib/t.sh"

GEN=$TOP/tests/gen/work_exports.py
jget() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }
q() { sqlite3 "file:$1?mode=ro" "$2"; }
cd "$TMP" || exit 1

python3 "$GEN" small.sqlite --pid 4100 --arg=--size=128 --bytes 131072 --grid 126
python3 "$GEN" rerun.sqlite --pid 4321 --arg=--size=128 --bytes 131072 --grid 126
python3 "$GEN" big.sqlite --pid 4200 --arg=--size=2048 --bytes 2097152 --grid 2040
python3 "$GEN" longer.sqlite --pid 4400 --arg=--size=128 --bytes 131072 --grid 126 --steps 10

# --- two runs of one program, other pids: the process frames line up ---
check_eq "the two runs have different pids" "4100 4321" \
  "$(q small.sqlite "SELECT pid FROM PROCESSES") $(q rerun.sqlite "SELECT pid FROM PROCESSES")"
run_gf diff small.sqlite rerun.sqlite --json --folded runs.folded
check_eq "two runs of one program: no regression, exit 0" 0 "$rc"
printf '%s\n' "$out" >runs.json
check_eq "every stack is on both sides (no 'pid N' root vanished and new)" "0 $(wc -l <runs.folded)" \
  "$(awk '$(NF-1) == 0 || $NF == 0' runs.folded | wc -l) $(awk '$(NF-1) > 0 && $NF > 0' runs.folded | wc -l)"
check_eq "the root frame is the executable, without pid" "stencil" "$(cut -d';' -f1 runs.folded | sort -u)"
check_eq "processes: one key, each side's pid kept for display" "stencil [4100] [4321]" \
  "$(jget runs.json '" ".join([d["processes"][0]["key"], str(d["processes"][0]["before"]), str(d["processes"][0]["after"])])' | tr -d ',')"
check_eq "same work: comparable, no work changes" "True 0" "$(jget runs.json 'd["verdict"]["comparable"], len(d["verdict"]["work_changes"])')"

# policy diff.process_key = "pid": the frames of before (name and pid)
printf 'return { diff = { process_key = "pid" } }\n' >pid.lua
run_gf --policy pid.lua diff small.sqlite rerun.sqlite --json --folded pid.folded
check_eq "process_key = pid: the roots carry the pids again" "stencil [4100]|stencil [4321]" \
  "$(cut -d';' -f1 pid.folded | sort -u | paste -sd'|')"
printf 'return { diff = { process_key = function(p) return "prog-" .. p.executable end } }\n' >fn.lua
run_gf --policy fn.lua diff small.sqlite rerun.sqlite --json --folded fn.folded
check_eq "process_key as a function" "0|prog-stencil" "$rc|$(cut -d';' -f1 fn.folded | sort -u)"

# --- a 16x larger input: not comparable, exit 11, the differences named with before and after ---
run_gf diff small.sqlite big.sqlite --json -o big.html
check_eq "16x input: not comparable, exit 11" 11 "$rc"
printf '%s\n' "$out" >big.json
check_eq "verdict.comparable is false, exit_code 11" "False 11" "$(jget big.json 'd["verdict"]["comparable"], d["verdict"]["exit_code"]')"
hb=$(q small.sqlite "SELECT sum(bytes) FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE copyKind = 1")
ha=$(q big.sqlite "SELECT sum(bytes) FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE copyKind = 1")
gb=$(q small.sqlite "SELECT sum(gridX*gridY*gridZ)/count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.demangledName WHERE s.value = 'stencil_kernel(float*)'")
ga=$(q big.sqlite "SELECT sum(gridX*gridY*gridZ)/count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.demangledName WHERE s.value = 'stencil_kernel(float*)'")
check_eq "the planted change as sqlite3 reads it: H2D bytes and stencil grid" "655360 10485760 126 2040" "$hb $ha $gb $ga"
check_eq "work_changes name the copies (bytes before, after)" "bytes copied Host-to-Device $hb $ha" \
  "$(jget big.json '" ".join(str(c[k]) for c in d["verdict"]["work_changes"] if c["what"] == "bytes copied Host-to-Device" for k in ("what", "before", "after"))')"
check_eq "work_changes name the grid (blocks per instance before, after)" "blocks per instance of stencil_kernel(float*) $gb $ga" \
  "$(jget big.json '" ".join(str(c[k]) for c in d["verdict"]["work_changes"] if c["what"].startswith("blocks per instance") for k in ("what", "before", "after"))')"
check_eq "nothing else changed (the small copies, the reduce kernel, the steps)" 2 "$(jget big.json 'len(d["verdict"]["work_changes"])')"
check_eq "normalised: stencil time per block the same (planted: 400 ns a block on both sides)" "400 400 same" \
  "$(jget big.json '" ".join(str(f[k]) for f in d["normalised"] if f["what"] == "time per block of stencil_kernel(float*)" for k in ("before", "after", "direction"))')"
check_eq "normalised: time per instance worse (16x the blocks)" "worse" \
  "$(jget big.json '" ".join(f["direction"] for f in d["normalised"] if f["what"] == "time per instance of stencil_kernel(float*)")')"
check_eq "the regression rule's own answer is kept" "True" "$(jget big.json 'd["verdict"]["regression"]')"
run_gf diff small.sqlite big.sqlite -o big2.html
check_eq "without --json: exit 11, the verdict line says NOT COMPARABLE" "11|verdict: NOT COMPARABLE (exit 11)" \
  "$rc|$(sed -n 2p <<<"$out" | cut -c1-33)"
check_contains "the verdict line names the copies" "$out" "bytes copied Host-to-Device: 640 KiB → 10 MiB"
check "the page is written" test -s big2.html
check_not_contains "the page holds no argument of the command line" "$(cat big2.html)" "--size=2048"
check_not_contains "nor the JSON" "$(cat big.json)" "--size="
# the tolerance is policy: a looser one makes the same pair comparable (then the regression rule decides: 10)
printf 'return { diff = { work = { bytes_tolerance = 20, launch_tolerance = 20 } } }\n' >loose.lua
run_gf --policy loose.lua diff small.sqlite big.sqlite --json
check_eq "diff.work tolerances from policy: comparable, regression (exit 10)" 10 "$rc"

# --- more steps of the same program: the NVTX step count and the kernel instances differ ---
run_gf diff small.sqlite longer.sqlite --json
printf '%s\n' "$out" >longer.json
check_eq "twice the steps: not comparable (exit 11)" 11 "$rc"
check_contains "NVTX ranges per name (numbers folded): step # 5 -> 10" \
  "$(jget longer.json '[(c["what"], c["before"], c["after"]) for c in d["verdict"]["work_changes"]]')" "('NVTX ranges step #', 5, 10)"

# --- a capture against a copy of itself stays comparable ---
cp big.sqlite big_copy.sqlite
run_gf diff big.sqlite big_copy.sqlite --json
check_eq "self-diff (a copy): exit 0" 0 "$rc"
printf '%s\n' "$out" >self.json
check_eq "self-diff: comparable, no work change, every normalised figure the same" "True 0 True" \
  "$(jget self.json 'd["verdict"]["comparable"], len(d["verdict"]["work_changes"]), all(f["direction"] == "same" for f in d["normalised"])')"

# --- ranks from nsys's MPI thread names: two runs of a 2-rank program line up by rank ---
for run in 1 2; do
  TOP=$TOP python3 - "mpi$run.sqlite" "$run" <<'PY'
import os, sys
sys.path.insert(0, os.path.join(os.environ["TOP"], "tests/gen"))
import rank_exports
out, run = sys.argv[1], int(sys.argv[2])
e = rank_exports.Export(out, rank_exports.BASE_EPOCH, "nodeA", ["NVIDIA A100-SXM4-80GB"] * 2)
for r in range(2):
    pid = 5000 + 100 * run + 7 * r          # other pids in each run, not in rank order
    e.process(pid, "a.out")
    e.db.execute("UPDATE ThreadNames SET nameId = ? WHERE globalTid = ?", (e.sid("MPI Rank %d" % r), (pid << 24) | pid))
    for k in range(3):
        e.kernel(pid, r, 7, "jacobi_kernel(double*)" if r == 0 else "halo_kernel(double*)", e.t0 + 1_000_000 * (k + 1), 200_000)
e.close()
PY
done
run_gf diff mpi1.sqlite mpi2.sqlite --json --folded mpi.folded
check_eq "MPI Rank N threads: roots are the ranks, on both sides" "0|rank 0|rank 1" \
  "$(awk '$(NF-1) == 0 || $NF == 0' mpi.folded | wc -l)|$(cut -d';' -f1 mpi.folded | sort -u | paste -sd'|')"

# --- multi-report views: the process frames of merged reports are the executable, not a pid ---
python3 "$TOP/tests/gen/rank_exports.py" job job --ranks 2 >/dev/null
run_gf -q flamegraph job -o job.html
names() { python3 -c 'import json,re,sys; print("|".join(json.loads("[" + re.search(r"\"names\":\[(.*?)\]", open(sys.argv[1]).read()).group(1) + "]")))' "$1"; }
n=$(names job.html)
check_contains "multi-report flamegraph: the ranks' processes are one python3 frame" "|$n|" "|python3|"
check_not_contains "... not 'pid 0' / 'pid 1'" "|$n|" "|pid "
run_gf -q flamegraph --by-rank job -o jobr.html
n=$(names jobr.html)
check_contains "--by-rank: the rank frames part them" "|$n|" "|rank 1|"
t_done
