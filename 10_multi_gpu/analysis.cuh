// Chapter 10's harness beside main.cu. What the program explains before it needs a GPU (analyze):
// how the array is split over the G GPUs, what each GPU reads and what they exchange, how far a
// float sum may round, how the processes find each other; it needs only n, the type and G (0: not
// known), so it is printed even without a GPU. After the runs (report_scaling): each GPU alone and
// the sum over G GPUs, and how close G GPUs came to G times one. And the contrast
// (report_allreduce): the all-reduce of whole vectors that data-parallel training does, timed as
// nccl-tests time it (warm-up calls, then `reps` calls back to back between two readings of the
// host clock, averaged over the processes), every element checked, as large as --vector-max and
// free memory allow; with the links' vendor peak and which GPUs reach each other directly.
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

// The most rounded additions an element of a shard of `count` elements meets: fastest's on its
// GPU (multi_gpu.cuh), then the combine's (sharding.hpp).
template <typename T>
std::size_t sharded_sum_depth(std::size_t count, int gpus) {
  const std::size_t on_gpu = count ? ch09::fastest_depth<reduction::Sum, T>(count, kFastestBlockArgument) : 0;
  return on_gpu + combine_depth(gpus);
}

// "512 B", "1.50 KiB", "4.00 GiB": sizes in powers of 1024, as memory is sold.
inline std::string format_bytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (bytes >= 1024 && u < 4) bytes /= 1024, ++u;
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.2f %s", bytes, units[u]);
  return buf;
}

// The analysis into the report: its text, and the split in the JSON fields. With G = 0 the text
// shows a few G for example, then the rest for two GPUs, the smallest real case.
template <typename T>
void analyze(reduction::Report& report, std::size_t n, int gpus, const Processes& processes) {
  report.fields().set("launch", Processes::with_mpi() ? "mpi" : "one_process");
  std::ostream& text = report.text();
  const int gpus_known = gpus;  // the text below may pick an example G; the fields say what is known
  const std::string type = reduction::type_name(reduction::data_type_of<T>());
  if (gpus == 0) {
    text << "split      over every visible GPU (none is visible here); for example:\n"
         << "           GPUs  elements per GPU  bytes per GPU  sent per GPU in the combine\n";
    for (int g : {1, 2, 4, 8}) {
      char line[160];
      std::snprintf(line, sizeof line, "           %4d  %16zu  %13s  %s\n", g, largest_shard(n, g),
                    format_bytes(double(largest_shard(n, g)) * sizeof(T)).c_str(), format_bytes(sizeof(T)).c_str());
      text << line;
    }
    gpus = 2;  // the rest of the analysis for two, the smallest real case
    text << "           (below: for 2 GPUs)\n";
  } else {
    const Shard first = shard_of(n, gpus, 0), last = shard_of(n, gpus, gpus - 1);
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
      const Shard s = shard_of(n, gpus, g);
      text << (g ? "   GPU " : " GPU ") << g << ": [" << s.begin << ", " << s.end() << ")";
    }
    text << "\n";
  }
  const double shard_bytes = double(largest_shard(n, gpus)) * sizeof(T);
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
       << format_bytes(allreduce_bytes_per_gpu(std::size_t(shard_bytes), gpus)) << " each way\n"
       << "           over links far slower than the GPU's own memory (H200, vendor figures: NVLink 450 GB/s\n"
       << "           each way, HBM 4.8 TB/s): that all-reduce is bound by the links, not by reading\n";
  if constexpr (!std::is_integral_v<T>)
    text << "floats     each element meets at most fastest's additions on its GPU, then G - 1 = " << combine_depth(gpus)
         << " in the combine\n"
         << "           (NCCL does not document its order; G - 1 is the worst any order can do)\n";
  if (Processes::with_mpi())
    text << "launch     " << processes.size() << " process" << (processes.size() > 1 ? "es" : "")
         << " started by mpirun, one GPU each (the machine's GPU of its local rank): rank 0\n"
         << "           makes NCCL's unique id (ncclGetUniqueId), MPI_Bcast hands it to every rank, and\n"
         << "           each rank joins with ncclCommInitRank\n";
  else
    text << "launch     one process drives the GPUs: ncclCommInitAll makes one communicator per GPU, and\n"
         << "           the G calls of each collective go between ncclGroupStart and ncclGroupEnd\n";
  report.fields().set("gpus", gpus_known);
  if (gpus_known > 0) report.fields().set("elements_per_gpu", largest_shard(n, gpus_known));
  report.fields().set("exchange_bytes_per_gpu", sizeof(T));
}

constexpr double kGoalEfficiency = 0.95;  // the goal: G GPUs at 95 % of G x one GPU

// The GPUs in one line: "2 x <GPU 0>", or that they differ. names: every GPU's, in rank order.
inline std::string describe_gpus(const std::vector<std::string>& names, int gpus) {
  const bool same = std::all_of(names.begin(), names.end(), [&](const std::string& s) { return s == names.front(); });
  if (gpus == 1) return names.front();
  return same ? std::to_string(gpus) + " x " + names.front() : "mixed GPUs, GPU 0: " + names.front();
}

// One GPU alone on its shard, as its process measured it (gathered to rank 0 as bytes).
struct AloneRun {
  double time_ms = 0, gbps = 0, result = 0;
  int correct = 0, device = 0;
  std::size_t count = 0;
};

