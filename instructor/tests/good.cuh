// A fixture for the exercise generator: two exercises, with what a real header holds around them
// (`;`, [brackets], ${not_a_variable}, back\slashes) so that none of it is mangled on the way.
#pragma once

#include <cstddef>

template <typename T>
__global__ void twice_kernel(const T* input, std::size_t n, T* out) {
  // EXERCISE: write out[i] = 2 x input[i]; for every i < n [one thread per element].
  // HINT: - i = blockIdx.x x blockDim.x + threadIdx.x, in 64 bits (std::size_t).
  // HINT:       const std::size_t i = ...;
  // HINT:
  // HINT: - A thread whose i is at or past n does nothing.
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = input[i] + input[i];  // "\n" ${n} [i]; kept out of the exercise
  // END EXERCISE
}

inline int blocks_for(std::size_t n, int block) {
    // EXERCISE: the number of blocks of `block` threads that cover n elements.
    // PLACEHOLDER: return 0;  // so that it compiles; a [placeholder]
    return int((n + block - 1) / block);
    // END EXERCISE
}
// The end; the generator keeps this line and the empty one before it.

