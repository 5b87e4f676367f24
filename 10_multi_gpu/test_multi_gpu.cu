// Chapter 10 on the GPU: the shard's partial (chapter 09's fastest), then the NCCL combine or the
// peer combine, on one GPU and on every visible GPU (one process), against the CPU reference of the
// whole array; n < G included; results poisoned before every launch. The program's own runs on 2
// and 4 GPUs, and under mpirun, are tests of CMakeLists.txt (skipped where GPUs are missing).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <limits>
#include <memory>
#include <vector>

#include "common/gpu.cuh"
#include "common/program.hpp"
#include "common/reference.hpp"
#include "common/testing/testing.hpp"
#include "analysis.cuh"  // sharded_sum_depth; multi_gpu.cuh

using namespace reduction;
using ch10::Shard;

namespace {

// The GPUs 0 to G - 1 of this process, with one communicator each (ncclCommInitAll).
class Team {
 public:
  explicit Team(int gpus) : comms_(gpus), streams_(gpus) {
    std::vector<int> devices(gpus);
    for (int g = 0; g < gpus; ++g) devices[g] = g;
    NCCL_CHECK(ncclCommInitAll(comms_.data(), gpus, devices.data()));
    for (int g = 0; g < gpus; ++g) {
      CUDA_CHECK(cudaSetDevice(g));
      CUDA_CHECK(cudaStreamCreate(&streams_[g]));
    }
  }
  ~Team() {
    for (int g = 0; g < size(); ++g) {
      cudaSetDevice(g);
      cudaStreamSynchronize(streams_[g]);
      cudaStreamDestroy(streams_[g]);
      ncclCommDestroy(comms_[g]);
    }
    cudaSetDevice(0);
  }
  int size() const { return static_cast<int>(comms_.size()); }
  ncclComm_t comm(int g) const { return comms_[g]; }
  cudaStream_t stream(int g) const { return streams_[g]; }
  void synchronize() const {
    for (int g = 0; g < size(); ++g) {
      CUDA_CHECK(cudaSetDevice(g));
      CUDA_CHECK(cudaStreamSynchronize(streams_[g]));
    }
  }

 private:
  std::vector<ncclComm_t> comms_;
  std::vector<cudaStream_t> streams_;
};

int visible_gpus() {
  int count = 0;
  CUDA_CHECK(cudaGetDeviceCount(&count));
  return count;
}

// One GPU's part: its shard on the device, a partial and a total (poisoned).
template <typename T>
struct Part {
  DeviceBuffer<T> shard, partial{1}, total{1};
  DeviceScratch scratch;
};

// The sum of `data` over the team's GPUs, exactly as the program computes it; returns every GPU's total.
template <typename T>
std::vector<T> sharded_sum(const Team& team, const std::vector<T>& data) {
  const int G = team.size();
  std::vector<std::unique_ptr<Part<T>>> parts;
  for (int g = 0; g < G; ++g) {
    CUDA_CHECK(cudaSetDevice(g));
    const Shard s = ch10::shard_of(data.size(), G, g);
    auto part = std::make_unique<Part<T>>();
    if (s.count) part->shard = DeviceBuffer<T>(std::vector<T>(data.begin() + s.begin, data.begin() + s.end()));
    part->partial.poison();
    part->total.poison();
    parts.push_back(std::move(part));
  }
  for (int g = 0; g < G; ++g) {
    CUDA_CHECK(cudaSetDevice(g));
    ch10::launch_shard_partial(parts[g]->shard.data(), parts[g]->shard.size(), parts[g]->partial.data(),
                               parts[g]->scratch, team.stream(g));
  }
  NCCL_CHECK(ncclGroupStart());
  for (int g = 0; g < G; ++g)
    ch10::launch_combine(parts[g]->partial.data(), parts[g]->total.data(), 1, team.comm(g), team.stream(g));
  NCCL_CHECK(ncclGroupEnd());
  team.synchronize();
  std::vector<T> totals;
  for (int g = 0; g < G; ++g) {
    CUDA_CHECK(cudaSetDevice(g));
    totals.push_back(parts[g]->total.download_one());
    parts[g].reset();  // freed with its GPU current
  }
  CUDA_CHECK(cudaSetDevice(0));
  return totals;
}

template <typename T>
void check_sharded_sum(const Team& team, std::size_t n) {
  const auto seed = testing::fresh_seed();
  const int G = team.size();
  INFO("seed " << seed << ", n = " << n << ", G = " << G);
  const auto data = generate_input<T>(n, seed);
  const auto ref = reference_sum(data.data(), n);
  CUDA_CHECK(cudaSetDevice(0));
  const long double tol = tolerance(ref, ch10::sharded_sum_depth<T>(ch10::largest_shard(n, G), G));
  const auto totals = sharded_sum(team, data);
  for (int g = 0; g < G; ++g) {
    INFO("the total on GPU " << g);
    CHECK_MATCHES(totals[g], ref, tol);
  }
}

const std::vector<std::size_t> kSizes = {1, 2, 3, 7, 1023, 1025, (std::size_t(1) << 20) + 1, 3000017};

}  // namespace

