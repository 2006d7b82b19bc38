#!/usr/bin/env bash
# The findings `capture` prints first (gpuflame.findings top, policy findings.capture_top): warnings, then
# infos, each by the time at stake (a rule's stake_ns, docs/RULES.md), then in rule order. On the planted export
# of tests/gen/findings_export.py every rule's stake equals the one computed here from the generator's own
# expected rows (the copies' and sync calls' durations, the gaps, the low-utilisation regions' unused time, the
# devices' idle time, the NCCL kernels' time), and the order follows from those stakes.
. "$(dirname "$0")/../lib/t.sh"

G=$TMP/gen
mkdir -p "$G"
python3 "$TOP/tests/gen/findings_export.py" planted "$G/planted.sqlite" --expect "$G/planted.json"
check_eq "generate the export" 0 "$?"
cat >"$G/stakes.lua" <<'LUA'
local path, n = ...
local findings = require("gpuflame.findings")
local trace = require("gpuflame.trace")
local pol = require("gpuflame.cli").script_context().policy()
local results = findings.page(trace.load({ path }, { max_events = 0 }, pol), path, pol)
for _, r in ipairs(results) do print(r.name, r.severity or "-", r.stake_ns or "-") end
local top = {}
for _, r in ipairs(findings.top(results, tonumber(n))) do top[#top + 1] = r.name end
io.write("top ", table.concat(top, " "), "\n")
return 0
LUA
run_gf run "$G/stakes.lua" "$G/planted.sqlite" 10
check_eq "the script runs" 0 "$rc"
printf '%s\n' "$out" >"$G/stakes.txt"
want=$(python3 - "$G/planted.json" <<'PY'
import csv, io, json, sys
exp = json.load(open(sys.argv[1]))
def rows(rule):
    return list(csv.DictReader(io.StringIO("\n".join(exp[rule]))))
def total(rule, col):
    return sum(int(r[col]) for r in rows(rule))
stake = {
    "cuda-async-memcpy": total("cuda-async-memcpy", "Duration (ns)"),
    "cuda-sync-memcpy": total("cuda-sync-memcpy", "Duration (ns)"),
    "cuda-sync-memset": total("cuda-sync-memset", "Duration (ns)"),
    "cuda-sync-api": total("cuda-sync-api", "Duration (ns)"),
    "gpu-starv": total("gpu-starv", "Duration (ns)"),
    # the unused part of each region: duration x (100 - in-use %) / 100, in whole ns
    "gpu-low-util": sum(round(int(r["Duration (ns)"]) * (100 - float(r["In-Use (%)"])) / 100)
                        for r in rows("gpu-low-util")),
    "gpu-busy": total("gpu-busy", "Idle (ns)"),
    "launch-overhead": total("gpu-busy", "Span (ns)") - total("gpu-busy", "Busy (ns)"),
    "nccl-wait": total("nccl-wait", "NCCL Time (ns)"),
}
for k in sorted(stake):
    print(k, stake[k])
PY
)
check_eq "each rule's stake equals the generator's expected rows" "$want" \
  "$(awk '$1 != "top" && $3 != "-" {print $1, $3}' "$G/stakes.txt" | sort)"
check_eq "cuda-graphs states no stake" "cuda-graphs -" "$(awk '$1 == "cuda-graphs" {print $1, $3}' "$G/stakes.txt")"
# the order those stakes give: the warnings by stake, then the infos by stake (none tied here)
order=$(awk '$1 != "top" && $2 != "ok" {print ($2 == "warning" ? 0 : 1), ($3 == "-" ? -1 : $3), $1}' "$G/stakes.txt" |
  sort -k1,1n -k2,2nr | awk '{printf "%s%s", (NR > 1 ? " " : ""), $3}')
check_eq "top: warnings first, each group by its stake" "top $order" "$(grep '^top ' "$G/stakes.txt")"
check_eq "top: gpu-low-util, the most GPU time unused, first; the 340 us of pageable copies after the 4 ms of syncs" \
  "gpu-low-util" "$(awk '$1 == "top" {print $2}' "$G/stakes.txt")"
run_gf run "$G/stakes.lua" "$G/planted.sqlite" 3
check_eq "top 3: the three largest warnings" "top $(cut -d' ' -f1-3 <<<"$order")" "$(grep '^top ' <<<"$out")"
t_done
