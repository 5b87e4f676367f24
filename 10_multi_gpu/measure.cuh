// The measurement: each GPU alone on its shard, then the sum over G GPUs (every GPU its shard to
// its partial, one NCCL all-reduce of the partials), each run checked against the reference as it
// is timed; then the contrast of allreduce.cuh. The communicators' set-up and the first sum are
// timed apart, since a program pays them once and not per sum.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <vector>

#include "allreduce.cuh"
#include "common/cuda_check.cuh"
#include "common/measure.cuh"
#include "common/options.hpp"
#include "common/reference.hpp"
#include "common/timer.hpp"
#include "multi_gpu.cuh"
#include "nccl_check.hpp"
#include "processes.hpp"
#include "sharding.hpp"
#include "shards.cuh"

namespace ch10 {

// One run of the sum over G GPUs, as this process saw it.
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
    launch_shard_partial(g->input.data(), g->shard.count, g->partial.data(), g->scratch, g->stream);
    CUDA_CHECK(cudaEventRecord(g->reduced, g->stream));
  }
  NCCL_CHECK(ncclGroupStart());
  for (auto& g : gpus) launch_combine(g->partial.data(), g->total.data(), 1, g->comm, g->stream);
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
    run.correct = run.correct && reduction::matches(total, ref, tol);
    if (&g == &gpus.front()) run.total = static_cast<double>(total);
  }
  return run;
}

// What each process measured on its GPUs alone, for rank 0's report.
struct AloneRun {
  double time_ms = 0, gbps = 0, result = 0;
  int correct = 0, device = 0;
  std::size_t count = 0;
};

// What the measurement found, agreed over every process; the report is made from it.
struct Measured {
  std::vector<AloneRun> alone;       // each GPU alone, in rank order
  double one_gpu_gbps = 0;           // GPU 0 alone: G times it is what G GPUs should reach
  double init_ms = 0, first_ms = 0;  // the communicators' set-up, the first sum
  bool correct = true;               // every sum on every GPU matched the reference
  double total = 0;                  // the last timed sum's total, on this process's first GPU
  reduction::TimingStats sum_time;   // the timed sums: the slowest GPU's time of each
  double combine_ms = 0;             // the combine's median, waits for the slowest GPU included
  double aggregate_gbps = 0, ideal_gbps = 0, efficiency = 0;
  std::size_t vector_max = 0;  // the sweep's largest vector, after the memory check
  std::vector<AllreduceRow> allreduce;
  bool allreduce_correct = true;
};

template <typename T>
Measured measure(Loaded<T>& loaded, int G, std::size_t n, const reduction::Options& options, std::size_t vector_max,
                 const Processes& processes) {
  Gpus<T>& gpus = loaded.gpus;
  const Reference<T>& ref = loaded.ref;
  const long double tol = loaded.tol;
  Measured measured;

  // Each GPU alone: fastest over its shard, no NCCL, checked against the shard's own reference.
  // GPU 0's figure times G is what G GPUs together should reach.
  std::vector<AloneRun> local_alone;
  for (auto& g : gpus) {
    g->make_current();
    const long double shard_tol = reduction::tolerance(g->shard_ref, sharded_sum_depth<T>(g->shard.count, 1));
    const reduction::RunResult r = reduction::run_reduction<T>(
        "alone",
        [&](cudaStream_t stream) {
          launch_shard_partial(g->input.data(), g->shard.count, g->partial.data(), g->scratch, stream);
        },
        g->partial, g->shard_ref, shard_tol, options, double(g->shard.count) * sizeof(T));
    local_alone.push_back({r.time_ms, r.gbps, r.result.as_double(), r.correct ? 1 : 0, g->device, g->shard.count});
  }
  measured.alone = gather_items(processes, local_alone);
  measured.one_gpu_gbps = measured.alone.front().gbps;

  // The communicators, timed apart: set-up is paid once per run of a program, not per sum.
  processes.barrier();
  auto clock = std::chrono::steady_clock::now();
  make_communicators(gpus, G, processes);
  measured.init_ms = processes.max(milliseconds_since(clock));

  // The first sum over G GPUs, timed apart too: NCCL connects the GPUs on a collective's first use.
  processes.barrier();
  clock = std::chrono::steady_clock::now();
  bool correct = run_sharded_sum(gpus, ref, tol).correct;
  measured.first_ms = processes.max(milliseconds_since(clock));

  // Warm-up, then the timed runs: each run's time is its slowest GPU's, over every process.
  for (int i = 0; i < options.warmup; ++i) correct = run_sharded_sum(gpus, ref, tol).correct && correct;
  std::vector<double> totals, combines;
  for (int i = 0; i < options.reps; ++i) {
    processes.barrier();
    const SumRun run = run_sharded_sum(gpus, ref, tol);
    const double total_ms = processes.max(run.total_ms), reduce_ms = processes.max(run.reduce_ms);
    totals.push_back(total_ms);
    combines.push_back(total_ms - reduce_ms);
    correct = correct && run.correct;
    measured.total = run.total;
  }
  measured.correct = processes.max(correct ? 0 : 1) == 0;
  measured.sum_time = reduction::summarize(totals);
  measured.combine_ms = reduction::summarize(combines).median_ms;
  measured.aggregate_gbps = reduction::gigabytes_per_second(double(n) * sizeof(T), measured.sum_time.median_ms);
  measured.ideal_gbps = G * measured.one_gpu_gbps;
  measured.efficiency = measured.ideal_gbps > 0 ? measured.aggregate_gbps / measured.ideal_gbps : 0;

  // The contrast: whole vectors, as large as --vector-max and the GPUs' free memory allow.
  measured.vector_max = vector_room(gpus, vector_max, processes);
  measured.allreduce = sweep_allreduce(gpus, G, allreduce_sizes(sizeof(T), measured.vector_max), options, processes);
  measured.allreduce_correct = std::all_of(measured.allreduce.begin(), measured.allreduce.end(),
                                           [](const AllreduceRow& r) { return r.wrong == 0; });

  for (auto& g : gpus) {  // the normal end: every GPU is idle, so no call can wait on another
    g->make_current();
    CUDA_CHECK(cudaStreamSynchronize(g->stream));
    NCCL_CHECK(ncclCommDestroy(g->comm));
    g->comm = nullptr;
  }
  return measured;
}

}  // namespace ch10
