set -o pipefail
source .devdeps/setup.sh
B=build
cmake -S . -B $B -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 > $OUT/configure.log 2>&1 || { tail -30 $OUT/configure.log; exit 1; }
cmake --build $B -j16 > $OUT/build.log 2>&1 || { grep -B3 -A12 "error" $OUT/build.log | head -80; exit 1; }
cmake --build $B --target experiments -j16 >> $OUT/build.log 2>&1
(ctest --test-dir $B -LE "sanitize|tour" -j4 --output-on-failure --timeout 300 > $OUT/ctest.log 2>&1; echo "ctest status $?")
grep -E "tests passed|tests failed|\(Failed\)|Timeout|\*\*\*" $OUT/ctest.log | head -20
grep -E -B2 -A20 "FAILED:|Failed  " $OUT/ctest.log | head -80
$B/benchmark/experiments | grep atomics | tee $OUT/experiments.txt
$B/09_warp_unrolled/09_warp_unrolled --n 2^28 --kernel fastest,cub > $OUT/n28.txt 2>&1; echo "n28 status $?"; grep -E -A3 "^kernel|^read |^fastest |ratio|^ceiling" $OUT/n28.txt
timeout 240 python3 benchmark/sweep.py --build $B --out $OUT 2>$OUT/sweep.err; echo "sweep status $?"; grep -vE "^running|^wrote" $OUT/sweep.err | tail -8
