#!/usr/bin/env bash
# seeds.sh TARGET CORPUS_DIR FIXTURES_DIR — fills a fuzz corpus with relevant real inputs (read from the
# fixtures in place and copied into the corpus under build-fuzz/, never into the repository), the
# project's own seed files (tests/fuzz/seeds/<target>/) and saved regression inputs.
set -u
t=$1 corpus=$2 fix=$3
top=$(cd "$(dirname "$0")/../.." && pwd)
add() { for f in "$@"; do [ -f "$f" ] && cp -f "$f" "$corpus/$(echo "${f#"$fix"/}" | tr '/' '_')"; done; return 0; }
case "$t" in
  csv|flame_csv|trace_csv) add "$fix"/gprofiler/*.csv "$fix"/real/roboflow-inference/*.csv "$fix"/real/vernier/*.out ;;
  folded) add "$fix"/gprofiler/*.csv ;;
  render) ;;
  sqlite|trace_sqlite|kernels) add "$fix"/real/*/*.sqlite ;;
  nvtx|yaml|manifest) add "$fix"/real/roboflow-inference/nvtx_*.csv "$fix"/real/roboflow-inference/*.yaml ;;
  version) add "$fix"/real/vernier/*.out ;;
esac
[ -d "$top/tests/fuzz/seeds/$t" ] && cp -f "$top/tests/fuzz/seeds/$t"/* "$corpus/" 2>/dev/null
[ -d "$top/tests/fuzz/regressions/$t" ] && cp -f "$top/tests/fuzz/regressions/$t"/* "$corpus/" 2>/dev/null
exit 0
