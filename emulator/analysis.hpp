// The CPU emulator's face for the single-block programs (03 to 05): the sizes one block takes, the
// rows of --rows, and analyse(), which prints what the chapter's kernel does, counted from its own
// source run on the CPU (no GPU needed).
//
// One block, because __syncthreads() only waits for the threads of one block: at most 1024
// threads, two elements each. Rows: the same kernels also reduce a batch of independent arrays of n
// elements, one block per row (block b reduces row b into result[b]), the shape of softmax and layer
// normalisation, and work large enough to time against memory (one row is over in a launch's time).
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "common/program.hpp"
#include "common/reference.hpp"

namespace reduction::single_block {

constexpr unsigned kWarpSize = 32;
constexpr unsigned kMaxThreads = 1024;                              // the most threads a block may have
constexpr std::size_t kMaxElements = 2 * std::size_t(kMaxThreads);  // two elements for each of them
constexpr std::size_t kMaxTraceElements = 64;                       // what --trace can draw legibly
constexpr std::size_t kMaxRows = 2147483647;                        // a grid's most blocks in x, 2^31 - 1

// The block for n elements (1 <= n <= 2048): enough threads for each to own two elements, rounded
// up to a power of two so that halving the active threads always ends at exactly one (the kernels
// skip the additions of elements past n with a guard).
inline unsigned threads_for(std::size_t n) {
  unsigned threads = 1;
  while (2 * std::size_t(threads) < n) threads *= 2;
  return threads;
}

inline unsigned warps_for(unsigned threads) { return (threads + kWarpSize - 1) / kWarpSize; }

// The most rounded additions an element meets on its way to the result: one per step of the tree.
inline std::size_t tree_depth(std::size_t n) { return ceil_log2(n); }

// ---- The command line and the rows ----

// The command line's facts for a single-block chapter: n from 1 to 2048 (by default 2048), 100
// repetitions (a launch is short), and its one kernel for --kernel and --list.
ChapterInfo chapter_info(const std::string& name, const std::string& title, const VariantInfo& kernel);

constexpr const char* kRowsHelp =
    "reduce this many independent rows of n elements, one block each (also 2^16, 64K); "
    "with --input, the file holds them one after another";

// --rows and --trace, checked once the other options are parsed: sets options.rows, or says what
// is wrong (the host must hold the rows and a result for each).
std::optional<std::string> check_rows_option(const std::string& rows_text, bool trace, Options& options);

// The chapter's facts for the input of `rows` rows: a file may hold up to rows x 2048 elements.
ChapterInfo rows_info(ChapterInfo info, std::size_t rows);

// The length of each of `rows` rows in `elements` elements read from `source`; refuses (InputError)
// rows of unequal length, and a row too long to trace.
std::size_t row_length(std::size_t elements, std::size_t rows, const std::string& source, bool trace);

// How many rows differ from their references, how many the error bound cannot check, and the first
// that differs, in words.
struct RowsChecked {
  std::size_t wrong = 0, unchecked = 0;
  std::string first_wrong;
};

// Every row's result against its own CPU reference, on the CPU's cores. With `results` empty, only
// the references are computed, which refuses (InputError) a float row whose sum could overflow.
template <typename T>
RowsChecked check_rows(const std::vector<T>& data, std::size_t n, const std::vector<T>& results);

// Refuses (InputError), before the GPU, rows whose float sum could overflow their type.
template <typename T> void check_rows_fit(const std::vector<T>& data, std::size_t n);

// What the report says of the reference: row 0's, and how every row is checked.
template <typename T>
void describe_reference(Report& report, const Reference<T>& row0, std::size_t rows, std::size_t n);

// What the time of these kernels means: for one row, latency; for many rows, throughput.
void print_timing_note(std::ostream& out, int reps, std::size_t steps, std::size_t rows);

// ---- The analysis ----

// A closed form from the text, to print beside the count.
struct ClosedForm {
  std::string formula;                      // as the text writes it
  std::optional<std::size_t> thread_slots;  // nothing where it does not apply
  std::string applies_to;                   // the n it is meant for
  std::string difference;                   // why it differs from the count, where it does
};

// What a chapter says of its kernel beside the counts.
struct KernelNotes {
  std::string layout;  // who owns what, the trace's first line: "thread t owns data[2t]"
  // Chapters 03 and 04: the table of thread slots, headed by when a thread adds, with the text's
  // closed form beside the count.
  const char* activity_predicate = nullptr;
  std::function<ClosedForm(std::size_t n)> closed_form;
  // Chapter 05: its lines before the memory counts, and after them (given the steps of the tree).
  std::function<void(std::ostream&)> before_memory;
  std::function<void(std::ostream&, std::size_t tree_steps)> after_memory;
};

// The pattern a chapter asks for (block_testing.hpp holds a kernel to it): thread t adds into
// element owner_factor * t, and the strides double from 1 or halve from the block size.
struct Pattern {
  const char* chapter;
  unsigned owner_factor;
  bool strides_double;
};

struct Access;  // one load or store of one element by one thread (block_events.hpp)

// Prints into the report (text and JSON) the analysis of the chapter's kernel run on `row0` on the
// CPU emulator: the launch, the counts of thread slots and memory, and with `trace` the trace,
// recorded on the GPU by `record_on_gpu` where one is given. If the run finds the kernel wrong (not
// written yet, a race, ...), what was found is printed instead. Returns the steps of the tree.
template <typename T>
std::size_t analyse(Report& report, const std::vector<T>& row0, std::size_t rows, const KernelNotes& notes,
                    bool trace, const std::function<std::vector<Access>()>& record_on_gpu);

}  // namespace reduction::single_block
