// The failures a chapter program can meet, each with its exit status (see program.hpp).
#pragma once

#include <stdexcept>

namespace reduction {

// Bad input (unreadable file, malformed data, NaN, a size the chapter cannot take): status 2.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A failed CUDA call (thrown as CudaError, from cuda_check.cuh): status 3.
class CudaFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace reduction
