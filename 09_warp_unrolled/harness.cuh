// Chapter 09's harness beside main.cu: the registry of its kernels, variants<Op, T>(), listed once
// for the program, its tests and the benchmark; the read that sets its second ceiling; what the
// program explains before its runs (with or without a GPU): where the tree steps of the kernels
// that run take place for the block size, and the plan `fastest` picks for n (one block, or a
// grid); and its --sizes mode: the chosen kernels (fastest and cub unless --kernel names others)
// timed at many sizes in one process, alternating run by run, one row per size and operator,
// each size reducing a prefix of one input.
//
// The kernels are in solution/, a header for each idea, in the order of the lesson:
// warp_finish.cuh (warp_volatile, warp_syncwarp), unrolled.cuh, shuffle.cuh; for fastest,
// fastest.cuh (its grid path), fastest_choice.cuh (the knobs the measurements picked) and
// fastest_small.cuh (its single-block path, and the launcher that picks a path); cub_reduce.cuh.
// Every one reduces input[0, n) into result[0] through the launcher shape of chapters 06 to 09.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <functional>
#include <optional>
#include <ostream>
#include <set>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "common/gpu.cuh"
#include "common/ops.hpp"
#include "common/program.hpp"
#include "common/reference.hpp"
#include "cub_reduce.cuh"
#include "fastest_small.cuh"
#include "shuffle.cuh"
#include "unrolled.cuh"
#include "warp_finish.cuh"

namespace ch09 {

// The registry. warp_volatile, warp_syncwarp and unrolled add (sum only); shuffle, fastest and
// cub take any operator of common/ops.hpp whose identity they start from (sum, max, min).
// The smallest block each takes (the last field, 32 where left out): `unrolled` goes down to one
// thread; warp_volatile, warp_syncwarp and shuffle reduce whole warps (shuffles name all 32 lanes,
// the warp finishes read 32 lanes' slots); fastest and cub choose their own block and ignore it.
template <typename Op, typename T>
std::vector<reduction::Variant<reduction::MultiBlockLaunch<T>>> variants() {
  std::vector<reduction::Variant<reduction::MultiBlockLaunch<T>>> list;
  if constexpr (std::is_same_v<Op, reduction::Sum>) {
    list.push_back(
        {"warp_volatile",
         "CAUTION, a data race since Volta: the last 6 steps in one warp, no barrier, volatile shared memory",
         launch_warp_volatile<T>, warp_finish_depth<T>, true});
    list.push_back({"warp_syncwarp", "the same warp finish made correct: __syncwarp() between reads and writes",
                    launch_warp_syncwarp<T>, warp_finish_depth<T>, true});
    list.push_back({"unrolled", "the block size a template argument: the whole tree unrolled, 1 to 1024 threads",
                    launch_unrolled<T>, unrolled_depth<T>, true, 1});
  }
  list.push_back({"shuffle", "the warp's steps in registers with __shfl_down_sync, one shared slot per warp",
                  launch_shuffle<Op, T>, shuffle_depth<Op, T>, true});
  list.push_back({"fastest",
                  "shuffles, 16-byte loads 4 in flight: one block for small n, else one launch whose last block "
                  "finishes; from 16 MiB, a block per tile and a second launch over the tiles",
                  launch_fastest<Op, T>, fastest_depth<Op, T>, true, 1});
  list.push_back({"cub", "cub::DeviceReduce, the library ceiling", launch_cub<Op, T>, cub_depth, true, 1});
  return list;
}

// The second ceiling: a plain streaming read of the bytes the kernels read. A reduction reads its
// input once and writes one value, and DRAM serves reads alone faster than the mix of reads and
// writes a copy makes: the best reductions pass 100 % of the copy ceiling, so 09 holds `fastest`
// and cub against this one (describe_ceilings, common/gpu.cuh, reports it beside the copy).
// The read ceiling's kernel reads `vectors` 16-byte words. Each thread XORs what it reads into one
// register and writes it only if it equals one particular value: the store, which the compiler
// cannot prove dead, keeps every load alive, and in practice nothing is written.
namespace detail {

// `chunk` 0: the grid strides over all the vectors; else block b reads vectors [b chunk, (b + 1)
// chunk), its threads striding by blockDim.x (many blocks, each its own chunk, as fastest does
// with a large input).
template <int kLoadsInFlight>
__global__ void read_ceiling_kernel(const uint4* __restrict__ data, std::size_t vectors, std::size_t chunk,
                                    unsigned int* sink) {
  std::size_t step = std::size_t(blockDim.x) * gridDim.x;
  std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (chunk > 0) {
    step = blockDim.x;
    i = std::size_t(blockIdx.x) * chunk + threadIdx.x;
    const std::size_t chunk_end = std::size_t(blockIdx.x + 1) * chunk;
    if (chunk_end < vectors) vectors = chunk_end;
  }
  unsigned int bits = 0;
  for (; i + (kLoadsInFlight - 1) * step < vectors; i += kLoadsInFlight * step) {
    uint4 v[kLoadsInFlight];
#pragma unroll
    for (int k = 0; k < kLoadsInFlight; ++k) v[k] = data[i + k * step];  // every load issued first
#pragma unroll
    for (int k = 0; k < kLoadsInFlight; ++k) bits ^= v[k].x ^ v[k].y ^ v[k].z ^ v[k].w;
  }
  for (; i < vectors; i += step) {
    const uint4 v = data[i];
    bits ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (bits == 0x9E3779B9u) *sink = bits;
}

struct ReadShape {
  int block, waves;  // waves 0: one block per chunk of kChunkVectors
};
constexpr std::size_t kChunkVectors = 8192;  // 128 KiB

template <int kLoadsInFlight>
double time_read_gbps(const uint4* data, std::size_t vectors, ReadShape shape, unsigned int* sink, int warmup,
                      int reps) {
  const auto kernel = read_ceiling_kernel<kLoadsInFlight>;
  int device = 0, multiprocessors = 0, per_multiprocessor = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device));
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_multiprocessor, kernel, shape.block, 0));
  const std::size_t chunk = shape.waves == 0 ? kChunkVectors : 0;
  const int grid =
      chunk > 0 ? int((vectors + chunk - 1) / chunk) : std::max(1, per_multiprocessor) * multiprocessors * shape.waves;
  const reduction::TimingStats t = reduction::time_gpu(warmup, reps, [&](cudaStream_t stream) {
    kernel<<<grid, shape.block, 0, stream>>>(data, vectors, chunk, sink);
    CUDA_CHECK_LAUNCH();
  });
  return reduction::gigabytes_per_second(double(vectors) * sizeof(uint4), t.median_ms);
}

}  // namespace detail

