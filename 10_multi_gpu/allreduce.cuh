// The contrast to the sharded sum: the all-reduce of whole vectors, as data-parallel training does
// with its gradients, timed as nccl-tests (NVIDIA's NCCL benchmarks) time it: warm-up calls first,
// then `reps` calls back to back between two readings of the host clock, the time per call
// averaged over the processes; then a check of every element of the result. Its vectors are as
// large as --vector-max and the GPUs' free memory allow. Then what the report says about it: the
// table as nccl-tests prints it, the links' vendor peak, which GPUs reach each other directly, and
// how to see NCCL's choice of algorithm. And the room on each GPU, for a shard (check_room) and for
// the sweep's vectors beside it (vector_room).
//
// `gpus` is the program's list of this process's GPUs (main.cu): each element points to a GPU
// with `device`, `rank`, `comm` and `stream`.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "analysis.hpp"  // format_bytes
#include "common/cuda_check.cuh"
#include "common/gpu.cuh"
#include "common/json.hpp"
#include "common/options.hpp"
#include "common/report.hpp"
#include "multi_gpu.cuh"
#include "nccl_check.hpp"
#include "processes.hpp"
#include "sharding.hpp"

namespace ch10 {

using reduction::DeviceBuffer;

// Host-clock time, for what CUDA events cannot time: set-up, first use, calls back to back.
inline double milliseconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// Refuses (status 2) a shard that GPU `device`, the current one, cannot hold beside NCCL's buffers.
inline void check_room(int device, std::size_t bytes) {
  std::size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (bytes + kNcclSlack > free_bytes)
    throw reduction::InputError("GPU " + std::to_string(device) + " would hold " + format_bytes(double(bytes)) +
                                " and has " + format_bytes(double(free_bytes)) +
                                " free; choose a smaller --n or more GPUs");
}

// The largest vector the sweep may use: --vector-max, or less where a send and a receive buffer
// would not fit beside the shard on the fullest GPU of every process.
template <typename Gpus>
std::size_t vector_room(const Gpus& gpus, std::size_t vector_max, const Processes& processes) {
  double smallest_free = 1e300;
  for (auto& g : gpus) {
    CUDA_CHECK(cudaSetDevice(g->device));
    std::size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    smallest_free = std::min(smallest_free, double(free_bytes));
  }
  double room = -processes.max(-smallest_free);
  room = room > kNcclSlack ? (room - kNcclSlack) / 2 : 0;  // a send and a receive buffer
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

template <typename T, typename Gpus>
std::vector<AllreduceRow> sweep_allreduce(const Gpus& gpus, int gpu_count, const std::vector<std::size_t>& sizes,
                                          const reduction::Options& options, const Processes& processes) {
  std::vector<AllreduceRow> rows;
  if (sizes.empty()) return rows;
  const std::size_t most = sizes.back() / sizeof(T);
  std::vector<DeviceBuffer<T>> send, receive;
  for (auto& g : gpus) {
    CUDA_CHECK(cudaSetDevice(g->device));
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
      CUDA_CHECK(cudaSetDevice(g->device));
      CUDA_CHECK(cudaStreamSynchronize(g->stream));
    }
  };
  for (std::size_t bytes : sizes) {
    AllreduceRow row;
    row.bytes = bytes;
    row.count = bytes / sizeof(T);
    for (int i = 0; i < std::max(1, options.warmup); ++i) all_reduce(row.count);
    for (std::size_t i = 0; i < gpus.size(); ++i) {  // what the timed calls must write, poisoned again
      CUDA_CHECK(cudaSetDevice(gpus[i]->device));
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
      CUDA_CHECK(cudaSetDevice(gpus[i]->device));
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
    CUDA_CHECK(cudaSetDevice(gpus[i]->device));
    send[i] = DeviceBuffer<T>();
    receive[i] = DeviceBuffer<T>();
  }
  return rows;
}

// Which pairs of this machine's GPUs can reach each other's memory directly (NVLink or PCIe peer
// to peer). NCCL chooses its own transport; NCCL_DEBUG=INFO names it.
inline std::string peer_access(int devices) {
  std::string text;
  for (int a = 0; a < devices; ++a)
    for (int b = a + 1; b < devices; ++b) {
      int can = 0;
      CUDA_CHECK(cudaDeviceCanAccessPeer(&can, a, b));
      text += (text.empty() ? "" : ", ") + std::to_string(a) + "-" + std::to_string(b) + (can ? " yes" : " no");
    }
  return text;
}

// What the report says about the contrast: the sweep as nccl-tests prints it (and its "allreduce"
// field), the links' vendor peak, which GPU pairs reach each other directly, NCCL's settings from
// the environment and how to see its choice of algorithm; last, whether a vector came back wrong.
// vector_max: where the sweep stopped; vector_max_asked: --vector-max, to say where the GPUs'
// memory cut it short; gpu0_name: GPU 0's description, to look up the links' vendor figure.
template <typename T>
void report_allreduce(reduction::Report& report, const std::vector<AllreduceRow>& rows, int gpus,
                      std::size_t vector_max, std::size_t vector_max_asked, const std::string& gpu0_name,
                      const std::string& version) {
  const reduction::Options& options = report.options();
  auto& summary = report.summary();
  reduction::Json json_rows = reduction::Json::array();
  if (!rows.empty()) {
    summary << "\nall-reduce of whole vectors (" << reduction::type_name(reduction::data_type_of<T>())
            << ", sum, out of place), over " << gpus << " GPU" << (gpus > 1 ? "s" : "")
            << ", timed as nccl-tests does: " << std::max(1, options.warmup) << " warm-up calls,\nthen " << options.reps
            << " calls back to back on the host clock, averaged over the processes; every element checked\n"
            << "       bytes      elements    time (us)   algbw (GB/s)   busbw (GB/s)   wrong\n";
    for (const auto& r : rows) {
      char line[160];
      std::snprintf(line, sizeof line, "%12zu  %12zu  %11.2f  %13.2f  %13.2f  %6llu\n", r.bytes, r.count, r.time_us,
                    r.algbw_gbps, r.busbw_gbps, r.wrong);
      summary << line;
      json_rows.push({{"bytes", r.bytes},
                      {"count", r.count},
                      {"time_us", r.time_us},
                      {"algbw_gbps", r.algbw_gbps},
                      {"busbw_gbps", r.busbw_gbps},
                      {"wrong", static_cast<std::uint64_t>(r.wrong)}});
    }
    summary << "           algbw = bytes / time; busbw = algbw x 2 (G - 1) / G, what each GPU's links carried\n"
            << "           each way (0 for one GPU, which sends nothing)\n";
    if (vector_max < vector_max_asked)
      summary << "           (the sweep stops at " << format_bytes(double(vector_max))
              << ": a send and a receive buffer had to fit beside the shard)\n";
  }
  auto& fields = report.fields();
  fields.set("allreduce", std::move(json_rows));
  fields.set("allreduce_timing",
             "nccl-tests: warm-up, then reps calls back to back between host clock readings, "
             "time per call averaged over processes; out of place");

  // The links: their vendor peak beside the largest vector's busbw, which GPU pairs reach each other
  // directly (one process only: it sees every GPU), and how to see NCCL's choice of algorithm.
  const VendorLinkPeak* peak = vendor_link_peak(gpu0_name);
  reduction::Json link = reduction::Json();
  if (peak) {
    link = reduction::Json::object();
    link.set("source", "vendor figure (NVIDIA datasheet), not measured");
    link.set("description", peak->description);
    link.set("total_gbps", peak->total_gbps);
    link.set("per_direction_gbps", peak->total_gbps / 2);
    summary << "peak       " << peak->description << ":\n           " << peak->total_gbps / 2
            << " GB/s each way. A VENDOR FIGURE, NOT MEASURED: the CUDA runtime does not report it";
    if (!rows.empty() && gpus > 1) {
      char line[160];
      std::snprintf(line, sizeof line, ";\n           busbw at %s is %.1f %% of it",
                    format_bytes(double(rows.back().bytes)).c_str(),
                    100 * rows.back().busbw_gbps / (peak->total_gbps / 2));
      summary << line;
    }
    summary << "\n";
  }
  fields.set("link_peak", std::move(link));
  if (!Processes::with_mpi() && gpus > 1) {
    const std::string peers = peer_access(gpus);
    summary << "peers      direct access between GPUs (NVLink or PCIe): " << peers << "\n";
    fields.set("peer_access", peers);
  }
  reduction::Json env = reduction::Json::object();
  for (const char* name : {"NCCL_ALGO", "NCCL_PROTO", "NCCL_NVLS_ENABLE"})
    if (const char* value = std::getenv(name)) env.set(name, value);
  fields.set("nccl_env", std::move(env));
  summary
      << "algorithm  NCCL " << version
      << " picks ring or tree (and a protocol) for each call from its size and the machine;\n"
      << "           NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=TUNING prints the choice, NCCL_ALGO=Ring or Tree forces it\n";
  const bool all_right = std::all_of(rows.begin(), rows.end(), [](const AllreduceRow& r) { return r.wrong == 0; });
  if (!all_right) summary << "\nFAILED: an all-reduce of whole vectors gave wrong elements (column wrong)\n";
}

}  // namespace ch10
