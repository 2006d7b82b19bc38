#!/usr/bin/env bash
# Ranks by their own names (issue 41, docs/SEMANTICS.md "Rank names"): the captured environment, then `MPI Rank N`
# thread names (nsys's MPI tracing), then NVTX markers, then host and pid. The expected labels come from the
# export itself (sqlite3 over ThreadNames) or from planted exports whose names are known by construction
# (tests/gen/rank_exports.py).
. "$(dirname "$0")/../lib/t.sh"
GEN=$TOP/tests/gen/rank_exports.py

# pid=label of every process's CPU lanes in the merged model, sorted by pid
cat >"$TMP/labels.lua" <<'LUA'
local ctx = require("gpuflame.cli").script_context()
local tr = require("gpuflame.trace").load({ ... }, { ranks = true }, ctx.policy())
local seen, out = {}, {}
for _, l in ipairs(tr:lanes()) do
  if l.kind == "cpu" and l.pid and not seen[l.pid] then seen[l.pid] = true; out[#out + 1] = l.pid .. "=" .. l.rank end
end
table.sort(out)
io.stdout:write(table.concat(out, ","), "\n")
return 0
LUA

# --- the real MPI capture: its rank's main thread is named `MPI Rank 0` ---
PIPIT=real/pipit/saxpy-mpi-cuda_nsys_perlmutter0.sqlite
if have_fixture "$PIPIT"; then
  DB=$FIX/$PIPIT
  # independent: the thread name of the thread that made the CUDA calls, from the export's own tables
  want=$(sqlite3 "file:$DB?mode=ro" "SELECT DISTINCT s.value FROM CUPTI_ACTIVITY_KIND_RUNTIME r
    JOIN ThreadNames t ON t.globalTid = r.globalTid JOIN StringIds s ON s.id = t.nameId")
  pid=$(sqlite3 "file:$DB?mode=ro" "SELECT DISTINCT (globalTid >> 24) & 16777215 FROM CUPTI_ACTIVITY_KIND_RUNTIME")
  check_eq "$PIPIT: the export names the CUDA thread 'MPI Rank 0' (sqlite3)" "MPI Rank 0" "$want"
  run_gf -q run "$TMP/labels.lua" "$DB"
  check_eq "$PIPIT: the rank is labelled from its thread name, not host and pid" "$pid=rank ${want#MPI Rank }" "$out"
  run_gf -q run rank-skew --json "$DB"
  check_eq "$PIPIT: rank-skew --json labels it 'rank 0'" "rank 0" \
    "$(printf '%s' "$out" | python3 -c 'import json,sys; print(",".join(r["label"] for r in json.load(sys.stdin)["ranks"]))')"
else
  skip "$PIPIT" "fixture absent"
fi

# --- planted: each source alone, and the order between them ---
python3 "$GEN" job "$TMP/thr" --ranks 4 --steps 2 --no-env --thread-names --name-shift 1
run_gf -q run "$TMP/labels.lua" "$TMP/thr"
check_eq "thread names alone: pid 3000+k is 'MPI Rank (k+1)%4'" "3000=rank 1,3001=rank 2,3002=rank 3,3003=rank 0" "$out"
run_gf -q run rank-skew --json "$TMP/thr"
check_eq "thread names: rank-skew lists the ranks in rank order" "rank 0,rank 1,rank 2,rank 3" \
  "$(printf '%s' "$out" | python3 -c 'import json,sys; print(",".join(r["label"] for r in json.load(sys.stdin)["ranks"]))')"

python3 "$GEN" job "$TMP/mark" --ranks 4 --steps 2 --no-env --markers --name-shift 2
run_gf -q run "$TMP/labels.lua" "$TMP/mark"
check_eq "NVTX markers alone ('NCCL rank N'): pid 3000+k is rank (k+2)%4" "3000=rank 2,3001=rank 3,3002=rank 0,3003=rank 1" "$out"

python3 "$GEN" job "$TMP/envthr" --ranks 4 --steps 2 --thread-names --markers --name-shift 1
run_gf -q run "$TMP/labels.lua" "$TMP/envthr"
check_eq "the environment (RANK=k) comes before thread names and markers" "3000=rank 0,3001=rank 1,3002=rank 2,3003=rank 3" "$out"

python3 "$GEN" job "$TMP/thrmark" --ranks 4 --steps 2 --no-env --thread-names --markers --name-shift 1
sqlite3 "$TMP/thrmark/rank0.sqlite" "UPDATE NVTX_EVENTS SET text = 'NCCL rank 9' WHERE text LIKE 'NCCL rank %'"
run_gf -q run "$TMP/labels.lua" "$TMP/thrmark/rank0.sqlite"
check_eq "a thread name comes before a marker" "3000=rank 1" "$out"

python3 "$GEN" job "$TMP/none" --ranks 2 --steps 1 --no-env
run_gf -q run "$TMP/labels.lua" "$TMP/none"
check_eq "nothing names the rank: host and pid" "3000=node0 pid 3000,3001=node0 pid 3001" "$out"

# the names travel in model files (gpuflame import) like the environment
mkdir -p "$TMP/models"
"$GF" -q import "$TMP/thr" -o "$TMP/models/" >/dev/null
run_gf -q run "$TMP/labels.lua" "$TMP/models"
check_eq "model files: the same labels from thread names" "3000=rank 1,3001=rank 2,3002=rank 3,3003=rank 0" "$out"

# under MPI (docs/MPI.md) rank 0 labels the ranks from the summaries it receives: the same labels
MPIGF=${GPUFLAME_MPI_BIN:-$(dirname "$GF")/gpuflame-mpi}
if command -v mpirun >/dev/null 2>&1 && [ -x "$MPIGF" ]; then
  run_gf -q run rank-skew --json "$TMP/mark"
  one=$out
  mout=$(OMPI_MCA_btl_vader_single_copy_mechanism=none timeout 120 mpirun --allow-run-as-root --oversubscribe \
    --bind-to none -np 2 "$MPIGF" -q run rank-skew --json "$TMP/mark" 2>/dev/null)
  check_eq "gpuflame-mpi -np 2: rank-skew labels the ranks from their markers as one process does" "$one" "$mout"
else
  skip "rank names under MPI" "no mpirun or no $MPIGF (make mpi)"
fi

# the policy decides the patterns: none → host and pid
printf 'return { ranks = { thread_rank_patterns = {}, marker_rank_patterns = {} } }\n' >"$TMP/nopat.lua"
run_gf -q --policy "$TMP/nopat.lua" run "$TMP/labels.lua" "$TMP/thr/rank0.sqlite"
check_eq "policy without patterns: host and pid" "3000=node0 pid 3000" "$out"
t_done
