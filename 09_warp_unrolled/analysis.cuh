// Chapter 09 as the driver (common/driver.cuh) runs it: its registry with the operators and --sizes,
// fastest as the headline and cub as the baseline, and what its program explains before its runs:
// where each variant's tree steps run for the block size and the plan `fastest` picks for n (one
// block, or a grid). After the runs the driver says how close `fastest` came to the read ceiling
// and to the library.
#pragma once

#include <cstdio>
#include <string>
#include <type_traits>
#include <vector>

#include "common/driver.cuh"
#include "warp_unrolled.cuh"

namespace ch09 {

// fastest's plan for n, in words. The grid path's grid depends on the GPU (its multiprocessors and
// how many blocks fit on each), so here it is only the rule; with a GPU, fastest_plan() gives it.
template <typename T> std::string describe_plan(std::size_t n) {
  using C = FastestChoice;
  if (const int threads = single_block_threads<T>(n))
    return "one block of " + std::to_string(threads) + " threads, each loading up to " +
           std::to_string(C::kLoadsInFlight) + " vectors of 16 bytes at once; one launch, no counter";
  return "the grid path: blocks of " + std::to_string(C::kMidBlock) + " threads, one round of loads each, while " +
         std::to_string(C::kMidBlocksPerMultiprocessor) + " a multiprocessor\n           suffice, else " +
         std::to_string(C::kBlock) + " threads, at most " + std::to_string(C::kWaves) +
         " waves; the last block to finish adds the blocks' results";
}

// "528 blocks of 1024", or "1 block of 64": a plan's launch.
inline std::string launch_of(const FastestPlan& plan) {
  return (plan.single_block ? "1 block of " : std::to_string(plan.grid) + " blocks of ") + std::to_string(plan.block);
}

struct WarpUnrolled : reduction::ChapterDefaults {
  static reduction::ChapterInfo info(const std::string& name, const std::string& title) {
    reduction::ChapterInfo info = reduction::multi_block_info(name, title);
    // unrolled takes any block; the registry says which variants need whole warps (32 threads)
    info.check_block = reduction::power_of_two_block(1, 1024);
    info.default_n = std::size_t(1) << 28;  // 1 GiB of int: twenty times an H100's L2
    return info;
  }
  template <typename Op, typename T> static auto variants() { return ch09::variants<Op, T>(); }
  static constexpr bool unfinished = ch09::unfinished;
  static constexpr bool has_ops = true, has_sizes = true, read_ceiling = true;
  static constexpr const char* baseline = "cub", *headline = "fastest";
  static std::vector<std::string> sizes_kernels() { return {"fastest", "cub"}; }

  template <typename Op, typename T> static void analyze(reduction::Analysis<T>& a) {
    const std::size_t levels = reduction::ceil_log2(std::size_t(a.block));
    a.text() << "block      " << a.block << " threads: a tree of " << levels << " steps over the threads' sums\n";
    if (a.block >= 32) {
      const std::size_t warp_steps = 6, block_steps = levels > warp_steps ? levels - warp_steps : 0;
      a.text() << "           warp_volatile, warp_syncwarp: " << block_steps << " steps behind __syncthreads(), then "
               << warp_steps << " inside warp 0\n"
               << "           (the tree is padded to 64 values) with no block-wide barrier\n"
               << "           unrolled: the same steps with " << a.block
               << " a compile-time constant, so the loops become straight code\n"
               << "           shuffle: 5 shuffle steps in every warp, one __syncthreads(), 5 in warp 0\n";
    } else {
      a.text() << "           unrolled: all " << levels << " steps inside one warp, behind __syncwarp() only\n";
    }
    a.text() << "           fastest and cub choose their own blocks\n"
             << "bytes      " << a.n << " x " << sizeof(T) << " = " << reduction::mebibytes(a.n * sizeof(T))
             << " to read once, the least any kernel must move\n"
             << "fastest    " << describe_plan<T>(a.n) << "\n";
    if (!a.device) return;
    const FastestPlan plan = fastest_plan<Op, T>(a.n);
    if (!plan.single_block) a.text() << "           here: " << launch_of(plan) << " threads\n";
    a.fields().set("fastest_plan", plan_json(plan));
  }

  // --sizes: the single-block path's thresholds before the rows and, with a GPU, the plan of each
  // row (operator by operator, size by size, the order of the rows).
  template <typename T>
  static std::vector<reduction::SizeNote> analyze_sizes(std::ostream& text, const std::vector<std::size_t>& sizes,
                                                        const std::vector<reduction::OpKind>& ops,
                                                        const reduction::DeviceInfo* device) {
    using C = FastestChoice;
    text << "plan       fastest's single-block path for " << reduction::type_name(reduction::data_type_of<T>())
         << ": the block's threads for n up to";
    for (int threads = C::kSingleBlockMin; threads <= C::kSingleBlockMax; threads *= 2)
      text << (threads == C::kSingleBlockMin ? "\n           " : ", ")
           << std::size_t(threads) * C::kLoadsInFlight * Lanes<T, true>::count << ": " << threads;
    text << "; beyond, the grid path\n";
    std::vector<reduction::SizeNote> notes;
    if (!device) return notes;
    for (const reduction::OpKind op : ops)
      reduction::dispatch_op(op, [&](auto o) {
        using Op = decltype(o);
        if constexpr (!std::is_same_v<Op, reduction::Product>) {  // not offered by --op
          for (const std::size_t n : sizes) {
            const FastestPlan plan = fastest_plan<Op, T>(n);
            notes.push_back({launch_of(plan), plan_json(plan)});
          }
        }
        return 0;
      });
    return notes;
  }

 private:
  static reduction::Json plan_json(const FastestPlan& plan) {
    return {{"path", plan.single_block ? "single_block" : "grid"}, {"block", plan.block}, {"grid", plan.grid}};
  }
};

}  // namespace ch09
