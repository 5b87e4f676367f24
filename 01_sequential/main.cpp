// Chapter 01 program: times the sequential reduction on the CPU, the baseline of the tutorial.
//   01_sequential [--op sum|product|min|max] [--type int|float|double] [--n N] [--input FILE] [--json]
#include <optional>
#include <string>

#include "common/program.hpp"
#include "common/reference.hpp"
#include "sequential.hpp"

using namespace reduction;

int main(int argc, char** argv) {
  ChapterInfo info;
  info.name = "01_sequential";
  info.title = "the sequential reduction on the CPU, the baseline";
  info.default_n = std::size_t(1) << 24;
  info.min_n = 0;  // an empty input is valid: it reduces to the identity

  Options options;
  std::string op_text = "sum";
  CommandLine cli(info, options);
  cli.add_option("--op", op_text, "operator", {"sum", "product", "min", "max"});
  cli.add_check([&]() -> std::optional<std::string> {  // a file's NaN and +-inf: max and min take them
    options.finite_input = op_text == "sum" || op_text == "product";
    return std::nullopt;
  });
  if (auto status = cli.parse(argc, argv)) return *status;
  const OpKind op_kind = *parse_op(op_text);
  // Products of many random values overflow or vanish; feed them values close to 1.
  const Distribution dist = op_kind == OpKind::Product ? Distribution::NearOne : Distribution::Default;

  return run_on_cpu(
      info, options,
      [&](const auto& data, Report& report) {
        using T = typename std::decay_t<decltype(data)>::value_type;
        const std::size_t n = data.size();

        return dispatch_op(op_kind, [&](auto op) {
          using Op = decltype(op);
          auto ref = reference_reduce<Op>(data.data(), n);
          // The first element passes through n - 1 rounded operations (identity + x0 is exact).
          const auto tol = tolerance(ref, n ? n - 1 : 0);
          report.set_reference(ref, tol);

          T result{};
          TimingStats t =
              time_cpu(options.warmup, options.reps, [&] { result = ch01::sequential_reduce<Op>(data.data(), n); });
          // Verify the value from the last timed run (the compiler cannot drop the loop).
          report.add_run({std::string("sequential ") + Op::name, json_value(result), matches(result, ref, tol),
                          t.median_ms, gigabytes_per_second(double(n) * sizeof(T), t.median_ms),
                          unchecked_reason(ref, tol, n ? n - 1 : 0)});

          report.text() << "operator   " << Op::name << ", identity "
                        << format_value(json_value(Op::template identity<T>()), data_type_of<T>()) << "\nwork       "
                        << n << " operations (one per element, the first with the identity), in " << n
                        << " dependent steps:\n           each needs the previous result, so one core does them one "
                           "after another.\n";
          // A product's bound also carries what gradual underflow may lose (common/reference.hpp).
          const bool sum = op_kind == OpKind::Sum;
          if (!ref.exact)
            report.text()
                << "rounding   every element passes through up to n - 1 rounded operations; the result may differ "
                   "from\n"
                   "           the exact value by at most gamma(n-1) * "
                << (sum ? "sum|x|" : "|result| + what underflow may lose") << " = " << static_cast<double>(tol)
                << (bound_says_something(ref, tol) ? ""
                    : sum ? "\n           which is not smaller than the sum itself: the bound says nothing, and the\n"
                            "           result is reported unchecked (chapter 02 shows what goes wrong)"
                          : "\n           and the result is reported unchecked, for the reason given below")
                << "\n";
          report.fields().set("op", Op::name);
          report.fields().set("operations", n);
          report.fields().set("tolerance", static_cast<double>(tol));
          return report.finish();
        });
      },
      dist);
}
