// NCCL error checking, as common/cuda_check.cuh does it for CUDA: every NCCL call is wrapped in
// NCCL_CHECK; a failure prints the call, file and line with NCCL's own explanation to stderr and
// throws, and the program exits with status 3 like any failed CUDA call (common/program.hpp).
// Also NCCL's version, and the device memory the program leaves to NCCL on each GPU.
#pragma once

#include <nccl.h>

#include <cstddef>
#include <iostream>
#include <string>

#include "common/errors.hpp"

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

// Device memory left free on each GPU beside the data: NCCL's own buffers, and the runtime's.
constexpr std::size_t kNcclSlack = std::size_t(256) << 20;

// The NCCL this program runs with, as "2.28.9" (the library's, which may be newer than the header's).
inline std::string nccl_version() {
  int version = 0;
  NCCL_CHECK(ncclGetVersion(&version));
  return std::to_string(version / 10000) + "." + std::to_string(version / 100 % 100) + "." +
         std::to_string(version % 100);
}

}  // namespace ch10