// Measures the read ceiling over the `bytes` at `data` (device memory, 16-byte aligned) when they
// span at least eight times the L2, so that every run streams from DRAM; a smaller input would be
// read from L2, so then a buffer of its own, eight times the L2 (at most 2 GiB and half of the
// free memory), is read instead. The best of a few launch shapes is kept; a kernel that reads
// faster still sets the ceiling instead (main.cu, run_sizes): no kernel is above 100 % of it.
inline reduction::ReadCeiling measure_read_ceiling(const void* data, std::size_t bytes, std::size_t l2_bytes,
                                                   int warmup, int reps) {
  using namespace reduction;
  ReadCeiling ceiling;
  DeviceBuffer<uint4> own;
  const uint4* words = static_cast<const uint4*>(data);
  std::size_t vectors = bytes / sizeof(uint4);
  ceiling.of_input = bytes >= 8 * l2_bytes;
  if (!ceiling.of_input) {
    std::size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    const std::size_t wanted = std::min<std::size_t>(8 * l2_bytes, std::size_t(2) << 30);
    vectors = std::min(wanted, free_bytes / 2) / sizeof(uint4);
    if (vectors == 0) return ceiling;
    own = DeviceBuffer<uint4>(vectors);
    CUDA_CHECK(cudaMemset(own.data(), 1, vectors * sizeof(uint4)));
    words = own.data();
  }
  if (vectors == 0) return ceiling;
  ceiling.bytes = vectors * sizeof(uint4);
  DeviceBuffer<unsigned int> sink(1);
  constexpr detail::ReadShape kShapes[] = {{256, 1}, {512, 1}, {1024, 1}, {1024, 2}, {1024, 0}};
  for (const auto shape : kShapes) {
    const double gbps = detail::time_read_gbps<4>(words, vectors, shape, sink.data(), warmup, reps);
    if (gbps > ceiling.gbps) {
      ceiling.gbps = gbps;
      ceiling.shape = std::to_string(shape.block) + " threads x " +
                      (shape.waves == 0 ? std::string("one block per 128 KiB")
                                        : std::to_string(shape.waves) + (shape.waves == 1 ? " wave" : " waves")) +
                      ", 4 loads of 16 bytes in flight";
    }
  }
  return ceiling;
}

