// The Catch2 checks that the chapters make with the CPU emulator: their solution on every size
// class, and their bug zoo. Included, like emulator.hpp, after every other header and before the
// kernel headers.
#pragma once

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "common/program.hpp"
#include "common/testing/testing.hpp"
#include "emulator/analysis.hpp"
#include "emulator/emulator.hpp"

namespace reduction::emulator::testing {

// The verdict on a run, in words and result first: whether every result was right, then what the
// run found, one sentence a finding. `what` says which kernel and launch it was. Empty: right.
template <typename V>
std::string verdict(const std::string& what, const EmulatedRun<V>& run) {
  if (run.findings.empty()) return "";
  const bool wrong_result = run.has(FindingKind::kWrongValue) || run.has(FindingKind::kResultNotWritten);
  const bool stopped = std::any_of(run.results.begin(), run.results.end(), [](const auto& r) { return r.empty(); });
  std::string text = what + (wrong_result ? ": WRONG RESULT. "
                             : stopped    ? ": NO RESULT: the run stopped at what it found. "
                                          : ": every result was right, but the run found a hazard that a GPU may turn "
                                            "into a wrong result. ");
  // One sentence a kind of finding, the wrong result first, and in how many thread orders it came.
  std::vector<FindingKind> kinds;
  for (FindingKind first : {FindingKind::kWrongValue, FindingKind::kResultNotWritten, FindingKind::kEndlessLoop})
    if (kinds.empty() && run.has(first)) kinds.push_back(first);
  for (const Finding& f : run.findings)
    if (std::find(kinds.begin(), kinds.end(), f.kind) == kinds.end()) kinds.push_back(f.kind);
  for (FindingKind kind : kinds) {
    const auto of_kind = [kind](const Finding& f) { return f.kind == kind; };
    const Finding& first = *std::find_if(run.findings.begin(), run.findings.end(), of_kind);
    const auto orders = std::count_if(run.findings.begin(), run.findings.end(), of_kind);
    text += "\n  - " + std::string(kind_name(kind)) + " (threads in the order: " + first.schedule +
            (orders > 1 ? ", and " + std::to_string(orders - 1) + " more order(s)" : std::string()) +
            "): " + first.message;
  }
  return text;
}

// Fails the test with the verdict, the sentence first (no raw expansion before it); true if right.
template <typename V>
bool check_verdict(const std::string& what, const EmulatedRun<V>& run) {
  const std::string text = verdict(what, run);
  if (!text.empty()) FAIL_CHECK(text);
  return text.empty();
}

// The checks of a solution's run: every order of the threads run (`orders`), and the verdict, which
// names the kernel, its type and n, the launch and the seed.
template <typename V>
bool check_solution_run(const std::string& kernel, std::size_t n, const std::string& launch, std::uint64_t seed,
                        std::size_t orders, const EmulatedRun<V>& run) {
  CHECK(run.schedules.size() == orders);
  return check_verdict(kernel + " on the CPU emulator (" + type_name(data_type_of<V>()) + ", n = " + std::to_string(n) +
                           ", " + launch + ", seed " + std::to_string(seed) + ")",
                       run);
}

// The sizes every solution is checked at: one element, the smallest blocks, a warp and either side
// of it, and either side of the largest block, powers of two and not.
inline const std::vector<std::size_t> kSizes = {1, 2, 3, 31, 32, 33, 1000, 1024, 2047, 2048};

// `kernel` (the chapter's kernel for Checked<V>) on `rows` fresh rows of n elements in a block of
// threads_for(n) threads: the right sum in every row and every schedule, and no finding. Returns
// whether it was right, so that a caller can stop at the first size that fails (an unwritten
// exercise would otherwise fail every size the same way).
template <typename V, typename Kernel>
bool check_solution(const char* chapter, Kernel kernel, std::size_t n, std::size_t rows, std::uint64_t seed) {
  const unsigned threads = single_block::threads_for(n);
  return check_solution_run(std::string(chapter) + "'s kernel", n,
                            std::to_string(rows) + " row(s), a block of " + std::to_string(threads) + " threads", seed,
                            std::size(kSchedules), emulate(kernel, generate_input<V>(n * rows, seed), threads, rows));
}

// The sizes and blocks a grid's solution (chapters 06 and 07) is checked at: one element, either
// side of a warp, one block's segment and more, a partial last block; blocks of one and two warps,
// so that n = 5000 takes 79 or 40 blocks (each run a few milliseconds).
inline const std::vector<std::size_t> kGridSizes = {1, 2, 31, 32, 33, 1000, 2047, 2048, 5000};
inline const std::vector<unsigned> kGridBlocks = {32, 64};
// And once at the largest block a program launches, so that a kernel written for one block size (a
// shared array of fixed length, say) cannot pass here and fail in the program: n = 5000 in blocks
// of 1024 threads, a partial last block among them.
constexpr unsigned kLargestBlock = 1024;
constexpr std::size_t kLargestBlockSize = 5000;

// `kernel` (a grid kernel for Checked<V>) launched as <<<blocks, threads, threads x sizeof(Checked<V>)>>>
// on a fresh input of n elements: the sum within `depth` rounded additions in every schedule (the
// blocks also last to first), and no finding. Returns whether it was right.
template <typename V, typename Kernel, std::size_t kCapacity>
bool check_grid_solution(const char* chapter, Kernel kernel, std::size_t n, std::size_t blocks, unsigned threads,
                         std::size_t depth, unsigned char (&dynamic)[kCapacity], std::uint64_t seed) {
  const auto input = generate_input<V>(n, seed);
  return check_solution_run(
      std::string(chapter) + "'s kernel", n,
      std::to_string(blocks) + " blocks of " + std::to_string(threads) + " threads", seed, 2 * std::size(kSchedules),
      emulate_grid(kernel, input, unsigned(blocks), threads, threads * sizeof(Checked<V>), depth, dynamic));
}

// The launches of a reduction in words, as a launcher makes them: "<<<3, 32>>> then <<<1, 32>>>".
template <typename V> std::string launches_text(const std::vector<Pass<V>>& passes) {
  std::string text;
  for (const Pass<V>& pass : passes)
    text += (text.empty() ? "<<<" : " then <<<") + std::to_string(pass.blocks) + ", " + std::to_string(pass.threads) +
            ">>>";
  return text;
}

// Chapters 08 and 09: `passes` (the launches the chapter's launcher makes) on a fresh input of n
// elements: the answer within `options.depth` rounded additions in every schedule (the blocks also
// last to first), and no finding. Returns whether it was right.
template <typename V, std::size_t kCapacity>
bool check_passes_solution(const std::string& kernel, const std::vector<Pass<V>>& passes, std::size_t n,
                           const PassesOptions& options, unsigned char (&dynamic)[kCapacity], std::uint64_t seed) {
  return check_solution_run(
      kernel, n,
      launches_text(passes) + ", input " + std::to_string(options.misalignment) + " elements past a 64-byte boundary",
      seed, 2 * std::size(kSchedules), emulate_passes(generate_input<V>(n, seed), passes, options, dynamic));
}

// The kinds of finding that a bug list's `caught:` line (instructor/zoo/) asks of the emulator:
// "emulator:race,wrong_value" gives both; "emulator" alone, any finding (empty list).
inline std::vector<std::string> expected_kinds(const std::string& detectors) {
  std::istringstream words(detectors);
  std::vector<std::string> kinds;
  for (std::string word; words >> word;) {
    if (word.rfind("emulator:", 0) != 0) continue;
    std::istringstream list(word.substr(9));
    for (std::string kind; std::getline(list, kind, ',');) kinds.push_back(kind);
  }
  return kinds;
}

inline bool names_emulator(const std::string& detectors) {
  std::istringstream words(detectors);
  for (std::string word; words >> word;)
    if (word == "emulator" || word.rfind("emulator:", 0) == 0) return true;
  return false;
}

// One bug of the zoo caught on the CPU (instructor/zoo/zoo_emulated.cpp): its run, launched as
// `launch` says, has findings, among them each kind its `caught:` line names; what it found is
// printed, for the instructor.
template <typename V>
void check_caught(const std::string& chapter, const std::string& bug, const std::string& detectors,
                  const std::string& launch, const EmulatedRun<V>& run) {
  INFO(chapter << "'s bug " << bug << " (caught: " << detectors << "), on the CPU emulator: " << launch << "\n"
               << run.describe());
  CHECK_FALSE(run.findings.empty());
  for (const std::string& kind : expected_kinds(detectors)) {
    INFO("the finding the zoo list names: " << kind);
    CHECK(std::any_of(run.findings.begin(), run.findings.end(),
                      [&](const Finding& f) { return kind == kind_name(f.kind); }));
  }
  std::cout << chapter << " zoo, " << bug << " at " << launch << ":\n";
  for (const Finding& f : run.findings)
    std::cout << "  " << kind_name(f.kind) << " (schedule " << f.schedule << "): " << f.message << "\n";
}

}  // namespace reduction::emulator::testing
