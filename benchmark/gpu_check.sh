#!/usr/bin/env bash
# Verification on a machine with a GPU, in stages (default: all of them, in this order):
#   build      configure and build solution mode (build-gpu/) and exercise mode (build-gpu-ex/)
#   test       every test in solution mode (CPU, GPU, and compute-sanitizer: the label sanitize)
#   exercises  every test in exercise mode: exactly the kernel tests of unfinished chapters fail
#   runs       each chapter's default run and the runs its lesson quotes (runs.log)
#   bench      the benchmark (bench.sh, nvbench): its JSON, and tables.md and tables.png from tables.py
#   profile    Nsight Compute on chapters 03 and 04, beside their models
# usage: benchmark/gpu_check.sh [stage ...]      logs go to $LOGS (default gpu-check/)
set -uo pipefail
cd "$(dirname "$0")/.."
LOGS=${LOGS:-gpu-check}
mkdir -p "$LOGS"
B=build-gpu
BX=build-gpu-ex
ARCH=${CUDAARCHS:-native}
stages=("$@")
[ ${#stages[@]} -gt 0 ] || stages=(build test exercises runs bench profile)
status=0

for stage in "${stages[@]}"; do
  echo "=== $stage ==="
  case $stage in
    build)
      cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=$ARCH >"$LOGS/configure.log" 2>&1 &&
        cmake -S . -B $BX -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=$ARCH -DREDUCTION_EXERCISES=ON \
          >>"$LOGS/configure.log" 2>&1 &&
        cmake --build $B -j "$(nproc)" >"$LOGS/build.log" 2>&1 &&
        cmake --build $BX -j "$(nproc)" >"$LOGS/build-ex.log" 2>&1 || { echo "build failed"; tail -30 "$LOGS"/build*.log; exit 1; }
      echo "built"
      ;;
    test)
      ctest --test-dir $B --output-on-failure -j 4 >"$LOGS/ctest.log" 2>&1 || status=1
      grep -E "tests passed|tests failed|\(Failed\)|\(Skipped\)|Not Run|Timeout" "$LOGS/ctest.log"
      ;;
    exercises)
      ctest --test-dir $BX -j 4 >"$LOGS/ctest-exercises.log" 2>&1
      grep -E "tests passed|tests failed|\(Failed\)|\(Skipped\)|Timeout" "$LOGS/ctest-exercises.log"
      ;;
    runs)
      # Each chapter's default run, in teaching order (the build's chapters.json; chapter 10 has
      # benchmark/multi_gpu.py), then the runs the lessons quote.
      while read -r chapter args; do
        [ -n "$chapter" ] || continue
        echo "--- $chapter $args" >>"$LOGS/runs.log"
        # shellcheck disable=SC2086
        $B/$chapter/$chapter $args >>"$LOGS/runs.log" 2>&1 || { echo "$chapter $args: status $?"; status=1; }
      done < <(python3 -c 'import json, sys
for c in json.load(open(sys.argv[1]))["chapters"]:
    if not c["multi_gpu"]:
        print(c["name"])' "$B/chapters.json"; cat <<'RUNS'
01_sequential --type float --n 2^28
03_simple_kernel --n 2048 --type float
04_convergent --n 2048 --type float
05_shared_memory --n 2048 --type float
06_hierarchical --type float
06_hierarchical --block 1024
07_coarsening --type float
07_coarsening --type float --block 1024
07_coarsening --coarse 1024
08_two_pass --type float
08_two_pass --n 1000 --type float
09_warp_unrolled --n 2^20
09_warp_unrolled --n 2^20 --type float
09_warp_unrolled --n 2^28 --kernel fastest,cub
09_warp_unrolled --n 2^28 --type float --kernel fastest,cub
09_warp_unrolled --n 2^30 --kernel fastest,cub
09_warp_unrolled --n 2^30 --type float --kernel fastest,cub
09_warp_unrolled --type float --op max
RUNS
      )
      grep -E "^--- |verified|FAILED" "$LOGS/runs.log" | paste - - | awk '{print}' | head -60
      ;;
    bench)
      benchmark/bench.sh $B "$LOGS/results" || status=1
      python3 benchmark/tables.py "$LOGS"/results/*.json --out "$LOGS/results/tables" || status=1
      ;;
    profile)
      python3 benchmark/profile.py --build $B 03_simple_kernel -- --n 2048 >"$LOGS/profile.md" 2>&1 || status=1
      python3 benchmark/profile.py --build $B 04_convergent -- --n 2048 >>"$LOGS/profile.md" 2>&1 || status=1
      python3 benchmark/profile.py --build $B 06_hierarchical -- --n 2^26 >>"$LOGS/profile.md" 2>&1 || status=1
      cat "$LOGS/profile.md"
      ;;
    *) echo "unknown stage $stage"; exit 2 ;;
  esac
done
exit $status
