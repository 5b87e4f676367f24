// The tutorial's kernels and cub::DeviceReduce, measured with NVIDIA's nvbench, the tool CUB itself
// is measured with: cold runs (L2 flushed before each, the launch queued behind nvbench's blocking
// kernel so that only the GPU's work is timed), batched runs (back to back, L2 warm), a stopping
// rule based on the noise, GPU and CPU time; JSON, CSV and Markdown out (README.md).
//
//   reduce      every kernel of chapters 06 to 09, from each chapter's own registry (variants()),
//               and cub::DeviceReduce as CCCL's benchmark calls it: temporary storage sized and
//               allocated once, then only the call. Axes: T (int, float, double), Op (sum, max,
//               min), kernel, n (2^4 to 2^30 and odd sizes). A kernel that does not take Op skips.
//   unblocked   the sum of ints timed as the chapter programs time it, the host's launch work
//               included (what separates the chapter's ratio to cub from this benchmark's).
//   empty_kernel one launch of an empty kernel: the launch floor of this board.
//
//   build/benchmark/reduce_bench -b reduce -a kernel=[fastest,cub] --json out.json
//
// Each state's first call is checked against cub's result before it is timed; a wrong result
// skips the state with the reason, so a table never shows the time of a wrong kernel.
#include <cuda_runtime.h>
#include <nvbench/nvbench.cuh>

#include <cub/device/device_reduce.cuh>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "06_hierarchical/solution/hierarchical.cuh"
#include "07_coarsening/kernels.cuh"
#include "08_two_pass/kernels.cuh"
#include "09_warp_unrolled/harness.cuh"
#include "09_warp_unrolled/solution/cub_reduce.cuh"  // cub_reduce: CUB called as CCCL's benchmark calls it
#include "common/gpu.cuh"
#include "common/ops.hpp"

namespace {

using reduction::DeviceScratch;
using reduction::Max;
using reduction::Min;
using reduction::MultiBlockLaunch;
using reduction::Sum;
using reduction::Variant;

// The lesson kernels' block (fastest and cub choose their own).
constexpr int kBlock = 256;

// Every chapter's registry for Op on T, each name prefixed by its chapter. Chapters 06 to 08 add
// only; 09's list says itself which of its kernels take Op.
template <typename Op, typename T>
std::vector<std::pair<std::string, MultiBlockLaunch<T>>> registry() {
  std::vector<std::pair<std::string, MultiBlockLaunch<T>>> list;
  const auto add = [&](const char* chapter, const auto& variants) {
    for (const auto& v : variants) list.push_back({std::string(chapter) + "/" + v.name, v.launch});
  };
  if constexpr (std::is_same_v<Op, Sum>) {
    list.push_back({"06/hierarchical", ch06::launch<T>});  // 06's one kernel (its list is in its main.cu)
    add("07", ch07::variants<T>());
    add("08", ch08::variants<T>());
  }
  add("09", ch09::variants<Op, T>());
  return list;
}

// cub::DeviceReduce as CCCL's own benchmark calls it: its temporary storage asked for and allocated
// once, outside the timing; each timed call is the call alone.
template <typename Op, typename T>
struct CubCall {
  std::size_t temp_bytes = 0;
  void* temp = nullptr;
  CubCall(const T* input, std::size_t n, T* result) {
    CUDA_CHECK(ch09::cub_reduce<Op>(nullptr, temp_bytes, input, n, result, 0));
    CUDA_CHECK(cudaMalloc(&temp, std::max<std::size_t>(temp_bytes, 1)));
  }
  ~CubCall() { cudaFree(temp); }
  void operator()(const T* input, std::size_t n, T* result, cudaStream_t stream) {
    CUDA_CHECK(ch09::cub_reduce<Op>(temp, temp_bytes, input, n, result, stream));
  }
};

// Input on the device, without a trip through the host: small integers (so that sums of ints do not
// overflow), as floats and doubles with a fraction.
template <typename T>
__global__ void fill(T* data, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    std::uint32_t h = std::uint32_t(i) * 2654435761u ^ std::uint32_t(i >> 32);
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    const int v = int(h % 201) - 100;
    if constexpr (std::is_integral_v<T>) data[i] = T(v);
    else data[i] = T(v) / T(64);
  }
}

