// CUDA error checking, shared by every GPU chapter.
//
// Every runtime call is wrapped in CUDA_CHECK and every kernel launch is followed by
// CUDA_CHECK_LAUNCH(). A failure prints the failing call, file and line to stderr and throws
// CudaError, which the program's entry point (common/program.hpp) turns into exit status 3.
// Throwing instead of calling exit() lets destructors free device memory and lets tests report
// the failure as a failed assertion.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "errors.hpp"

namespace reduction {

class CudaError : public CudaFailure {
 public:
  CudaError(cudaError_t code, const std::string& what) : CudaFailure(what), code_(code) {}
  cudaError_t code() const { return code_; }

 private:
  cudaError_t code_;
};

// Formats and reports a failed call; throws CudaError.
[[noreturn]] void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line);

inline void check_cuda(cudaError_t code, const char* call, const char* file, int line) {
  if (code != cudaSuccess) throw_cuda_error(code, call, file, line);
}

}  // namespace reduction

#define CUDA_CHECK(call) ::reduction::check_cuda((call), #call, __FILE__, __LINE__)

// A launch reports configuration errors (too many threads, too much shared memory) only through
// cudaGetLastError; errors inside the kernel surface at the next synchronizing call.
#define CUDA_CHECK_LAUNCH() \
  ::reduction::check_cuda(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)
