#!/usr/bin/env bash
# The timeline's NVTX projection on a second thread while the rules run (core/trace_proj_job.c, policy
# limits.threads >= 2): the page is byte-identical to the one-call path's (threads = 1), also for a trace the
# page trims (which keeps the one-call path) and a model file; the trace is held while the thread reads it (a
# rule that tries to change it fails as a rule, the page is still written); a rule error that unwinds past the
# job (an interrupt) joins the thread and the command fails cleanly with the error's exit code.
. "$(dirname "$0")/../lib/t.sh"

G=$TMP/gen
mkdir -p "$G" "$TMP/path/rules"
python3 "$TOP/tests/gen/big_export.py" "$G/s.sqlite" --ranges 20000 >/dev/null
check_eq "generate an export (20,000 NVTX ranges)" 0 "$?"
printf 'return { limits = { threads = 1 } }\n' >"$TMP/t1.lua"
printf 'return { limits = { threads = 2 } }\n' >"$TMP/t2.lua"
printf 'return { limits = { threads = 2 }, timeline = { local_max_events = 5000 } }\n' >"$TMP/t2trim.lua"
printf 'return { limits = { threads = 1 }, timeline = { local_max_events = 5000 } }\n' >"$TMP/t1trim.lua"

run_gf --policy "$TMP/t1.lua" -q timeline "$G/s.sqlite" -o "$TMP/t1.html"
check_eq "threads = 1: the page" 0 "$rc"
run_gf --policy "$TMP/t2.lua" -v timeline "$G/s.sqlite" -o "$TMP/t2.html"
check_eq "threads = 2: the page" 0 "$rc"
check "threads = 1 and 2: byte-identical pages" cmp -s "$TMP/t1.html" "$TMP/t2.html"
check_contains "the page has projected ranges" "$(cat "$TMP/t2.html")" '"proj":true'
check_not_contains "threads = 2: the job was merged, not closed early" "$err" "closed before its merge"
# the page's compressed columns: workers compress the columns ahead of the writer into unnamed temporary files
# (core/trace_pack.c); with three workers several wait there at once
printf 'return { limits = { threads = 4 } }\n' >"$TMP/t4.lua"
run_gf --policy "$TMP/t4.lua" -q timeline "$G/s.sqlite" -o "$TMP/t4.html"
check "threads = 4 (three columns compressed ahead): byte-identical to threads = 1" cmp -s "$TMP/t1.html" "$TMP/t4.html"
# no temporary file to be had (/tmp read-only, in a mount namespace of its own): the writer compresses every
# column itself, the page is the same
if [ "$(id -u)" = 0 ] && [ -d /dev/shm ] && [ -w /dev/shm ] && unshare -m --propagation private true 2>/dev/null; then
  ro=$(mktemp -d /dev/shm/gf-tmpro.XXXXXX)
  unshare -m --propagation private sh -c 'mount --bind /tmp /tmp && mount -o remount,bind,ro /tmp && exec "$@"' sh \
    "$GF" --policy "$TMP/t4.lua" -q timeline "$G/s.sqlite" -o "$ro/t4.html" 2>"$ro/err"
  check_eq "/tmp read-only: the page is written (exit 0)" "0 " "$? $(cat "$ro/err")"
  check "/tmp read-only: byte-identical to threads = 1" cmp -s "$TMP/t1.html" "$ro/t4.html"
  rm -rf "$ro"
else
  skip "timeline with /tmp read-only" "needs root, a writable /dev/shm and mount namespaces (unshare -m)"
