// Chapter 09: the library ceiling, cub::DeviceReduce, timed beside fastest on the same input.
// The program compiles it once, in ../cub_launch.cu.
#pragma once

#include <cuda_runtime.h>

#include <cub/device/device_reduce.cuh>

#include <algorithm>
#include <cstddef>
#include <map>
#include <mutex>
#include <type_traits>
#include <utility>

#include "common/ops.hpp"
#include "08_two_pass/solution/two_pass.cuh"  // chapter 08: the loads, the grid and the two passes

namespace ch09 {

using reduction::DeviceScratch;

// CUB picks its own block size and grid. The size of its temporary storage depends only on n and
// the device, so it is asked once per n and kept. Floating-point max and min take our operator and
// identity: cub's own (a < b ? b : a, from the lowest finite value) lets a NaN's place decide
// whether it counts, and turns an input of -inf into -FLT_MAX.
template <typename Op, typename T>
cudaError_t cub_reduce(void* temp, std::size_t& temp_bytes, const T* input, std::size_t n, T* result,
                       cudaStream_t stream) {
  if constexpr (std::is_same_v<Op, reduction::Sum>)
    return cub::DeviceReduce::Sum(temp, temp_bytes, input, result, n, stream);
  else if constexpr (!std::is_integral_v<T>)
    return cub::DeviceReduce::Reduce(temp, temp_bytes, input, result, n, Op{}, Op::template identity<T>(), stream);
  else if constexpr (std::is_same_v<Op, reduction::Max>)
    return cub::DeviceReduce::Max(temp, temp_bytes, input, result, n, stream);
  else
    return cub::DeviceReduce::Min(temp, temp_bytes, input, result, n, stream);
}

template <typename Op, typename T>
void launch_cub(const T* input, std::size_t n, T* result, int /*block*/, DeviceScratch& scratch, cudaStream_t stream) {
  static std::mutex mutex;  // the table is shared by every host thread
  static std::map<std::pair<int, std::size_t>, std::size_t> temp_bytes_for;
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  std::size_t bytes = 0;
  {
    const std::lock_guard<std::mutex> lock(mutex);
    auto it = temp_bytes_for.find({device, n});
    if (it == temp_bytes_for.end()) {
      CUDA_CHECK(cub_reduce<Op>(nullptr, bytes, input, n, result, stream));
      it = temp_bytes_for.emplace(std::make_pair(device, n), std::max<std::size_t>(bytes, 1)).first;
    }
    bytes = it->second;
  }
  CUDA_CHECK(cub_reduce<Op>(scratch.get(bytes), bytes, input, n, result, stream));
  CUDA_CHECK_LAUNCH();
}

}  // namespace ch09
