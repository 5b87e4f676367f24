// A chapter program's frame: the exit statuses, the guard that maps failures to them, and the
// input every chapter starts from (the user's file, or seeded random data).
#pragma once

#include <exception>
#include <functional>
#include <iostream>
#include <limits>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "errors.hpp"
#include "escape.hpp"
#include "input.hpp"
#include "options.hpp"
#include "report.hpp"

namespace reduction {

enum ExitStatus : int {
  kVerified = 0,     // every result matched the CPU reference
  kWrongResult = 1,  // a result did not
  kBadUsage = 2,     // bad option or bad input (message on stderr)
  kCudaFailed = 3,   // a CUDA call failed (call, file and line on stderr)
  kInternal = 4,     // a bug in the program itself (message on stderr)
  kOutputFailed = 5, // stdout could not be written: closed, full, or a pipe nobody reads (one line on stderr)
  kNotVerified = 6,  // it ran, but no result could be checked: every one is unchecked (its error bound says nothing)
  kNoGpu = 77,       // no usable GPU; CTest reports the test as skipped
};

// Runs body(), turning the exceptions that escape it into exit statuses with a message. This is
// the one place where a failure becomes a status: 1 only ever comes from a result that did not
// match (Report::finish), never from an exception.
inline int run_guarded(const std::string& program, const std::function<int()>& body) {
  try {
    return body();
  } catch (const InputError& e) {
    std::cerr << program << ": error: " << e.what() << "\n";
    return kBadUsage;
  } catch (const CudaFailure&) {
    return kCudaFailed;  // throw_cuda_error has printed the details
  } catch (const std::bad_alloc&) {
    std::cerr << program << ": error: not enough host memory for this input\n";
    return kBadUsage;
  } catch (const std::length_error&) {  // a container asked for more than it can ever hold
    std::cerr << program << ": error: the input is too large for this machine's memory\n";
    return kBadUsage;
  } catch (const std::exception& e) {
    std::cerr << program << ": internal error (please report it): " << e.what() << "\n";
    return kInternal;
  }
}

// Calls body(data, description) with the data of --input, or with generated data of --n
// elements of --type. The file's size is checked against the chapter's limits like --n's.
template <typename Body>
int with_input(const ChapterInfo& info, const Options& options, Body&& body, Distribution d = Distribution::Default) {
  HostData data;
  std::string source;
  if (!options.input.empty()) {
    data = load_chapter_input(info, options.input);
    source = "file " + escaped(options.input, 200);
  } else {
    source = "random, seed " + std::to_string(options.seed);
    dispatch_type(options.type, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if (info.device_room)  // refuse what the GPU cannot hold before filling host memory with it
        if (auto why = info.device_room(options.n * sizeof(T))) throw InputError(*why);
      data = generate_input<T>(options.n, options.seed, d);
    });
  }
  return std::visit([&](auto& v) { return body(v, source); }, data);
}

// The frame of the CPU chapters (01, 02): guarded, on the input of the options, with a report of a
// run on one CPU core. Calls body(data, report) and returns what it returns.
template <typename Body>
int run_on_cpu(const ChapterInfo& info, const Options& options, Body&& body, Distribution d = Distribution::Default) {
  return run_guarded(info.name, [&] {
    return with_input(
        info, options,
        [&](const auto& data, const std::string& source) {
          using T = typename std::decay_t<decltype(data)>::value_type;
          Report report(info, options);
          report.set_device("CPU, one core");
          report.set_input(data_type_of<T>(), data.size(), source);
          return body(data, report);
        },
        d);
  });
}

}  // namespace reduction
