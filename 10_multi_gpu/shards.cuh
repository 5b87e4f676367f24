// Each GPU this process drives and what it holds: its stream, events and communicator, its shard
// of the array on the device, and that shard's CPU reference. The whole array's reference is put
// together from the shards' references, so no process needs the whole array in host memory (unless
// --input handed it the file). The communicators that join the GPUs for NCCL are made here too;
// the measurement times their set-up.
#pragma once

#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "analysis.hpp"  // format_bytes
#include "common/cuda_check.cuh"
#include "common/gpu.cuh"
#include "common/input.hpp"
#include "common/reference.hpp"
#include "multi_gpu.cuh"
#include "nccl_check.hpp"
#include "plan.cuh"
#include "processes.hpp"
#include "sharding.hpp"

namespace ch10 {

using reduction::DeviceBuffer;
using reduction::Reference;

constexpr std::size_t kDeviceSlack = std::size_t(256) << 20;  // left on each GPU for NCCL and the runtime

// One GPU this process drives, with everything it holds. Not movable (DeviceScratch), so kept by
// pointer. Its destructor makes the GPU current first, so that its memory is freed on it.
template <typename T>
struct LocalGpu {
  int device = 0, rank = 0;
  Shard shard;
  Reference<T> shard_ref;  // the CPU reference of this shard alone
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr, reduced = nullptr, stop = nullptr;
  ncclComm_t comm = nullptr;
  DeviceBuffer<T> input, partial, total;
  DeviceScratch scratch;

