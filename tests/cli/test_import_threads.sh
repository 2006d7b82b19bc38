#!/usr/bin/env bash
# The SQLite import's row reader (core/sqlite_prefetch.c, policy limits.threads): the same outputs with
# threads 1 (everything on the calling thread), 2 and 4, and a damage in the middle of a big table (the
# kernels, the runtime calls, the NVTX ranges: rows read by the reader thread) fails with the same exit
# status and the same message, naming the file and the table, at every thread count.
. "$(dirname "$0")/../lib/t.sh"

python3 "$TOP/tests/gen/big_export.py" "$TMP/e.sqlite" --ranges 20000 >/dev/null
for n in 1 2 4; do printf 'return { limits = { threads = %d } }\n' "$n" >"$TMP/t$n.lua"; done

for n in 1 2 4; do
  P=(--policy "$TMP/t$n.lua")
  "$GF" -q "${P[@]}" export --format chrome-trace "$TMP/e.sqlite" -o "$TMP/e$n.json"
  "$GF" -q "${P[@]}" timeline "$TMP/e.sqlite" -o "$TMP/e$n.html"
  "$GF" -q "${P[@]}" timeline --max-events 3000 "$TMP/e.sqlite" -o "$TMP/m$n.html"
  mkdir -p "$TMP/fd$n"; "$GF" -q "${P[@]}" findings -f csv "$TMP/e.sqlite" -o "$TMP/fd$n/fd"
done
check "export: the events themselves" [ -s "$TMP/e1.json" ]
for n in 2 4; do
  check "threads $n: export chrome-trace byte-identical to threads 1" cmp -s "$TMP/e1.json" "$TMP/e$n.json"
  check "threads $n: timeline byte-identical to threads 1" cmp -s "$TMP/e1.html" "$TMP/e$n.html"
  check "threads $n: timeline --max-events 3000 (the bounded import) byte-identical to threads 1" \
    cmp -s "$TMP/m1.html" "$TMP/m$n.html"
  check "threads $n: findings CSVs byte-identical to threads 1" diff -r "$TMP/fd1" "$TMP/fd$n"
done

# damage TABLE OUT: a copy of the export with the cells of a b-tree leaf page of TABLE, two thirds down its
# pages, overwritten (its header and cell pointers kept: count(*) still counts it): SQLite reads the rows
# before it, then fails
damage() {
  python3 - "$TMP/e.sqlite" "$1" "$2" <<'PY'
import shutil, sqlite3, sys
src, table, out = sys.argv[1:]
c = sqlite3.connect(src)
pages = [p for (p,) in c.execute("SELECT pageno FROM dbstat WHERE name = ? AND pagetype = 'leaf' ORDER BY path", (table,))]
ps = c.execute("PRAGMA page_size").fetchone()[0]
c.close()
shutil.copy(src, out)
with open(out, "r+b") as f:
    f.seek((pages[len(pages) * 2 // 3] - 1) * ps + ps // 2)
    f.write(b"\xff" * (ps // 2))
PY
}
# (the sizing count of a keep-all build, reserve_events, counts NVTX_EVENTS from its b-tree pages without
# decoding a row, so NVTX's damage too is met by the table's own read)
for table in CUPTI_ACTIVITY_KIND_KERNEL CUPTI_ACTIVITY_KIND_RUNTIME NVTX_EVENTS; do
  where=$table
  damage "$table" "$TMP/bad-$table.sqlite" || { not_ok "damaged $table" "could not plant the damage"; continue; }
  for n in 1 4; do
    run_gf -q --policy "$TMP/t$n.lua" timeline "$TMP/bad-$table.sqlite" -o "$TMP/bad.html"
    eval "rc$n=\$rc err$n=\$err"
  done
  check_eq "damaged $table, threads 1: exit 6" 6 "$rc1"
  check_contains "damaged $table, threads 1: names the file, says it is damaged and where" "$err1" \
    "$TMP/bad-$table.sqlite: damaged SQLite file ($where: "
  check_eq "damaged $table, threads 4: the same exit status" "$rc1" "$rc4"
  check_eq "damaged $table, threads 4: the same message" "$err1" "$err4"
done
t_done
