#!/usr/bin/env bash
# Model files (issue 27): `gpuflame import` writes each report's model (docs/MODEL_FORMAT.md); every
# multi-report command reads them with the output it gives for the reports; damaged, foreign, other-version
# and other-byte-order files are exit 6 naming the file. The layout is checked by an independent reader
# (Python struct + zlib.crc32) and the provenance against SQL over the export.
. "$(dirname "$0")/../lib/t.sh"
GEN=$TOP/tests/gen/rank_exports.py
python3 "$GEN" job "$TMP/job" --ranks 4 --slow 2 --factor 1.5 --steps 4 --skew-ns 3000000
J=$TMP/job

run_gf -q import "$J" -o "$TMP/models"
check_eq "import of a directory: exits 0" 0 "$rc"
check_eq "one .gfmodel per report" "rank0.gfmodel rank1.gfmodel rank2.gfmodel rank3.gfmodel" "$(cd "$TMP/models" && echo *)"

# --- the layout, read by an independent reader ---
res=$(python3 - "$TMP/models/rank1.gfmodel" "$J/rank1.sqlite" <<'PY'
import json, sqlite3, struct, sys, zlib
d = open(sys.argv[1], "rb").read()
magic, version, bom, plen = struct.unpack("<8sIIQ", d[:24])
prov = d[24:24 + plen]
plen_payload, tlen, hcrc, pcrc, tcrc, zero, end = struct.unpack("<QQIIII8s", d[-40:])
payload = d[24 + plen:24 + plen + plen_payload]
tables = d[24 + plen + plen_payload:-40]
p = json.loads(prov)
db = sqlite3.connect(sys.argv[2])
start = db.execute("SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME").fetchone()[0]
host = db.execute("SELECT value FROM TARGET_INFO_SYSTEM_ENV WHERE name = 'Hostname'").fetchone()[0]
nsys = db.execute("SELECT value FROM META_DATA_EXPORT WHERE name = 'EXPORT_PRODUCT_VERSION'").fetchone()[0]
print("magic=%r version=%d bom=%#x end=%r" % (magic, version, bom, end))
print("payload_len_ok=%s tables_len_ok=%s" % (plen_payload == len(payload), tlen == len(tables) > 0))
print("tables_crc_ok=%s tables_are_sqlite=%s" % (tcrc == zlib.crc32(tables), tables[:16] == b"SQLite format 3\x00"))
print("header_crc_ok=%s" % (hcrc == zlib.crc32(d[:24 + plen])))
print("payload_crc_ok=%s" % (pcrc == zlib.crc32(payload)))
print("payload_magic=%r" % payload[:8])
print("format=%s v%d source=%s" % (p["format"], p["version"], p["source"].rsplit("/", 1)[-1]))
print("session_start_ok=%s host_ok=%s nsys_ok=%s" % (p["meta"]["session_start"] == str(start),
      p["meta"]["host"] == host, p["capture"]["nsys_version"] == nsys))
print("rank_var=%s" % p["meta"]["kv"].get("PROCESS_0:ENV:RANK"))
PY
)
check_contains "magic, version 3, little-endian byte-order mark, end marker" "$res" "magic=b'GFMODEL\x00' version=3 bom=0x1020304 end=b'GFMODEND'"
check_contains "the trailer's payload and tables lengths are theirs" "$res" "payload_len_ok=True tables_len_ok=True"
check_contains "the tables: an SQLite database, CRC-32 (zlib) matches" "$res" "tables_crc_ok=True tables_are_sqlite=True"
check_contains "header CRC-32 (zlib) matches" "$res" "header_crc_ok=True"
check_contains "payload CRC-32 (zlib) matches" "$res" "payload_crc_ok=True"
check_contains "the payload is the trace model" "$res" "payload_magic=b'GFTRACE2'"
check_contains "provenance: format, version, source report" "$res" "format=gpuflame-model v3 source=rank1.sqlite"
check_contains "provenance: session start, host, nsys version as the export has them (SQL)" "$res" \
  "session_start_ok=True host_ok=True nsys_ok=True"
check_contains "provenance keeps the rank variable ranks are labelled by" "$res" "rank_var=1"