// Whether a launcher waits for the GPU (chapter 08's finish_cpu adds the partials on the host): such
// a call cannot be queued behind nvbench's blocking kernel, and is timed the way nvbench times a
// launch that synchronizes (exec_tag::sync). A call that returns while a 20-ms kernel before it
// still runs does not wait.
__global__ void spin(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

template <typename Call>
bool waits_for_gpu(const Call& call) {
  spin<<<1, 1>>>(40'000'000);
  CUDA_CHECK_LAUNCH();
  call(0);
  const bool waited = cudaStreamQuery(0) == cudaSuccess;
  CUDA_CHECK(cudaDeviceSynchronize());
  return waited;
}

template <typename T>
T download(const T* value) {
  T host{};
  CUDA_CHECK(cudaMemcpy(&host, value, sizeof(T), cudaMemcpyDeviceToHost));
  return host;
}

// Float sums differ from cub's in their rounding (another order of additions): a relative bound that
// a wrong kernel misses by far (it drops or repeats whole blocks of values, each about 1/64).
template <typename Op, typename T>
bool agrees(T value, T with_cub) {
  if constexpr (std::is_integral_v<T> || !std::is_same_v<Op, Sum>) return value == with_cub;
  else return std::abs(double(value) - double(with_cub)) <= 1e-4 * (1 + std::abs(double(with_cub)));
}

template <typename T, typename Op, bool kBlocked>
void reduce_with(nvbench::state& state) {
  const auto n = static_cast<std::size_t>(state.get_int64("n"));
  const std::string kernel = state.get_string("kernel");
  std::size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (n * sizeof(T) + (std::size_t(256) << 20) > free_bytes) {
    state.skip("the input does not fit in this GPU's memory");
    return;
  }
  reduction::DeviceBuffer<T> input(n), result(1), expected(1);
  fill<<<1024, 256>>>(input.data(), n);
  CUDA_CHECK_LAUNCH();
  CubCall<Op, T> cub(input.data(), n, expected.data());
  cub(input.data(), n, expected.data(), 0);
  const T with_cub = download(expected.data());

  DeviceScratch scratch;
  MultiBlockLaunch<T> launch = nullptr;
  if (kernel != "cub") {
    for (const auto& [name, l] : registry<Op, T>())
      if (name == kernel) launch = l;
    if (!launch) {
      state.skip(kernel + " does not take this operator");
      return;
    }
  }
  // The first call: checked, and whatever the launcher allocates on its first call (scratch, a
  // counter) allocated before the timing.
  const auto call = [&](cudaStream_t stream) {
    if (launch) launch(input.data(), n, result.data(), kBlock, scratch, stream);
    else cub(input.data(), n, result.data(), stream);
  };
  call(0);
  CUDA_CHECK(cudaDeviceSynchronize());
  if (!agrees<Op>(download(result.data()), with_cub)) {
    state.skip("WRONG: " + kernel + " disagrees with cub");
    return;
  }
  state.add_element_count(n);
  state.add_global_memory_reads<T>(n);
  state.add_global_memory_writes<T>(1);
  if (kBlocked && !waits_for_gpu(call)) state.exec([&](nvbench::launch& l) { call(l.get_stream()); });
  else state.exec(nvbench::exec_tag::sync, [&](nvbench::launch& l) { call(l.get_stream()); });
}

template <typename T, typename Op>
void reduce(nvbench::state& state, nvbench::type_list<T, Op>) {
  reduce_with<T, Op, true>(state);
}

// The same, timed as a chapter program times a kernel (common/gpu.cu, time_gpu): the events around
// the launcher's call on an idle stream, so that the host's work before the first kernel starts
// (the launcher's own, the driver's) counts too. nvbench's blocking kernel hides it in `reduce`.
template <typename T, typename Op>
void unblocked(nvbench::state& state, nvbench::type_list<T, Op>) {
  reduce_with<T, Op, false>(state);
}

__global__ void empty() {}

void empty_kernel(nvbench::state& state) {
  state.exec([](nvbench::launch& l) { empty<<<1, 32, 0, l.get_stream()>>>(); });
}

// The kernel axis: every name of the sum of ints' registries (the longest), then cub.
std::vector<std::string> kernel_names() {
  std::vector<std::string> names;
  for (const auto& entry : registry<Sum, int>()) names.push_back(entry.first);
  names.push_back("cub");
  return names;
}

std::vector<nvbench::int64_t> sizes() {
  std::vector<nvbench::int64_t> n;
  for (int k = 4; k <= 30; ++k) n.push_back(nvbench::int64_t(1) << k);
  // Odd sizes: no whole vector at the end, a last tile that is not full.
  for (nvbench::int64_t odd : {1, 1001, 65537, 1000003, 33554467, 268435399}) n.push_back(odd);
  return n;
}

}  // namespace

using Types = nvbench::type_list<int, float, double>;
using Ops = nvbench::type_list<reduction::Sum, reduction::Max, reduction::Min>;
NVBENCH_DECLARE_TYPE_STRINGS(reduction::Sum, "sum", "sum");
NVBENCH_DECLARE_TYPE_STRINGS(reduction::Max, "max", "max");
NVBENCH_DECLARE_TYPE_STRINGS(reduction::Min, "min", "min");

NVBENCH_BENCH_TYPES(reduce, NVBENCH_TYPE_AXES(Types, Ops))
    .set_type_axes_names({"T", "Op"})
    .add_string_axis("kernel", kernel_names())
    .add_int64_axis("n", sizes());

NVBENCH_BENCH_TYPES(unblocked, NVBENCH_TYPE_AXES(nvbench::type_list<int>, nvbench::type_list<reduction::Sum>))
    .set_type_axes_names({"T", "Op"})
    .add_string_axis("kernel", kernel_names())
    .add_int64_axis("n", sizes());

NVBENCH_BENCH(empty_kernel);
