// Chapter 10 program: the sum of an array split over G GPUs. Each GPU reduces its own shard with
// chapter 09's fastest, one NCCL all-reduce of a single element adds the G partial sums; then, for
// contrast, the element-wise all-reduce of whole vectors that data-parallel training does, timed
// as NCCL's own tests time it.
//   10_multi_gpu [--gpus G] [--n N] [--type int|float|double] [--vector-max BYTES] [--json] ...
//   mpirun -np G 10_multi_gpu_mpi [the same options]     (one process per GPU; built with MPI)
//
// The program reads top to bottom: options, the analysis (needs no GPU), the GPUs, each GPU's shard
// and its reference, each GPU alone, the communicators, the sum over G GPUs, the vector all-reduce,
// the report. The two launch ways differ only in processes_*.cpp and in how the communicators are
// made (make_communicators); every other line runs in both.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "common/cuda_check.cuh"
#include "common/gpu.cuh"
#include "common/input.hpp"
#include "common/measure.cuh"
#include "common/program.hpp"
#include "common/reference.hpp"
#include "common/report.hpp"
#include "common/timer.hpp"
#include "multi_gpu.cuh"
#include "processes.hpp"
#include "sharding.hpp"

using namespace reduction;
using ch10::Processes;
using ch10::Shard;

namespace {

constexpr double kGoalEfficiency = 0.95;                     // the goal: G GPUs at 95 % of G x one GPU
constexpr std::size_t kDeviceSlack = std::size_t(256) << 20;  // left on each GPU for NCCL and the runtime

std::string format_bytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (bytes >= 1024 && u < 4) bytes /= 1024, ++u;
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.2f %s", bytes, units[u]);
  return buf;
}

double milliseconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// Under mpirun only rank 0 speaks: the others' copies of the parser's messages are dropped.
class QuietUnless {
 public:
  explicit QuietUnless(bool speak) : out_(std::cout.rdbuf()), err_(std::cerr.rdbuf()) {
    if (!speak) std::cout.rdbuf(nullptr), std::cerr.rdbuf(nullptr);
  }
  ~QuietUnless() {
    std::cout.rdbuf(out_), std::cerr.rdbuf(err_);
    std::cout.clear(), std::cerr.clear();
  }

 private:
  std::streambuf *out_, *err_;
};

// A short text of fixed size, to gather from every rank.
struct Text {
  char text[240] = {};
  static Text of(const std::string& s) {
    Text t;
    std::snprintf(t.text, sizeof t.text, "%s", s.c_str());
    return t;
  }
};

// ---------------------------------------------------------------------------------------------
// The analysis: how the array is split and what the GPUs exchange. Needs no GPU; G = 0 when the
// number of GPUs is not known (every visible GPU, and none visible).

