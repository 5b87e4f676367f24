// Chapter 05's kernel on the CPU emulator, for the program and the tests (emulated.hpp). Compiled
// by the host compiler: the emulator ends with a shim that turns the kernel's CUDA (__global__,
// threadIdx, __syncthreads(), ...) into host C++, and the kernel runs on Checked<T> elements, which
// log each load and store. The kernel header is the one the program includes: solution/, or in
// exercise mode the generated exercise version (cmake/Exercises.cmake).
#include "emulated.hpp"

#include <utility>

#include "03_simple_kernel/single_block/single_block.hpp"
#include "03_simple_kernel/single_block/emulator.hpp"  // last before the kernel: it ends with the CUDA shim
#include "shared_memory.cuh"

namespace ch05 {

template <typename T>
std::vector<reduction::single_block::Access> emulate_accesses(const std::vector<T>& row, std::string* findings) {
  using reduction::emulator::Checked;
  auto run = reduction::emulator::record_accesses(&shared_memory_kernel<Checked<T>>, row,
                                                  reduction::single_block::threads_for(row.size()));
  if (findings) *findings = reduction::emulator::findings_text(run.findings);
  return std::move(run.accesses);
}

template std::vector<reduction::single_block::Access> emulate_accesses(const std::vector<std::int32_t>&,
                                                                     std::string*);
template std::vector<reduction::single_block::Access> emulate_accesses(const std::vector<float>&, std::string*);
template std::vector<reduction::single_block::Access> emulate_accesses(const std::vector<double>&, std::string*);

}  // namespace ch05