# --- every multi-report command: the same output from the models as from the reports ---
M=("$TMP"/models/rank0.gfmodel "$TMP"/models/rank1.gfmodel "$TMP"/models/rank2.gfmodel "$TMP"/models/rank3.gfmodel)
R=("$J"/rank0.sqlite "$J"/rank1.sqlite "$J"/rank2.sqlite "$J"/rank3.sqlite)
run_gf -q run rank-skew "${R[@]}" --json; ref=$out
run_gf -q run rank-skew "${M[@]}" --json
check_eq "rank-skew --json from model files: exit 0" 0 "$rc"
check_eq "rank-skew --json: the same JSON as from the reports" "$ref" "$out"
check_contains "rank-skew from models still names the straggler" "$out" '"stragglers":[{"iterations":4,"label":"rank 2"'
run_gf -q run rank-skew "$J/rank0.sqlite" "${M[1]}" "$J/rank2.sqlite" "${M[3]}" --json
check_eq "reports and model files mixed: the same JSON" "$ref" "$out"
run_gf -q timeline "${R[@]}" -o "$TMP/r.html"
run_gf -q timeline "${M[@]}" -o "$TMP/m.html"
check_eq "timeline from model files: exit 0" 0 "$rc"
check "timeline -o: the same page byte for byte" cmp -s "$TMP/r.html" "$TMP/m.html"
run_gf -q export -f chrome-trace "${R[@]}" -o "$TMP/r.json"
run_gf -q export -f chrome-trace "${M[@]}" -o "$TMP/m.json"
check "export -f chrome-trace: the same file" cmp -s "$TMP/r.json" "$TMP/m.json"
run_gf -q flamegraph --by-rank "${R[@]}" -o "$TMP/rf.html"
run_gf -q flamegraph --by-rank "${M[@]}" -o "$TMP/mf.html"
# the page's subtitle names the first input as given (rank0.gfmodel): the rest is the same
sed 's/rank0\.gfmodel/rank0.sqlite/' "$TMP/mf.html" >"$TMP/mf2.html"
check "flamegraph --by-rank: the same page (but the subtitle, the input's name)" cmp -s "$TMP/rf.html" "$TMP/mf2.html"
run_gf -q timeline "${M[0]}" -o "$TMP/m1.html"
run_gf -q timeline "${R[0]}" -o "$TMP/r1.html"
check "one model file alone: the page of its report" cmp -s "$TMP/r1.html" "$TMP/m1.html"
run_gf -q timeline --max-events 40 "${M[1]}" -o "$TMP/m40.html"
run_gf -q timeline --max-events 40 "${R[1]}" -o "$TMP/r40.html"
check "one model, --max-events 40: the page of a trimming import" cmp -s "$TMP/r40.html" "$TMP/m40.html"
run_gf -q timeline --max-events 40 "${M[@]}" -o "$TMP/m40x.html"
run_gf -q timeline --max-events 40 "${R[@]}" -o "$TMP/r40x.html"
check "4 models, --max-events 40: the same page" cmp -s "$TMP/r40x.html" "$TMP/m40x.html"
run_gf -q import "$J/rank2.sqlite" -o "$TMP/one.gfmodel"
check_eq "import -o FILE for one report: exit 0" 0 "$rc"
check "-o FILE writes the same model as -o DIR" cmp -s "$TMP/one.gfmodel" "$TMP/models/rank2.gfmodel"

