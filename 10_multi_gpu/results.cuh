// The report of chapter 10's program, made on rank 0 from what the measurement found: each GPU
// alone and the sum over G GPUs as runs, the scaling against the goal, the set-up paid once, the
// all-reduce table as nccl-tests prints it, and what the links and NCCL's choices are. Every rank
// returns the same exit status: 0 when every sum and every all-reduce was right, 1 when one was not.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "analysis.hpp"  // format_bytes
#include "common/gpu.cuh"
#include "common/json.hpp"
#include "common/measure.cuh"
#include "common/options.hpp"
#include "common/report.hpp"
#include "measure.cuh"
#include "processes.hpp"
#include "sharding.hpp"
#include "shards.cuh"

namespace ch10 {

constexpr double kGoalEfficiency = 0.95;  // the goal: G GPUs at 95 % of G x one GPU

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

// vector_max_asked: --vector-max, to say where the GPUs' memory cut the sweep short.
template <typename T>
int report_results(reduction::Report& report, const Loaded<T>& loaded, const Measured& measured, int G, std::size_t n,
                   const reduction::Options& options, std::size_t vector_max_asked, const Processes& processes) {
  using namespace reduction;
  int status = measured.correct && measured.allreduce_correct ? 0 : 1;
  if (processes.rank() == 0) {
    // The CUDA versions as every chapter reports them (open_gpu: a GPU is known to be there, so it
    // only names it), then the device line for all G GPUs in its place.
    std::string no_gpu;
    open_gpu(report, no_gpu);
    report.set_device(loaded.device);
    report.fields().set("nccl_version", loaded.nccl_version);
    report.set_reference(loaded.ref, loaded.tol);
    auto add_extras = [&](RunResult& run, int gpus_in_run, std::size_t elements) {
      run.extra.set("gpus", gpus_in_run);
      run.extra.set("elements", elements);
      run.extra.set("pct_of_ideal",
                    measured.one_gpu_gbps > 0 ? 100 * run.gbps / (gpus_in_run * measured.one_gpu_gbps) : 0.0);
      if (!loaded.ref.exact) run.extra.set("tolerance", static_cast<double>(loaded.tol));
    };
    Json alone_gbps = Json::array();
    for (std::size_t r = 0; r < measured.alone.size(); ++r) {
      RunResult run;
      run.kernel = "fastest, GPU " + std::to_string(r) + " alone";
      run.result = json_value(static_cast<T>(measured.alone[r].result));
      run.correct = measured.alone[r].correct != 0;
      run.time_ms = measured.alone[r].time_ms;
      run.gbps = measured.alone[r].gbps;
      add_extras(run, 1, measured.alone[r].count);
      report.add_run(run);
      alone_gbps.push(measured.alone[r].gbps);
    }
    RunResult sum;
    sum.kernel = "sharded sum, " + std::to_string(G) + " GPU" + (G > 1 ? "s" : "");
    sum.result = json_value(static_cast<T>(measured.total));
    sum.correct = measured.correct;
    sum.time_ms = measured.sum_time.median_ms;
    sum.gbps = measured.aggregate_gbps;
    add_extras(sum, G, n);
    report.add_run(sum);

    auto& fields = report.fields();
    fields.set("comm_init_ms", measured.init_ms);
    fields.set("first_run_ms", measured.first_ms);
    fields.set("single_gpu_gbps", measured.one_gpu_gbps);
    fields.set("single_gpu_gbps_each", alone_gbps);
    fields.set("aggregate_gbps", measured.aggregate_gbps);
    fields.set("ideal_gbps", measured.ideal_gbps);
    fields.set("scaling_efficiency", measured.efficiency);
    fields.set("goal_efficiency", kGoalEfficiency);
    fields.set("goal_met", measured.efficiency >= kGoalEfficiency);
    fields.set("sum_time_ms", measured.sum_time.median_ms);
    fields.set("sum_time_min_ms", measured.sum_time.min_ms);
    fields.set("sum_time_max_ms", measured.sum_time.max_ms);
    fields.set("combine_ms", measured.combine_ms);
    fields.set("reps", options.reps);

    auto& summary = report.summary();
    char line[320];
    summary << "alone      each GPU reduces its own shard with fastest and nothing else (no NCCL); a shard's\n"
            << "           result is checked against that shard's own reference\n";
    std::snprintf(line, sizeof line,
                  "sharded    median of %d runs, each timed on every GPU with CUDA events from the start of its\n"
                  "           reduction to its total, the slowest GPU's time: %s, of which the combine (the\n"
                  "           all-reduce of one element, with any wait for the slowest GPU) %s\n",
                  options.reps, format_time(measured.sum_time.median_ms).c_str(),
                  format_time(measured.combine_ms).c_str());
    summary << line;
    std::snprintf(
        line, sizeof line,
        "scaling    %.1f GB/s over %d GPU%s = %.1f %% of %d x GPU 0 alone (%.1f GB/s); the goal is %.0f %%%s\n",
        measured.aggregate_gbps, G, G > 1 ? "s" : "", 100 * measured.efficiency, G, measured.one_gpu_gbps,
        100 * kGoalEfficiency, measured.efficiency >= kGoalEfficiency ? ": met" : ": NOT met");
    summary << line;
    std::snprintf(line, sizeof line,
                  "set-up     communicators %s (%s), first sum %s (NCCL connects the GPUs on first use);\n"
                  "           both are paid once per program, and left out of every time above\n",
                  format_time(measured.init_ms).c_str(),
                  Processes::with_mpi() ? "ncclGetUniqueId, MPI_Bcast, ncclCommInitRank" : "ncclCommInitAll",
                  format_time(measured.first_ms).c_str());
    summary << line;

    // The all-reduce table, as nccl-tests prints it.
    Json rows = Json::array();
    if (!measured.allreduce.empty()) {
      summary << "\nall-reduce of whole vectors (" << type_name(data_type_of<T>()) << ", sum, out of place), over " << G
              << " GPU" << (G > 1 ? "s" : "") << ", timed as nccl-tests does: " << std::max(1, options.warmup)
              << " warm-up calls,\nthen " << options.reps
              << " calls back to back on the host clock, averaged over the processes; every element checked\n"
              << "       bytes      elements    time (us)   algbw (GB/s)   busbw (GB/s)   wrong\n";
      for (const auto& r : measured.allreduce) {
        std::snprintf(line, sizeof line, "%12zu  %12zu  %11.2f  %13.2f  %13.2f  %6llu\n", r.bytes, r.count, r.time_us,
                      r.algbw_gbps, r.busbw_gbps, r.wrong);
        summary << line;
        rows.push({{"bytes", r.bytes},
                   {"count", r.count},
                   {"time_us", r.time_us},
                   {"algbw_gbps", r.algbw_gbps},
                   {"busbw_gbps", r.busbw_gbps},
                   {"wrong", static_cast<std::uint64_t>(r.wrong)}});
      }
      summary << "           algbw = bytes / time; busbw = algbw x 2 (G - 1) / G, what each GPU's links carried\n"
              << "           each way (0 for one GPU, which sends nothing)\n";
      if (measured.vector_max < vector_max_asked)
        summary << "           (the sweep stops at " << format_bytes(double(measured.vector_max))
                << ": a send and a receive buffer had to fit beside the shard)\n";
    }
    fields.set("allreduce", std::move(rows));
    fields.set("allreduce_timing",
               "nccl-tests: warm-up, then reps calls back to back between host clock readings, "
               "time per call averaged over processes; out of place");
    const VendorLinkPeak* peak = vendor_link_peak(loaded.gpu0_name);
    Json link = Json();
    if (peak) {
      link = Json::object();
      link.set("source", "vendor figure (NVIDIA datasheet), not measured");
      link.set("description", peak->description);
      link.set("total_gbps", peak->total_gbps);
      link.set("per_direction_gbps", peak->total_gbps / 2);
      summary << "peak       " << peak->description << ":\n           " << peak->total_gbps / 2
              << " GB/s each way. A VENDOR FIGURE, NOT MEASURED: the CUDA runtime does not report it";
      if (!measured.allreduce.empty() && G > 1) {
        std::snprintf(line, sizeof line, ";\n           busbw at %s is %.1f %% of it",
                      format_bytes(double(measured.allreduce.back().bytes)).c_str(),
                      100 * measured.allreduce.back().busbw_gbps / (peak->total_gbps / 2));
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
    summary
        << "algorithm  NCCL " << loaded.nccl_version
        << " picks ring or tree (and a protocol) for each call from its size and the machine;\n"
        << "           NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=TUNING prints the choice, NCCL_ALGO=Ring or Tree forces it\n";
    if (!measured.allreduce_correct)
      summary << "\nFAILED: an all-reduce of whole vectors gave wrong elements (column wrong)\n";
    status = std::max(report.finish(), status);
  }
  return processes.max(status);
}

}  // namespace ch10