  LocalGpu(int device_, int rank_, Shard shard_) : device(device_), rank(rank_), shard(shard_) {
    CUDA_CHECK(cudaSetDevice(device));
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    for (cudaEvent_t* e : {&start, &reduced, &stop}) CUDA_CHECK(cudaEventCreate(e));
    partial = DeviceBuffer<T>(1);
    total = DeviceBuffer<T>(1);
  }
  ~LocalGpu() {
    cudaSetDevice(device);
    // Only reached with a communicator left on a failure: ncclCommAbort does not wait for the other
    // GPUs, which may never come (the normal end destroys it with ncclCommDestroy).
    if (comm) ncclCommAbort(comm);
    for (cudaEvent_t e : {start, reduced, stop})
      if (e) cudaEventDestroy(e);
    if (stream) cudaStreamDestroy(stream);
  }
  LocalGpu(const LocalGpu&) = delete;
  LocalGpu& operator=(const LocalGpu&) = delete;
  void make_current() const { CUDA_CHECK(cudaSetDevice(device)); }
};

template <typename T>
using Gpus = std::vector<std::unique_ptr<LocalGpu<T>>>;

// The shard's elements: a slice of the --input file, or the random numbers generate_input() would
// put at those indices (element i depends only on the seed and i), made for this shard alone.
template <typename T>
std::vector<T> shard_data(const Shard& shard, const std::vector<T>* file, std::uint64_t seed) {
  if (file) return std::vector<T>(file->begin() + shard.begin, file->begin() + shard.end());
  std::vector<T> data(shard.count);
  reduction::parallel_chunks(
      shard.count, reduction::cpu_workers(shard.count), [&](std::size_t b, std::size_t e, unsigned) {
        for (std::size_t i = b; i < e; ++i)
          data[i] = reduction::random_element<T>(seed, shard.begin + i, reduction::Distribution::Default);
      });
  return data;
}

// Each GPU's shard: made on the host, its reference computed, uploaded; the host copy then goes,
// so a process holds one shard at a time. A shard the GPU cannot hold is bad input (status 2).
template <typename T>
void load_shard(LocalGpu<T>& gpu, const std::vector<T>* file, std::uint64_t seed) {
  gpu.make_current();
  std::size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  const std::size_t bytes = gpu.shard.count * sizeof(T);
  if (bytes + kDeviceSlack > free_bytes)
    throw reduction::InputError("GPU " + std::to_string(gpu.device) + " would hold " + format_bytes(double(bytes)) +
                                " and has " + format_bytes(double(free_bytes)) +
                                " free; choose a smaller --n or more GPUs");
  const std::vector<T> data = shard_data(gpu.shard, file, seed);
  gpu.shard_ref = reduction::reference_sum(data.data(), data.size());
  if (!data.empty()) gpu.input = DeviceBuffer<T>(data);
}

// The two launch ways differ here. One process: ncclCommInitAll makes the G communicators at once.
// One process per GPU: rank 0 asks NCCL for a unique id, MPI hands it to every rank, and each rank
// joins the communicator with it (the id also tells the ranks where to find each other, across
// machines too).
template <typename T>
void make_communicators(Gpus<T>& gpus, int gpu_count, const Processes& processes) {
  if (!Processes::with_mpi()) {
    std::vector<ncclComm_t> comms(gpus.size());
    std::vector<int> devices;
    for (const auto& g : gpus) devices.push_back(g->device);
    NCCL_CHECK(ncclCommInitAll(comms.data(), static_cast<int>(devices.size()), devices.data()));
    for (std::size_t i = 0; i < gpus.size(); ++i) gpus[i]->comm = comms[i];
    return;
  }
  ncclUniqueId id{};
  if (processes.rank() == 0) NCCL_CHECK(ncclGetUniqueId(&id));
  processes.broadcast(&id, sizeof id);
  LocalGpu<T>& gpu = *gpus.front();
  gpu.make_current();
  NCCL_CHECK(ncclCommInitRank(&gpu.comm, gpu_count, id, gpu.rank));
}

// What every process knows once each of its GPUs holds its shard.
template <typename T>
struct Loaded {
  Gpus<T> gpus;              // this process's GPUs, each with its shard on the device
  Reference<T> ref;          // the whole array's, put together from every shard's
  long double tol = 0;       // the bound a float total must meet (common/reference.hpp)
  std::string device;        // the GPUs in one line: "2 x <GPU 0>", or that they differ
  std::string gpu0_name;     // GPU 0's description, to look up its links' vendor figure
  std::string nccl_version;  // "2.28.9"
};

// The plan's GPUs, each loaded with its shard; then, over every process, the whole reference and
// its bound, and the GPUs' names.
template <typename T>
Loaded<T> load_shards(const GpuPlan& plan, std::size_t n, const std::vector<T>* file, std::uint64_t seed,
                      const Processes& processes) {
  Loaded<T> loaded;
  const int G = plan.gpus;
  int nccl_version = 0;
  NCCL_CHECK(ncclGetVersion(&nccl_version));
  loaded.nccl_version = std::to_string(nccl_version / 10000) + "." + std::to_string(nccl_version / 100 % 100) + "." +
                        std::to_string(nccl_version % 100);

  Gpus<T>& gpus = loaded.gpus;
  for (std::size_t i = 0; i < plan.devices.size(); ++i)
    gpus.push_back(std::make_unique<LocalGpu<T>>(plan.devices[i], plan.ranks[i], shard_of(n, G, plan.ranks[i])));
  std::vector<Reference<T>> local_refs;
  std::vector<Text> local_names;
  for (auto& g : gpus) {
    load_shard(*g, file, seed);
    local_refs.push_back(g->shard_ref);
    local_names.push_back(Text::of(reduction::current_device().describe()));
  }
  loaded.ref = combine_references(gather_items(processes, local_refs));
  const auto names = gather_items(processes, local_names);
  loaded.gpu0_name = names.front().text;
  const std::string& first = loaded.gpu0_name;
  const bool same = std::all_of(names.begin(), names.end(), [&](const Text& t) { return first == t.text; });
  loaded.device = G > 1 ? (same ? std::to_string(G) + " x " + first : "mixed GPUs, GPU 0: " + first) : first;
  double depth = 0;
  for (auto& g : gpus) {
    g->make_current();
    depth = std::max(depth, double(sharded_sum_depth<T>(g->shard.count, G)));
  }
  loaded.tol = reduction::tolerance(loaded.ref, static_cast<std::size_t>(processes.max(depth)));
  return loaded;
}

}  // namespace ch10
