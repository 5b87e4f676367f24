// The processes of one run. Chapter 10 drives its GPUs two ways, and its program is the same for
// both; only this part differs, and each program links one version of it:
//  - 10_multi_gpu: one process drives every GPU (processes_one.cpp: there is nobody to talk to);
//  - 10_multi_gpu_mpi: mpirun starts one process per GPU, on one machine or several
//    (processes_mpi.cpp: MPI carries what the processes tell each other outside NCCL).
// What they tell each other is little: NCCL's unique id, from rank 0 to every rank, before NCCL
// exists; and, for the report, a few numbers from every rank. NCCL moves the data itself.
#pragma once

#include <cstddef>
#include <cstring>
#include <type_traits>
#include <vector>

namespace ch10 {

class Processes {
 public:
  // Starts MPI (MPI_Init) under 10_multi_gpu_mpi; nothing otherwise.
  Processes(int& argc, char**& argv);
  // Ends MPI (MPI_Finalize), which every process must reach.
  ~Processes();
  Processes(const Processes&) = delete;
  Processes& operator=(const Processes&) = delete;

  static bool with_mpi();         // which version this program links
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
  int max(int value) const;
  void barrier() const;
  // Ends every process of the run with `status`: for a failure on one rank while the others may
  // be waiting for it inside a collective (MPI_Abort). Without MPI it simply returns the status.
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

}  // namespace ch10
