// Chapter 10: the same tree one level up, across GPUs. The array is split into G shards, one per
// GPU. Each GPU reduces its own shard to one partial sum with chapter 09's `fastest`, all GPUs at
// once; then one NCCL all-reduce of a single element adds the G partials and leaves the total on
// every GPU. The GPUs exchange one number each, so the time is the time to read the shards, and
// G GPUs read G times as fast: the sum scales with G (README.md measures it against the all-reduce
// of whole vectors, which the links bound instead).
//
// Two launchers, each run on every GPU's own stream: launch_shard_partial (step 1) and
// launch_combine (step 2). The program and the tests call them for both launch ways: one process
// driving every GPU, or one process per GPU under mpirun.
#pragma once

#include <cuda_runtime.h>
#include <nccl.h>

#include <cstddef>
#include <cstdint>
#include <iostream>
#include <string>
#include <type_traits>

#include "common/ops.hpp"
#include "fastest_small.cuh"  // chapter 09's fastest: reused, not copied (see CMakeLists.txt)

// NCCL error checking, as CUDA_CHECK does it for CUDA (common/ops.hpp): every NCCL call is wrapped
// in NCCL_CHECK; a failure prints the call, file and line with NCCL's own explanation to stderr and
// throws, and the program exits with status 3 like any failed CUDA call.
namespace ch10 {

class NcclError : public reduction::CudaFailure {
 public:
  NcclError(ncclResult_t code, const std::string& what) : reduction::CudaFailure(what), code_(code) {}
  ncclResult_t code() const { return code_; }

 private:
  ncclResult_t code_;
};

[[noreturn]] inline void throw_nccl_error(ncclResult_t code, const char* call, const char* file, int line) {
  std::string what = std::string("NCCL error ") + ncclGetErrorString(code) + " at " + file + ":" +
                     std::to_string(line) + " in " + call;
  // The last error's details (which GPU, which limit), when NCCL kept them.
  if (const char* detail = ncclGetLastError(nullptr); detail && *detail) what += ": " + std::string(detail);
  std::cerr << what << std::endl;
  throw NcclError(code, what);
}

}  // namespace ch10

#define NCCL_CHECK(call)                                                                                            \
  do {                                                                                                              \
    const ncclResult_t nccl_check_result_ = (call);                                                                 \
    if (nccl_check_result_ != ncclSuccess) ::ch10::throw_nccl_error(nccl_check_result_, #call, __FILE__, __LINE__); \
  } while (0)

namespace ch10 {

using reduction::DeviceScratch;

// `fastest` brings its own block size, as cub does; the launcher shape of chapters 06 to 09 still
// takes one. This is chapter 09's default --block, which fastest ignores.
constexpr int kFastestBlockArgument = 256;

// NCCL names element types with its own enum. The int partials travel as unsigned 32-bit
// integers: unsigned addition wraps around modulo 2^32 by definition, as reduction::Sum does for
// int on the GPU and the CPU, and its bits are those of the two's-complement sum. (Signed
// overflow is undefined in C++, whatever the hardware would do.)
template <typename T>
ncclDataType_t nccl_type() {
  if constexpr (std::is_same_v<T, std::int32_t>) return ncclUint32;
  else if constexpr (std::is_same_v<T, float>) return ncclFloat32;
  else {
    static_assert(std::is_same_v<T, double>, "chapter 10 sums int, float and double");
    return ncclFloat64;
  }
}

// Step 1, on each GPU: its shard to one partial sum in partial[0], with chapter 09's fastest.
//
// On mid-size shards fastest runs one grid whose last block adds the other blocks' results. A block
// learns that it is last from a counter that chapter 09's launcher keeps beside the scratch memory
// it is handed (ch09::kept_beside, per scratch allocation), and the block results live in that
// scratch too; from 16 MiB a sum's tiles add their results into words kept there as well.
// Each GPU here has its own DeviceScratch, so the G launches, one on each GPU at the same time,
// share neither results, counter nor words. What fastest does not allow is two
// launches running at once with the SAME scratch; each GPU here runs one reduction at a time with
// its scratch (its "alone" runs, then the sums in its stream's order, never two at once).
//
// An empty shard (n < G) still has a partial, the identity 0, and must still bring it to the
// combine: a collective waits until every GPU has joined it.
template <typename T>
void launch_shard_partial(const T* shard, std::size_t count, T* partial, DeviceScratch& scratch, cudaStream_t stream) {
  if (count == 0) {
    CUDA_CHECK(cudaMemsetAsync(partial, 0, sizeof(T), stream));  // all bits zero: 0 and 0.0
    return;
  }
  ch09::launch_fastest<reduction::Sum, T>(shard, count, partial, kFastestBlockArgument, scratch, stream);
}

// Step 2, on every GPU together: the GPUs' `count`-element vectors `partials` added element by
// element, and the sums written to `totals` on every GPU (an all-reduce; ncclReduce would leave
// them on one root GPU only). The sum of the shards calls it with count = 1; the contrast, the
// all-reduce of whole vectors that data-parallel training does, is the same call with millions.
//
// NCCL queues the work on `stream`, behind the partial's kernel: the host does not wait. A
// collective needs every GPU's call: one process driving several GPUs makes them between
// ncclGroupStart() and ncclGroupEnd(), so that NCCL launches them together (one call alone would
// the first could wait for the others, which the same thread has not made yet); under mpirun each
// process makes its one call.
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

}  // namespace ch10