TEMPLATE_TEST_CASE("one GPU: fastest's partial through a one-rank all-reduce is the sum", "[multi_gpu]", std::int32_t,
                   float, double) {
  const Team team(1);
  for (std::size_t n : kSizes) check_sharded_sum<TestType>(team, n);
}

TEMPLATE_TEST_CASE("every visible GPU: the sharded sum, n < G and n not divisible by G included", "[multi_gpu]",
                   std::int32_t, float, double) {
  const int G = std::min(visible_gpus(), 8);
  const Team team(G);
  std::vector<std::size_t> sizes = kSizes;
  for (std::size_t n : {std::size_t(G) - 1, std::size_t(G) + 1, std::size_t(3) * G})
    if (n > 0) sizes.push_back(n);
  for (std::size_t n : sizes) check_sharded_sum<TestType>(team, n);
}

TEST_CASE("an empty shard's partial is 0, and it still joins the combine", "[multi_gpu]") {
  const Team team(1);
  DeviceBuffer<float> partial(1), total(1);
  DeviceScratch scratch;
  partial.poison();
  total.poison();
  ch10::launch_shard_partial<float>(nullptr, 0, partial.data(), scratch, team.stream(0));
  ch10::launch_combine(partial.data(), total.data(), 1, team.comm(0), team.stream(0));
  team.synchronize();
  CHECK(partial.download_one() == 0.0f);
  CHECK(total.download_one() == 0.0f);
}

TEST_CASE("the int partials wrap around modulo 2^32 in the combine, as on the CPU", "[multi_gpu]") {
  const int G = std::min(visible_gpus(), 8);
  const Team team(G);
  // Each GPU's shard sums to 2^31 - 1 - g: any two of them overflow 32 bits.
  std::vector<std::int32_t> data;
  for (int g = 0; g < G; ++g) data.push_back(std::numeric_limits<std::int32_t>::max() - g);
  const auto ref = reference_sum(data.data(), data.size());
  const auto totals = sharded_sum(team, data);
  for (int g = 0; g < G; ++g) CHECK(totals[g] == ref.value);
}

TEST_CASE("the same combine adds whole vectors element by element", "[multi_gpu]") {
  const int G = std::min(visible_gpus(), 8);
  const Team team(G);
  const std::size_t count = 100003;
  std::vector<std::unique_ptr<DeviceBuffer<float>>> sends, receives;
  for (int g = 0; g < G; ++g) {
    CUDA_CHECK(cudaSetDevice(g));
    std::vector<float> values(count);
    for (std::size_t i = 0; i < count; ++i) values[i] = float((i + g) % 5);
    sends.push_back(std::make_unique<DeviceBuffer<float>>(values));
    receives.push_back(std::make_unique<DeviceBuffer<float>>(count));
    receives.back()->poison();
  }
  NCCL_CHECK(ncclGroupStart());
  for (int g = 0; g < G; ++g) ch10::launch_combine(sends[g]->data(), receives[g]->data(), count, team.comm(g), team.stream(g));
  NCCL_CHECK(ncclGroupEnd());
  team.synchronize();
  for (int g = 0; g < G; ++g) {
    CUDA_CHECK(cudaSetDevice(g));
    const auto got = receives[g]->download();
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < count; ++i) {
      float expected = 0;
      for (int r = 0; r < G; ++r) expected += float((i + r) % 5);
      wrong += got[i] != expected;
    }
    INFO("GPU " << g);
    CHECK(wrong == 0);
    sends[g].reset();
    receives[g].reset();
  }
  CUDA_CHECK(cudaSetDevice(0));
}

