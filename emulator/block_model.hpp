// The execution-resource and memory counts of a single-block reduction (chapters 03 to 05),
// computed from the steps its threads took (block_events.hpp), and how the programs print them.
// count() goes through each step warp by warp and counts:
//  - active threads and warps: a warp holds all 32 of its thread slots for a step in which any of
//    its threads adds, however few;
//  - global-memory reads and writes, in elements;
//  - requests and sectors. A request is one load or store instruction executed by one warp (a warp
//    none of whose threads takes part makes none); the memory system serves it in the distinct
//    aligned 32-byte sectors its threads' addresses fall into (Volta onward). The array is assumed
//    to start on a 32-byte boundary, as cudaMalloc's allocations do.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <limits>
#include <map>
#include <ostream>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "analysis.hpp"
#include "block_events.hpp"
#include "common/program.hpp"

namespace reduction::single_block {

constexpr std::size_t kSectorBytes = 32;  // the unit in which global memory serves a request

struct StepCounts {
  std::string name;  // "stride 4", "load, stride 512", "result"
  unsigned stride = 0;
  bool adds = false;  // a step of the tree: it enters the execution-resource model
  std::size_t active_threads = 0, active_warps = 0;
  std::size_t reads = 0, writes = 0;                             // elements
  std::size_t requests = 0, sectors = 0;                         // over all warps
  std::size_t min_request_sectors = 0, max_request_sectors = 0;  // over the step's requests
};

struct BlockCounts {
  unsigned threads = 0;
  std::size_t element_bytes = 0;
  std::vector<StepCounts> steps;                                 // the tree's, then the result
  std::size_t ops = 0;                                           // additions: the active threads of every step
  std::size_t warp_steps = 0;                                    // active warps, summed over the steps of the tree
  std::size_t thread_slots = 0;                                  // 32 per warp-step
  double efficiency = std::numeric_limits<double>::quiet_NaN();  // ops / thread_slots (none: no slots)
  std::size_t reads = 0, writes = 0, requests = 0, sectors = 0;
};

// Of the bytes in the sectors the requests touched, the share that a thread loaded or stored.
inline double used_fraction(std::size_t reads, std::size_t writes, std::size_t sectors, std::size_t element_bytes) {
  if (!sectors) return std::numeric_limits<double>::quiet_NaN();
  return double((reads + writes) * element_bytes) / double(sectors * kSectorBytes);
}

// A step's name: "load" where it brings the input into shared memory, and its stride.
inline std::string step_name(const Step& step) {
  const bool load = !step.operations.empty() && step.operations.front().target == Array::kPartial &&
                    step.operations.front().source == Array::kData;
  if (!step.stride) return load ? "load" : "copy";
  return (load ? "load, stride " : "stride ") + std::to_string(step.stride);
}

// The counts of one step's lines, with the name, stride and adds given. The threads of a warp that
// make the same access (the first load, the second, or the store) make one request, whether they then
// add or copy.
inline StepCounts count_step(const std::vector<Operation>& lines, std::size_t element_bytes, std::string name = "",
                             unsigned stride = 0, bool adds = false) {
  StepCounts c{std::move(name), stride, adds};
  std::set<unsigned> warps;
  std::map<std::pair<int, unsigned>, std::set<std::size_t>> requests;  // (access, warp) -> its sectors
  auto access = [&](int which, unsigned warp, Array array, std::size_t element, bool write) {
    if (array == Array::kPartial) return;  // shared memory: no request to global memory
    const std::size_t first_byte = element * element_bytes, last_byte = first_byte + element_bytes - 1;
    for (std::size_t sector = first_byte / kSectorBytes; sector <= last_byte / kSectorBytes; ++sector)
      requests[{which, warp}].insert(sector);
    ++(write ? c.writes : c.reads);
  };
  for (const Operation& line : lines) {
    const unsigned warp = line.thread / kWarpSize;
    if (line.kind == Operation::kAdd) {
      ++c.active_threads;
      warps.insert(warp);
    }
    access(0, warp, line.source, line.first, false);
    if (line.kind == Operation::kAdd) access(1, warp, line.source, line.second, false);
    access(2, warp, line.target, line.index, true);
  }
  c.active_warps = warps.size();
  for (const auto& [request, sectors] : requests) {
    c.min_request_sectors = c.requests ? std::min(c.min_request_sectors, sectors.size()) : sectors.size();
    c.max_request_sectors = std::max(c.max_request_sectors, sectors.size());
    ++c.requests;
    c.sectors += sectors.size();
  }
  return c;
}

// The counts of a launch's steps, for elements of element_bytes each in a block of `threads`.
inline BlockCounts count(const Steps& steps, unsigned threads, std::size_t element_bytes) {
  BlockCounts total;
  total.threads = threads;
  total.element_bytes = element_bytes;
  auto add = [&](StepCounts c) {
    if (c.adds) {
      total.ops += c.active_threads;
      total.warp_steps += c.active_warps;
    }
    total.reads += c.reads;
    total.writes += c.writes;
    total.requests += c.requests;
    total.sectors += c.sectors;
    total.steps.push_back(std::move(c));
  };
  for (const Step& step : steps.tree)
    add(count_step(step.operations, element_bytes, step_name(step), step.stride, true));
  add(count_step(steps.results, element_bytes, "result"));
  total.thread_slots = total.warp_steps * kWarpSize;
  if (total.thread_slots) total.efficiency = double(total.ops) / double(total.thread_slots);
  return total;
}

// The steps of the tree: the dependent steps a launch works through, with a barrier between them.
inline std::size_t tree_steps(const BlockCounts& c) {
  return std::count_if(c.steps.begin(), c.steps.end(), [](const StepCounts& s) { return s.adds; });
}

inline std::string percent(double fraction) {
  if (std::isnan(fraction)) return "n/a";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100 * fraction);
  return buf;
}

