// What the many-block chapters' programs (06, 07) say around their lesson, written once: the
// command line and the input, the reference, the copy ceiling and the columns of the report. The
// allocation, the launches and the timing stay in each main.cu.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <vector>

#include "gpu.cuh"
#include "program.hpp"
#include "reference.hpp"

namespace reduction {

// The command line's facts for a chapter of many blocks (06, 07) and its kernels: --block, since
// the number of blocks follows from n and the block size is ours to choose.
template <typename Variants>
ChapterInfo multi_block_info(const std::string& name, const std::string& title, const Variants& kernels) {
  ChapterInfo info;
  info.name = name;
  info.title = title;
  info.has_block = true;
  info.check_block = power_of_two_block(32, 1024);       // the tree halves the block; 1024 threads at most
  info.default_n = std::size_t(1) << 27;                 // 512 MiB of int, ten times an H100's L2: it measures memory
  info.device_room = device_room;                        // a --n the GPU cannot hold is refused before it is made
  info.makes_input = [] { return probe_gpu().usable; };  // without a GPU: the reference alone
  for (const auto& v : kernels) info.variants.push_back({v.name, v.idea, v.deterministic, v.zoo_of != nullptr});
  return info;
}

// Calls sum_input(data, n, source) with the input: --n random elements of --type, or the file of
// --input. Without a GPU the random input is not made (512 MiB by default) and `data` is empty: the
// analysis needs only its reference, made a piece at a time. A file is still read and checked, so
// that its errors are the same on every machine. A failure is an exit status (run_guarded).
template <typename SumInput>
int with_input_or_its_seed(const ChapterInfo& info, const Options& options, SumInput sum_input) {
  return run_guarded(info.name, [&] {
    if (options.input.empty() && !probe_gpu().usable)
      return dispatch_type(options.type, [&](auto tag) {
        using T = typename decltype(tag)::type;
        return sum_input(std::vector<T>(), options.n, "random, seed " + std::to_string(options.seed));
      });
    return with_input(info, options, [&](const auto& data, const std::string& source) {
      return sum_input(data, data.size(), source);
    });
  });
}

// The CPU reference in the report: exact for int; for floats each kernel passes within the error
// bound of its own order of additions, which its run shows as its `tolerance`.
template <typename T>
void report_reference(Report& report, const Reference<T>& ref) {
  if (ref.exact)
    report.set_reference(ref, 0);
  else
    report.set_reference(json_value(ref.value),
                         "higher-precision CPU sum; each kernel passes within the error bound "
                         "of its own summation order (column tolerance)");
}

// The ceiling: a device-to-device copy, measured while the memory is still free, of at least
// 8 x L2 so that it streams from DRAM.
inline Ceilings measure_ceilings(std::size_t input_bytes, const DeviceInfo& device, const Options& options) {
  std::size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  Ceilings ceilings;
  ceilings.copy_bytes = copy_ceiling_bytes(input_bytes, device.l2_bytes, free_bytes);
  if (ceilings.copy_bytes > 0)
    ceilings.copy_gbps = measure_copy_ceiling_gbps(ceilings.copy_bytes, options.warmup, options.reps);
  return ceilings;
}

// A run's columns beside its time: its share of the copy ceiling, and for floats the tolerance it
// was checked within and how far apart its runs came (the atomics add in a new order every run).
template <typename T>
void add_ceiling_columns(RunResult& run, const Ceilings& ceilings, const Reference<T>& ref, long double tol, T lowest,
                         T highest) {
  run.extra.set("pct_of_copy", ceilings.copy_gbps > 0 ? Json(100 * run.gbps / ceilings.copy_gbps) : Json());
  if (!ref.exact) {
    run.extra.set("tolerance", static_cast<double>(tol));
    run.extra.set("run_spread", static_cast<double>(highest) - static_cast<double>(lowest));
  }
}

}  // namespace reduction
