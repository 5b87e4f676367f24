source .devdeps/setup.sh
cmake --preset default -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 > /dev/null || exit 1
( time cmake --build build -j16 ) > $OUT/build.txt 2>&1 || { tail -40 $OUT/build.txt; exit 1; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
ctest --test-dir build -j4 --timeout 300 > $OUT/ctest.txt 2>&1
grep -E "tests passed|Failed|\(Failed\)|Timeout" $OUT/ctest.txt | head -20
cmake --build build --target tour > $OUT/tour.txt 2>&1; echo "tour exit $?"
for c in $(python3 -c "import json;print(' '.join(c['name'] for c in json.load(open('build/chapters.json'))))" 2>/dev/null); do echo -n "$c: "; done; echo
python3 benchmark/benchmark.py --build build --out $OUT/bench > $OUT/bench.txt 2>&1; echo "benchmark exit $?"; tail -25 $OUT/bench.txt