// "one block of 512 threads (16 warps)"
inline std::string describe_block(unsigned threads) {
  const unsigned warps = warps_for(threads);
  return "one block of " + std::to_string(threads) + (threads == 1 ? " thread" : " threads") + " (" +
         std::to_string(warps) + (warps == 1 ? " warp" : " warps") + ")";
}

// The analysis's first lines: the block the algorithm dictates, and the rows.
inline void print_launch(std::ostream& out, unsigned threads, std::size_t rows) {
  out << "launch     " << describe_block(threads) << ": n/2 threads rounded up to a power of two. The\n"
      << "           algorithm fixes the block size, so this chapter has no --block option.\n";
  if (rows > 1)
    out << "rows       " << rows << " rows of n, one block each: block b reduces elements [b n, b n + n) into\n"
        << "           result[b]. What follows describes one block; every block does the same on its row.\n";
}

// Global memory per launch, counted from the kernel's accesses.
inline void print_memory(std::ostream& out, const BlockCounts& c, const char* type) {
  const std::size_t used = (c.reads + c.writes) * c.element_bytes, fetched = c.sectors * kSectorBytes;
  out << "Global memory per launch, counted from the kernel's accesses (" << c.element_bytes << "-byte " << type
      << " elements):\n"
      << "  reads     " << c.reads << (c.reads == 1 ? " element\n" : " elements\n") << "  writes    " << c.writes
      << (c.writes == 1 ? " element\n" : " elements\n") << "  requests  " << c.requests
      << " (warp-wide loads and stores)\n"
      << "  sectors   " << c.sectors << " (" << kSectorBytes << " bytes each, touched by the requests): " << used
      << " of their " << fetched << " bytes used ("
      << percent(used_fraction(c.reads, c.writes, c.sectors, c.element_bytes)) << ")\n";
}

// The JSON of the analysis: "launch", "memory" and "steps".
inline Json launch_json(unsigned threads, std::size_t rows) {
  return {{"blocks", rows}, {"threads", threads}, {"warps", warps_for(threads)}};
}

