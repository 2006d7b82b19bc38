#!/usr/bin/env bash
# gpuflame upload against the Studio stand-in: the protocol round trip (body, header, tags, query,
# headers, gpid carried and persisted), retries (3 failures then success), spool when the server is
# down and a byte-identical --flush, rejected items, the size limit policy, the spool cap, a fleet
# policy that changes tags and sinks without rebuilding, and the token absent from every file.
. "$(dirname "$0")/../lib/t.sh"
. "$(dirname "$0")/../lib/studio.sh"

TOKEN="tkn-$(date +%s%N)-secret"
export GPUFLAME_TOKEN=$TOKEN
trap 'studio_stop' EXIT
studio_start "$TMP/srv" --token "$TOKEN" --service svc

# a capture directory made by the test: real folded text and two HTML pages
mk_capture() {
  mkdir -p "$1"
  printf 'gpu;nsys;cuda_kernel;burn(float *, int, int) 28918\ngpu;nsys;cuda_kernel;gemm_relu 1200\n' >"$1/gpu.folded"
  printf '<!DOCTYPE html><html><head><title>nsys CPU/GPU timeline</title></head><body><p>timeline %s</p></body></html>\n' "$1" >"$1/timeline.html"
  printf '<!DOCTYPE html><html><head><title>GPU flamegraph</title></head><body><p>flamegraph</p></body></html>\n' >"$1/flamegraph.html"
}
fast="$TMP/fast.lua"
cat >"$fast" <<'LUA'
return { extends = "default", deliver = { retry = { count = 4, base = 0.05, cap = 0.2, jitter = 0.5 } } }
LUA
up() { run_gf --policy "$fast" upload --server "$STUDIO_URL" --service svc --state-dir "$TMP/state" --hostname gpu-host-1 "$@"; }

mk_capture "$TMP/cap1"
up "$TMP/cap1"
check_eq "upload exits 0" 0 "$rc"
check_eq "one profile received" 1 "$(studio_q 'len(profiles())')"
check_eq "flamegraph_html is the timeline page (policy prefers the timeline)" "True" \
  "$(studio_q 'profiles()[0]["body"]["_header"]["flamegraph_html"] == open("'"$TMP/cap1/timeline.html"'").read()')"
check_eq "perf_events carry nsys-cuda,nsys-timeline" "nsys-cuda,nsys-timeline" \
  "$(studio_q 'profiles()[0]["body"]["_header"]["metadata"]["run_arguments"]["perf_events"]')"
check_eq "perf_mode none" "none" "$(studio_q 'profiles()[0]["body"]["_header"]["metadata"]["run_arguments"]["perf_mode"]')"
check_eq "profile body is the folded stacks after the header" \
  "gpu;nsys;cuda_kernel;burn(float *, int, int) 28918|gpu;nsys;cuda_kernel;gemm_relu 1200" \
  "$(studio_q '"|".join(profiles()[0]["body"]["profile"].split("\n")[1:])')"
check_eq "body fields" "['cpu_avg', 'end_time', 'gpid', 'hostname', 'mem_avg', 'profile', 'spawn_time', 'start_time']" \
  "$(studio_q 'sorted(k for k in profiles()[0]["body"] if not k.startswith("_"))')"
check_eq "first upload sends gpid \"\"" "''" "$(studio_q 'repr(profiles()[0]["body"]["gpid"])')"
check_eq "query parameters key, service, hostname, timestamp, version" "['hostname', 'key', 'service', 'timestamp', 'version']" \
  "$(studio_q 'sorted(profiles()[0]["query"])')"
check_eq "hostname query parameter" "gpu-host-1" "$(studio_q 'profiles()[0]["query"]["hostname"]')"
check_eq "session headers present" "<token> svc gzip application/json" \
  "$(studio_q '" ".join(profiles()[0]["headers"][k] for k in ("GPROFILER-API-KEY","GPROFILER-SERVICE-NAME","Content-Encoding","Content-Type"))')"
check_eq "Content-Length is the compressed body size" "True" \
  "$(studio_q 'int(profiles()[0]["headers"]["Content-Length"]) == len(raw(profiles()[0]))')"
check_eq "gpid persisted in the state dir" "4711" "$(tr -d '\n' <"$TMP/state/gpid")"
check_eq "spool empty after a 2xx" "0" "$(ls "$TMP/state/spool" | wc -l)"
up "$TMP/cap1"
check_eq "second upload carries the gpid" "4711" "$(studio_q 'profiles()[1]["body"]["gpid"]')"

