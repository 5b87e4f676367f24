#!/usr/bin/env bash
# Final check on 2 H100s: the README's test workflow on GPU 0 and 16 cores (as a 1-GPU, 16-core
# machine), every program with no options, 09's default run as JSON (int, float), chapter 10's tests
# on both GPUs, then reduce_bench and bench.sh. Results in $OUT/final.tgz.
set +e
source .devdeps/setup.sh
R=$(mktemp -d)/final; mkdir -p $R
S=$(date +%s); log() { echo "[$(( $(date +%s) - S ))s] $*" | tee -a $R/steps.log; }
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader | tee $R/gpu.txt; nproc | tee -a $R/gpu.txt
export CUDA_VISIBLE_DEVICES=0
log "workflow (GPU 0, cores 0-15)"
timeout 400 taskset -c 0-15 cmake --workflow --preset test > $R/workflow.log 2>&1; log "workflow rc=$?"
grep -E "tests passed|tests failed|\(Failed\)|Timeout|Total Test|Not Run" $R/workflow.log
grep -E "Test +#" $R/workflow.log | sed -E 's/.*Test +#[0-9]+: ([^ ]+) \.+ *([A-Za-z*]+) +([0-9.]+) sec/\3 \1 \2/' | sort -rn > $R/durations.txt; head -6 $R/durations.txt
awk '{s+=$1} END {print "sum of test times", s}' $R/durations.txt
sed -n '/What this run checked/,$p' $R/workflow.log | head -14 | cut -c1-200
log "programs, no options"
for c in 01_sequential 02_reduction_tree 03_simple_kernel 04_convergent 05_shared_memory 06_hierarchical 07_coarsening 08_two_pass 09_warp_unrolled 10_multi_gpu; do
  a=$(date +%s%N); timeout 60 build/$c/$c > $R/default_$c.txt 2>&1; rc=$?; b=$(date +%s%N)
  echo "$c rc=$rc $(( (b - a) / 1000000 )) ms" | tee -a $R/defaults.txt
done
build/03_simple_kernel/03_simple_kernel --n 13 --trace > $R/trace03.txt 2>&1; echo "03 --trace rc=$?"
build/09_warp_unrolled/09_warp_unrolled --json > $R/09_int.json 2>/dev/null; echo "09 int json rc=$?"
build/09_warp_unrolled/09_warp_unrolled --type float --json > $R/09_float.json 2>/dev/null; echo "09 float json rc=$?"
unset CUDA_VISIBLE_DEVICES
log "chapter 10 on every GPU"
timeout 200 ctest --test-dir build -L chapter10 -j 8 > $R/ch10.log 2>&1; log "ch10 rc=$?"
grep -E "tests passed|tests failed|\(Failed\)|Timeout" $R/ch10.log | head -10
build/10_multi_gpu/10_multi_gpu_gpu_tests -d yes 2>&1 | grep -E " s: |passed|failed" | tail -4
log "reduce_bench"
cmake --build build --target reduce_bench -j 32 > $R/rb_build.log 2>&1 || tail -5 $R/rb_build.log
CUDA_VISIBLE_DEVICES=0 timeout 200 benchmark/bench.sh build $R/bench; log "bench rc=$?"
tar -C $(dirname $R) -czf $OUT/final.tgz final
