// The contrast to the sharded sum: the all-reduce of whole vectors, as data-parallel training does
// with its gradients, timed as nccl-tests (NVIDIA's NCCL benchmarks) time it: warm-up calls first,
// then `reps` calls back to back between two readings of the host clock, the time per call
// averaged over the processes; then a check of every element of the result. Its vectors are as
// large as --vector-max and the GPUs' free memory allow.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <vector>

#include "common/cuda_check.cuh"
#include "common/gpu.cuh"
#include "common/options.hpp"
#include "multi_gpu.cuh"
#include "nccl_check.hpp"
#include "processes.hpp"
#include "sharding.hpp"
#include "shards.cuh"

namespace ch10 {

// Host-clock time, for what CUDA events cannot time: set-up, first use, calls back to back.
inline double milliseconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// The largest vector the sweep may use: --vector-max, or less where a send and a receive buffer
// would not fit beside the shard on the fullest GPU of every process.
template <typename T>
std::size_t vector_room(const Gpus<T>& gpus, std::size_t vector_max, const Processes& processes) {
  double smallest_free = 1e300;
  for (auto& g : gpus) {
    g->make_current();
    std::size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    smallest_free = std::min(smallest_free, double(free_bytes));
  }
  double room = -processes.max(-smallest_free);
  room = room > kDeviceSlack ? (room - kDeviceSlack) / 2 : 0;  // a send and a receive buffer
  return std::min<std::size_t>(vector_max, static_cast<std::size_t>(room));
}

// Element i of rank r's vector: small integers, so that their sum is exact in every type.
template <typename T>
__host__ __device__ T pattern(std::size_t i, int rank) {
  return static_cast<T>(static_cast<int>((i + static_cast<std::size_t>(rank)) % 7) - 3);
}

template <typename T>
__global__ void fill_pattern(T* out, std::size_t n, int rank) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    out[i] = pattern<T>(i, rank);
}

template <typename T>
__global__ void count_wrong(const T* got, std::size_t n, int ranks, unsigned long long* wrong) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  unsigned long long mine = 0;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    T expected = 0;
    for (int r = 0; r < ranks; ++r) expected += pattern<T>(i, r);
    if (!(got[i] == expected)) ++mine;  // NaN (the poison) is never equal
  }
  if (mine) atomicAdd(wrong, mine);
}

struct AllreduceRow {
  std::size_t bytes = 0, count = 0;
  double time_us = 0, algbw_gbps = 0, busbw_gbps = 0;
  unsigned long long wrong = 0;
};

template <typename T>
std::vector<AllreduceRow> sweep_allreduce(Gpus<T>& gpus, int gpu_count, const std::vector<std::size_t>& sizes,
                                          const reduction::Options& options, const Processes& processes) {
  std::vector<AllreduceRow> rows;
  if (sizes.empty()) return rows;
  const std::size_t most = sizes.back() / sizeof(T);
  std::vector<DeviceBuffer<T>> send, receive;
  for (auto& g : gpus) {
    g->make_current();
    send.emplace_back(most);
    receive.emplace_back(most);
    fill_pattern<T><<<1024, 256, 0, g->stream>>>(send.back().data(), most, g->rank);
    CUDA_CHECK_LAUNCH();
  }
  auto all_reduce = [&](std::size_t count) {
    NCCL_CHECK(ncclGroupStart());
    for (std::size_t i = 0; i < gpus.size(); ++i)
      launch_combine(send[i].data(), receive[i].data(), count, gpus[i]->comm, gpus[i]->stream);
    NCCL_CHECK(ncclGroupEnd());
  };
  auto synchronize = [&] {
    for (auto& g : gpus) {
      g->make_current();
      CUDA_CHECK(cudaStreamSynchronize(g->stream));
    }
  };
  for (std::size_t bytes : sizes) {
    AllreduceRow row;
    row.bytes = bytes;
    row.count = bytes / sizeof(T);
    for (int i = 0; i < std::max(1, options.warmup); ++i) all_reduce(row.count);
    for (std::size_t i = 0; i < gpus.size(); ++i) {  // what the timed calls must write, poisoned again
      gpus[i]->make_current();
      CUDA_CHECK(cudaMemsetAsync(receive[i].data(), 0xFF, row.count * sizeof(T), gpus[i]->stream));
    }
    synchronize();
    processes.barrier();
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < options.reps; ++i) all_reduce(row.count);
    synchronize();
    const double seconds = milliseconds_since(start) / 1e3 / options.reps;
    row.time_us = processes.sum(seconds) / processes.size() * 1e6;
    row.algbw_gbps = algorithm_bandwidth_gbps(bytes, row.time_us / 1e6);
    row.busbw_gbps = bus_bandwidth_gbps(row.algbw_gbps, gpu_count);
    double wrong = 0;
    for (std::size_t i = 0; i < gpus.size(); ++i) {
      gpus[i]->make_current();
      DeviceBuffer<unsigned long long> counter(1);
      CUDA_CHECK(cudaMemset(counter.data(), 0, sizeof(unsigned long long)));
      count_wrong<T><<<1024, 256>>>(receive[i].data(), row.count, gpu_count, counter.data());
      CUDA_CHECK_LAUNCH();
      wrong += double(counter.download_one());
    }
    row.wrong = static_cast<unsigned long long>(processes.sum(wrong));
    rows.push_back(row);
  }
  for (std::size_t i = 0; i < gpus.size(); ++i) {  // each GPU's buffers freed with that GPU current
    gpus[i]->make_current();
    send[i] = DeviceBuffer<T>();
    receive[i] = DeviceBuffer<T>();
  }
  return rows;
}

// Which pairs of this machine's GPUs can reach each other's memory directly (NVLink or PCIe peer

}  // namespace ch10