// Whether the chapter is built from exercise kernels that are still TODOs: its program says so.
#ifdef REDUCTION_EXERCISE_UNFINISHED  // defined by the exercise versions, until the student deletes it
constexpr bool unfinished = true;
#else
constexpr bool unfinished = false;
#endif

// ---- The analysis ----

inline bool contains(const std::vector<std::string>& kernels, const std::string& name) {
  return std::find(kernels.begin(), kernels.end(), name) != kernels.end();
}

// Where the tree's steps run, for the kernels that run (`kernels`) at blocks of `block` threads.
inline void describe_trees(std::ostream& text, int block, const std::vector<std::string>& kernels, bool sums) {
  const std::size_t levels = reduction::ceil_log2(std::size_t(block));
  const bool warp_finish = contains(kernels, "warp_volatile") || contains(kernels, "warp_syncwarp");
  const bool lesson = warp_finish || contains(kernels, "unrolled") || contains(kernels, "shuffle");
  if (lesson)
    text << "block      " << block << " threads: a tree of " << levels << " steps over the threads' "
         << (sums ? "sums" : "values") << "\n";
  if (block >= 32) {
    const std::size_t warp_steps = 6, block_steps = levels > warp_steps ? levels - warp_steps : 0;
    if (warp_finish) {
      std::vector<std::string> names;
      for (const char* name : {"warp_volatile", "warp_syncwarp"})
        if (contains(kernels, name)) names.push_back(name);
      text << "           " << reduction::join(names) << ": " << block_steps << " steps behind __syncthreads(), then "
           << warp_steps << " inside warp 0\n           (the tree is padded to 64 values) with no block-wide barrier\n";
    }
    if (contains(kernels, "unrolled") && warp_finish)
      text << "           unrolled: the same steps with " << block
           << " a compile-time constant, so the loops become straight code\n";
    else if (contains(kernels, "unrolled"))  // its warp steps are not padded to 64 values
      text << "           unrolled: " << block_steps << " steps behind __syncthreads(), then "
           << std::min(levels, warp_steps) << " inside warp 0 behind __syncwarp(),\n           with " << block
           << " a compile-time constant, so the loops become straight code\n";
    if (contains(kernels, "shuffle"))
      text << "           shuffle: 5 shuffle steps in every warp, one __syncthreads(), 5 in warp 0\n";
  } else if (contains(kernels, "unrolled")) {
    text << "           unrolled: all " << levels << " steps inside one warp, behind __syncwarp() only\n";
  }
  const bool fastest = contains(kernels, "fastest"), cub = contains(kernels, "cub");
  if (fastest || cub)
    text << (lesson ? "           " : "block      ")
         << (fastest && cub ? "fastest and cub choose their own blocks" : fastest ? "fastest chooses its own block"
                                                                                 : "cub chooses its own block")
         << "\n";
}

