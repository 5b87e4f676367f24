#!/usr/bin/env bash
# The runs behind the READMEs' results tables, with reduce_bench (nvbench; README.md). Needs a GPU and
# the cuda-bench package (reduce_bench is built only where CMake found it): first
#   cmake --build build --target reduce_bench
#   benchmark/bench.sh [BUILD] [OUT]       (default: build, BUILD/bench-results)
#   python3 benchmark/tables.py OUT/*.json --out benchmark/results/BOARD
set -euo pipefail
B=${1:-build}
OUT=${2:-$B/bench-results}
mkdir -p "$OUT"
run() {  # run NAME ARGS...: one nvbench run, its JSON in OUT/NAME.json, its Markdown in OUT/NAME.md
  local name=$1; shift
  "$B/benchmark/reduce_bench" "$@" --min-time 0.005 --max-noise 1 --timeout 2 --batch-target-time 0.01 \
    --json "$OUT/$name.json" --md "$OUT/$name.md" >"$OUT/$name.log" 2>&1
}
run empty -b empty_kernel
run fastest_cub -b reduce -a 'kernel=[09/fastest,cub]'
run chapters -b reduce -a 'T=[I32]' -a 'Op=[sum]' -a 'n=[268435456]'
run unblocked -b unblocked -a 'kernel=[09/fastest,09/cub,cub]' -a 'n=[1024,65536,268435456,1073741824]'