fi
run_gf --policy "$TMP/t1trim.lua" -q timeline "$G/s.sqlite" -o "$TMP/t1trim.html"
run_gf --policy "$TMP/t2trim.lua" -q timeline "$G/s.sqlite" -o "$TMP/t2trim.html"
check_eq "a trimmed page at threads = 2 (the one-call path)" 0 "$rc"
check "a trimmed page: threads = 1 and 2 byte-identical" cmp -s "$TMP/t1trim.html" "$TMP/t2trim.html"
run_gf import "$G/s.sqlite" -o "$G/s.gfm"
if [ "$rc" = 0 ]; then
  run_gf --policy "$TMP/t1.lua" -q timeline "$G/s.gfm" -o "$TMP/m1.html"
  run_gf --policy "$TMP/t2.lua" -q timeline "$G/s.gfm" -o "$TMP/m2.html"
  check_eq "a model file at threads = 2" 0 "$rc"
  check "a model file: threads = 1 and 2 byte-identical" cmp -s "$TMP/m1.html" "$TMP/m2.html"
else
  skip "model file" "import failed: $err"
fi

# an export the projection cannot read: the thread's error becomes the same warning, the same page
rel=real/pipit/saxpy-mpi-cuda_nsys_perlmutter0.sqlite
if have_fixture "$rel" && command -v sqlite3 >/dev/null; then
  cp "$FIX/$rel" "$G/damaged.sqlite"
  sqlite3 "$G/damaged.sqlite" "ALTER TABLE NVTX_EVENTS RENAME COLUMN globalTid TO gtid_x"
  run_gf --policy "$TMP/t1.lua" -q timeline "$G/damaged.sqlite" -o "$TMP/d1.html"
  e1=$err
  run_gf --policy "$TMP/t2.lua" -q timeline "$G/damaged.sqlite" -o "$TMP/d2.html"
  check_eq "damaged NVTX table at threads = 2: the page is written" 0 "$rc"
  check_contains "... with the warning naming the file and the column" "$err" \
    "warning: NVTX ranges not projected onto the GPU: $G/damaged.sqlite: table NVTX_EVENTS has no column globalTid"
  check_eq "... the same warnings as threads = 1" "$e1" "$err"
  check "... and the same page" cmp -s "$TMP/d1.html" "$TMP/d2.html"
else
  skip "damaged NVTX table" "fixture or sqlite3 absent"
fi

# a rule that tries to change the trace while the thread reads it: refused, the rule fails, the page is written
cat >"$TMP/path/rules/trimmer.lua" <<'LUA'
return { name = "trimmer", options = {}, run = function(model)
  model.trace:trim(1)
  return { columns = { "x" }, rows = {} }
end }
LUA
printf 'return { limits = { threads = 2 }, findings = { rules = { "trimmer", "gpu-starv" } } }\n' >"$TMP/trimmer.lua"
run_gf_env GPUFLAME_PATH="$TMP/path" -- --policy "$TMP/trimmer.lua" -q timeline "$G/s.sqlite" -o "$TMP/trimmer.html"
check_eq "a rule changing the trace while the projection runs: the page is still written" 0 "$rc"
check_contains "... the rule fails with the trace busy" "$err" "trace is busy: its NVTX projection is still running"
check_contains "... and the page has its projected ranges" "$(cat "$TMP/trimmer.html")" '"proj":true'

# a rule error that unwinds past the job (an interrupt is not caught per rule): the thread is joined
# (<close>), the command exits 130 with its message and writes no page
cat >"$TMP/path/rules/stop.lua" <<'LUA'
local errors = require("gpuflame.errors")
return { name = "stop", options = {}, run = function()
  errors.raise(errors.INTERRUPTED, "planted interrupt in a rule")
end }
LUA
printf 'return { limits = { threads = 2 }, findings = { rules = { "stop" } } }\n' >"$TMP/stop.lua"
run_gf_env GPUFLAME_PATH="$TMP/path" -- --policy "$TMP/stop.lua" -v timeline "$G/s.sqlite" -o "$TMP/stop.html"
check_eq "a rule error past the job: exit 130" 130 "$rc"
check_contains "... names the error" "$err" "planted interrupt in a rule"
check_contains "... the job was closed, its thread joined" "$err" "NVTX projection closed before its merge: its thread joined"
check "... no page" test ! -e "$TMP/stop.html"
check_not_contains "... no sanitizer report" "$err" "WARNING: ThreadSanitizer"
t_done