// What the sum over G GPUs measured, agreed over every process.
struct Scaling {
  std::vector<AloneRun> alone;             // each GPU alone, in rank order
  double init_ms = 0, first_ms = 0;        // the communicators' set-up, the first sum
  std::vector<double> sum_ms, combine_ms;  // each timed sum: its slowest GPU's time, and the combine's share
  double total = 0;                        // the last sum's total, on GPU 0
  bool correct = true;                     // every sum on every GPU matched the reference
};

// The runs table (each GPU alone, then the sum over G GPUs), the scaling's JSON fields, and its lines.
template <typename T>
void report_scaling(reduction::Report& report, const Scaling& measured, int G, std::size_t n,
                    const reduction::Reference<T>& ref, long double tol) {
  using namespace reduction;
  const double one_gpu_gbps = measured.alone.front().gbps;  // GPU 0 alone: G times it is the ideal
  const TimingStats sum_time = summarize(measured.sum_ms);
  const double combine_ms = summarize(measured.combine_ms).median_ms;
  const double aggregate_gbps = gigabytes_per_second(double(n) * sizeof(T), sum_time.median_ms);
  const double ideal_gbps = G * one_gpu_gbps, efficiency = ideal_gbps > 0 ? aggregate_gbps / ideal_gbps : 0;
  auto add_run = [&](const std::string& kernel, double result, bool correct, double time_ms, double gbps, int gpus,
                     std::size_t elements) {
    RunResult run;
    run.kernel = kernel;
    run.result = json_value(static_cast<T>(result));
    run.correct = correct;
    run.time_ms = time_ms;
    run.gbps = gbps;
    run.extra.set("gpus", gpus);
    run.extra.set("elements", elements);
    run.extra.set("pct_of_ideal", one_gpu_gbps > 0 ? 100 * gbps / (gpus * one_gpu_gbps) : 0.0);
    if (!ref.exact) run.extra.set("tolerance", static_cast<double>(tol));
    report.add_run(run);
  };
  Json alone_gbps = Json::array();
  for (std::size_t r = 0; r < measured.alone.size(); ++r) {
    const AloneRun& a = measured.alone[r];
    add_run("fastest, GPU " + std::to_string(r) + " alone", a.result, a.correct != 0, a.time_ms, a.gbps, 1, a.count);
    alone_gbps.push(a.gbps);
  }
  add_run("sharded sum, " + std::to_string(G) + " GPU" + (G > 1 ? "s" : ""), measured.total, measured.correct,
          sum_time.median_ms, aggregate_gbps, G, n);

  auto& fields = report.fields();
  fields.set("comm_init_ms", measured.init_ms);
  fields.set("first_run_ms", measured.first_ms);
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
  fields.set("reps", report.options().reps);

  auto& summary = report.summary();
  char line[320];
  summary << "alone      each GPU reduces its own shard with fastest and nothing else (no NCCL); a shard's\n"
          << "           result is checked against that shard's own reference\n";
  std::snprintf(line, sizeof line,
                "sharded    median of %d runs, each timed on every GPU with CUDA events from the start of its\n"
                "           reduction to its total, the slowest GPU's time: %s, of which the combine (the\n"
                "           all-reduce of one element, with any wait for the slowest GPU) %s\n",
                report.options().reps, format_time(sum_time.median_ms).c_str(), format_time(combine_ms).c_str());
  summary << line;
  std::snprintf(line, sizeof line,
                "scaling    %.1f GB/s over %d GPU%s = %.1f %% of %d x GPU 0 alone (%.1f GB/s); the goal is %.0f %%%s\n",
                aggregate_gbps, G, G > 1 ? "s" : "", 100 * efficiency, G, one_gpu_gbps, 100 * kGoalEfficiency,
                efficiency >= kGoalEfficiency ? ": met" : ": NOT met");
  summary << line;
  // Short of the goal, say where the time went: the combine is a fixed latency, so at small n it
  // can be most of the gap, and the reductions on their own still scale (2^28 ints on 2 H200s:
  // 87.3 % in all, 101.1 % without the combine; README, "What it prints").
  if (G > 1 && efficiency < kGoalEfficiency && sum_time.median_ms > combine_ms && ideal_gbps > 0) {
    const double ideal_ms = double(n) * sizeof(T) / (ideal_gbps * 1e6);  // G x GPU 0 alone's speed
    std::snprintf(line, sizeof line,
                  "shortfall  the combine took %.1f %% of the time, a latency that does not grow with n (a larger\n"
                  "           --n spreads it thinner); without it the GPUs ran at %.1f %% of %d x GPU 0 alone\n",
                  100 * combine_ms / sum_time.median_ms, 100 * ideal_ms / (sum_time.median_ms - combine_ms), G);
    summary << line;
  }
  std::snprintf(line, sizeof line,
                "set-up     communicators %s (%s), first sum %s (NCCL connects the GPUs on first use);\n"
                "           both are paid once per program, and left out of every time above\n",
                format_time(measured.init_ms).c_str(),
                Processes::with_mpi() ? "ncclGetUniqueId, MPI_Bcast, ncclCommInitRank" : "ncclCommInitAll",
                format_time(measured.first_ms).c_str());
  summary << line;
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
