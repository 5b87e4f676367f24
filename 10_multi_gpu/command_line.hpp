// Chapter 10's own options beside the common ones (common/options.hpp): --gpus and --vector-max,
// checked like them, so that bad usage exits with status 2 and one line on stderr on any machine.
// Under mpirun every rank parses, and only rank 0 speaks. And the --input file, read whole.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <variant>

#include "common/errors.hpp"
#include "common/escape.hpp"
#include "common/input.hpp"
#include "common/options.hpp"
#include "processes.hpp"

namespace ch10 {

struct Settings {
  int gpus_asked = 0;                // --gpus; 0: every visible GPU (or every rank, under mpirun)
  std::size_t vector_max = 1 << 30;  // --vector-max, bytes
};

// Parses the common options into `options` and the chapter's into `settings`. Returns the status
// to exit with right away (after --help or --list, or for bad usage), or nothing to go on.
inline std::optional<int> parse_options(const reduction::ChapterInfo& info, reduction::Options& options,
                                        Settings& settings, const Processes& processes, int argc, char** argv) {
  using reduction::escaped;
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
      return "--gpus must be all or a number of GPUs from 1 to 4096, got '" + escaped(gpus_text) + "'";
    settings.gpus_asked = static_cast<int>(*g);
    if (Processes::with_mpi() && settings.gpus_asked != processes.size())
      return "--gpus " + escaped(gpus_text) + " disagrees with the " + std::to_string(processes.size()) +
             " processes mpirun started: under mpirun, G is the number of processes (-np)";
    return std::nullopt;
  });
  cli.add_check([&]() -> std::optional<std::string> {
    const auto bytes = reduction::parse_count(vector_max_text);
    if (!bytes)
      return "--vector-max must be a number of bytes such as 0, 2^28 or 1G, got '" + escaped(vector_max_text) + "'";
    settings.vector_max = *bytes;
    return std::nullopt;
  });
  QuietUnless quiet(processes.rank() == 0);
  return cli.parse(argc, argv);
}

// --input: the whole file, read by every process (each then keeps its part); nothing without --input.
inline std::optional<reduction::HostData> read_input_file(const reduction::Options& options) {
  if (options.input.empty()) return std::nullopt;
  reduction::HostData file = reduction::load_input(options.input);
  if (std::visit([](const auto& v) { return v.empty(); }, file))
    throw reduction::InputError(reduction::escaped(options.input) + " holds no elements");
  return file;
}

}  // namespace ch10
