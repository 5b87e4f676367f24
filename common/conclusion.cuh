// The driver's last stage before the report is printed (common/driver.cuh): what the chapter's
// facts ask it to conclude from the runs. A sweep with a SweepRule names its best variant and says
// where it stopped; a headline variant gets its share of the read ceiling and its throughput over
// the baseline's.
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

#include "chapter.cuh"
#include "report.hpp"

namespace reduction {

// The run with the shortest median time.
inline std::size_t fastest_run(const std::vector<RunResult>& runs) {
  std::size_t best = 0;
  for (std::size_t k = 1; k < runs.size(); ++k)
    if (runs[k].time_ms < runs[best].time_ms) best = k;
  return best;
}

// Whether a sweep under `rule` stops after these runs: the last is clearly slower than the best.
inline bool sweep_stops(const SweepRule& rule, const std::vector<RunResult>& runs) {
  return rule.clearly_slower > 0 && runs.back().time_ms > rule.clearly_slower * runs[fastest_run(runs)].time_ms;
}

// The conclusion the chapter's facts ask for: a sweep's best and where it stopped (SweepRule), and
// the headline variant's share of the read ceiling and its throughput over the baseline's.
template <typename Chapter> void conclude(Report& report, const std::vector<RunResult>& runs, bool sweep) {
  auto& summary = report.summary();
  char line[256];
  if (Chapter::sweep.clearly_slower > 0 && !runs.empty()) {
    const RunResult& winner = runs[fastest_run(runs)];
    if (runs.size() > 1) {
      std::snprintf(line, sizeof line, "best       %s: %.1f GB/s, %.1f%% of the copy, %.2fx the throughput of %s\n",
                    winner.kernel.c_str(), winner.gbps, column_of(winner, "pct_of_copy"), winner.gbps / runs.front().gbps,
                    runs.front().kernel.c_str());
      summary << line;
      const RunResult& last = runs.back();
      if (sweep && sweep_stops(Chapter::sweep, runs)) {
        std::snprintf(line, sizeof line, "sweep      stopped at %s, %.0f%% slower than %s: past there, %s\n",
                      last.kernel.c_str(), 100 * (last.time_ms / winner.time_ms - 1), winner.kernel.c_str(),
                      Chapter::sweep.past_there);
        summary << line;
      } else {
        summary << "sweep      nothing up to " << last.kernel << " was clearly slower than the best so far\n";
      }
    }
    report.fields().set("best", winner.kernel);
  }
  const std::string headline = Chapter::headline, baseline = Chapter::baseline;
  const RunResult *head = nullptr, *base = nullptr;
  for (const auto& r : runs) {
    if (r.kernel == headline) head = &r;
    if (r.kernel == baseline) base = &r;
  }
  if (head && column_of(*head, "pct_of_read") > 0) {
    std::snprintf(line, sizeof line, "%-10s %.1f %% of the read ceiling\n", headline.c_str(),
                  column_of(*head, "pct_of_read"));
    summary << line;
    report.fields().set(headline + "_pct_of_read", column_of(*head, "pct_of_read"));
  }
  if (head && base) {
    const double ratio = base->time_ms / head->time_ms;
    std::snprintf(line, sizeof line, "%s/%s throughput ratio %.3f (%s %s, %s %s; medians of %zu runs each)\n",
                  headline.c_str(), baseline.c_str(), ratio, baseline.c_str(), format_time(base->time_ms).c_str(),
                  headline.c_str(), format_time(head->time_ms).c_str(), std::size_t(report.options().reps));
    summary << line;
    report.fields().set(headline + "_vs_" + baseline, ratio);
  }
}

}  // namespace reduction
