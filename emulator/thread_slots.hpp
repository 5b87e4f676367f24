// What chapters 03 and 04 print of how the threads of a block are spent. A warp holds all 32 of
// its thread slots for a step in which any of its threads adds, so the cost of a step is its
// active warps; the program prints them step by step, counted (block_model.hpp) from the steps of
// the kernel's own run on the CPU emulator, and beside them the closed form that PMPP (10.4) gives.
#pragma once

#include <cmath>
#include <cstdio>
#include <optional>
#include <ostream>
#include <string>

#include "common/program.hpp"
#include "emulator/analysis.hpp"
#include "emulator/block_model.hpp"

namespace reduction::single_block {

// The step table and the efficiency, with the text's closed form beside it.
//   predicate: when a thread adds, in words (the chapter's heading for the table).
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
inline reduction::Json efficiency_json(const BlockCounts& c) {
  return {{"ops", c.ops}, {"warp_steps", c.warp_steps}, {"thread_slots", c.thread_slots}, {"efficiency", c.efficiency}};
}

inline reduction::Json closed_form_json(const ClosedForm& text) {
  reduction::Json j = reduction::Json::object();
  j.set("formula", text.formula);
  j.set("thread_slots", text.thread_slots ? reduction::Json(*text.thread_slots) : reduction::Json());
  return j;
}

}  // namespace reduction::single_block
