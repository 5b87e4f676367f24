// What chapter 10's program explains. Before it needs a GPU (analyze): how the array is split over
// the G GPUs, what each GPU reads and what the GPUs exchange, how far a float sum may round, and
// how the processes that drive the GPUs find each other. It needs only n, the type and G (0 when
// the number of GPUs is not known: every visible GPU, and none visible), so it is printed even on
// a machine without a GPU, before the run stops there. After the runs (report_scaling): each GPU
// alone and the sum over G GPUs as rows of the runs table, and how close G GPUs came to G times one.
#pragma once

#include <algorithm>
#include <cstdio>
#include <ostream>
#include <string>
#include <type_traits>
#include <vector>

#include "common/json.hpp"
#include "common/reference.hpp"
#include "common/report.hpp"
#include "common/timer.hpp"
#include "common/types.hpp"
#include "processes.hpp"
#include "sharding.hpp"

namespace ch10 {

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

}  // namespace ch10
