// Chapter 10 on the GPU: step 1 (chapter 09's fastest), then step 2 by NCCL or by the peer combine,
// on one GPU and on every visible GPU of this process, against the CPU reference of the whole
// array; n < G included; every total poisoned first. Several sums are queued back to back, a random
// GPU held back before step 2 in each, so that the GPUs reach step 2 in every order.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <numeric>
#include <random>
#include <vector>

#include "common/gpu.cuh"
#include "common/program.hpp"
#include "common/reference.hpp"
#include "common/testing/testing.hpp"
#include "analysis.cuh"  // sharded_sum_depth; multi_gpu.cuh

using namespace reduction;
using ch10::Shard;

namespace {

// GPUs 0 to G - 1 of this process: a stream and an NCCL communicator each, and, where every pair
// has peer access, the peer combine's mailboxes, as main.cu's connect_peers makes them.
struct Team {
  std::vector<ncclComm_t> comms;
  std::vector<cudaStream_t> streams;
  std::vector<DeviceBuffer<unsigned long long>> mailboxes;
  std::vector<ch10::PeerMailboxes> boxes;  // none where a pair of GPUs has no peer access

  explicit Team(int gpus) : comms(gpus), streams(gpus) {
    std::vector<int> devices(gpus);
    std::iota(devices.begin(), devices.end(), 0);
    NCCL_CHECK(ncclCommInitAll(comms.data(), gpus, devices.data()));
    bool reachable = true;
    for (int g = 0; g < gpus; ++g) {
      CUDA_CHECK(cudaSetDevice(g));
      CUDA_CHECK(cudaStreamCreate(&streams[g]));
      for (int other = 0; other < gpus; ++other) {
        int can = 1;
        if (other != g) CUDA_CHECK(cudaDeviceCanAccessPeer(&can, g, other));
        const cudaError_t e = other == g || !can ? cudaSuccess : cudaDeviceEnablePeerAccess(other, 0);
        if (e == cudaErrorPeerAccessAlreadyEnabled) (void)cudaGetLastError();
        else CUDA_CHECK(e);
        reachable = reachable && can;
      }
      mailboxes.emplace_back(std::vector<unsigned long long>(ch10::mailbox_words(gpus), 0));
    }
    for (int g = 0; g < gpus && reachable; ++g) {
      boxes.push_back({{}, gpus, g});
      for (int j = 0; j < gpus; ++j) boxes[g].of[j] = mailboxes[j].data();
    }
  }
  ~Team() {
    for (int g = 0; g < size(); ++g) {
      cudaSetDevice(g);
      cudaStreamSynchronize(streams[g]);
      cudaStreamDestroy(streams[g]);
      ncclCommDestroy(comms[g]);
      mailboxes[g] = DeviceBuffer<unsigned long long>();  // freed with its GPU current
    }
    cudaSetDevice(0);
  }
  int size() const { return static_cast<int>(comms.size()); }
  bool peers() const { return !boxes.empty(); }
  void synchronize() const {
    for (int g = 0; g < size(); ++g) CUDA_CHECK(cudaSetDevice(g)), CUDA_CHECK(cudaStreamSynchronize(streams[g]));
  }
};

// Holds a GPU's stream back for about `cycles` clock cycles: the other GPUs run ahead meanwhile.
__global__ void hold(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

// One GPU's part: its shard on the device, its partial, a total per sum, fastest's scratch.
template <typename T>
struct Part {
  DeviceBuffer<T> shard, partial{1}, totals;
  DeviceScratch scratch;
};

// `rounds` sums of `data` over the team's GPUs, exactly as the program computes them, queued back to
// back with no host wait; in each, one random GPU held back before step 2 (about 0.1 ms). Step 2:
// the peer combine, or NCCL's grouped calls. Returns every GPU's total of every sum, GPU by GPU.
template <typename T>
std::vector<T> sums(const Team& team, const std::vector<T>& data, bool peer, int rounds, std::uint64_t seed) {
  const int G = team.size();
  std::mt19937_64 random(seed);
  std::vector<std::unique_ptr<Part<T>>> parts;
  for (int g = 0; g < G; ++g) {
    CUDA_CHECK(cudaSetDevice(g));
    const Shard s = ch10::shard_of(data.size(), G, g);
    parts.push_back(std::make_unique<Part<T>>());
    if (s.count) parts[g]->shard = DeviceBuffer<T>(std::vector<T>(data.begin() + s.begin, data.begin() + s.end()));
    parts[g]->totals = DeviceBuffer<T>(std::size_t(rounds));
    parts[g]->totals.poison();
  }
  for (int r = 0; r < rounds; ++r) {
    const int late = int(random() % G);
    for (int g = 0; g < G; ++g) {
      CUDA_CHECK(cudaSetDevice(g));
      Part<T>& p = *parts[g];
      ch10::launch_shard_partial(p.shard.data(), p.shard.size(), p.partial.data(), p.scratch, team.streams[g]);
      if (g == late) hold<<<1, 1, 0, team.streams[g]>>>(200000);
      if (peer) ch10::launch_peer_combine(p.partial.data(), p.totals.data() + r, team.boxes[g], team.streams[g]);
    }
    if (peer) continue;
    NCCL_CHECK(ncclGroupStart());
    for (int g = 0; g < G; ++g)
      ch10::launch_combine(parts[g]->partial.data(), parts[g]->totals.data() + r, 1, team.comms[g], team.streams[g]);
    NCCL_CHECK(ncclGroupEnd());
  }
  team.synchronize();
  std::vector<T> all;
  for (int g = 0; g < G; ++g) {
    CUDA_CHECK(cudaSetDevice(g));
    for (T t : parts[g]->totals.download()) all.push_back(t);
    parts[g].reset();  // freed with its GPU current
  }
  CUDA_CHECK(cudaSetDevice(0));
  return all;
}

// Both ways of step 2 on the team, for each n: every total of every sum matches the reference, and
// the peer combine's are the same bits on every GPU.
template <typename T>
void check_sums(const Team& team, const std::vector<std::size_t>& sizes) {
  const int G = team.size(), rounds = 5;
  for (bool peer : {false, true}) {
    if (peer && !team.peers()) WARN("a pair of the " << G << " GPUs has no peer access: the peer combine is not tested");
    if (peer && !team.peers()) continue;
    for (std::size_t n : sizes) {
      const auto seed = testing::fresh_seed();
      INFO("seed " << seed << ", n = " << n << ", G = " << G << (peer ? ", peer combine" : ", NCCL"));
      const auto data = generate_input<T>(n, seed);
      const auto ref = reference_sum(data.data(), n);
      const long double tol = tolerance(ref, ch10::sharded_sum_depth<T>(ch10::largest_shard(n, G), G));
      const auto totals = sums(team, data, peer, rounds, seed);
      for (std::size_t i = 0; i < totals.size(); ++i) {
        INFO("GPU " << i / rounds << ", sum " << i % rounds);
        CHECK_MATCHES(totals[i], ref, tol);
        if (peer) CHECK(std::memcmp(&totals[i], &totals[i % rounds], sizeof(T)) == 0);
      }
    }
  }
}

// A team's NCCL setup takes seconds: each team is made once, and every check runs on it.
void check_team(const Team& team) {
  const int G = team.size();
  INFO("G = " << G);
  std::vector<std::size_t> sizes = {1, 2, 3, 7, 1023, 1025, (std::size_t(1) << 20) + 1, 3000017};
  for (std::size_t n : {std::size_t(G) - 1, std::size_t(G) + 1, std::size_t(3) * G})  // n < G, n not divisible by G
    if (n > 0) sizes.push_back(n);
  check_sums<std::int32_t>(team, sizes);
  check_sums<float>(team, sizes);
  check_sums<double>(team, sizes);

  // Int partials wrap around modulo 2^32 in step 2, as on the CPU: each GPU's shard sums to
  // 2^31 - 1 - g, and any two of them overflow 32 bits.
  std::vector<std::int32_t> data;
  for (int g = 0; g < G; ++g) data.push_back(std::numeric_limits<std::int32_t>::max() - g);
  const auto ref = reference_sum(data.data(), data.size());
  for (bool peer : {false, team.peers()})
    for (std::int32_t total : sums(team, data, peer, 2, 1)) CHECK(total == ref.value);
  // NCCL's all-reduce of whole vectors is checked, every element, by the program's own runs.
}

}  // namespace

TEST_CASE("one GPU, then every visible GPU: step 1 and either step 2 give the sum", "[multi_gpu]") {
  check_team(Team(1));
  int visible = 0;
  CUDA_CHECK(cudaGetDeviceCount(&visible));
  const int all = std::min(visible, ch10::kMaxPeerGpus);
  if (all > 1) check_team(Team(all));
}

TEST_CASE("an empty shard's partial is 0", "[multi_gpu]") {
  DeviceBuffer<float> partial(1);
  DeviceScratch scratch;
  partial.poison();
  ch10::launch_shard_partial<float>(nullptr, 0, partial.data(), scratch, 0);
  CUDA_CHECK(cudaDeviceSynchronize());
  CHECK(partial.download_one() == 0.0f);
}
