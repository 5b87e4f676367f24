// What chapter 10's program reads from its command line, before it looks for a GPU: its own
// options beside the common ones (--gpus, --vector-max), checked like them so that bad usage
// exits with status 2 on any machine, and the --input file. Under mpirun every rank parses, and
// only rank 0 speaks.
#pragma once

#include <cstddef>
#include <iostream>
#include <optional>
#include <string>
#include <variant>

#include "common/errors.hpp"
#include "common/input.hpp"
#include "common/options.hpp"
#include "processes.hpp"

namespace ch10 {

struct Settings {
  int gpus_asked = 0;                // --gpus; 0: every visible GPU (or every rank, under mpirun)
  std::size_t vector_max = 1 << 30;  // --vector-max, bytes
};

// Under mpirun only rank 0 speaks: the others' copies of the parser's messages are dropped.
class QuietUnless {
 public:
  explicit QuietUnless(bool speak) : out_(std::cout.rdbuf()), err_(std::cerr.rdbuf()) {
    if (!speak) std::cout.rdbuf(nullptr), std::cerr.rdbuf(nullptr);
  }
  ~QuietUnless() {
    std::cout.rdbuf(out_), std::cerr.rdbuf(err_);
    std::cout.clear(), std::cerr.clear();
  }

 private:
  std::streambuf *out_, *err_;
};

// Parses the common options into `options` and the chapter's into `settings`. Returns the status
// to exit with right away (after --help, or for bad usage), or nothing to go on.
inline std::optional<int> parse_options(const reduction::ChapterInfo& info, reduction::Options& options,
                                        Settings& settings, const Processes& processes, int argc, char** argv) {
  std::string gpus_text = "all", vector_max_text = "1G";
  reduction::CommandLine cli(info, options);
  cli.add_option("--gpus", gpus_text,
                 "GPUs to split the array over: all (every visible GPU) or a number; under mpirun, "
                 "the number of processes");
  cli.add_option("--vector-max", vector_max_text,
                 "largest vector of the all-reduce sweep, in bytes (1G, 2^28, ...; 0: no sweep)");
  cli.add_check([&]() -> std::optional<std::string> {
    if (gpus_text == "all") return std::nullopt;
    const auto g = reduction::parse_count(gpus_text);
    if (!g || *g < 1 || *g > 4096)
      return "--gpus must be all or a number of GPUs from 1 to 4096, got '" + gpus_text + "'";
    settings.gpus_asked = static_cast<int>(*g);
    if (Processes::with_mpi() && settings.gpus_asked != processes.size())
      return "--gpus " + gpus_text + " disagrees with the " + std::to_string(processes.size()) +
             " processes mpirun started: under mpirun, G is the number of processes (-np)";
    return std::nullopt;
  });
  cli.add_check([&]() -> std::optional<std::string> {
    const auto bytes = reduction::parse_count(vector_max_text);
    if (!bytes) return "--vector-max must be a number of bytes such as 0, 2^28 or 1G, got '" + vector_max_text + "'";
    settings.vector_max = *bytes;
    return std::nullopt;
  });
  QuietUnless quiet(processes.rank() == 0);
  return cli.parse(argc, argv);
}

// --input: the whole file, read on every process (each then keeps only its shard); nothing
// without --input, when each shard is generated where it is needed.
inline std::optional<reduction::HostData> read_input_file(const reduction::ChapterInfo& info,
                                                          const reduction::Options& options) {
  if (options.input.empty()) return std::nullopt;
  std::optional<reduction::HostData> file = reduction::load_input(options.input);
  const std::size_t n = std::visit([](const auto& v) { return v.size(); }, *file);
  if (n < info.min_n) throw reduction::InputError(options.input + " holds no elements");
  return file;
}

}  // namespace ch10
