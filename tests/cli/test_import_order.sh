#!/usr/bin/env bash
# The SQLite import reads tables in storage order and orders in C (issue 29): an export whose rows are
# stored in another order gives the same model. Real captures (../shared/fixtures) are copied to $TMP with
# their rows stored again in reverse or shuffled order, and the timeline page's data and the launch stacks
# (folded) are compared with those of the original: CUDA_CALLCHAINS out of (id, stackDepth) order takes the
# sorted query (in order, it is read in table order, not through its key's index), kernels and runtime calls
# out of start order take the radix sort (more runs than are merged). Rowids far apart give the same model
# too, in about the same time.
. "$(dirname "$0")/../lib/t.sh"

# reorder EXPORT TABLE ORDER: TABLE's rows stored again in ORDER (SQL)
reorder() {
  sqlite3 "$1" "CREATE TABLE tmp_rows AS SELECT * FROM $2 ORDER BY $3; DELETE FROM $2;
    INSERT INTO $2 SELECT * FROM tmp_rows; DROP TABLE tmp_rows;"
}
copy() { cp "$1" "$2" && chmod u+w "$2"; }
# data PAGE: the page's data without its source file name
data() {
  python3 - "$1" <<'PY'
import json, re, sys
m = re.search(r'<script[^>]*id="gf-data"[^>]*>(.*?)</script>', open(sys.argv[1], encoding="utf-8").read(), re.S)
d = json.loads(m.group(1)) if m else {}
d.pop("source", None)
print(json.dumps(d, sort_keys=True))
PY
}
page() { "$GF" -q timeline "$1" -o "$TMP/$2.html" && "$GF" -q export --format launch-stacks "$1" -o "$TMP/$2.folded"; }

if have_fixture real/pipit/saxpy-mpi-cuda_nsys_perlmutter0.sqlite; then
  SRC=$FIX/real/pipit/saxpy-mpi-cuda_nsys_perlmutter0.sqlite
  page "$SRC" orig
  check "the original has launch stacks" [ -s "$TMP/orig.folded" ]
  copy "$SRC" "$TMP/cc.sqlite"
  reorder "$TMP/cc.sqlite" CUDA_CALLCHAINS "rowid DESC"
  page "$TMP/cc.sqlite" cc
  check "CUDA_CALLCHAINS stored in reverse: the same launch stacks" cmp -s "$TMP/orig.folded" "$TMP/cc.folded"
  check "CUDA_CALLCHAINS stored in reverse: the same page data" [ "$(data "$TMP/orig.html")" == "$(data "$TMP/cc.html")" ]
else
  skip "import order: callchains" "fixtures absent"
fi

# a capture with enough rows to be out of order in more runs than are merged
if have_fixture real/cs336-jsun012/result.sqlite; then
  SRC=$FIX/real/cs336-jsun012/result.sqlite
  page "$SRC" orig
  copy "$SRC" "$TMP/k.sqlite"
  reorder "$TMP/k.sqlite" CUPTI_ACTIVITY_KIND_RUNTIME "(rowid * 7919) % 1009, rowid"
  reorder "$TMP/k.sqlite" CUPTI_ACTIVITY_KIND_KERNEL "rowid DESC"
  check "the shuffled runtime calls are out of start order many times" [ "$(sqlite3 "$TMP/k.sqlite" "SELECT count(*) FROM
    (SELECT start < lag(start) OVER (ORDER BY rowid) AS d FROM CUPTI_ACTIVITY_KIND_RUNTIME) WHERE d")" -gt 1000 ]
  page "$TMP/k.sqlite" k
  # each row's table order is its event's arrival order, which breaks ties of equal starts: none here
  check_eq "no two runtime calls or kernels start at the same time (so table order cannot show)" "0" \
    "$(sqlite3 "$SRC" "SELECT (SELECT count(*) - count(DISTINCT start) FROM CUPTI_ACTIVITY_KIND_RUNTIME) +
      (SELECT count(*) - count(DISTINCT start) FROM CUPTI_ACTIVITY_KIND_KERNEL)")"
  check "runtime calls shuffled, kernels reversed: the same page data" [ "$(data "$TMP/orig.html")" == "$(data "$TMP/k.html")" ]
else
  skip "import order: shuffled rows" "fixtures absent"
fi
# Rowids far apart (nsys numbers a table's rows densely; a hand-made or future export need not): the import
# takes the span of a table's rowids for its row count, and splits a scan over two readers by rowid blocks,
# only where the file could hold that many rows. The kernels' rowids a billion apart once made a split of
# 10^13 rowids into empty blocks, read one by one for hours; the calls' a few apart only reserve more.
if have_fixture real/cs336-jsun012/result.sqlite; then
  SRC=$FIX/real/cs336-jsun012/result.sqlite
  "$GF" -q timeline "$SRC" -o "$TMP/dense.html"
  copy "$SRC" "$TMP/sparse.sqlite"
  sqlite3 "$TMP/sparse.sqlite" "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET rowid = -rowid;
    UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET rowid = -rowid * 1000000007;
    UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET rowid = -rowid; UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET rowid = -rowid * 3"
  check_eq "the kernels' rowids span 10^13, the calls' three times their count" "17032 17031000119218 20436 61306" \
    "$(sqlite3 "$TMP/sparse.sqlite" "SELECT (SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL) || ' ' ||
      (SELECT max(rowid) - min(rowid) + 1 FROM CUPTI_ACTIVITY_KIND_KERNEL) || ' ' ||
      (SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME) || ' ' || (SELECT max(rowid) - min(rowid) + 1
      FROM CUPTI_ACTIVITY_KIND_RUNTIME)")"
  timeout -s KILL 120 "$GF" -q timeline "$TMP/sparse.sqlite" -o "$TMP/sparse.html"
  check_eq "sparse rowids: the timeline is written (exit 0, within 2 minutes)" "0" "$?"
  data "$TMP/dense.html" >"$TMP/dense.json"
  data "$TMP/sparse.html" >"$TMP/sparse.json"
  check "sparse rowids: the same page data" cmp -s "$TMP/dense.json" "$TMP/sparse.json"
else
  skip "import order: sparse rowids" "fixtures absent"
fi
# NVTX_EVENTS is read in table order and put in (globalTid, start, end DESC) order in C, not by SQL's ORDER BY
if have_fixture real/nvfuser/report1.sqlite; then
  SRC=$FIX/real/nvfuser/report1.sqlite
  page "$SRC" orig
  copy "$SRC" "$TMP/n.sqlite"
  reorder "$TMP/n.sqlite" NVTX_EVENTS "(rowid * 7919) % 1009, rowid"
  check "the shuffled NVTX rows are out of start order many times" [ "$(sqlite3 "$TMP/n.sqlite" "SELECT count(*) FROM
    (SELECT start < lag(start) OVER (ORDER BY rowid) AS d FROM NVTX_EVENTS) WHERE d")" -gt 1000 ]
  check_eq "no two ranges of a thread have the same start and end (so table order cannot show)" "0" \
    "$(sqlite3 "$SRC" "SELECT count(*) - count(DISTINCT globalTid || ',' || start || ',' || coalesce(end, ''))
      FROM NVTX_EVENTS WHERE eventType IN (59, 60, 70, 71)")"
  page "$TMP/n.sqlite" n
  check "NVTX rows shuffled: the same page data" [ "$(data "$TMP/orig.html")" == "$(data "$TMP/n.html")" ]
else
  skip "import order: NVTX" "fixtures absent"
fi
t_done