template <typename T>
void write_analysis(std::ostream& text, std::size_t n, int gpus, const Processes& processes) {
  const std::string type = type_name(data_type_of<T>());
  if (gpus == 0) {
    text << "split      over every visible GPU (none is visible here); for example:\n"
         << "           GPUs  elements per GPU  bytes per GPU  sent per GPU in the combine\n";
    for (int g : {1, 2, 4, 8}) {
      char line[160];
      std::snprintf(line, sizeof line, "           %4d  %16zu  %13s  %s\n", g, ch10::largest_shard(n, g),
                    format_bytes(double(ch10::largest_shard(n, g)) * sizeof(T)).c_str(),
                    format_bytes(sizeof(T)).c_str());
      text << line;
    }
    gpus = 2;  // the rest of the analysis for two, the smallest real case
    text << "           (below: for 2 GPUs)\n";
  } else {
    const Shard first = ch10::shard_of(n, gpus, 0), last = ch10::shard_of(n, gpus, gpus - 1);
    text << "split      " << n << " " << type << " elements over " << gpus << " GPU" << (gpus > 1 ? "s" : "")
         << ", one contiguous shard each: ";
    if (first.count == last.count)
      text << first.count << " on each (" << format_bytes(double(first.count) * sizeof(T)) << ")\n";
    else if (last.count == 0)
      text << "1 element on each of the first " << n << ", none on the last " << gpus - n
           << " (they bring 0 to the combine)\n";
    else if (n % gpus == 1)
      text << first.count << " on GPU 0, " << last.count << " on the others\n";
    else
      text << first.count << " on the first " << n % gpus << " GPUs, " << last.count << " on the others\n";
    text << "          ";
    for (int g = 0; g < gpus; ++g) {
      if (gpus > 8 && g == 3) {
        text << " ...";
        g = gpus - 2;
        continue;
      }
      const Shard s = ch10::shard_of(n, gpus, g);
      text << (g ? "   GPU " : " GPU ") << g << ": [" << s.begin << ", " << s.end() << ")";
    }
    text << "\n";
  }
  const double shard_bytes = double(ch10::largest_shard(n, gpus)) * sizeof(T);
  text << "step 1     each GPU reads its own shard once with chapter 09's fastest, all GPUs at the same\n"
       << "           time: " << format_bytes(shard_bytes) << " per GPU, the whole array read G times as fast\n"
       << "step 2     one ncclAllReduce of 1 " << type << " (" << sizeof(T)
       << " bytes) from each GPU adds the G partial sums; every GPU\n"
       << "           receives the total. The exchange is " << sizeof(T) << " bytes per GPU against "
       << format_bytes(shard_bytes) << " read:\n"
       << "           its cost is a few microseconds of latency, whatever n is\n"
       << "contrast   the all-reduce of a vector as large as a shard (" << format_bytes(shard_bytes)
       << ", as data-parallel training does with\n"
       << "           its gradients) carries 2 (G - 1) / G times its bytes in and out of every GPU: "
       << format_bytes(ch10::allreduce_bytes_per_gpu(std::size_t(shard_bytes), gpus)) << " each way\n"
       << "           over links far slower than the GPU's own memory (H200, vendor figures: NVLink 450 GB/s\n"
       << "           each way, HBM 4.8 TB/s): that all-reduce is bound by the links, not by reading\n";
  if constexpr (!std::is_integral_v<T>)
    text << "floats     each element meets at most fastest's additions on its GPU, then G - 1 = "
         << ch10::combine_depth(gpus) << " in the combine\n"
         << "           (NCCL does not document its order; G - 1 is the worst any order can do)\n";
  if (Processes::with_mpi())
    text << "launch     " << processes.size() << " process" << (processes.size() > 1 ? "es" : "")
         << " started by mpirun, one GPU each (the machine's GPU of its local rank): rank 0\n"
         << "           makes NCCL's unique id (ncclGetUniqueId), MPI_Bcast hands it to every rank, and\n"
         << "           each rank joins with ncclCommInitRank\n";
  else
    text << "launch     one process drives the GPUs: ncclCommInitAll makes one communicator per GPU, and\n"
         << "           the G calls of each collective go between ncclGroupStart and ncclGroupEnd\n";
}

// ---------------------------------------------------------------------------------------------
// The GPUs.

// Which GPUs this process drives and which shards they reduce, or why this machine cannot run
// this (the reason every rank agrees on, in one line).
struct GpuPlan {
  int gpus = 0;              // G, over all processes
  std::vector<int> devices;  // this process's GPUs (CUDA device numbers) ...
  std::vector<int> ranks;    // ... and their ranks among the G: the shards they reduce
  std::string problem;       // not empty: no run (exit status 77)
};