inline Json memory_json(const BlockCounts& c) {
  return {{"element_bytes", c.element_bytes},
          {"reads", c.reads},
          {"writes", c.writes},
          {"requests", c.requests},
          {"sectors", c.sectors},
          {"sector_bytes", kSectorBytes},
          {"used_fraction", used_fraction(c.reads, c.writes, c.sectors, c.element_bytes)}};
}

inline Json steps_json(const BlockCounts& c) {
  Json steps = Json::array();
  for (const StepCounts& s : c.steps) {
    Json j = {{"step", s.name}};
    if (s.stride) j.set("stride", s.stride);
    if (s.adds) {
      j.set("active_threads", s.active_threads);
      j.set("active_warps", s.active_warps);
    }
    j.set("reads", s.reads);
    j.set("writes", s.writes);
    j.set("requests", s.requests);
    j.set("sectors", s.sectors);
    j.set("max_sectors_per_request", s.max_request_sectors);
    steps.push(std::move(j));
  }
  return steps;
}

// What chapters 03 and 04 print of how the threads of a block are spent: the step table (headed by
// `predicate`, when a thread adds) and the efficiency, with the text's closed form (PMPP 10.4) beside it.
inline void print_execution_model(std::ostream& out, const BlockCounts& c, const std::string& predicate,
                                  const ClosedForm& text, const char* type) {
  out << "Execution resources, counted warp by warp from the kernel's own run on the CPU emulator:\n"
      << "  " << predicate << "\n\n";
  char line[160];
  std::snprintf(line, sizeof line, "  %4s  %6s  %14s  %12s  %19s  %10s\n", "step", "stride", "active threads",
                "active warps", "sectors per request", "bytes used");
  out << line;
  int step = 0;
  for (const StepCounts& s : c.steps) {
    if (!s.adds) continue;
    const std::string sectors =
        !s.requests ? "-"
        : s.min_request_sectors == s.max_request_sectors
            ? std::to_string(s.max_request_sectors)
            : std::to_string(s.min_request_sectors) + "-" + std::to_string(s.max_request_sectors);
    std::snprintf(line, sizeof line, "  %4d  %6u  %14zu  %12zu  %19s  %10s\n", ++step, s.stride, s.active_threads,
                  s.active_warps, sectors.c_str(),
                  percent(used_fraction(s.reads, s.writes, s.sectors, c.element_bytes)).c_str());
    out << line;
  }
  out << "  (a request: one warp's load of data[owner], its load of data[partner] or its store to\n"
      << "   data[owner], three per active warp and step; its sectors: the 32-byte blocks of memory its\n"
      << "   threads' addresses fall into, with " << c.element_bytes << "-byte " << type
      << " elements; bytes used: the share of those\n"
      << "   sectors' bytes that the threads load or store)\n\n"
      << "A warp holds all 32 of its thread slots in a step where any of its threads is active:\n"
      << "  " << c.warp_steps << " warp-steps x 32 = " << c.thread_slots << " thread slots for " << c.ops
      << " additions: efficiency " << percent(c.efficiency) << "\n"
      << "  the text's closed form " << text.formula << "\n  ";
  if (!text.thread_slots) {
    out << "does not apply: it is meant for " << text.applies_to << "\n";
    return;
  }
  out << "gives " << *text.thread_slots << " thread slots (efficiency "
      << percent(*text.thread_slots ? double(c.ops) / double(*text.thread_slots) : std::nan("")) << ")";
  if (*text.thread_slots == c.thread_slots)
    out << ": it agrees\n";
  else
    out << ", " << (*text.thread_slots < c.thread_slots ? "too few" : "too many") << ": " << text.difference << "\n";
}

// The JSON of the analysis: "efficiency" and "text_closed_form".
inline Json efficiency_json(const BlockCounts& c) {
  return {{"ops", c.ops}, {"warp_steps", c.warp_steps}, {"thread_slots", c.thread_slots}, {"efficiency", c.efficiency}};
}

inline Json closed_form_json(const ClosedForm& text) {
  Json j = {{"formula", text.formula}};
  j.set("thread_slots", text.thread_slots ? Json(*text.thread_slots) : Json());
  return j;
}

}  // namespace reduction::single_block
