// Which GPUs this run uses, decided before anything is loaded: G, the GPUs this process drives
// and the shards they reduce, or the one reason every rank agrees this machine cannot run it. The
// analysis needs only G, so this comes first; a problem ends the run with status 77 after the
// analysis has been printed.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "common/cuda_check.cuh"
#include "common/gpu.cuh"
#include "processes.hpp"

namespace ch10 {

// A short text of fixed size, to gather from every rank.
struct Text {
  char text[240] = {};
  static Text of(const std::string& s) {
    Text t;
    std::snprintf(t.text, sizeof t.text, "%s", s.c_str());
    return t;
  }
};

// Which GPUs this process drives and which shards they reduce, or why this machine cannot run
// this (the reason every rank agrees on, in one line).
struct GpuPlan {
  int gpus = 0;              // G, over all processes
  std::vector<int> devices;  // this process's GPUs (CUDA device numbers) ...
  std::vector<int> ranks;    // ... and their ranks among the G: the shards they reduce
  std::string problem;       // not empty: no run (exit status 77)
};

// gpus_asked: --gpus, 0 for every visible GPU (or every rank, under mpirun).
inline GpuPlan plan_gpus(const Processes& processes, int gpus_asked) {
  GpuPlan plan;
  const reduction::GpuStatus status = reduction::probe_gpu();
  int visible = 0;
  if (status.usable) CUDA_CHECK(cudaGetDeviceCount(&visible));
  if (!Processes::with_mpi()) {
    plan.gpus = gpus_asked ? gpus_asked : visible;
    if (!status.usable)
      plan.problem = status.reason;
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
  if (!status.usable)
    mine = status.reason;
  else if (processes.local_size() > visible)
    mine = "mpirun started " + std::to_string(processes.local_size()) + " processes on this machine, which has " +
           std::to_string(visible) + " visible GPU" + (visible == 1 ? "" : "s") + ": one process per GPU";
  const auto all = gather_items(processes, std::vector<Text>{Text::of(mine)});
  for (std::size_t r = 0; r < all.size() && plan.problem.empty(); ++r)
    if (all[r].text[0]) plan.problem = (processes.size() > 1 ? "rank " + std::to_string(r) + ": " : "") + all[r].text;
  if (plan.problem.empty()) plan.devices = {processes.local_rank()}, plan.ranks = {processes.rank()};
  return plan;
}

}  // namespace ch10
