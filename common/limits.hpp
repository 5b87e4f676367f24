// What the bodies of program.hpp (options.cpp, input.cpp, report.cpp, limits.cpp) share, and the
// emulator and the tests use, but no chapter's main calls. Above all the memory a program may take:
// the machine's, or its cgroup's limit where that is tighter. A request past it is refused with
// status 2 and the limit named, never left to the OOM killer's silent SIGKILL.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "program.hpp"

namespace reduction {

// Decimal digits only, at most 2^64 - 1; nothing for anything else (a sign, a space, "").
std::optional<std::uint64_t> parse_digits(std::string_view text);

// The names of the chapter's variants, in its order: what --kernel takes; without the bug zoo's
// (`with_zoo` false), what runs when --kernel is not given.
std::vector<std::string> variant_names(const ChapterInfo& info, bool with_zoo = true);

// Whether everything the program wrote on stdout reached it (flushed; a pipe whose reader has gone,
// a full disk, a closed stdout: one line on stderr and false, and the program exits with
// kOutputFailed, since output that never arrived must not pass for a success).
bool output_written(const std::string& program);

// Physical memory of this machine in bytes, or nothing where the system does not say.
std::optional<std::uint64_t> host_memory_bytes();

// How much memory this process may take, and where that number comes from, in words.
struct MemoryLimit {
  std::uint64_t bytes = 0;
  std::string what;  // "this machine has N bytes of memory", or the cgroup's file, limit and use
};
// What the limit of this process's cgroup leaves, the tightest of the cgroup that `self_cgroup` names
// and its ancestors under `cgroup_root` (v2: memory.max less memory.current; v1: memory/.../
// memory.limit_in_bytes less memory.usage_in_bytes; less memory.stat's inactive file cache).
std::optional<MemoryLimit> cgroup_memory_limit(const std::string& cgroup_root, const std::string& self_cgroup);
// The smaller of the machine's memory and its cgroup's limit; nothing where neither is known.
std::optional<MemoryLimit> memory_limit(const std::string& cgroup_root = "/sys/fs/cgroup",
                                        const std::string& self_cgroup = "/proc/self/cgroup");
// Why `count` elements of `element_bytes` cannot be held in memory_limit() (with machine_only, in
// the machine's memory, whatever the cgroup's limit), in words that start with `what` ("--n 5 int
// elements"), or nothing if they can.
std::optional<std::string> memory_refusal(std::uint64_t count, std::uint64_t element_bytes, const std::string& what,
                                          bool machine_only = false);

}  // namespace reduction
