// Timing statistics and the CPU timer. (The GPU timer, with CUDA events, is in gpu.cuh.)
#pragma once

#include <algorithm>
#include <chrono>
#include <vector>

namespace reduction {

struct TimingStats {
  double median_ms = 0, min_ms = 0, max_ms = 0;
  int reps = 0;
};

// The median resists the outliers (a context switch, a clock ramp) that would move a mean.
inline TimingStats summarize(std::vector<double> times_ms) {
  TimingStats s;
  if (times_ms.empty()) return s;
  std::sort(times_ms.begin(), times_ms.end());
  const std::size_t m = times_ms.size();
  s.median_ms = m % 2 ? times_ms[m / 2] : (times_ms[m / 2 - 1] + times_ms[m / 2]) / 2;
  s.min_ms = times_ms.front();
  s.max_ms = times_ms.back();
  s.reps = static_cast<int>(m);
  return s;
}

// Runs fn `warmup` times untimed (caches, page faults), then `reps` times timed.
template <typename Fn> TimingStats time_cpu(int warmup, int reps, Fn&& fn) {
  for (int i = 0; i < warmup; ++i) fn();
  std::vector<double> times;
  for (int i = 0; i < reps; ++i) {
    auto start = std::chrono::steady_clock::now();
    fn();
    auto stop = std::chrono::steady_clock::now();
    times.push_back(std::chrono::duration<double, std::milli>(stop - start).count());
  }
  return summarize(times);
}

// Effective bandwidth: bytes moved over time, in GB/s (10^9 bytes per second).
inline double gigabytes_per_second(double bytes, double time_ms) {
  return time_ms > 0 ? bytes / (time_ms * 1e6) : 0.0;
}

}  // namespace reduction
