// The limits a program meets outside its own code: the memory its cgroup leaves it (common/limits.cpp),
// and the exit status of a test program (common/testing/catch_session.cpp).
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "common/limits.hpp"
#include "common/program.hpp"
#include "common/testing/testing.hpp"

using namespace reduction;

namespace {
// A directory of sample cgroup files, removed when the test ends.
class SampleCgroups {
 public:
  SampleCgroups() {
    char name[] = "/tmp/reduction_cgroup_XXXXXX";
    REQUIRE(::mkdtemp(name) != nullptr);
    root_ = name;
  }
  ~SampleCgroups() { std::filesystem::remove_all(root_); }
  const std::string& root() const { return root_; }
  // Writes `text` to root/relative, making its directories.
  void write(const std::string& relative, const std::string& text) const {
    const std::filesystem::path path = root_ + "/" + relative;
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path) << text;
  }
  // A /proc/self/cgroup of these lines.
  std::string self(const std::string& lines) const {
    write("proc_self_cgroup", lines);
    return root_ + "/proc_self_cgroup";
  }

 private:
  std::string root_;
};
}  // namespace

TEST_CASE("cgroup v2: the limit is memory.max less memory.current, the tightest from the cgroup to the root",
          "[limits]") {
  SampleCgroups s;
  s.write("cg/memory.max", "max\n");  // the root of a hierarchy has no memory.max; a parent may say "max"
  s.write("cg/memory.current", "999999999999\n");
  s.write("cg/job/memory.max", "1073741824\n");
  s.write("cg/job/memory.current", "73741824\n");
  s.write("cg/job/step/memory.max", "max\n");
  s.write("cg/job/step/memory.current", "5000\n");
  const auto limit = cgroup_memory_limit(s.root(), s.self("0::/cg/job/step\n"));
  REQUIRE(limit);
  CHECK(limit->bytes == 1000000000u);
  INFO(limit->what);
  CHECK(limit->what.find("/cg/job/memory.max: 1073741824 bytes, 73741824 in use") != std::string::npos);
  CHECK(limit->what.find("leaves 1000000000 bytes") != std::string::npos);

  // A parent's tighter limit wins over the child's own.
  s.write("cg/memory.max", "500000000\n");
  s.write("cg/memory.current", "100\n");
  CHECK(cgroup_memory_limit(s.root(), s.self("0::/cg/job/step\n"))->bytes == 499999900u);
  // File cache the kernel can drop (memory.stat's inactive_file) is not counted as in use.
  s.write("cg/memory.stat", "anon 100\ninactive_file 60\nactive_file 40\n");
  CHECK(cgroup_memory_limit(s.root(), s.self("0::/cg/job/step\n"))->bytes == 499999960u);
  // Usage past the limit leaves nothing, never wraps around.
  s.write("cg/job/step/memory.max", "4096\n");
  s.write("cg/job/step/memory.current", "8192\n");
  CHECK(cgroup_memory_limit(s.root(), s.self("0::/cg/job/step\n"))->bytes == 0u);
}

TEST_CASE("cgroup v2 in a container: the path is / and the root is the container's own cgroup", "[limits]") {
  SampleCgroups s;
  s.write("memory.max", "2147483648\n");
  s.write("memory.current", "0\n");
  CHECK(cgroup_memory_limit(s.root(), s.self("0::/\n"))->bytes == 2147483648u);
  // A path of the host's that is not mounted here: the root's limit is the one that applies.
  CHECK(cgroup_memory_limit(s.root(), s.self("0::/docker/0123abcd\n"))->bytes == 2147483648u);
}

TEST_CASE("cgroup v1: memory.limit_in_bytes less memory.usage_in_bytes, in the memory hierarchy", "[limits]") {
  SampleCgroups s;
  s.write("memory/slurm/job_7/memory.limit_in_bytes", "1073741824\n");
  s.write("memory/slurm/job_7/memory.usage_in_bytes", "1048576\n");
  s.write("memory/slurm/memory.limit_in_bytes", "9223372036854771712\n");  // v1's "no limit"
  s.write("memory/memory.limit_in_bytes", "9223372036854771712\n");
  const std::string self = s.self("12:pids:/slurm/job_7\n4:cpu,memory:/slurm/job_7\n1:name=systemd:/x\n");
  const auto limit = cgroup_memory_limit(s.root(), self);
  REQUIRE(limit);
  CHECK(limit->bytes == 1072693248u);
  s.write("memory/slurm/job_7/memory.stat", "cache 1048576\ninactive_file 7\ntotal_inactive_file 524288\n");
  CHECK(cgroup_memory_limit(s.root(), self)->bytes == 1072693248u + 524288u);
  CHECK(limit->what.find("memory.limit_in_bytes") != std::string::npos);
}

TEST_CASE("no cgroup limit: nothing, and memory_limit is the machine's memory", "[limits]") {
  SampleCgroups s;
  CHECK_FALSE(cgroup_memory_limit(s.root(), s.self("0::/\n")));  // no memory.max at all
  s.write("memory.max", "max\n");
  CHECK_FALSE(cgroup_memory_limit(s.root(), s.self("0::/\n")));
  s.write("memory.max", "12 GB\n");  // not a number: ignored, not misread
  CHECK_FALSE(cgroup_memory_limit(s.root(), s.self("0::/\n")));
  CHECK_FALSE(cgroup_memory_limit(s.root() + "/absent", s.self("0::/\n")));
  CHECK_FALSE(cgroup_memory_limit(s.root(), s.root() + "/no_such_file"));
  const auto machine = host_memory_bytes();
  const auto limit = memory_limit(s.root(), s.self("0::/\n"));
  REQUIRE(machine);
  REQUIRE(limit);
  CHECK(limit->bytes == *machine);
  // A cgroup tighter than the machine: its limit, named in the refusal's words.
  s.write("memory.max", "1073741824\n");
  s.write("memory.current", "0\n");
  const auto tight = memory_limit(s.root(), s.self("0::/\n"));
  CHECK(tight->bytes == std::min<std::uint64_t>(*machine, 1073741824u));
}

// Run only by name, by the test common.cpu_tests.exit_status (testing/catch_session.cpp says why).
TEST_CASE("seventy-seven failed checks", "[.exit_status]") {
  for (int i = 0; i < 77; ++i) CHECK(i < 0);
}
