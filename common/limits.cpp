// The memory a program may use (limits.hpp); a cgroup's limit is a container's --memory, Slurm's
// --mem or systemd's MemoryMax.
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <sys/stat.h>

#include "limits.hpp"

namespace reduction {
namespace {

bool is_directory(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// The number in a cgroup file: digits and a newline. "max" (v2's "no limit"), a missing file or
// anything else: nothing.
std::optional<std::uint64_t> read_number(const std::string& path) {
  std::ifstream in(path);
  std::string text;
  if (!in || !std::getline(in, text)) return std::nullopt;
  return parse_digits(text);
}

// The value of `key` in a memory.stat file ("inactive_file 4096" a line), or nothing.
std::optional<std::uint64_t> read_stat(const std::string& path, const std::string& key) {
  std::ifstream in(path);
  std::string name, value;
  while (in >> name >> value)
    if (name == key) return parse_digits(value);
  return std::nullopt;
}

// The path of this process's cgroup in the hierarchy that `v2` names (the unified one, "0::/path"),
// or the v1 hierarchy of the memory controller ("4:memory:/path", "7:cpu,memory:/path").
std::optional<std::string> cgroup_path(const std::string& self_cgroup, bool v2) {
  std::ifstream in(self_cgroup);
  std::string line;
  while (std::getline(in, line)) {
    const auto first = line.find(':'), second = first == std::string::npos ? first : line.find(':', first + 1);
    if (second == std::string::npos) continue;
    const std::string id = line.substr(0, first), controllers = line.substr(first + 1, second - first - 1);
    const std::string path = line.substr(second + 1);
    if (v2 && id == "0" && controllers.empty()) return path;
    if (!v2) {
      std::istringstream list(controllers);
      for (std::string c; std::getline(list, c, ',');)
        if (c == "memory") return path;
    }
  }
  return std::nullopt;
}

// The tightest limit from the process's cgroup up to the hierarchy's root, each read from the files
// of the version: every ancestor's limit applies too.
std::optional<MemoryLimit> tightest(const std::string& root, const std::string& path, const char* limit_file,
                                    const char* usage_file, const char* inactive_file) {
  if (!is_directory(root)) return std::nullopt;
  // In a container with a cgroup namespace the path is "/" and the root is the container's own
  // cgroup; without one, the path may be the host's, not mounted here: then the root is ours.
  std::string relative = path;
  while (!relative.empty() && relative.back() == '/') relative.pop_back();
  if (!is_directory(root + relative)) relative.clear();
  std::optional<MemoryLimit> best;
  for (;;) {
    const std::string dir = root + relative;
    const auto limit = read_number(dir + "/" + limit_file);
    // v1 writes "no limit" as a number near 2^63; no machine has 2^62 bytes.
    if (limit && *limit < (std::uint64_t(1) << 62)) {
      // What is in use, less the file cache the kernel would drop before it kills anything
      // (memory.stat's inactive file pages, as `docker stats` counts it).
      const std::uint64_t usage = read_number(dir + "/" + usage_file).value_or(0);
      const std::uint64_t inactive = read_stat(dir + "/memory.stat", inactive_file).value_or(0);
      const std::uint64_t used = usage - std::min(usage, inactive);
      const std::uint64_t left = used < *limit ? *limit - used : 0;
      if (!best || left < best->bytes)
        best = MemoryLimit{left, "the memory limit of this process's cgroup (" + dir + "/" + limit_file + ": " +
                                     std::to_string(*limit) + " bytes, " + std::to_string(used) + " in use) leaves " +
                                     std::to_string(left) + " bytes"};
    }
    if (relative.empty()) break;
    const auto slash = relative.rfind('/');
    relative.erase(slash == std::string::npos ? 0 : slash);
  }
  return best;
}

std::optional<MemoryLimit> machine_limit() {
  const auto machine = host_memory_bytes();
  if (!machine) return std::nullopt;
  return MemoryLimit{*machine, "this machine has " + std::to_string(*machine) + " bytes of memory"};
}

}  // namespace

std::optional<std::uint64_t> host_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page_size = ::sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0) return std::nullopt;
  return std::uint64_t(pages) * std::uint64_t(page_size);
}

std::optional<MemoryLimit> cgroup_memory_limit(const std::string& cgroup_root, const std::string& self_cgroup) {
  if (auto path = cgroup_path(self_cgroup, true))
    if (auto limit = tightest(cgroup_root, *path, "memory.max", "memory.current", "inactive_file")) return limit;
  if (auto path = cgroup_path(self_cgroup, false))
    return tightest(cgroup_root + "/memory", *path, "memory.limit_in_bytes", "memory.usage_in_bytes",
                    "total_inactive_file");
  return std::nullopt;
}

std::optional<MemoryLimit> memory_limit(const std::string& cgroup_root, const std::string& self_cgroup) {
  std::optional<MemoryLimit> limit = machine_limit();
  if (auto cgroup = cgroup_memory_limit(cgroup_root, self_cgroup))
    if (!limit || cgroup->bytes < limit->bytes) limit = std::move(cgroup);
  return limit;
}

std::optional<std::string> memory_refusal(std::uint64_t count, std::uint64_t element_bytes, const std::string& what,
                                          bool machine_only) {
  const std::optional<MemoryLimit> limit = machine_only ? machine_limit() : memory_limit();
  if (!limit || count <= limit->bytes / element_bytes) return std::nullopt;
  const std::string needed = count > std::numeric_limits<std::uint64_t>::max() / element_bytes
                                 ? "more than " + std::to_string(std::numeric_limits<std::uint64_t>::max())
                                 : std::to_string(count * element_bytes);
  return what + " take " + needed + " bytes, and " + limit->what;
}

}  // namespace reduction
