// A single-block chapter's kernel (03 to 05) run on the CPU emulator: the program's analysis (the
// counts, and the trace where there is no GPU to record on) and the tests' expectations are
// computed from what it returns, so everything the program says about the kernel comes from the
// kernel's own source: the solution's, or in exercise mode the student's. emulated.cpp is compiled
// once per chapter, with that chapter's kernel (reduction_emulate_kernel() in CMakeLists.txt).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "emulator/block_events.hpp"

namespace reduction::emulator {

// Runs the chapter's kernel on one row, in a block of threads_for(n) threads, threads in order, and
// returns every load and store it made, as traced.cuh's record() returns them from the GPU.
// `findings` receives what the run found, one line per kind ("result_not_written: ..."): empty if
// the kernel was right, and if not, the accesses are those of a wrong kernel and must not be shown
// as the lesson.
template <typename T>
std::vector<single_block::Access> emulate_accesses(const std::vector<T>& row, std::string* findings);

extern template std::vector<single_block::Access> emulate_accesses(const std::vector<std::int32_t>&, std::string*);
extern template std::vector<single_block::Access> emulate_accesses(const std::vector<float>&, std::string*);
extern template std::vector<single_block::Access> emulate_accesses(const std::vector<double>&, std::string*);

}  // namespace reduction::emulator