GpuPlan plan_gpus(const Processes& processes, int gpus_asked) {
  GpuPlan plan;
  const GpuStatus status = probe_gpu();
  int visible = 0;
  if (status.usable) CUDA_CHECK(cudaGetDeviceCount(&visible));
  if (!Processes::with_mpi()) {
    plan.gpus = gpus_asked ? gpus_asked : visible;
    if (!status.usable) plan.problem = status.reason;
    else if (plan.gpus > visible)
      plan.problem = "--gpus " + std::to_string(plan.gpus) + " asks for " + std::to_string(plan.gpus) + " GPUs and " +
                     std::to_string(visible) + (visible == 1 ? " is" : " are") + " visible";
    for (int g = 0; plan.problem.empty() && g < plan.gpus; ++g) plan.devices.push_back(g), plan.ranks.push_back(g);
    return plan;
  }
  // One process per GPU: the local rank picks the GPU, so a machine needs as many GPUs as it has
  // processes. Every rank checks its own machine, and all agree on the first problem.
  plan.gpus = processes.size();
  std::string mine;
  if (!status.usable) mine = status.reason;
  else if (processes.local_size() > visible)
    mine = "mpirun started " + std::to_string(processes.local_size()) + " processes on this machine, which has " +
           std::to_string(visible) + " visible GPU" + (visible == 1 ? "" : "s") + ": one process per GPU";
  const auto all = ch10::gather_items(processes, std::vector<Text>{Text::of(mine)});
  for (std::size_t r = 0; r < all.size() && plan.problem.empty(); ++r)
    if (all[r].text[0]) plan.problem = (processes.size() > 1 ? "rank " + std::to_string(r) + ": " : "") + all[r].text;
  if (plan.problem.empty()) plan.devices = {processes.local_rank()}, plan.ranks = {processes.rank()};
  return plan;
}

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
  parallel_chunks(shard.count, cpu_workers(shard.count), [&](std::size_t b, std::size_t e, unsigned) {
    for (std::size_t i = b; i < e; ++i) data[i] = random_element<T>(seed, shard.begin + i, Distribution::Default);
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
    throw InputError("GPU " + std::to_string(gpu.device) + " would hold " + format_bytes(double(bytes)) + " and has " +
                     format_bytes(double(free_bytes)) + " free; choose a smaller --n or more GPUs");
  const std::vector<T> data = shard_data(gpu.shard, file, seed);
  gpu.shard_ref = reference_sum(data.data(), data.size());
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

// ---------------------------------------------------------------------------------------------
// The sum over G GPUs: one run.

struct SumRun {
  double total_ms = 0;   // this process's slowest GPU, from its start to the total
  double reduce_ms = 0;  // this process's slowest GPU, from its start to its partial
  bool correct = true;   // every GPU's total matched the reference
  double total = 0;      // the total on this process's first GPU
};

// Each GPU: poison the partial and the total (before the timed region), start, its shard to its
// partial (step 1), then all GPUs together: the all-reduce of the partials (step 2), stop. CUDA
// events time each GPU on its own stream; a run lasts as long as its slowest GPU.
template <typename T>
SumRun run_sharded_sum(Gpus<T>& gpus, const Reference<T>& ref, long double tol) {
  for (auto& g : gpus) {
    g->make_current();
    CUDA_CHECK(cudaMemsetAsync(g->partial.data(), 0xFF, sizeof(T), g->stream));
    CUDA_CHECK(cudaMemsetAsync(g->total.data(), 0xFF, sizeof(T), g->stream));
  }
  for (auto& g : gpus) {
    g->make_current();
    CUDA_CHECK(cudaEventRecord(g->start, g->stream));
    ch10::launch_shard_partial(g->input.data(), g->shard.count, g->partial.data(), g->scratch, g->stream);
    CUDA_CHECK(cudaEventRecord(g->reduced, g->stream));
  }
  NCCL_CHECK(ncclGroupStart());
  for (auto& g : gpus) ch10::launch_combine(g->partial.data(), g->total.data(), 1, g->comm, g->stream);
  NCCL_CHECK(ncclGroupEnd());
  for (auto& g : gpus) {
    g->make_current();
    CUDA_CHECK(cudaEventRecord(g->stop, g->stream));
  }
  SumRun run;
  for (auto& g : gpus) {
    g->make_current();
    CUDA_CHECK(cudaEventSynchronize(g->stop));
    float total_ms = 0, reduce_ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&total_ms, g->start, g->stop));
    CUDA_CHECK(cudaEventElapsedTime(&reduce_ms, g->start, g->reduced));
    run.total_ms = std::max(run.total_ms, double(total_ms));
    run.reduce_ms = std::max(run.reduce_ms, double(reduce_ms));
    T total{};
    CUDA_CHECK(cudaMemcpy(&total, g->total.data(), sizeof(T), cudaMemcpyDeviceToHost));
    run.correct = run.correct && matches(total, ref, tol);
    if (&g == &gpus.front()) run.total = static_cast<double>(total);
  }
  return run;
}

