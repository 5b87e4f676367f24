// The command line every chapter program shares, and what each chapter says about itself.
//
// A chapter describes itself in a ChapterInfo; CommandLine registers the common options from it
// (--n, --type, --block, --reps, --warmup, --seed, --input, --kernel, --json, --list), lets the chapter add
// its own (--op, --trace, ...), then parses and validates everything before the program touches
// a GPU, so a bad option exits with status 2 on any machine. Numbers are decimal digits, range-
// checked (never wrapped, clamped or read from an empty string), and --n must fit in the host's
// memory. CLI11 stays inside options.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "input.hpp"  // HostData
#include "types.hpp"

namespace reduction {

// One of a chapter's variants as `--list` shows it; the chapter's registry is where the list lives.
struct VariantInfo {
  std::string name;  // the --kernel name
  std::string idea;  // one line: what it does differently
  bool deterministic = true;  // same float result on every run
  // A wrong kernel of the bug zoo (Variant::zoo_of, common/variants.cuh): run only when --kernel
  // names it, and listed after the chapter's own, marked as the zoo's.
  bool zoo = false;
};

struct ChapterInfo {
  std::string name;   // "03_simple_kernel"
  std::string title;  // one line: the idea this chapter adds
  bool uses_gpu = true;
  bool has_type = true;    // --type applies
  DataType default_type = DataType::Int;
  bool has_block = false;  // --block applies
  int default_block = 256;
  // Returns why a block size is not allowed, or nothing if it is.
  std::function<std::optional<std::string>(int)> check_block;
  // Filled from the chapter's registry. Their names are what --kernel takes (default: all but the
  // bug zoo's, in this order). When there are some, `--list` prints them (with --json, as
  // {"chapter", "max_n", "variants": [{"name", "idea", "deterministic"}]}, a zoo kernel with
  // "zoo": true, after the others) and exits 0, before anything touches a GPU: scripts ask the
  // program instead of keeping a list of their own.
  std::vector<VariantInfo> variants;
  std::size_t default_n = 1 << 20;
  std::size_t min_n = 1;
  std::size_t max_n = std::numeric_limits<std::size_t>::max();
  std::string max_n_reason;  // why max_n, and which chapter lifts it
  std::string min_n_reason;  // why min_n, where a chapter can say more than that it is the least
  int default_reps = 20;
  // For GPU chapters: why a GPU that is present cannot hold `bytes` of input, or nothing if it can
  // (or if there is no GPU: the analysis still runs). Asked before any input is generated.
  std::function<std::optional<std::string>(std::size_t bytes)> device_room;
};

struct Options {
  std::size_t n = 0;
  DataType type = DataType::Int;
  int block = 0;
  int reps = 20;
  int warmup = 3;
  std::uint64_t seed = 42;
  std::string input;                 // --input FILE: overrides n and type
  std::vector<std::string> kernels;  // selected kernels, in the chapter's order
  bool json = false;
  bool hot_l2 = false;  // time small inputs from L2 (common/ceilings.cuh: RotatingInput)
  std::size_t rows = 1;  // --rows R: R arrays of n, one after another (chapters 03 to 05)
};

// Physical memory of this machine in bytes, or nothing where the system does not say.
std::optional<std::uint64_t> host_memory_bytes();

// How much memory this process may take, and where that number comes from, in words.
struct MemoryLimit {
  std::uint64_t bytes = 0;
  std::string what;  // "this machine has N bytes of memory", or the cgroup's file, limit and use
};
// The limit of this process's cgroup (common/limits.cpp): read from `cgroup_root` (v2: memory.max
// less memory.current; v1: memory/.../memory.limit_in_bytes less memory.usage_in_bytes; the use
// less the inactive file cache of memory.stat), in the cgroup that `self_cgroup` names and each of
// its ancestors, the tightest; nothing where none is set.
std::optional<MemoryLimit> cgroup_memory_limit(const std::string& cgroup_root, const std::string& self_cgroup);
// The smaller of the machine's memory and its cgroup's limit; nothing where neither is known.
std::optional<MemoryLimit> memory_limit(const std::string& cgroup_root = "/sys/fs/cgroup",
                                        const std::string& self_cgroup = "/proc/self/cgroup");
// Why `count` elements of `element_bytes` cannot be held in memory_limit(), in words that start with
// `what` ("--n 5 int elements"), or nothing if they can.
std::optional<std::string> memory_refusal(std::uint64_t count, std::uint64_t element_bytes, const std::string& what);

// The data of --input FILE for this chapter: load_input (input.hpp), and its count within the
// chapter's min_n and max_n. Throws InputError with a one-line reason.
HostData load_chapter_input(const ChapterInfo& info, const std::string& path);

// The names of the chapter's variants, in its order: what --kernel takes.
std::vector<std::string> variant_names(const ChapterInfo& info);

// The same without the bug zoo's: what runs when --kernel is not given.
std::vector<std::string> default_variant_names(const ChapterInfo& info);

// Parses "1000", "2^20" or "1<<20" (and "4M", "1G" for 2^20 and 2^30 multiples) into a count.
std::optional<std::size_t> parse_count(const std::string& text);

// Block-size rules used by several chapters.
std::function<std::optional<std::string>(int)> power_of_two_block(int min_block, int max_block);

// Whether everything the program wrote on stdout reached it. Flushes stdout; where a write failed
// (a pipe whose reader has gone, a full disk, a stdout that was closed), says so in one line on
// stderr, naming `program`, and returns false: the program then exits with kOutputFailed (5, see
// common/program.hpp), since output that never arrived must not pass for a success. Report::finish,
// Report::finish_without_gpu and CommandLine::parse (--help, --list) ask it before they return.
bool output_written(const std::string& program);

class CommandLine {
 public:
  // Also readies the standard streams, since every program builds its CommandLine before it
  // writes anything (and a chapter need not remember to): SIGPIPE is ignored, so that a write to
  // a pipe whose reader has gone fails (EPIPE) and is reported, where it killed the program without
  // a word; a stdout or stderr that was closed is held open on /dev/null, so that no file the
  // program opens later takes its number, and output_written() still reports stdout as unwritten.
  CommandLine(const ChapterInfo& info, Options& options);
  ~CommandLine();
  CommandLine(const CommandLine&) = delete;
  CommandLine& operator=(const CommandLine&) = delete;

  void add_flag(const std::string& name, bool& value, const std::string& help);
  // An int option: an optional '-' and decimal digits, within int's range.
  void add_option(const std::string& name, int& value, const std::string& help);
  // A string option; with `choices`, any other value is refused.
  void add_option(const std::string& name, std::string& value, const std::string& help,
                  const std::vector<std::string>& choices = {});
  // Runs after parsing; returns an error message for a bad combination of options.
  void add_check(std::function<std::optional<std::string>()> check);
  // Whether the command line gave option `name` (for a check: an alias and what it stands for).
  bool given(const std::string& name) const;

  // Parses and validates. Returns the status to exit with right away (0 after --help or --list,
  // 2 with a one-line message on stderr for a bad option, 5 where --help or --list could not be
  // written), or nothing to go on. --list answers only a command line that would run: its other
  // options are checked first.
  std::optional<int> parse(int argc, const char* const* argv);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace reduction
