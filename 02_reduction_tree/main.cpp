// Chapter 02 program: the reduction tree as a model. Prints a small tree level by level, the
// work/steps/parallelism model for n, and runs the tree summation beside the sequential one;
// for float data it shows how differently the two orders round.
//   02_reduction_tree [--n N] [--type int|float|double] [--input FILE] [--json]
#include <cmath>
#include <iomanip>
#include <limits>
#include <string>
#include <vector>

#include "../01_sequential/sequential.hpp"
#include "common/program.hpp"
#include "common/reference.hpp"
#include "reduction_tree.hpp"

using namespace reduction;

namespace {

template <typename T>
void print_tree(std::ostream& out, const std::vector<T>& values) {
  const auto levels = ch02::tree_levels<Sum>(values);
  for (std::size_t l = 0; l < levels.size(); ++l) {
    out << (l == 0 ? "inputs   " : "step " + std::to_string(l) + "   ");
    for (const T& v : levels[l]) out << " " << v;
    if (l) {
      const std::size_t additions = levels[l - 1].size() / 2;
      out << "   (" << additions << (additions == 1 ? " addition)" : " additions)");
    }
    out << "\n";
  }
}

}  // namespace

int main(int argc, char** argv) {
  ChapterInfo info;
  info.name = "02_reduction_tree";
  info.title = "the reduction tree: same work, logarithmic steps";
  info.default_n = std::size_t(1) << 26;  // past 2^24 a float loop stalls: the difference is plain
  info.default_type = DataType::Float;
  info.default_reps = 5;  // a tree over 2^26 floats takes a quarter of a second on one core

  Options options;
  CommandLine cli(info, options);
  if (auto status = cli.parse(argc, argv)) return *status;

  return run_on_cpu(info, options, [&](const auto& data, Report& report) {
    using T = typename std::decay_t<decltype(data)>::value_type;
    const std::size_t n = data.size();
    auto& text = report.text();

    // 1. The tree, drawn. Small inputs show their own tree; large ones the classic example.
    if (n <= 16) {
      text << "The reduction tree of this input, level by level:\n";
      print_tree(text, data);
    } else {
      text << "The reduction tree of a small example, level by level:\n";
      print_tree(text, std::vector<int>{3, 1, 7, 0, 4, 1, 6, 3});
    }

    // 2. The model for this n.
    const ch02::TreeModel m = ch02::tree_model(n);
    text << "\nModel for n = " << n << ":\n"
         << "  work                " << m.work << " operations (n - 1, as many as the sequential loop needs)\n"
         << "  steps               " << m.steps << " (ceil(log2 n), against n for the loop)\n"
         << "  peak parallelism    " << m.peak_parallelism << " operations at once, in the first step (floor(n/2))\n"
         << std::fixed << std::setprecision(1) << "  average parallelism " << m.average_parallelism
         << " (work / steps)\n"
         << "  ideal speedup       " << m.ideal_speedup << " (n loop steps / tree steps, with unlimited processors)\n"
         << std::defaultfloat;
    report.fields().set("model", {{"work", m.work},
                                  {"steps", m.steps},
                                  {"peak_parallelism", m.peak_parallelism},
                                  {"average_parallelism", m.average_parallelism},
                                  {"ideal_speedup", m.ideal_speedup}});

    // 3. Both orders, run and checked, each against the bound of its own depth.
    auto ref = reference_sum(data.data(), n);
    const auto tree_tol = tolerance(ref, m.steps), seq_tol = tolerance(ref, n ? n - 1 : 0);
    report.set_reference(ref, tree_tol);
    T tree_result{}, seq_result{};
    auto tree_time = time_cpu(options.warmup, options.reps, [&] { tree_result = ch02::tree_reduce<Sum>(data); });
    auto seq_time =
        time_cpu(options.warmup, options.reps, [&] { seq_result = ch01::sequential_reduce<Sum>(data.data(), n); });
    const double bytes = double(n) * sizeof(T);
    report.add_run({"tree (pairwise)", json_value(tree_result), matches(tree_result, ref, tree_tol),
                    tree_time.median_ms, gigabytes_per_second(bytes, tree_time.median_ms),
                    unchecked_reason(ref, tree_tol, m.steps)});
    report.add_run({"sequential", json_value(seq_result), matches(seq_result, ref, seq_tol), seq_time.median_ms,
                    gigabytes_per_second(bytes, seq_time.median_ms), unchecked_reason(ref, seq_tol, n ? n - 1 : 0)});

    // 4. Rounding: the same numbers, added in two orders, give two different floats.
    if constexpr (!std::is_integral_v<T>) {
      const long double tree_err = std::fabs(tree_result - ref.precise), seq_err = std::fabs(seq_result - ref.precise);
      // Relative to sum|x|; an all-zero input has none, and no error either (0/0 printed "-nan").
      auto relative = [&](long double err) { return static_cast<double>(ref.magnitude > 0 ? err / ref.magnitude : err); };
      auto& s = report.summary();
      s << std::setprecision(6) << "Rounding (" << type_name(data_type_of<T>())
        << " data, against the higher-precision reference " << static_cast<double>(ref.precise) << "):\n"
        << "  sequential  error " << static_cast<double>(seq_err) << "  (relative "
        << relative(seq_err)
        << "), bound gamma(n-1) sum|x| = " << static_cast<double>(seq_tol) << "\n"
        << "  tree        error " << static_cast<double>(tree_err) << "  (relative "
        << relative(tree_err)
        << "), bound gamma(ceil(log2 n)) sum|x| = " << static_cast<double>(tree_tol) << "\n"
        << "Floating-point addition rounds every result to the nearest representable value, so (a + b) + c and\n"
           "a + (b + c) can differ: it is not associative. The sequential loop adds each small element to an ever\n"
           "larger total and loses its low bits, again and again; the tree adds numbers of similar size and\n"
           "each element meets only ceil(log2 n) roundings. Parallel reductions change the order, so their\n"
           "float results differ from the loop's, usually for the better.\n";
      if (!bound_says_something(ref, seq_tol))
        s << "Finding: at this n the loop's bound, gamma(n-1) sum|x|, is larger than the sum itself, so it cannot\n"
             "check the loop's result, and the program does not call it verified. What happened instead is the\n"
             "lesson: a "
          << type_name(data_type_of<T>()) << " carries " << std::numeric_limits<T>::digits
          << " significant bits, so once the running total passes 2^" << std::numeric_limits<T>::digits
          << " its spacing is 2 and an\n"
             "element below 1 rounds away to nothing; the loop stops growing there. The tree never adds a small\n"
             "number to a huge one, and its bound still holds.\n";
      report.fields().set("rounding", {{"sequential_error", static_cast<double>(seq_err)},
                                       {"sequential_bound", static_cast<double>(seq_tol)},
                                       {"tree_error", static_cast<double>(tree_err)},
                                       {"tree_bound", static_cast<double>(tree_tol)}});
    }
    return report.finish();
  });
}