// ---------------------------------------------------------------------------------------------
// The contrast: the all-reduce of whole vectors, as nccl-tests (NVIDIA's NCCL benchmarks) time it:
// warm-up calls first, then `reps` calls back to back between two readings of the host clock, the
// time per call averaged over the processes; then a check of every element of the result.

// Element i of rank r's vector: small integers, so that their sum is exact in every type.
template <typename T>
__host__ __device__ T pattern(std::size_t i, int rank) {
  return static_cast<T>(static_cast<int>((i + static_cast<std::size_t>(rank)) % 7) - 3);
}

template <typename T>
__global__ void fill_pattern(T* out, std::size_t n, int rank) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) out[i] = pattern<T>(i, rank);
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
                                          const Options& options, const Processes& processes) {
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
      ch10::launch_combine(send[i].data(), receive[i].data(), count, gpus[i]->comm, gpus[i]->stream);
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
    row.algbw_gbps = ch10::algorithm_bandwidth_gbps(bytes, row.time_us / 1e6);
    row.busbw_gbps = ch10::bus_bandwidth_gbps(row.algbw_gbps, gpu_count);
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
// to peer). NCCL chooses its own transport; NCCL_DEBUG=INFO names it.
std::string peer_access(int devices) {
  std::string text;
  for (int a = 0; a < devices; ++a)
    for (int b = a + 1; b < devices; ++b) {
      int can = 0;
      CUDA_CHECK(cudaDeviceCanAccessPeer(&can, a, b));
      text += (text.empty() ? "" : ", ") + std::to_string(a) + "-" + std::to_string(b) + (can ? " yes" : " no");
    }
  return text;
}

// ---------------------------------------------------------------------------------------------

struct Settings {
  int gpus_asked = 0;              // --gpus; 0: every visible GPU (or every rank, under mpirun)
  std::size_t vector_max = 1 << 30;  // --vector-max, bytes
};

// What each process measured on its GPUs alone, for rank 0's report.
struct AloneRun {
  double time_ms = 0, gbps = 0, result = 0;
  int correct = 0, device = 0;
  std::size_t count = 0;
};

template <typename T>
int run_chapter(const ChapterInfo& info, const Options& options, const Settings& settings, const Processes& processes,
                const std::vector<T>* file, std::size_t n, const std::string& source) {
  const bool root = processes.rank() == 0;
  Report report(info, options);
  report.set_input(data_type_of<T>(), n, source);
  report.fields().set("launch", Processes::with_mpi() ? "mpi" : "one_process");

  // The GPUs, then the analysis (it needs only their number, when that is known).
  const GpuPlan plan = plan_gpus(processes, settings.gpus_asked);
  const int G = plan.gpus;
  write_analysis<T>(report.text(), n, G, processes);
  report.fields().set("gpus", G);
  if (G > 0) report.fields().set("elements_per_gpu", ch10::largest_shard(n, G));
  report.fields().set("exchange_bytes_per_gpu", sizeof(T));
  if (!plan.problem.empty()) return root ? report.finish_without_gpu(plan.problem) : int(kNoGpu);
#ifdef REDUCTION_EXERCISE_UNFINISHED  // said once the options, the input and the GPUs are known to be good
  if (root) std::cerr << info.name << ": the NCCL combine in multi_gpu.cuh is not implemented yet\n";
#endif

  int nccl_version = 0;
  NCCL_CHECK(ncclGetVersion(&nccl_version));
  const std::string nccl_text = std::to_string(nccl_version / 10000) + "." + std::to_string(nccl_version / 100 % 100) +
                                "." + std::to_string(nccl_version % 100);

  // Each GPU, its shard and the shard's reference; the whole array's reference from the shards'.
  Gpus<T> gpus;
  for (std::size_t i = 0; i < plan.devices.size(); ++i)
    gpus.push_back(std::make_unique<LocalGpu<T>>(plan.devices[i], plan.ranks[i], ch10::shard_of(n, G, plan.ranks[i])));
  std::vector<Reference<T>> local_refs;
  std::vector<Text> local_names;
  for (auto& g : gpus) {
    load_shard(*g, file, options.seed);
    local_refs.push_back(g->shard_ref);
    local_names.push_back(Text::of(current_device().describe()));
  }
  const Reference<T> ref = ch10::combine_references(ch10::gather_items(processes, local_refs));
  const auto names = ch10::gather_items(processes, local_names);
  std::string device = names.front().text;
  const bool same = std::all_of(names.begin(), names.end(), [&](const Text& t) { return device == t.text; });
  if (G > 1) device = same ? std::to_string(G) + " x " + device : "mixed GPUs, GPU 0: " + device;
  report.set_device(device);
  {
    const DeviceInfo first = current_device();
    auto version = [](int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); };
    report.fields().set("driver_cuda_version", version(first.driver_version));
    report.fields().set("cuda_runtime", version(first.runtime_version));
    report.fields().set("nccl_version", nccl_text);
  }
  double depth = 0;
  for (auto& g : gpus) {
    g->make_current();
    depth = std::max(depth, double(ch10::sharded_sum_depth<T>(g->shard.count, G)));
  }
  const long double tol = tolerance(ref, static_cast<std::size_t>(processes.max(depth)));
  report.set_reference(ref, tol);

  // Each GPU alone: fastest over its shard, no NCCL, checked against the shard's own reference.
  // GPU 0's figure times G is what G GPUs together should reach.
  std::vector<AloneRun> local_alone;
  for (auto& g : gpus) {
    g->make_current();
    const long double shard_tol = tolerance(g->shard_ref, ch10::sharded_sum_depth<T>(g->shard.count, 1));
    const RunResult r = run_reduction<T>(
        "alone",
        [&](cudaStream_t stream) {
          ch10::launch_shard_partial(g->input.data(), g->shard.count, g->partial.data(), g->scratch, stream);
        },
        g->partial, g->shard_ref, shard_tol, options, double(g->shard.count) * sizeof(T));
    local_alone.push_back({r.time_ms, r.gbps, r.result.as_double(), r.correct ? 1 : 0, g->device, g->shard.count});
  }
  const auto alone = ch10::gather_items(processes, local_alone);
  const double one_gpu_gbps = alone.front().gbps;

  // The communicators, timed apart: set-up is paid once per run of a program, not per sum.
  processes.barrier();
  auto clock = std::chrono::steady_clock::now();
  make_communicators(gpus, G, processes);
  const double init_ms = processes.max(milliseconds_since(clock));

  // The first sum over G GPUs, timed apart too: NCCL connects the GPUs on a collective's first use.
  processes.barrier();
  clock = std::chrono::steady_clock::now();
  bool correct = run_sharded_sum(gpus, ref, tol).correct;
  const double first_ms = processes.max(milliseconds_since(clock));

  // Warm-up, then the timed runs: each run's time is its slowest GPU's, over every process.
  for (int i = 0; i < options.warmup; ++i) correct = run_sharded_sum(gpus, ref, tol).correct && correct;
  std::vector<double> totals, combines;
  double total_value = 0;
  for (int i = 0; i < options.reps; ++i) {
    processes.barrier();
    const SumRun run = run_sharded_sum(gpus, ref, tol);
    const double total_ms = processes.max(run.total_ms), reduce_ms = processes.max(run.reduce_ms);
    totals.push_back(total_ms);
    combines.push_back(total_ms - reduce_ms);
    correct = correct && run.correct;
    total_value = run.total;
  }
  correct = processes.max(correct ? 0 : 1) == 0;
  const TimingStats sum_time = summarize(totals);
  const double combine_ms = summarize(combines).median_ms;
  const double aggregate_gbps = gigabytes_per_second(double(n) * sizeof(T), sum_time.median_ms);
  const double ideal_gbps = G * one_gpu_gbps;
  const double efficiency = ideal_gbps > 0 ? aggregate_gbps / ideal_gbps : 0;

  // The contrast: whole vectors, as large as --vector-max and the GPUs' free memory allow.
  double room = 0;
  {
    double smallest_free = 1e300;
    for (auto& g : gpus) {
      g->make_current();
      std::size_t free_bytes = 0, total_bytes = 0;
      CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
      smallest_free = std::min(smallest_free, double(free_bytes));
    }
    room = -processes.max(-smallest_free);
    room = room > kDeviceSlack ? (room - kDeviceSlack) / 2 : 0;  // a send and a receive buffer
  }
  const std::size_t vector_max = std::min<std::size_t>(settings.vector_max, static_cast<std::size_t>(room));
  const auto sizes = ch10::allreduce_sizes(sizeof(T), vector_max);
  const auto allreduce = sweep_allreduce(gpus, G, sizes, options, processes);
  const bool allreduce_correct =
      std::all_of(allreduce.begin(), allreduce.end(), [](const AllreduceRow& r) { return r.wrong == 0; });

  for (auto& g : gpus) {  // the normal end: every GPU is idle, so no call can wait on another
    g->make_current();
    CUDA_CHECK(cudaStreamSynchronize(g->stream));
    NCCL_CHECK(ncclCommDestroy(g->comm));
    g->comm = nullptr;
  }

  // The report (rank 0's; every rank returns the same status).
  int status = correct && allreduce_correct ? 0 : 1;
  if (root) {
    auto add_extras = [&](RunResult& run, int gpus_in_run, std::size_t elements) {
      run.extra.set("gpus", gpus_in_run);
      run.extra.set("elements", elements);
      run.extra.set("pct_of_ideal", one_gpu_gbps > 0 ? 100 * run.gbps / (gpus_in_run * one_gpu_gbps) : 0.0);
      if (!ref.exact) run.extra.set("tolerance", static_cast<double>(tol));
    };
    Json alone_gbps = Json::array();
    for (std::size_t r = 0; r < alone.size(); ++r) {
      RunResult run;
      run.kernel = "fastest, GPU " + std::to_string(r) + " alone";
      run.result = json_value(static_cast<T>(alone[r].result));
      run.correct = alone[r].correct != 0;
      run.time_ms = alone[r].time_ms;
      run.gbps = alone[r].gbps;
      add_extras(run, 1, alone[r].count);
      report.add_run(run);
      alone_gbps.push(alone[r].gbps);
    }
    RunResult sum;
    sum.kernel = "sharded sum, " + std::to_string(G) + " GPU" + (G > 1 ? "s" : "");
    sum.result = json_value(static_cast<T>(total_value));
    sum.correct = correct;
    sum.time_ms = sum_time.median_ms;
    sum.gbps = aggregate_gbps;
    add_extras(sum, G, n);
    report.add_run(sum);

    auto& fields = report.fields();
    fields.set("comm_init_ms", init_ms);
    fields.set("first_run_ms", first_ms);
    fields.set("single_gpu_gbps", one_gpu_gbps);
    fields.set("single_gpu_gbps_each", alone_gbps);
    fields.set("aggregate_gbps", aggregate_gbps);
    fields.set("ideal_gbps", ideal_gbps);
    fields.set("scaling_efficiency", efficiency);
    fields.set("goal_efficiency", kGoalEfficiency);
    fields.set("goal_met", efficiency >= kGoalEfficiency);
    fields.set("sum_time_ms", sum_time.median_ms);
    fields.set("sum_time_min_ms", sum_time.min_ms);
    fields.set("sum_time_max_ms", sum_time.max_ms);
    fields.set("combine_ms", combine_ms);
    fields.set("reps", options.reps);

    auto& summary = report.summary();
    char line[320];
    summary << "alone      each GPU reduces its own shard with fastest and nothing else (no NCCL); a shard's\n"
            << "           result is checked against that shard's own reference\n";
    std::snprintf(line, sizeof line,
                  "sharded    median of %d runs, each timed on every GPU with CUDA events from the start of its\n"
                  "           reduction to its total, the slowest GPU's time: %s, of which the combine (the\n"
                  "           all-reduce of one element, with any wait for the slowest GPU) %s\n",
                  options.reps, format_time(sum_time.median_ms).c_str(), format_time(combine_ms).c_str());
    summary << line;
    std::snprintf(line, sizeof line,
                  "scaling    %.1f GB/s over %d GPU%s = %.1f %% of %d x GPU 0 alone (%.1f GB/s); the goal is %.0f %%%s\n",
                  aggregate_gbps, G, G > 1 ? "s" : "", 100 * efficiency, G, one_gpu_gbps, 100 * kGoalEfficiency,
                  efficiency >= kGoalEfficiency ? ": met" : ": NOT met");
    summary << line;
    std::snprintf(line, sizeof line,
                  "set-up     communicators %s (%s), first sum %s (NCCL connects the GPUs on first use);\n"
                  "           both are paid once per program, and left out of every time above\n",
                  format_time(init_ms).c_str(),
                  Processes::with_mpi() ? "ncclGetUniqueId, MPI_Bcast, ncclCommInitRank" : "ncclCommInitAll",
                  format_time(first_ms).c_str());
    summary << line;

    // The all-reduce table, as nccl-tests prints it.
    Json rows = Json::array();
    if (!allreduce.empty()) {
      summary << "\nall-reduce of whole vectors (" << type_name(data_type_of<T>()) << ", sum, out of place), over " << G
              << " GPU" << (G > 1 ? "s" : "") << ", timed as nccl-tests does: " << std::max(1, options.warmup)
              << " warm-up calls,\nthen " << options.reps
              << " calls back to back on the host clock, averaged over the processes; every element checked\n"
              << "       bytes      elements    time (us)   algbw (GB/s)   busbw (GB/s)   wrong\n";
      for (const auto& r : allreduce) {
        std::snprintf(line, sizeof line, "%12zu  %12zu  %11.2f  %13.2f  %13.2f  %6llu\n", r.bytes, r.count, r.time_us,
                      r.algbw_gbps, r.busbw_gbps, r.wrong);
        summary << line;
        Json row = Json::object();
        row.set("bytes", r.bytes);
        row.set("count", r.count);
        row.set("time_us", r.time_us);
        row.set("algbw_gbps", r.algbw_gbps);
        row.set("busbw_gbps", r.busbw_gbps);
        row.set("wrong", static_cast<std::uint64_t>(r.wrong));
        rows.push(std::move(row));
      }
      summary << "           algbw = bytes / time; busbw = algbw x 2 (G - 1) / G, what each GPU's links carried\n"
              << "           each way (0 for one GPU, which sends nothing)\n";
      if (vector_max < settings.vector_max)
        summary << "           (the sweep stops at " << format_bytes(double(vector_max))
                << ": a send and a receive buffer had to fit beside the shard)\n";
    }
    fields.set("allreduce", std::move(rows));
    fields.set("allreduce_timing", "nccl-tests: warm-up, then reps calls back to back between host clock readings, "
                                   "time per call averaged over processes; out of place");
    const ch10::VendorLinkPeak* peak = ch10::vendor_link_peak(names.front().text);
    Json link = Json();
    if (peak) {
      link = Json::object();
      link.set("source", "vendor figure (NVIDIA datasheet), not measured");
      link.set("description", peak->description);
      link.set("total_gbps", peak->total_gbps);
      link.set("per_direction_gbps", peak->total_gbps / 2);
      summary << "peak       " << peak->description << ":\n           " << peak->total_gbps / 2
              << " GB/s each way. A VENDOR FIGURE, NOT MEASURED: the CUDA runtime does not report it";
      if (!allreduce.empty() && G > 1) {
        std::snprintf(line, sizeof line, ";\n           busbw at %s is %.1f %% of it", format_bytes(double(allreduce.back().bytes)).c_str(),
                      100 * allreduce.back().busbw_gbps / (peak->total_gbps / 2));
        summary << line;
      }
      summary << "\n";
    }
    fields.set("link_peak", std::move(link));
    if (!Processes::with_mpi() && G > 1) {
      const std::string peers = peer_access(G);
      summary << "peers      direct access between GPUs (NVLink or PCIe): " << peers << "\n";
      fields.set("peer_access", peers);
    }
    Json env = Json::object();
    for (const char* name : {"NCCL_ALGO", "NCCL_PROTO", "NCCL_NVLS_ENABLE"})
      if (const char* value = std::getenv(name)) env.set(name, value);
    fields.set("nccl_env", std::move(env));
    summary << "algorithm  NCCL " << nccl_text
            << " picks ring or tree (and a protocol) for each call from its size and the machine;\n"
            << "           NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=TUNING prints the choice, NCCL_ALGO=Ring or Tree forces it\n";
    if (!allreduce_correct) summary << "\nFAILED: an all-reduce of whole vectors gave wrong elements (column wrong)\n";
    status = std::max(report.finish(), status);
  }
  return processes.max(status);
}

}  // namespace