// fastest's plan for n, in words. The grid path's grid depends on the GPU (its multiprocessors and
// how many blocks fit on each), so here it is only the rule; with a GPU, fastest_plan() gives it.
// The tile path's grid follows from n alone.
template <typename Op, typename T> std::string describe_plan(std::size_t n) {
  using C = FastestChoice;
  if (const int threads = single_block_threads<T>(n))
    return "one block of " + std::to_string(threads) + " threads, each loading up to " +
           std::to_string(C::kLoadsInFlight) + " vectors of 16 bytes at once; one launch, no counter";
  if (const int rounds = tile_rounds<Op, T>(n); rounds != 0) {
    const std::size_t tile = std::size_t(rounds) * C::kBlock * C::kLoadsInFlight * Lanes<T, true>::count;
    return "the tile path: " + std::to_string((n + tile - 1) / tile) + " blocks of " + std::to_string(C::kBlock) +
           " threads, one per tile of " + std::to_string(tile * sizeof(T) >> 10) + " KiB (" + std::to_string(rounds) +
           (rounds == 1 ? " round" : " rounds") + " of loads),\n           " +
           (tiles_to_words<Op, T>()
                ? (std::is_integral_v<T>
                       ? "each adding its result to one word with atomicAdd (exact in any order); a second\n"
                         "           launch of one warp copies it to the result"
                       : "each adding its result, an exact integer, to a few words: one atomicAdd from three\n"
                         "           lanes (exact in any order); a second launch of one warp rounds them once")
                : "each storing its result; a second launch of one block adds them in order") +
           "\n           (on Hopper and later, set up while the first runs)";
  }
  const std::string cluster =
      cluster_shape<T>(n).blocks != 0
          ? "on Hopper and later one launch of a cluster of " + std::to_string(cluster_shape<T>(n).blocks) +
                " blocks of " + std::to_string(cluster_shape<T>(n).threads) +
                " threads, whose totals meet in block 0's shared memory\n"
                "           behind one cluster barrier; before Hopper "
          : std::string();
  return cluster + "the grid path: blocks of " + std::to_string(C::kMidBlock) + " threads, one round of loads each, while " +
         std::to_string(C::kMidBlocksPerMultiprocessor) + " a multiprocessor\n           suffice, else " +
         std::to_string(C::kBlock) + " threads, one wave;\n           the last block to finish adds the blocks' results";
}

// "528 blocks of 1024", or "1 block of 64": a plan's launch.
inline std::string launch_of(const FastestPlan& plan) {
  return (plan.single_block ? "1 block of " : std::to_string(plan.grid) + " blocks of ") + std::to_string(plan.block);
}

// A plan in the report's JSON (fastest_plan, and the --sizes rows).
inline reduction::Json plan_json(const FastestPlan& plan) {
  return {{"path", plan.single_block ? "single_block" : plan.cluster ? "cluster" : plan.tiles ? "tiles" : "grid"},
          {"block", plan.block},
          {"grid", plan.grid}};
}

// --sizes: the sizes up to which each block of the single-block path takes the whole input.
template <typename T> void describe_single_block_path(std::ostream& text) {
  using C = FastestChoice;
  text << "plan       fastest's single-block path for " << reduction::type_name(reduction::data_type_of<T>())
       << ": the block's threads for n up to";
  for (int threads = C::kSingleBlockMin; threads <= C::kSingleBlockMax; threads *= 2)
    text << (threads == C::kSingleBlockMin ? "\n           " : ", ")
         << std::size_t(threads) * C::kLoadsInFlight * Lanes<T, true>::count << ": " << threads;
  text << "; beyond, the grid path\n";
}

// ---- --sizes ----

// The sizes of a run: every size reduces a prefix of one input (the input --n would make of the
// largest size: element i depends only on the seed and i), so the sizes share one upload and one
// pass of the CPU reference.

// "standard": n = 2^k for k = 0 to 30, 2^k - 1 and 2^k + 1 between them, and 10^k up to 10^9.
inline std::vector<std::size_t> standard_sizes() {
  std::set<std::size_t> sizes;
  for (int k = 0; k <= 30; ++k) {
    const std::size_t p = std::size_t(1) << k;
    sizes.insert(p);
    if (p > 1) sizes.insert(p - 1);
    if (k < 30) sizes.insert(p + 1);
  }
  for (std::size_t p = 10; p <= 1000000000; p *= 10) sizes.insert(p);
  return {sizes.begin(), sizes.end()};
}

// "standard", or counts separated by commas ("1,1000,2^20"): ascending, without repeats.
inline std::optional<std::vector<std::size_t>> parse_sizes(const std::string& text) {
  if (text == "standard") return standard_sizes();
  std::set<std::size_t> sizes;
  std::stringstream items(text);
  std::string item;
  while (std::getline(items, item, ',')) {
    const auto n = reduction::parse_count(item);
    if (!n || *n == 0) return std::nullopt;
    sizes.insert(*n);
  }
  if (sizes.empty()) return std::nullopt;
  return std::vector<std::size_t>(sizes.begin(), sizes.end());
}