namespace {

// Holds a GPU's stream back for about `cycles` clock cycles: the other GPUs run ahead meanwhile.
__global__ void hold(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

// GPUs 0 to G - 1 with peer access on and a zeroed mailbox each, as main.cu's connect_peers makes
// them for one process; empty where a pair of GPUs has no peer access.
struct Mailboxes {
  std::vector<std::unique_ptr<DeviceBuffer<unsigned long long>>> memory;
  std::vector<ch10::PeerMailboxes> of_gpu;
  explicit Mailboxes(int G) {
    for (int a = 0; a < G; ++a)
      for (int b = 0; b < G; ++b) {
        int can = 1;
        if (a != b) CUDA_CHECK(cudaDeviceCanAccessPeer(&can, a, b));
        if (!can) return;
      }
    for (int g = 0; g < G; ++g) {
      CUDA_CHECK(cudaSetDevice(g));
      for (int other = 0; other < G; ++other) {
        const cudaError_t e = other == g ? cudaSuccess : cudaDeviceEnablePeerAccess(other, 0);
        if (e == cudaErrorPeerAccessAlreadyEnabled) (void)cudaGetLastError();
        else CUDA_CHECK(e);
      }
      memory.push_back(std::make_unique<DeviceBuffer<unsigned long long>>(
          std::vector<unsigned long long>(ch10::mailbox_words(G), 0)));
    }
    of_gpu.resize(G);
    for (int g = 0; g < G; ++g) {
      of_gpu[g].gpus = G, of_gpu[g].rank = g;
      for (int j = 0; j < G; ++j) of_gpu[g].of[j] = memory[j]->data();
    }
  }
  ~Mailboxes() {
    for (std::size_t g = 0; g < memory.size(); ++g) cudaSetDevice(int(g)), memory[g].reset();
    cudaSetDevice(0);
  }
};

// `rounds` sums of `data` over the GPUs with the peer combine, queued back to back with no host
// wait, one random GPU held back before its step 2 in each round: the GPUs reach each exchange in
// every order, and the fast ones run an exchange ahead. Every GPU's total of every round.
template <typename T>
std::vector<T> peer_sums(const Team& team, const Mailboxes& boxes, const std::vector<T>& data, int rounds,
                         std::uint64_t seed) {
  const int G = team.size();
  std::mt19937_64 random(seed);
  std::vector<std::unique_ptr<Part<T>>> parts;
  std::vector<std::unique_ptr<DeviceBuffer<T>>> totals;
  for (int g = 0; g < G; ++g) {
    CUDA_CHECK(cudaSetDevice(g));
    const Shard s = ch10::shard_of(data.size(), G, g);
    parts.push_back(std::make_unique<Part<T>>());
    if (s.count) parts[g]->shard = DeviceBuffer<T>(std::vector<T>(data.begin() + s.begin, data.begin() + s.end()));
    totals.push_back(std::make_unique<DeviceBuffer<T>>(std::size_t(rounds)));
    totals[g]->poison();
  }
  for (int r = 0; r < rounds; ++r) {
    const int late = int(random() % G);
    for (int g = 0; g < G; ++g) {
      CUDA_CHECK(cudaSetDevice(g));
      ch10::launch_shard_partial(parts[g]->shard.data(), parts[g]->shard.size(), parts[g]->partial.data(),
                                 parts[g]->scratch, team.stream(g));
      if (g == late) hold<<<1, 1, 0, team.stream(g)>>>(200000);  // about 0.1 ms
      ch10::launch_peer_combine(parts[g]->partial.data(), totals[g]->data() + r, boxes.of_gpu[g], team.stream(g));
    }
  }
  team.synchronize();
  std::vector<T> all;
  for (int g = 0; g < G; ++g) {
    CUDA_CHECK(cudaSetDevice(g));
    for (T t : totals[g]->download()) all.push_back(t);
    parts[g].reset(), totals[g].reset();
  }
  CUDA_CHECK(cudaSetDevice(0));
  return all;
}

}  // namespace

TEMPLATE_TEST_CASE("every visible GPU: the peer combine, round after round, the same total on every GPU",
                   "[multi_gpu][peer]", std::int32_t, float, double) {
  const int G = std::min(visible_gpus(), ch10::kMaxPeerGpus);
  const Team team(G);
  const Mailboxes boxes(G);
  if (boxes.of_gpu.empty()) {
    WARN("a pair of the " << G << " GPUs has no peer access: the peer combine is not tested");
    return;
  }
  for (std::size_t n : {std::size_t(1), std::size_t(G) + 1, std::size_t(1023), std::size_t(3000017)}) {
    const auto seed = testing::fresh_seed();
    INFO("seed " << seed << ", n = " << n << ", G = " << G);
    const auto data = generate_input<TestType>(n, seed);
    const auto ref = reference_sum(data.data(), n);
    const long double tol = tolerance(ref, ch10::sharded_sum_depth<TestType>(ch10::largest_shard(n, G), G));
    const int rounds = 9;
    const auto totals = peer_sums(team, boxes, data, rounds, seed);
    for (std::size_t i = 0; i < totals.size(); ++i) {
      INFO("GPU " << i / rounds << ", round " << i % rounds);
      CHECK_MATCHES(totals[i], ref, tol);
      CHECK(std::memcmp(&totals[i], &totals[0], sizeof(TestType)) == 0);  // the same additions everywhere
    }
  }
}

TEST_CASE("the peer combine wraps int partials around modulo 2^32, as on the CPU", "[multi_gpu][peer]") {
  const int G = std::min(visible_gpus(), ch10::kMaxPeerGpus);
  const Team team(G);
  const Mailboxes boxes(G);
  if (boxes.of_gpu.empty()) return;
  std::vector<std::int32_t> data;
  for (int g = 0; g < G; ++g) data.push_back(std::numeric_limits<std::int32_t>::max() - g);
  const auto ref = reference_sum(data.data(), data.size());
  for (std::int32_t t : peer_sums(team, boxes, data, 3, 1)) CHECK(t == ref.value);
}
