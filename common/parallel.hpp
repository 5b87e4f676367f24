// Splits [0, n) into contiguous chunks processed by the CPU's cores. Used to generate inputs
// and compute references for billions of elements in seconds, not minutes.
#pragma once

#include <algorithm>
#include <cstddef>
#include <exception>
#include <thread>
#include <vector>

namespace reduction {

inline unsigned cpu_workers(std::size_t n) {
  constexpr std::size_t kMinPerWorker = std::size_t(1) << 20;  // below this, threads cost more than they save
  unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  return static_cast<unsigned>(std::clamp<std::size_t>(n / kMinPerWorker, 1, hw));
}

// Calls fn(begin, end, worker) for `workers` contiguous chunks covering [0, n), each chunk with
// its own worker index, so that fn may keep per-worker results.
//
// Threads are a convenience, never a requirement: where one cannot be started (a process limit,
// an address-space limit), its chunk and the rest run on the calling thread, after the threads
// already started have theirs, with the same chunks and indices: the result does not change, only
// the time. The calling thread joins every thread it started before anything leaves this function.
// An exception from fn, on any thread, is carried back and rethrown here after the joins (that of
// the lowest chunk where several throw, the one a run on one thread would have met first), so it
// reaches the caller's error path instead of std::terminate.
template <typename Fn> void parallel_chunks(std::size_t n, unsigned workers, Fn fn) {
  if (workers <= 1) {
    fn(std::size_t(0), n, 0u);
    return;
  }
  const std::size_t per = (n + workers - 1) / workers;
  std::vector<std::exception_ptr> failures(workers);
  auto chunk = [&](unsigned w) {
    try {
      const std::size_t begin = std::min(n, w * per), end = std::min(n, begin + per);
      fn(begin, end, w);
    } catch (...) {
      failures[w] = std::current_exception();
    }
  };
  std::vector<std::thread> threads;
  unsigned started = 0;  // chunks 0 .. started - 1 run on threads
  try {
    threads.reserve(workers);
    for (; started < workers; ++started) threads.emplace_back(chunk, started);
  } catch (const std::exception&) {  // std::system_error (EAGAIN), or std::bad_alloc for its state
  }
  for (unsigned w = started; w < workers; ++w) chunk(w);
  for (auto& t : threads) t.join();
  for (const auto& failure : failures)
    if (failure) std::rethrow_exception(failure);
}

}  // namespace reduction