// The reference of every prefix data[0, n), for each n of `sizes` (ascending). Exact operators
// (integer sums, max, min) combine the references of the segments between consecutive sizes, so
// the input is read once whatever the number of sizes; a float sum takes each prefix's own
// reference, whose error bound is made for one call.
template <typename Op, typename T>
std::vector<reduction::Reference<T>> prefix_references(const std::vector<T>& data,
                                                       const std::vector<std::size_t>& sizes) {
  using namespace reduction;
  std::vector<Reference<T>> refs;
  if constexpr (std::is_same_v<Op, Sum> && !std::is_integral_v<T>) {
    for (const std::size_t n : sizes) refs.push_back(reference_sum(data.data(), n));
  } else {
    Reference<T> running = reference_reduce<Op>(data.data(), 0);  // the identity, exactly
    std::size_t done = 0;
    for (const std::size_t n : sizes) {
      const Reference<T> segment = reference_reduce<Op>(data.data() + done, n - done);
      running.value = Op{}(running.value, segment.value);  // integer sums wrap as the GPU's do
      running.precise = static_cast<long double>(running.value);
      done = n;
      refs.push_back(running);
    }
  }
  return refs;
}

// One kernel of a row: its launch on a given copy of the input, and its order's depth.
template <typename T> struct Contender {
  std::string name;
  std::function<void(const T* input, cudaStream_t)> launch;
  std::size_t depth;  // for the float tolerance
};

// Checks and times the contenders on the same n, alternating them run by run, so that a change of
// clock or a neighbour's load touches all of them alike: each first checked alone (poisoned
// result, one launch), then `warmup` untimed and `reps` timed rounds, every result checked. Every
// other round runs them in reverse (ABBA): whatever a position costs, each pays it equally often.
template <typename T>
std::vector<reduction::RunResult> run_alternating(const std::vector<Contender<T>>& contenders, std::size_t n,
                                                  reduction::RotatingInput<T>& input, reduction::DeviceBuffer<T>& result,
                                                  const reduction::Reference<T>& ref, const reduction::Options& options,
                                                  const reduction::Ceilings& ceilings, double& read_ceiling_seen) {
  using namespace reduction;
  const std::size_t count = contenders.size();
  std::vector<RunResult> runs(count);
  std::vector<long double> tol(count);
  std::vector<std::vector<double>> times(count);
  std::vector<T> lowest(count), highest(count);
  for (std::size_t c = 0; c < count; ++c) {
    tol[c] = tolerance(ref, contenders[c].depth);
    result.poison();
    contenders[c].launch(input.next(), 0);
    CUDA_CHECK(cudaDeviceSynchronize());
    const T first = result.download_one();
    runs[c].kernel = contenders[c].name;
    runs[c].result = json_value(first);
    runs[c].correct = matches(first, ref, tol[c]);
    runs[c].unchecked = unchecked_reason(ref, tol[c], contenders[c].depth);
    lowest[c] = highest[c] = first;
  }
  for (int w = 0; w < options.warmup; ++w)
    for (const auto& contender : contenders) contender.launch(input.next(), 0);
  CUDA_CHECK(cudaDeviceSynchronize());
  for (int r = 0; r < options.reps; ++r)
    for (std::size_t turn = 0; turn < count; ++turn) {
      const std::size_t c = r % 2 ? count - 1 - turn : turn;
      const TimingStats one = time_gpu(
          0, 1, [&](cudaStream_t stream) { contenders[c].launch(input.next(), stream); }, [&] { result.poison(); },
          [&] {
            const T value = result.download_one();
            runs[c].correct = runs[c].correct && matches(value, ref, tol[c]);
            lowest[c] = std::min(lowest[c], value);
            highest[c] = std::max(highest[c], value);
          });
      times[c].push_back(one.median_ms);
    }
  for (std::size_t c = 0; c < count; ++c) {
    runs[c].time_ms = summarize(times[c]).median_ms;
    runs[c].gbps = gigabytes_per_second(double(n) * sizeof(T), runs[c].time_ms);
  }
  for (std::size_t c = 0; c < count; ++c) {
    Json columns = Json::object();
    columns.set("pct_of_copy", ceilings.copy_gbps > 0 ? Json(100 * runs[c].gbps / ceilings.copy_gbps) : Json());
    // A share of the read ceiling only where the plain read read these very bytes (the largest
    // input), against the faster of it and the kernels here: no kernel above 100 % of it.
    if (ceilings.read.gbps > 0 && ceilings.read.of_input && ceilings.read.bytes == n * sizeof(T)) {
      double ceiling = ceilings.read.gbps;
      for (const auto& other : runs) ceiling = std::max(ceiling, other.correct ? other.gbps : 0.0);
      columns.set("pct_of_read", 100 * runs[c].gbps / ceiling);
      read_ceiling_seen = std::max(read_ceiling_seen, ceiling);
    }
    if (!ref.exact) {
      columns.set("tolerance", static_cast<double>(tol[c]));
      columns.set("run_spread", static_cast<double>(highest[c]) - static_cast<double>(lowest[c]));
    }
    runs[c].extra = std::move(columns);
  }
  return runs;
}