# --- bad model files: exit 6 naming the file, no output ---
bad() { # NAME FILE EXPECTED: rank-skew over rank0's report and FILE
  rm -f "$TMP/bad.html"
  run_gf timeline "${R[0]}" "$2" -o "$TMP/bad.html"
  check_eq "$1: exit 6" 6 "$rc"
  check_contains "$1: names the file and the reason" "$err" "$2: $3"
  check "$1: no page written" test ! -e "$TMP/bad.html"
}
python3 -c 'import sys, struct
d = bytearray(open(sys.argv[1], "rb").read()); p = struct.unpack("<Q", d[16:24])[0]; n = struct.unpack("<Q", d[-40:-32])[0]
d[24 + p + n // 2] ^= 0x55; open(sys.argv[2], "wb").write(d)' "${M[1]}" "$TMP/flip.gfmodel"
bad "one byte flipped in the payload" "$TMP/flip.gfmodel" "damaged gpuflame model file"
head -c 3000 "${M[1]}" >"$TMP/trunc.gfmodel"
bad "a truncated model" "$TMP/trunc.gfmodel" "damaged gpuflame model file: truncated"
printf 'hello, not a model\n' >"$TMP/foreign.gfmodel"
bad "a foreign file named .gfmodel" "$TMP/foreign.gfmodel" "not a gpuflame model file"
python3 -c 'import sys, struct; d = bytearray(open(sys.argv[1], "rb").read()); d[8:12] = struct.pack("<I", 1); open(sys.argv[2], "wb").write(d)' \
  "${M[1]}" "$TMP/v1.gfmodel"
bad "a model of format version 1" "$TMP/v1.gfmodel" "written by model format version 1; this gpuflame reads version 3"
python3 -c 'import sys; d = bytearray(open(sys.argv[1], "rb").read()); d[12:16] = bytes([1, 2, 3, 4]); open(sys.argv[2], "wb").write(d)' \
  "${M[1]}" "$TMP/be.gfmodel"
bad "a model from a machine of the other byte order" "$TMP/be.gfmodel" "model file written on a machine of the other byte order"
python3 -c 'import sys, struct, zlib
d = bytearray(open(sys.argv[1], "rb").read()); n = struct.unpack("<Q", d[16:24])[0]
d[24:24 + n] = d[24:24 + n].replace(b"gpuflame-model", b"gpuflame-xxxxx")
d[-24:-20] = struct.pack("<I", zlib.crc32(bytes(d[:24 + n])))
open(sys.argv[2], "wb").write(d)' "${M[1]}" "$TMP/prov.gfmodel"
bad "a provenance of another format (checksums right)" "$TMP/prov.gfmodel" "damaged gpuflame model file: its provenance is not a gpuflame-model document"
cp "${M[1]}" "$TMP/append.gfmodel"; printf 'x' >>"$TMP/append.gfmodel"
bad "a model with a byte appended" "$TMP/append.gfmodel" "damaged gpuflame model file"

# --- import refuses what it cannot do, before any work ---
run_gf import "${M[0]}" -o "$TMP/again"
check_eq "import of a model file: exit 6" 6 "$rc"
check_contains "import of a model file: says so" "$err" "already a gpuflame model file"
run_gf import "${R[0]}" "${R[1]}" -o "$TMP/two.gfmodel"
check_eq "two reports to one -o FILE.gfmodel: exit 2" 2 "$rc"
mkdir -p "$TMP/dup"; cp "${R[0]}" "$TMP/dup/"
run_gf import "${R[0]}" "$TMP/dup/rank0.sqlite" -o "$TMP/dupout"
check_eq "two reports of the same name: exit 2" 2 "$rc"
check "…and nothing written" test ! -e "$TMP/dupout/rank0.gfmodel"

# --- stats: the model carries the export's tables that stats reads; the same files as the export ---
S=$TMP/stats_edges.sqlite
python3 "$TOP/tests/gen/stats_edges.py" "$S"
run_gf -q import "$S" -o "$TMP/stats_edges.gfmodel"
ALL=$("$GF" stats --help-reports | awk '{print $1}' | paste -sd, -)
for fmt in csv json:mem=B; do
  run_gf -q stats -r "$ALL" --format "$fmt" "$S" -o "$TMP/se_r_${fmt%%:*}/s"
  run_gf -q stats -r "$ALL" --format "$fmt" "$TMP/stats_edges.gfmodel" -o "$TMP/se_m_${fmt%%:*}/s"
  check_eq "stats of a model file, every report, --format $fmt: exit 0" 0 "$rc"
  check "stats of a model file, every report, --format $fmt: the export's files byte for byte" \
    diff -r "$TMP/se_r_${fmt%%:*}" "$TMP/se_m_${fmt%%:*}"
done
run_gf -q stats -r cuda_gpu_kern_sum:base,cuda_gpu_trace:mangled "$S"; ref=$out
run_gf -q stats -r cuda_gpu_kern_sum:base,cuda_gpu_trace:mangled "$TMP/stats_edges.gfmodel"
check_eq "stats of a model file, :base/:mangled to stdout: the export's bytes" "$ref" "$out"
run_gf -q import --no-stats "${R[0]}" -o "$TMP/nostats/"
check "import --no-stats: a smaller model" test "$(stat -c %s "$TMP/nostats/rank0.gfmodel")" -lt "$(stat -c %s "${M[0]}")"
# without the export's tables there is no NVTX projection (it is computed from them): otherwise the same page
printf 'return { timeline = { nvtx_projection = false } }\n' >"$TMP/noproj.lua"
run_gf -q --policy "$TMP/noproj.lua" timeline "$TMP/nostats/rank0.gfmodel" -o "$TMP/ns.html"
run_gf -q --policy "$TMP/noproj.lua" timeline "${M[0]}" -o "$TMP/m1np.html"
check "import --no-stats: the same page as the full model (without the NVTX projection)" cmp -s "$TMP/ns.html" "$TMP/m1np.html"
run_gf -q timeline "$TMP/nostats/rank0.gfmodel" -o "$TMP/ns2.html"
check "import --no-stats, projection on: a page without it, as the model has no tables to project from" \
  cmp -s "$TMP/ns.html" "$TMP/ns2.html"
run_gf stats -r cuda_gpu_kern_sum "$TMP/nostats/rank0.gfmodel"
check_eq "stats of a model imported with --no-stats: exit 6" 6 "$rc"
check_contains "…says why and what to do" "$err" "imported with --no-stats"
python3 -c 'import sys, struct
d = bytearray(open(sys.argv[1], "rb").read()); t = struct.unpack("<Q", d[-32:-24])[0]
d[len(d) - 40 - t // 2] ^= 0x55; open(sys.argv[2], "wb").write(d)' "${M[0]}" "$TMP/tflip.gfmodel"
run_gf stats -r cuda_gpu_kern_sum "$TMP/tflip.gfmodel"
check_eq "a byte flipped in the tables: stats exits 6" 6 "$rc"
check_contains "…naming the file: tables checksum mismatch" "$err" "$TMP/tflip.gfmodel: damaged gpuflame model file: tables checksum mismatch"
t_done
