// Chapter 10's harness beside main.cu: the analysis before the runs (no GPU needed), the scaling
// after them and where the time went, and the contrast: the all-reduce of whole vectors.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <ostream>
#include <string>
#include <type_traits>
#include <vector>

#include "common/gpu.cuh"
#include "common/ops.hpp"
#include "common/program.hpp"
#include "common/reference.hpp"
#include "multi_gpu.cuh"
#include "processes.hpp"
#include "sharding.hpp"

namespace ch10 {

// The most rounded additions an element of a shard of `count` elements meets: fastest's, then step 2's.
template <typename T>
std::size_t sharded_sum_depth(std::size_t count, int gpus) {
  const std::size_t on_gpu = count ? ch09::fastest_depth<reduction::Sum, T>(count, 0) : 0;
  return on_gpu + combine_depth(gpus);
}

// The analysis: its text, and the split in the JSON fields (G = 0, no GPU visible: the text is
// for 2 GPUs). step2: "peer", "nccl", or "auto" where the GPUs are not known.
template <typename T>
void analyze(reduction::Report& report, std::size_t n, int gpus, const std::string& step2) {
  report.fields().set("launch", Processes::with_mpi() ? "mpi" : "one_process");
  report.fields().set("gpus", gpus);
  if (gpus > 0) report.fields().set("elements_per_gpu", largest_shard(n, gpus));
  const int G = std::max(gpus, 2);
  const Shard first = shard_of(n, G, 0), last = shard_of(n, G, G - 1);
  const double shard_bytes = double(first.count) * sizeof(T);
  report.text() << "split      " << n << " elements over " << G << " GPUs" << (gpus ? "" : " (none is visible here)")
                << ", one contiguous shard each: " << first.count
                << (first.count == last.count ? "" : " to " + std::to_string(last.count)) << " elements\n"
                << "step 1     each GPU reads its shard with chapter 09's fastest, all at once: "
                << reduction::mebibytes(std::size_t(shard_bytes)) << " a GPU\n"
                << "step 2     the G partials added, the total on every GPU: "
                << (step2 == "peer" ? "the peer combine" : step2 == "nccl" ? "one ncclAllReduce" : "peer or NCCL")
                << ", " << sizeof(T) << " bytes from each GPU,\n           a latency that does not grow with n\n"
                << "contrast   an all-reduce of a vector as large as a shard moves 2 (G - 1) / G of its bytes each way\n"
                << "           through every GPU's links: " << reduction::mebibytes(std::size_t(allreduce_bytes_per_gpu(std::size_t(shard_bytes), G)))
                << ", bound by the links, not by reading\n";
  if constexpr (!std::is_integral_v<T>)
    report.text() << "floats     an element meets fastest's additions, then at most G - 1 = " << combine_depth(G)
                  << " in step 2\n";
}

constexpr double kGoalEfficiency = 0.95;  // the goal: G GPUs at 95 % of G x one GPU

// The GPUs in one line: "2 x <GPU 0>", or that they differ. names: every GPU's, in rank order.
inline std::string describe_gpus(const std::vector<std::string>& names, int gpus) {
  const bool same = std::count(names.begin(), names.end(), names.front()) == std::ptrdiff_t(names.size());
  return (gpus == 1 ? "" : same ? std::to_string(gpus) + " x " : "mixed GPUs, GPU 0: ") + names.front();
}

// One GPU alone on its shard, as its process measured it (gathered to rank 0 as bytes).
struct AloneRun {
  double time_ms = 0, gbps = 0, result = 0;
  int correct = 0;
  std::size_t count = 0;
};

// What the sums measured, agreed over every process: per sum, its time (its slowest GPU's), what it
// took beyond its slowest step 1, step 2 on the GPU that waited for no one, the host's issue window.
struct Scaling {
  std::vector<AloneRun> alone;       // each GPU alone, in rank order
  double init_ms = 0, first_ms = 0;  // the set-up, the first sum
  std::vector<double> sum_ms, combine_ms, step2_ms, issue_us;
  std::string combine, launch;  // peer or nccl; graph, threads or loop (under mpirun: "mpirun, ...")
  double total = 0;             // the last sum's total, on GPU 0
  bool correct = true;          // every sum on every GPU matched the reference
};

// The runs table (each GPU alone, then the sum over G GPUs), the scaling's JSON fields, its lines.
template <typename T>
void report_scaling(reduction::Report& report, const Scaling& measured, int G, std::size_t n,
                    const reduction::Reference<T>& ref, long double tol) {
  using namespace reduction;
  const double one_gpu_gbps = measured.alone.front().gbps;  // GPU 0 alone: G times it is the ideal
  const TimingStats sum_time = summarize(measured.sum_ms);
  const double combine_ms = summarize(measured.combine_ms).median_ms, step2_ms = summarize(measured.step2_ms).median_ms;
  const double issue_us = summarize(measured.issue_us).median_ms;  // summarize takes any unit
  const double aggregate_gbps = gigabytes_per_second(double(n) * sizeof(T), sum_time.median_ms);
  const double ideal_gbps = G * one_gpu_gbps, efficiency = ideal_gbps > 0 ? aggregate_gbps / ideal_gbps : 0;
  double slowest_alone_ms = 0;
  auto add_run = [&](const std::string& kernel, double result, bool correct, double time_ms, double gbps, int gpus,
                     std::size_t elements) {
    RunResult run{kernel, json_value(static_cast<T>(result)), correct, time_ms, gbps};
    run.extra = Json{{"gpus", gpus}, {"elements", elements},
                     {"pct_of_ideal", one_gpu_gbps > 0 ? 100 * gbps / (gpus * one_gpu_gbps) : 0.0}};
    if (!ref.exact) run.extra.set("tolerance", static_cast<double>(tol));
    report.add_run(run);
  };
  Json alone_gbps = Json::array();
  for (std::size_t r = 0; r < measured.alone.size(); ++r) {
    const AloneRun& a = measured.alone[r];
    add_run("fastest, GPU " + std::to_string(r) + " alone", a.result, a.correct != 0, a.time_ms, a.gbps, 1, a.count);
    alone_gbps.push(a.gbps);
    slowest_alone_ms = std::max(slowest_alone_ms, a.time_ms);
  }
  add_run("sharded sum, " + std::to_string(G) + " GPU" + (G > 1 ? "s" : ""), measured.total, measured.correct,
          sum_time.median_ms, aggregate_gbps, G, n);

  auto& fields = report.fields();
  fields.set("combine", measured.combine);
  fields.set("launch_mode", measured.launch);
  fields.set("single_gpu_gbps_each", alone_gbps);
  fields.set("goal_met", efficiency >= kGoalEfficiency);
  fields.set("reps", report.options().reps);
  for (const auto& [name, value] : {std::pair{"comm_init_ms", measured.init_ms}, {"first_run_ms", measured.first_ms},
                                    {"single_gpu_gbps", one_gpu_gbps}, {"slowest_alone_ms", slowest_alone_ms},
                                    {"aggregate_gbps", aggregate_gbps}, {"ideal_gbps", ideal_gbps},
                                    {"scaling_efficiency", efficiency}, {"goal_efficiency", kGoalEfficiency},
                                    {"sum_time_ms", sum_time.median_ms}, {"sum_time_min_ms", sum_time.min_ms},
                                    {"sum_time_max_ms", sum_time.max_ms}, {"combine_ms", combine_ms},
                                    {"step2_ms", step2_ms}, {"issue_us", issue_us}})
    fields.set(name, value);

  char line[800];
  std::snprintf(line, sizeof line,
                "alone      each GPU's step 1 and nothing else, one GPU at a time, issued and timed as the sums are\n"
                "sharded    %s, %s combine: median of %d sums, each timed with CUDA events on every GPU, from\n"
                "           its start to its total, the slowest GPU's: %s, of which %s beyond its slowest step 1\n"
                "step 2     %s on the GPU that finished step 1 last (it waits for no one); the rest of the\n"
                "           time beyond step 1 is the GPUs' start skew. The host issued a sum in %.1f us\n",
                measured.launch.c_str(), measured.combine.c_str(), report.options().reps,
                format_time(sum_time.median_ms).c_str(), format_time(combine_ms).c_str(),
                format_time(step2_ms).c_str(), issue_us);
  report.summary() << line;
  std::snprintf(line, sizeof line,
                "scaling    %.1f GB/s over %d GPU%s = %.1f %% of %d x GPU 0 alone (%.1f GB/s); the goal is %.0f %%%s\n"
                "set-up     %s (communicators, mailboxes), first sum %s: paid once, in no time above\n",
                aggregate_gbps, G, G > 1 ? "s" : "", 100 * efficiency, G, one_gpu_gbps, 100 * kGoalEfficiency,
                efficiency >= kGoalEfficiency ? ": met" : ": NOT met", format_time(measured.init_ms).c_str(),
                format_time(measured.first_ms).c_str());
  report.summary() << line;
}

// ---- The contrast: the all-reduce of whole vectors ----

// Device memory left free on each GPU beside the data: NCCL's own buffers, and the runtime's.
constexpr std::size_t kNcclSlack = std::size_t(256) << 20;

// The NCCL this program runs with, as "2.28.9" (the library's, which may be newer than the header's).
inline std::string nccl_version() {
  int version = 0;
  NCCL_CHECK(ncclGetVersion(&version));
  return std::to_string(version / 10000) + "." + std::to_string(version / 100 % 100) + "." +
         std::to_string(version % 100);
}

using reduction::DeviceBuffer;

// The host's clock, for what CUDA events cannot time: set-up, first use, calls back to back.
inline double now_us() {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Refuses (status 2) a shard that GPU `device`, the current one, cannot hold beside NCCL's buffers.
inline void check_room(int device, std::size_t bytes) {
  std::size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (bytes + kNcclSlack > free_bytes)
    throw reduction::InputError("GPU " + std::to_string(device) + " would hold " + reduction::mebibytes(bytes) +
                                " and has " + reduction::mebibytes(free_bytes) +
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

// Element i of rank r's vector: small integers, whose sums are exact in every type.
template <typename T>
__host__ __device__ T pattern(std::size_t i, int rank) {
  return static_cast<T>(static_cast<int>((i + static_cast<std::size_t>(rank)) % 7) - 3);
}
template <typename T>
__global__ void fill_pattern(T* out, std::size_t n, int rank) {
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
    out[i] = pattern<T>(i, rank);
}
template <typename T>
__global__ void count_wrong(const T* got, std::size_t n, int ranks, unsigned long long* wrong) {
  unsigned long long mine = 0;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    T expected = 0;
    for (int r = 0; r < ranks; ++r) expected += pattern<T>(i, r);
    mine += !(got[i] == expected);  // NaN, the poison, is never equal
  }
  if (mine) atomicAdd(wrong, mine);
}

struct AllreduceRow {
  std::size_t bytes = 0;
  double time_us = 0, algbw_gbps = 0, busbw_gbps = 0;
  unsigned long long wrong = 0;
};

// The sweep, timed as nccl-tests times it: warm-up calls, then `reps` calls back to back between
// two readings of the host clock, the time per call averaged over the processes; then every
// element of the result (poisoned before the timed calls) checked.
template <typename T, typename Gpus>
std::vector<AllreduceRow> sweep_allreduce(const Gpus& gpus, int G, const std::vector<std::size_t>& sizes,
                                          const reduction::Options& options, const Processes& processes) {
  std::vector<AllreduceRow> rows;
  std::vector<DeviceBuffer<T>> send, receive;
  for (auto& g : gpus) {
    CUDA_CHECK(cudaSetDevice(g->device));
    send.emplace_back(sizes.empty() ? 0 : sizes.back() / sizeof(T));
    receive.emplace_back(send.back().size());
    if (send.back().size()) fill_pattern<T><<<1024, 256, 0, g->stream>>>(send.back().data(), send.back().size(), g->rank);
    CUDA_CHECK_LAUNCH();
  }
  auto all_reduce = [&](std::size_t count) {
    NCCL_CHECK(ncclGroupStart());
    for (std::size_t i = 0; i < gpus.size(); ++i)
      launch_combine(send[i].data(), receive[i].data(), count, gpus[i]->comm, gpus[i]->stream);
    NCCL_CHECK(ncclGroupEnd());
  };
  auto synchronize = [&] {
    for (auto& g : gpus) CUDA_CHECK(cudaSetDevice(g->device)), CUDA_CHECK(cudaStreamSynchronize(g->stream));
  };
  for (std::size_t bytes : sizes) {
    const std::size_t count = bytes / sizeof(T);
    for (int i = 0; i < std::max(1, options.warmup); ++i) all_reduce(count);
    for (std::size_t i = 0; i < gpus.size(); ++i) {
      CUDA_CHECK(cudaSetDevice(gpus[i]->device));
      CUDA_CHECK(cudaMemsetAsync(receive[i].data(), 0xFF, bytes, gpus[i]->stream));
    }
    synchronize();
    processes.barrier();
    const double start = now_us();
    for (int i = 0; i < options.reps; ++i) all_reduce(count);
    synchronize();
    AllreduceRow row{bytes, processes.sum((now_us() - start) / options.reps) / processes.size()};
    row.algbw_gbps = algorithm_bandwidth_gbps(bytes, row.time_us / 1e6);
    row.busbw_gbps = bus_bandwidth_gbps(row.algbw_gbps, G);
    double wrong = 0;
    for (std::size_t i = 0; i < gpus.size(); ++i) {
      CUDA_CHECK(cudaSetDevice(gpus[i]->device));
      DeviceBuffer<unsigned long long> counter(std::vector<unsigned long long>{0});
      count_wrong<T><<<1024, 256>>>(receive[i].data(), count, G, counter.data());
      CUDA_CHECK_LAUNCH();
      wrong += double(counter.download_one());
    }
    row.wrong = static_cast<unsigned long long>(processes.sum(wrong));
    rows.push_back(row);
  }
  for (std::size_t i = 0; i < gpus.size(); ++i) {  // each GPU's buffers freed with that GPU current
    CUDA_CHECK(cudaSetDevice(gpus[i]->device));
    send[i] = DeviceBuffer<T>(), receive[i] = DeviceBuffer<T>();
  }
  return rows;
}

// The sweep as nccl-tests prints it (and its "allreduce" field), with NCCL's settings from the
// environment; whether a vector came back wrong.
template <typename T>
void report_allreduce(reduction::Report& report, const std::vector<AllreduceRow>& rows, int G,
                      std::size_t vector_max, std::size_t vector_max_asked) {
  auto& summary = report.summary();
  reduction::Json json_rows = reduction::Json::array(), env = reduction::Json::object();
  if (!rows.empty())
    summary << "\nall-reduce of whole vectors (sum, out of place) over " << G << " GPU" << (G > 1 ? "s" : "")
            << ", timed as nccl-tests times it; every element checked\n"
            << "       bytes    time (us)   algbw (GB/s)   busbw (GB/s)   wrong\n";
  for (const auto& r : rows) {
    char line[120];
    std::snprintf(line, sizeof line, "%12zu  %11.2f  %13.2f  %13.2f  %6llu\n", r.bytes, r.time_us, r.algbw_gbps,
                  r.busbw_gbps, r.wrong);
    summary << line;
    json_rows.push({{"bytes", r.bytes}, {"time_us", r.time_us}, {"algbw_gbps", r.algbw_gbps},
                    {"busbw_gbps", r.busbw_gbps}, {"wrong", static_cast<std::uint64_t>(r.wrong)}});
  }
  if (!rows.empty())
    summary << "           busbw = algbw x 2 (G - 1) / G: what each GPU's links carried each way"
            << (vector_max < vector_max_asked ? " (the sweep stopped where two buffers still fit)\n" : "\n");
  if (std::any_of(rows.begin(), rows.end(), [](const AllreduceRow& r) { return r.wrong != 0; }))
    summary << "\nFAILED: an all-reduce of whole vectors gave wrong elements (column wrong)\n";
  report.fields().set("allreduce", std::move(json_rows));
  for (const char* name : {"NCCL_ALGO", "NCCL_PROTO", "NCCL_NVLS_ENABLE"})
    if (const char* value = std::getenv(name)) env.set(name, value);
  report.fields().set("nccl_env", std::move(env));
}

}  // namespace ch10
