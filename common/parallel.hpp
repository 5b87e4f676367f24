// Splits [0, n) into contiguous chunks processed by the CPU's cores. Used to generate inputs
// and compute references for billions of elements in seconds, not minutes.
#pragma once

#include <algorithm>
#include <cstddef>
#include <thread>
#include <vector>

namespace reduction {

inline unsigned cpu_workers(std::size_t n) {
  constexpr std::size_t kMinPerWorker = std::size_t(1) << 20;  // below this, threads cost more than they save
  unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  return static_cast<unsigned>(std::clamp<std::size_t>(n / kMinPerWorker, 1, hw));
}

// Calls fn(begin, end, worker) for `workers` contiguous chunks covering [0, n).
template <typename Fn> void parallel_chunks(std::size_t n, unsigned workers, Fn fn) {
  if (workers <= 1) {
    fn(std::size_t(0), n, 0u);
    return;
  }
  std::vector<std::thread> threads;
  std::size_t per = (n + workers - 1) / workers;
  for (unsigned w = 0; w < workers; ++w) {
    std::size_t begin = std::min(n, w * per), end = std::min(n, begin + per);
    threads.emplace_back([=] { fn(begin, end, w); });
  }
  for (auto& t : threads) t.join();
}

}  // namespace reduction