int main(int argc, char** argv) {
  Processes processes(argc, argv);
  ChapterInfo info;
  info.name = "10_multi_gpu";
  info.title = "the sum over several GPUs: fastest on each GPU's shard, one NCCL all-reduce of the partials";
  info.default_n = std::size_t(1) << 28;  // 1 GiB of int in all: far past every L2, and it fits any GPU
  info.has_block = false;                 // fastest brings its own block size

  Options options;
  Settings settings;
  std::string gpus_text = "all", vector_max_text = "1G";
  CommandLine cli(info, options);
  cli.add_option("--gpus", gpus_text,
                 "GPUs to split the array over: all (every visible GPU) or a number; under mpirun, "
                 "the number of processes");
  cli.add_option("--vector-max", vector_max_text,
                 "largest vector of the all-reduce sweep, in bytes (1G, 2^28, ...; 0: no sweep)");
  cli.add_check([&]() -> std::optional<std::string> {
    if (gpus_text == "all") return std::nullopt;
    const auto g = parse_count(gpus_text);
    if (!g || *g < 1 || *g > 4096) return "--gpus must be all or a number of GPUs from 1 to 4096, got '" + gpus_text + "'";
    settings.gpus_asked = static_cast<int>(*g);
    if (Processes::with_mpi() && settings.gpus_asked != processes.size())
      return "--gpus " + gpus_text + " disagrees with the " + std::to_string(processes.size()) +
             " processes mpirun started: under mpirun, G is the number of processes (-np)";
    return std::nullopt;
  });
  cli.add_check([&]() -> std::optional<std::string> {
    const auto bytes = parse_count(vector_max_text);
    if (!bytes) return "--vector-max must be a number of bytes such as 0, 2^28 or 1G, got '" + vector_max_text + "'";
    settings.vector_max = *bytes;
    return std::nullopt;
  });
  std::optional<int> parsed;
  {
    QuietUnless quiet(processes.rank() == 0);
    parsed = cli.parse(argc, argv);
  }
  if (parsed) return *parsed;

  bool finished = false;  // false after an exception: that process failed on its own
  const int status = run_guarded(info.name, [&] {
    std::optional<HostData> file;  // --input: the whole file on every process; each keeps its shard
    if (!options.input.empty()) {
      file = load_input(options.input);
      const std::size_t n = std::visit([](const auto& v) { return v.size(); }, *file);
      if (n < info.min_n) throw InputError(options.input + " holds no elements");
    }
    const DataType type = file ? data_type_of(*file) : options.type;
    const std::string source = file ? "file " + options.input : "random, seed " + std::to_string(options.seed);
    const int result = dispatch_type(type, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const std::vector<T>* data = file ? &std::get<std::vector<T>>(*file) : nullptr;
      return run_chapter<T>(info, options, settings, processes, data, data ? data->size() : options.n, source);
    });
    finished = true;
    return result;
  });
  // A failure on one process while the others may be waiting for it in a collective: end them all.
  return finished ? status : processes.abort_all(status);
}