# --- 3 failures, then success ------------------------------------------------------------------
studio_ctl fail '{"mode": "500", "count": 2, "path": "/api/v2/profiles"}'
studio_ctl fail '{"mode": "reset", "count": 1, "path": "/api/v2/profiles"}'
n0=$(studio_q 'len(profiles())')
up "$TMP/cap1"
check_eq "500, 500, reset, then 2xx: exit 0" 0 "$rc"
check_eq "the 4th attempt delivered" "$((n0 + 1))" "$(studio_q 'len(profiles())')"
check_eq "3 injected failures seen by the server" 3 "$(studio_q 'sum(1 for r in recs if (r["note"] or "").startswith("injected"))')"
check_contains "each failed attempt is logged" "$err" "attempt 3 of 4"
check_eq "spool empty" "0" "$(ls "$TMP/state/spool" | wc -l)"

# --- server down for the whole run → spool → flush byte-identical -----------------------------
down="http://127.0.0.1:$(closed_port)"
run_gf --policy "$fast" upload --server "$down" --service svc --state-dir "$TMP/state" "$TMP/cap1"
check_eq "server down: exit 7" 7 "$rc"
check_contains "server down: says where the item is" "$err" "kept in the spool $TMP/state/spool"
item=$(ls "$TMP/state/spool"/*.item)
check_eq "one item spooled" 1 "$(ls "$TMP/state/spool"/*.item | wc -l)"
GPUFLAME_TOKEN= run_gf --policy "$fast" upload --flush --server "$STUDIO_URL" --service svc --state-dir "$TMP/state"
check_eq "flush without a token: exit 7, nothing sent" 7 "$rc"
check_contains "flush without a token says why" "$err" "no API token configured"
check_eq "flush without a token keeps the item (not rejected)" "1 0" \
  "$(ls "$TMP/state/spool"/*.item | wc -l) $(ls "$TMP/state/spool/rejected" 2>/dev/null | wc -l)"
python3 - "$item" "$TMP/spooled.body" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
open(sys.argv[2], "wb").write(data[data.index(b"\n") + 1:])
PY
n0=$(studio_q 'len(profiles())')
run_gf --policy "$fast" upload --flush --server "$STUDIO_URL" --service svc --state-dir "$TMP/state"
check_eq "flush: exit 0" 0 "$rc"
check_eq "flush delivered one profile" "$((n0 + 1))" "$(studio_q 'len(profiles())')"
check_eq "flushed body is byte-identical to the spooled body" "True" \
  "$(studio_q 'raw(profiles()[-1]) == open("'"$TMP/spooled.body"'","rb").read()')"
check_eq "spool empty after flush" "0" "$(ls "$TMP/state/spool" | grep -c item)"

# --- a rejected item (HTTP 400) is kept aside, never silently deleted -------------------------
run_gf --policy "$fast" upload --server "$STUDIO_URL" --service other-svc --state-dir "$TMP/state" "$TMP/cap1"
check_eq "400 from the server: exit 7" 7 "$rc"
check_eq "rejected item kept in spool/rejected" 1 "$(ls "$TMP/state/spool/rejected" | grep -c '\.item$')"
check_contains "rejection reason kept" "$(cat "$TMP/state/spool/rejected/"*.why)" "HTTP 400"
rm -rf "$TMP/state/spool/rejected"

# --- size limit policy -------------------------------------------------------------------------
mkdir -p "$TMP/big"
cp "$TMP/cap1/gpu.folded" "$TMP/cap1/flamegraph.html" "$TMP/big/"
python3 -c "
import base64, os
print('<!DOCTYPE html><title>nsys CPU/GPU timeline</title><pre>' + base64.b64encode(os.urandom(60000)).decode() + '</pre>')" >"$TMP/big/timeline.html"
cat >"$TMP/small.lua" <<'LUA'
return { extends = "default", upload = { max_compressed_bytes = 20000 },
  deliver = { retry = { count = 2, base = 0.05, cap = 0.1 } } }
LUA
run_gf --policy "$TMP/small.lua" upload --server "$STUDIO_URL" --service svc --state-dir "$TMP/state" "$TMP/big"
check_eq "oversize timeline → flamegraph sent instead: exit 0" 0 "$rc"
check_contains "oversize is logged" "$err" "sending the flamegraph instead"
check_eq "the flamegraph page was sent" "True" \
  "$(studio_q 'profiles()[-1]["body"]["_header"]["flamegraph_html"] == open("'"$TMP/big/flamegraph.html"'").read()')"
check_eq "tags follow the page actually sent" "nsys-cuda" \
  "$(studio_q 'profiles()[-1]["body"]["_header"]["metadata"]["run_arguments"]["perf_events"]')"
check_eq "compressed body within the limit" "True" "$(studio_q 'len(raw(profiles()[-1])) <= 20000')"
cat >"$TMP/tiny.lua" <<'LUA'
return { extends = "default", upload = { max_compressed_bytes = 1024 } }
LUA
rm "$TMP/big/flamegraph.html"
run_gf --policy "$TMP/tiny.lua" upload --server "$STUDIO_URL" --service svc --state-dir "$TMP/state" "$TMP/big"
check_eq "nothing fits but the stacks: exit 0" 0 "$rc"
check_eq "stacks sent without a page" "None" "$(studio_q 'profiles()[-1]["body"]["_header"]["flamegraph_html"]')"
python3 -c "import os,base64; print('\n'.join('f%d;%s 1' % (i, base64.b64encode(os.urandom(30)).decode()) for i in range(400)))" >"$TMP/big/gpu.folded"
run_gf --policy "$TMP/tiny.lua" upload --server "$STUDIO_URL" --service svc --state-dir "$TMP/state" "$TMP/big"
check_eq "cannot fit at all: exit 7" 7 "$rc"
check_contains "message names the limit and what was tried" "$err" "over the Studio limit of 1024 bytes even after"
check_eq "an upload that can never fit is not spooled" "0" "$(ls "$TMP/state/spool" | grep -c item)"

# --- spool cap -----------------------------------------------------------------------------------
cat >"$TMP/cap.lua" <<'LUA'
return { extends = "default", deliver = { retry = { count = 1, base = 0, cap = 0 }, spool = { max_items = 2 } } }
LUA
for i in 1 2 3; do
  run_gf --policy "$TMP/cap.lua" upload --server "$down" --service svc --state-dir "$TMP/capstate" "$TMP/cap1"
done
check_eq "spool cap 2 keeps 2 items" 2 "$(ls "$TMP/capstate/spool" | grep -c '\.item$')"
check_contains "what was dropped is logged" "$err" "spool full"
check_contains "default policy drops the oldest" "$err" "on_full=drop_oldest"

# --- a fleet policy changes tags and sinks, no rebuild -------------------------------------------
cat >"$TMP/fleet.lua" <<LUA
return {
  extends = "default",
  deliver = { sinks = {
    { type = "dir", path = "$TMP/archive/{hostname}" },
    { type = "http", method = "PUT", url = "$STUDIO_URL/put/{hostname}/{name}", headers = { Authorization = "Bearer {token}" } },
    { type = "studio" },
  } },
  tags = function(ctx, tags) tags[#tags + 1] = "fleet-a100"; tags[#tags + 1] = "team-" .. ctx.service; return tags end,
}
LUA
run_gf --policy "$TMP/fleet.lua" upload --server "$STUDIO_URL" --service svc --state-dir "$TMP/state" --hostname h7 "$TMP/cap1"
check_eq "fleet policy upload: exit 0" 0 "$rc"
check_eq "dir sink copied the artifacts" "flamegraph.html gpu.folded timeline.html" "$(ls "$TMP/archive/h7" | tr '\n' ' ' | sed 's/ $//')"
check_eq "dir sink copies are identical" "" "$(cmp "$TMP/archive/h7/timeline.html" "$TMP/cap1/timeline.html")"
check_eq "http sink PUT the chosen page" "True" \
  "$(studio_q '[r for r in recs if r["path"] == "/put/h7/timeline.html"][-1]["method"] == "PUT"')"
check_eq "http sink header template got the token at send time" "Bearer <token>" \
  "$(studio_q '[r for r in recs if r["path"] == "/put/h7/timeline.html"][-1]["headers"]["Authorization"]')"
check_eq "fleet tags reach perf_events" "nsys-cuda,nsys-timeline,fleet-a100,team-svc" \
  "$(studio_q 'profiles()[-1]["body"]["_header"]["metadata"]["run_arguments"]["perf_events"]')"

# --- usage errors ----------------------------------------------------------------------------------
run_gf upload --state-dir "$TMP/state"
check_eq "upload without artifacts or --flush: exit 2" 2 "$rc"
run_gf upload --server "$STUDIO_URL" --service svc --state-dir "$TMP/state" "$TMP/nope"
check_eq "missing artifact: exit 6" 6 "$rc"
mkdir -p "$TMP/empty"
run_gf upload --server "$STUDIO_URL" --service svc --state-dir "$TMP/state" "$TMP/empty"
check_eq "empty capture dir: exit 5" 5 "$rc"
GPUFLAME_TOKEN= run_gf upload --server "$STUDIO_URL" --service svc --state-dir "$TMP/state" "$TMP/cap1"
check_eq "no token: exit 2" 2 "$rc"

# --- the token, given on the command line this time, is in no file and no log line ----------------
GPUFLAME_TOKEN= run_gf --policy "$fast" upload --token "$TOKEN" --server "$down" --service svc --state-dir "$TMP/state" "$TMP/cap1"
check_contains "--token warns about process listings" "$err" "visible in process listings"
check_not_contains "the token is not in the log output" "$err$out" "$TOKEN"
check_eq "the item was spooled" 7 "$rc"
check_eq "the token is in no file under the test's temp dir" "" "$(grep -rl --binary-files=text -- "$TOKEN" "$TMP" 2>/dev/null)"
check_eq "the stand-in saw no token inside any body" 0 "$(studio_q 'sum(1 for r in recs if "TOKEN-IN-BODY" in (r["note"] or ""))')"
t_done
