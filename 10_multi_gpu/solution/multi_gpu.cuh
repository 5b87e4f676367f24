// Chapter 10: the same tree one level up, across GPUs. Each GPU reduces its shard to one partial
// sum with chapter 09's `fastest` (step 1); then the G partials are added and the total lands on
// every GPU (step 2), by one NCCL all-reduce of one element (launch_combine) or, where the GPUs
// reach each other's memory, by the peer combine (launch_peer_combine).
#pragma once

#include <cuda/atomic>
#include <cuda_runtime.h>
#include <nccl.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <string>
#include <type_traits>

#include "common/ops.hpp"
#include "fastest_small.cuh"  // chapter 09's fastest: reused, not copied (see CMakeLists.txt)

// NCCL_CHECK does for NCCL what CUDA_CHECK does for CUDA: the call, file, line and NCCL's reason
// on stderr, then a CudaFailure, which the program turns into exit status 3.
namespace ch10 {
inline void check_nccl(ncclResult_t code, const char* call, const char* file, int line) {
  if (code == ncclSuccess) return;
  std::string what = std::string("NCCL error ") + ncclGetErrorString(code) + " at " + file + ":" +
                     std::to_string(line) + " in " + call;
  if (const char* detail = ncclGetLastError(nullptr); detail && *detail) what += ": " + std::string(detail);
  std::cerr << what << std::endl;
  throw reduction::CudaFailure(what);
}
#define NCCL_CHECK(call) ::ch10::check_nccl((call), #call, __FILE__, __LINE__)

using reduction::DeviceScratch;

// NCCL's name for the element type. Ints travel as unsigned 32-bit: unsigned addition wraps
// modulo 2^32 by definition, with the bits of the two's-complement sum, as reduction::Sum does.
template <typename T>
ncclDataType_t nccl_type() {
  if constexpr (std::is_same_v<T, std::int32_t>) return ncclUint32;
  else if constexpr (std::is_same_v<T, float>) return ncclFloat32;
  else return ncclFloat64;
}

// Step 1, on each GPU: its shard to one partial sum in partial[0]. An empty shard (n < G) still
// brings its partial, 0, to step 2: every GPU must join it.
template <typename T>
void launch_shard_partial(const T* shard, std::size_t count, T* partial, DeviceScratch& scratch, cudaStream_t stream) {
  if (count == 0) {
    CUDA_CHECK(cudaMemsetAsync(partial, 0, sizeof(T), stream));  // all bits zero: 0 and 0.0
    return;
  }
  ch09::launch_fastest<reduction::Sum, T>(shard, count, partial, 0 /*block: its own*/, scratch, stream);
}

// Step 2 with NCCL, on every GPU together: an all-reduce. The sum calls it with count = 1; the
// contrast, data-parallel training's all-reduce, with millions.
template <typename T>
void launch_combine(const T* partials, T* totals, std::size_t count, ncclComm_t comm, cudaStream_t stream) {
  // EXERCISE: one NCCL call that adds the `count` elements of `partials` across every GPU of `comm`,
  // HINT: element by element, and writes the sums to `totals` on every GPU.
  // HINT: - The collective that leaves the result everywhere is ncclAllReduce(sendbuff, recvbuff,
  // HINT:   count, datatype, op, comm, stream); its operator for a sum is ncclSum.
  // HINT: - The element type is NCCL's own enum: nccl_type<T>() above gives it.
  // HINT: - Pass `stream`, so that NCCL's work runs after the partial's kernel with no host wait.
  // HINT: - Wrap the call in NCCL_CHECK (above), as every CUDA call is wrapped in CUDA_CHECK.
  // HINT: Until it is written, totals keep the poison the program put there, and every check fails.
  // PLACEHOLDER: (void)partials, (void)totals, (void)count, (void)comm, (void)stream;
  NCCL_CHECK(ncclAllReduce(partials, totals, count, nccl_type<T>(), ncclSum, comm, stream));
  // END EXERCISE
}

// Step 2 without NCCL: the peer combine. Each GPU has a mailbox in its memory that every GPU can
// store into (peer access over NVLink). One warp per GPU: lane j stores this GPU's partial into
// its slot of GPU j's mailbox, then waits for GPU j's partial in this GPU's mailbox; lane 0 adds
// the G partials in rank order, so every GPU gets the same bits. A 64-bit word holds 32 bits of the
// partial and the exchange's number (its epoch), so no fence is needed; the slots come in two sets,
// used in turn (README.md says why two).
constexpr int kMaxPeerGpus = 32;  // one lane per GPU
inline std::size_t mailbox_words(int gpus) { return 2 * 2 * std::size_t(gpus) + 1; }  // 2 sets x G slots x 2 words, the epoch

struct PeerMailboxes {
  unsigned long long* of[kMaxPeerGpus];  // of[j]: GPU j's mailbox, as this GPU addresses it
  int gpus = 0, rank = 0;                // G, and this GPU's place among them
};

template <typename T>
__global__ void peer_combine_kernel(const T* partial, PeerMailboxes boxes, T* total) {
  using Word = cuda::atomic_ref<unsigned long long, cuda::thread_scope_system>;
  constexpr int kPieces = sizeof(T) / 4;  // 32-bit pieces of a T: 1 for int and float, 2 for double
  unsigned long long* mine = boxes.of[boxes.rank];
  unsigned long long& last_epoch = mine[4 * boxes.gpus];
  const unsigned epoch = unsigned(last_epoch) + 1;
  const int set = int(epoch & 1) * 2 * boxes.gpus, lane = threadIdx.x;
  __shared__ T got[kMaxPeerGpus];
  if (lane < boxes.gpus) {
    std::uint32_t pieces[kPieces];
    std::memcpy(pieces, partial, sizeof(T));
    for (int k = 0; k < kPieces; ++k)  // my partial into my slot of GPU `lane`'s mailbox
      Word(boxes.of[lane][set + 2 * boxes.rank + k])
          .store(static_cast<unsigned long long>(epoch) << 32 | pieces[k], cuda::memory_order_relaxed);
    for (int k = 0; k < kPieces; ++k) {  // GPU `lane`'s partial from my mailbox, once it is this epoch's
      unsigned long long word;
      do word = Word(mine[set + 2 * lane + k]).load(cuda::memory_order_relaxed);
      while (unsigned(word >> 32) != epoch);
      pieces[k] = std::uint32_t(word);
    }
    std::memcpy(&got[lane], pieces, sizeof(T));
  }
  __syncwarp();
  if (lane == 0) {
    T sum = got[0];
    for (int j = 1; j < boxes.gpus; ++j) sum = reduction::Sum{}(sum, got[j]);
    *total = sum;
    last_epoch = epoch;
  }
}

// One GPU's part of the peer combine, on its stream behind step 1. Like a collective, every GPU
// must launch it: each waits for all the others' partials.
template <typename T>
void launch_peer_combine(const T* partial, T* total, const PeerMailboxes& boxes, cudaStream_t stream) {
  peer_combine_kernel<T><<<1, 32, 0, stream>>>(partial, boxes, total);
  CUDA_CHECK_LAUNCH();
}

}  // namespace ch10
