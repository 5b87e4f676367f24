// Chapter 08's registry: its three ways to finish, listed once for the program, its tests and the
// benchmark. The kernels and their launchers are in solution/two_pass.cuh.
#pragma once

#include <vector>

#include "common/gpu.cuh"  // Variant, MultiBlockLaunch
#include "two_pass.cuh"

namespace ch08 {

template <typename T>
std::vector<reduction::Variant<reduction::MultiBlockLaunch<T>>> variants() {
  return {
      {"finish_cpu", "the host adds the block partials", launch_finish_cpu<T>, depth_finish_cpu<T>, true},
      {"finish_atomic", "each block atomicAdds its partial", launch_finish_atomic<T>, depth_finish_atomic<T>, false},
      {"finish_kernel", "the same kernel, one block, adds the partials", launch_finish_kernel<T>,
       depth_finish_kernel<T>, true},
  };
}

}  // namespace ch08
