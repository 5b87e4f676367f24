// A single-block chapter's kernel on the CPU emulator (emulated.hpp), compiled by the host compiler
// once per chapter: REDUCTION_KERNEL_HEADER names the chapter's kernel header (solution/, or in
// exercise mode the generated exercise version) and REDUCTION_KERNEL its kernel template. The
// emulator ends with a shim that turns the kernel's CUDA (__global__, threadIdx, __syncthreads(),
// ...) into host C++, and the kernel runs on Checked<T> elements, which log each load and store.
#include "emulator/emulated.hpp"

#include <utility>

#include "emulator/single_block.hpp"
#include "emulator/emulator.hpp"  // last before the kernel: it ends with the CUDA shim
#include REDUCTION_KERNEL_HEADER

namespace reduction::emulator {

template <typename T>
std::vector<single_block::Access> emulate_accesses(const std::vector<T>& row, std::string* findings) {
  auto run = record_accesses(&REDUCTION_KERNEL<Checked<T>>, row, single_block::threads_for(row.size()));
  if (findings) *findings = findings_text(run.findings);
  return std::move(run.accesses);
}

template std::vector<single_block::Access> emulate_accesses(const std::vector<std::int32_t>&, std::string*);
template std::vector<single_block::Access> emulate_accesses(const std::vector<float>&, std::string*);
template std::vector<single_block::Access> emulate_accesses(const std::vector<double>&, std::string*);

}  // namespace reduction::emulator
