set -o pipefail
source .devdeps/setup.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
cmake -S . -B build -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 > $OUT/configure.log 2>&1 || { tail -30 $OUT/configure.log; exit 1; }
cmake --build build -j16 > $OUT/build.log 2>&1 || { grep -B3 -A10 error $OUT/build.log | head -60; exit 1; }
cmake --build build --target experiments -j16 >> $OUT/build.log 2>&1
( ctest --test-dir build -LE "sanitize|tour" -j4 --output-on-failure > $OUT/ctest.log 2>&1; echo "ctest rc=$?" >> $OUT/ctest.log ) 
tail -5 $OUT/ctest.log
build/benchmark/experiments | tee $OUT/experiments.txt
for t in int float double; do build/01_sequential/01_sequential --type $t --n 2^26 --json; done > $OUT/ch01.jsonl
for t in int float; do for b in 256 1024; do for n in 2^27 2^28; do build/06_hierarchical/06_hierarchical --type $t --block $b --n $n --json; done; done; done > $OUT/ch06.jsonl
for t in int float; do build/07_coarsening/07_coarsening --type $t --json; done > $OUT/ch07.jsonl
build/07_coarsening/07_coarsening --type float | tail -30
cmake -S . -B build-r32 -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_CUDA_FLAGS=-maxrregcount=32 > /dev/null 2>&1 && cmake --build build-r32 --target 07_coarsening -j16 > /dev/null 2>&1
for t in int float; do build-r32/07_coarsening/07_coarsening --type $t --kernel coarse8,coarse16,coarse32,coarse64 --json; done > $OUT/ch07_r32.jsonl
python3 - <<'PY'
import json,os
for f in ['ch01','ch06','ch07','ch07_r32']:
    for line in open(os.environ['OUT']+'/'+f+'.jsonl'):
        j=json.loads(line)
        for r in j['runs']:
            print(f, j['type'], j['n'], j.get('block'), r['kernel'], round(r['time_ms']*1e3,1),'us', round(r['gbps'],1), r.get('correct'), r.get('registers',''), r.get('blocks_per_sm',''), r.get('pct_of_copy') and round(r['pct_of_copy'],1))
PY
timeout 200 ctest --test-dir build -R '^tour$' --output-on-failure > $OUT/tour.log 2>&1; echo "tour rc=$?"; tail -15 $OUT/tour.log
