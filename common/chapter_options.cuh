// The options stage of the driver (common/driver.cuh): the common options, those the chapter's
// facts call for (--op, --sizes, --hot-l2, the alias of --kernel) and those of its shape of work,
// with the registry's facts checked before anything runs.
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "chapter.cuh"
#include "ops.hpp"
#include "options.hpp"
#include "sizes.hpp"
#include "variants.cuh"

namespace reduction {

// The first stage: the chapter's facts and its registry (into info.variants) become options, which
// are parsed and checked. Returns the status to exit with right away (after --help or --list, or for bad usage),
// or nothing to go on with `options`, the operators `ops` and, in the --sizes mode, `sizes`.
template <typename Chapter>
std::optional<int> parse_command_line(int argc, char** argv, ChapterInfo& info, Options& options,
                                      std::vector<OpKind>& ops, std::vector<std::size_t>& sizes) {
  const auto registry = Chapter::template variants<Sum, int>();
  for (const auto& v : registry) info.variants.push_back({v.name, v.idea, v.deterministic});  // --kernel, --list
  std::string op_text = "sum", sizes_text;
  CommandLine cli(info, options);
  if (Chapter::has_ops) {
    std::vector<std::string> choices = {"sum", "max", "min"};
    if (Chapter::has_sizes) choices.push_back("all");
    cli.add_option("--op", op_text,
                   std::string("operator") + (Chapter::has_sizes ? "; all: sum, max and min in turn (with --sizes)" : ""),
                   choices);
  }
  if (!Chapter::has_rows)  // rows are timed from the one copy the launch reads
    cli.add_flag("--hot-l2", options.hot_l2,
                 "time small inputs from L2: every run reads the same copy (default: rotate copies, see the report)");
  if (Chapter::has_sizes)
    cli.add_option("--sizes", sizes_text,
                   "time the kernels at each of these sizes instead, alternating (comma-separated counts, or "
                   "standard: 2^k for k = 0..30, 2^k - 1, 2^k + 1 and 10^k up to 10^9), one row each");
  Chapter::add_options(cli, options);
  std::string alias_text;
  if constexpr (Chapter::alias.flag != nullptr) {
    const std::string flag = Chapter::alias.flag, prefix = Chapter::alias.prefix;
    alias_text = Chapter::alias.all;
    std::vector<std::string> values;
    for (const auto& v : registry) values.push_back(std::string(v.name).substr(prefix.size()));
    values.push_back(alias_text);
    cli.add_option(flag, alias_text, Chapter::alias.help, values);
    cli.add_check([&, flag, prefix]() -> std::optional<std::string> {
      if (alias_text == Chapter::alias.all) return std::nullopt;
      if (options.kernels != variant_names(info)) return flag + " and --kernel both choose kernels; give one of them";
      options.kernels = {prefix + alias_text};
      return std::nullopt;
    });
  }

  // The registry's facts, enforced before anything runs.
  cli.add_check([&]() -> std::optional<std::string> {
    for (const auto& v : registry)
      if (options.block < v.min_block && std::find(options.kernels.begin(), options.kernels.end(), v.name) !=
                                             options.kernels.end())
        return "--block " + std::to_string(options.block) + " is too small for " + v.name + ", which needs at least " +
               std::to_string(v.min_block) + " threads a block (it reduces whole warps)";
    return std::nullopt;
  });
  ops = {OpKind::Sum};
  cli.add_check([&]() -> std::optional<std::string> {
    if (op_text == "all") {
      if (sizes_text.empty()) return std::string("--op all goes with --sizes; one run takes one operator");
      ops = {OpKind::Sum, OpKind::Max, OpKind::Min};
      return std::nullopt;
    }
    ops = {*parse_op(op_text)};
    if (op_text == "sum") return std::nullopt;
    std::vector<std::string> offered;
    dispatch_op(ops[0], [&](auto op) {
      if constexpr (!std::is_same_v<decltype(op), Product>)
        for (const auto& v : Chapter::template variants<decltype(op), int>()) offered.push_back(v.name);
      return 0;
    });
    for (const auto& k : options.kernels)
      if (std::find(offered.begin(), offered.end(), k) != offered.end()) return std::nullopt;
    return "--op " + op_text + ": the chosen kernels add only; " + join(offered) + " take " + op_text;
  });
  cli.add_check([&]() -> std::optional<std::string> {
    if (sizes_text.empty()) return std::nullopt;
    if (!options.input.empty()) return std::string("--sizes makes its own input (one per --type); --input does not apply");
    const auto parsed = parse_sizes(sizes_text);
    if (!parsed)
      return "--sizes takes counts of at least 1 separated by commas (1,1000,2^20) or standard, got '" + sizes_text +
             "'";
    sizes = *parsed;
    if (options.kernels == variant_names(info) && !Chapter::sizes_kernels().empty())
      options.kernels = Chapter::sizes_kernels();
    return std::nullopt;
  });
  if (auto status = cli.parse(argc, argv)) return status;
  if (!sizes.empty()) options.n = sizes.back();  // one input of the largest size; smaller sizes reduce a prefix
  return std::nullopt;
}

}  // namespace reduction