// --sizes: the kernels at each size, alternating, for each operator; one row each.
template <typename T>
int run_sizes(const std::vector<T>& data, const reduction::Options& options, reduction::Report& report,
              const std::vector<std::size_t>& sizes, const std::vector<reduction::OpKind>& ops) {
  using namespace reduction;
  const std::vector<std::string>& kernels = options.kernels;

  // The analysis: what the rows are, the single-block path's thresholds, and with a GPU each row's plan.
  std::vector<std::string> op_names;
  for (const OpKind op : ops) op_names.push_back(op_name(op));
  report.text() << "sizes      " << sizes.size() << " sizes from " << sizes.front() << " to " << sizes.back()
                << "; at each, " << join(kernels, " and ") << " reduce the first n elements\n"
                << "           (the input --n n would make: element i depends only on the seed and i), for "
                << join(op_names) << ".\n           Each result is checked before it is timed; then they alternate, "
                << options.reps << " timed runs each,\n           and each reports its median.\n";
  std::string no_gpu;
  const std::optional<DeviceInfo> device = open_gpu(report, no_gpu);
  describe_single_block_path<T>(report.text());
  std::vector<FastestPlan> plans;  // operator by operator, size by size: the order of the rows
  if (device)
    for (const OpKind op : ops)
      dispatch_op(op, [&](auto o) {
        if constexpr (!std::is_same_v<decltype(o), Product>)  // not offered by --op
          for (const std::size_t n : sizes) plans.push_back(fastest_plan<decltype(o), T>(n));
        return 0;
      });
  Json size_list = Json::array();
  for (const std::size_t n : sizes) size_list.push(n);
  report.fields().set("sizes", std::move(size_list));
  if (!device) return report.finish_without_gpu(no_gpu);

  // The ceilings, before the upload (as main.cu measures them), and the input of the largest size.
  const std::size_t bytes = data.size() * sizeof(T);
  if (auto why = device_room(bytes)) throw InputError(*why);
  std::size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  Ceilings ceilings;
  ceilings.copy_bytes = copy_ceiling_bytes(bytes, device->l2_bytes, free_bytes);
  if (ceilings.copy_bytes > 0)
    ceilings.copy_gbps = measure_copy_ceiling_gbps(ceilings.copy_bytes, options.warmup, options.reps);
  const DeviceBuffer<T> input(data);
  ceilings.read = measure_read_ceiling(input.data(), bytes, device->l2_bytes, options.warmup, options.reps);
  DeviceBuffer<T> result(1);
  DeviceScratch scratch_a, scratch_b;  // one each for the first two: a kernel's scratch is its own between runs
  double read_ceiling_seen = 0;  // the fastest read of the largest input by a kernel here (run_alternating)

  // The rows.
  const std::string ratio_of = kernels.size() == 2 ? kernels[1] + "'s median time over " + kernels[0] + "'s" : "";
  Json rows = Json::array();
  std::ostringstream table;
  std::vector<std::string> below;
  char line[200];
  table << "op  " << std::string(12 - 2, ' ') << "n";
  for (const auto& k : kernels) table << " " << std::string(k.size() < 12 ? 12 - k.size() : 0, ' ') << k;
  table << (ratio_of.empty() ? "" : "   ratio") << "\n";
  for (const OpKind op_kind : ops)
    dispatch_op(op_kind, [&](auto op) {
      using Op = decltype(op);
      if constexpr (!std::is_same_v<Op, Product>) {
        const auto chosen = chosen_variants(variants<Op, T>(), kernels);
        const auto refs = prefix_references<Op>(data, sizes);
        for (std::size_t i = 0; i < sizes.size(); ++i) {
          const std::size_t n = sizes[i];
          RotatingInput<T> rotating(input.data(), n, device->l2_bytes, options.hot_l2);
          std::vector<Contender<T>> contenders;
          for (std::size_t c = 0; c < chosen.size(); ++c) {
            const auto& v = chosen[c];
            DeviceScratch& scratch = c == 0 ? scratch_a : scratch_b;
            contenders.push_back(
                {v.name, [&, v](const T* in, cudaStream_t s) { v.launch(in, n, result.data(), options.block, scratch, s); },
                 v.depth(n, options.block)});
          }
          auto runs = run_alternating(contenders, n, rotating, result, refs[i], options, ceilings, read_ceiling_seen);
          Json row = Json::object();
          row.set("op", Op::name);
          row.set("n", n);
          bool correct = true;
          for (const auto& r : runs) row.set(r.kernel + "_us", r.time_ms * 1e3), correct = correct && r.correct;
          const double ratio = runs.size() == 2 ? runs[1].time_ms / runs[0].time_ms : 0;
          if (runs.size() == 2) row.set("ratio", ratio);
          for (const auto& r : runs) row.set(r.kernel + "_correct", r.correct);
          const FastestPlan* plan = rows.size() < plans.size() ? &plans[rows.size()] : nullptr;
          if (plan)
            for (const auto& [key, value] : Json(plan_json(*plan)).items()) row.set(key, value);
          rows.push(std::move(row));
          std::snprintf(line, sizeof line, "%-4s %11zu", Op::name, n);
          table << line;
          for (const auto& r : runs) {
            std::snprintf(line, sizeof line, " %12s", format_time(r.time_ms).c_str());
            table << line;
          }
          if (runs.size() == 2) {
            std::snprintf(line, sizeof line, " %7.3f", ratio);
            table << line;
            if (ratio < 1) below.push_back(std::string(Op::name) + " " + std::to_string(n));
          }
          table << "  " << (plan ? launch_of(*plan) : "") << (correct ? "" : "  WRONG RESULT") << "\n";
          for (auto& r : runs) {
            Json extra = Json::object();
            extra.set("op", Op::name);
            extra.set("n", n);
            if (runs.size() == 2) extra.set("vs_" + runs[1].kernel, runs[1].time_ms / r.time_ms);
            for (const auto& [key, value] : r.extra.items()) extra.set(key, value);
            r.extra = std::move(extra);
            report.add_run(std::move(r));
          }
        }
      }
      return 0;
    });

  // The report: the rows under the table, and the ceilings.
  report.fields().set("op", ops.size() == 1 ? Json(op_name(ops[0])) : Json("all"));
  report.fields().set("copy_ceiling_gbps", ceilings.copy_gbps);
  if (ceilings.read.gbps > 0) {
    // The fastest read of the largest input: the plain read, or a kernel that read it faster.
    report.fields().set("plain_read_gbps", ceilings.read.gbps);
    report.fields().set("read_ceiling_gbps", std::max(ceilings.read.gbps, read_ceiling_seen));
    report.fields().set("read_ceiling_bytes", ceilings.read.bytes);
  }
  report.fields().set("sweep", std::move(rows));
  auto& summary = report.summary();
  summary << join(kernels, " against ") << ", size by size" << (ratio_of.empty() ? "" : " (ratio: " + ratio_of + ")")
          << ":\n"
          << table.str();
  if (!ratio_of.empty()) {
    summary << "below 1.00: " << below.size() << " of " << sizes.size() * ops.size() << " rows";
    for (const auto& b : below) summary << (&b == &below.front() ? ": " : ", ") << b;
    summary << "\n";
  }
  std::snprintf(line, sizeof line, "ceilings   copy %.1f GB/s (bytes read + written)", ceilings.copy_gbps);
  summary << line;
  if (ceilings.read.gbps > 0) {
    std::snprintf(line, sizeof line, ", read %.1f GB/s (%s, %.0f MiB)", ceilings.read.gbps, ceilings.read.shape.c_str(),
                  ceilings.read.bytes / double(1 << 20));
    summary << line;
  }
  summary << "\n";
  return report.finish();
}

}  // namespace ch09
