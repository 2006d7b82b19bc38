#!/usr/bin/env bash
# Timeline page in headless Chromium: first paint and per-frame cost while panning (20,000 events).
# Runnable alone (`bench/bench_timeline_browser.sh [PAGE.html]`) or from `make bench` via bench/run.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
exec node "$top/bench/bench_timeline_browser.mjs" "$@"
