// The processes of one run, each program linking one version. 10_multi_gpu: one process drives
// every GPU (processes_one.cpp: nobody to talk to). 10_multi_gpu_mpi: mpirun starts one process per
// GPU (processes_mpi.cpp: MPI carries NCCL's unique id, the parts' references, the peer combine's
// IPC handles and the report's numbers). Only rank 0 speaks (QuietUnless), and every rank agrees on
// the outcome, so all exit with the same status.
#pragma once

#include <cstddef>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <type_traits>
#include <vector>

namespace ch10 {

class Processes {
 public:
  Processes(int& argc, char**& argv);  // under 10_multi_gpu_mpi: MPI_Init
  ~Processes();                         // MPI_Finalize, which every process must reach
  Processes(const Processes&) = delete;
  Processes& operator=(const Processes&) = delete;

  static bool with_mpi();             // which version this program links
  int rank() const { return rank_; }  // this process among all: 0 to size() - 1
  int size() const { return size_; }
  // This process among those on the same machine: it picks the GPU (one process per GPU).
  int local_rank() const { return local_rank_; }
  int local_size() const { return local_size_; }

  // Copies rank 0's `bytes` bytes at `data` into `data` on every rank.
  void broadcast(void* data, std::size_t bytes) const;
  // Every rank's `bytes` bytes at `data`, one after the other in rank order, on every rank.
  std::vector<unsigned char> all_gather(const void* data, std::size_t bytes) const;
  double max(double value) const;  // the largest value over all ranks, on every rank
  double sum(double value) const;
  void barrier() const;
  // Ends every process with `status` (MPI_Abort): one rank failed alone while the others may wait
  // for it. Without MPI it returns the status.
  int abort_all(int status) const;

 private:
  int rank_ = 0, size_ = 1, local_rank_ = 0, local_size_ = 1;
};

// All ranks' values of a plain type, in rank order: `items` from each, concatenated.
template <typename Item>
std::vector<Item> gather_items(const Processes& processes, const std::vector<Item>& items) {
  static_assert(std::is_trivially_copyable_v<Item>, "gathered as bytes");
  const auto bytes = processes.all_gather(items.data(), items.size() * sizeof(Item));
  std::vector<Item> all(bytes.size() / sizeof(Item));
  if (!all.empty()) std::memcpy(all.data(), bytes.data(), all.size() * sizeof(Item));
  return all;
}

// Texts from every rank, in rank order (each cut to 239 bytes: they travel in fixed-size slots).
inline std::vector<std::string> gather_texts(const Processes& processes, const std::vector<std::string>& texts) {
  struct Slot {
    char text[240];
  };
  std::vector<Slot> mine(texts.size());
  for (std::size_t i = 0; i < texts.size(); ++i)
    std::snprintf(mine[i].text, sizeof mine[i].text, "%s", texts[i].c_str());
  std::vector<std::string> all;
  for (const Slot& slot : gather_items(processes, mine)) all.emplace_back(slot.text);
  return all;
}

// Why this machine cannot give G GPUs to this run, or "": one process needs G visible GPUs; under
// mpirun each process takes the GPU of its local rank. All ranks agree on the first problem.
inline std::string gpu_problem(const Processes& processes, int gpus, int visible, std::string problem) {
  const auto plural = [](int k, const char* one, const char* many) {
    return std::to_string(k) + (k == 1 ? one : many);
  };
  if (problem.empty() && !Processes::with_mpi() && gpus > visible)
    problem = "--gpus " + std::to_string(gpus) + " asks for " + std::to_string(gpus) + " GPUs and " +
              plural(visible, " is", " are") + " visible";
  if (problem.empty() && Processes::with_mpi() && processes.local_size() > visible)
    problem = "mpirun started " + std::to_string(processes.local_size()) + " processes on this machine, which has " +
              plural(visible, " visible GPU", " visible GPUs") + ": one process per GPU";
  const std::vector<std::string> all = gather_texts(processes, {problem});
  for (std::size_t r = 0; r < all.size(); ++r)
    if (!all[r].empty()) return (processes.size() > 1 ? "rank " + std::to_string(r) + ": " : "") + all[r];
  return "";
}

// Under mpirun only rank 0 speaks: the other ranks' copies of a message are dropped while this lives.
class QuietUnless {
 public:
  explicit QuietUnless(bool speak) : out_(std::cout.rdbuf()), err_(std::cerr.rdbuf()) {
    if (!speak) std::cout.rdbuf(nullptr), std::cerr.rdbuf(nullptr);
  }
  ~QuietUnless() {
    std::cout.rdbuf(out_), std::cerr.rdbuf(err_);
    std::cout.clear(), std::cerr.clear();
  }
  QuietUnless(const QuietUnless&) = delete;
  QuietUnless& operator=(const QuietUnless&) = delete;

 private:
  std::streambuf *out_, *err_;
};

}  // namespace ch10
