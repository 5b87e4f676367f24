// Chapter 10 program: the sum of an array split over G GPUs. Each GPU reduces its own shard with
// chapter 09's fastest, one NCCL all-reduce of one element adds the G partials; then, for contrast,
// the all-reduce of whole vectors that data-parallel training does (analysis.cuh).
//   10_multi_gpu [--gpus G] [--n N] [--type int|float|double] [--vector-max BYTES] [--input FILE] [--json] [--list]
//   mpirun -np G 10_multi_gpu_mpi [the same options]   (one process per GPU; built where MPI is found)
// Both are this file; processes_one.cpp or processes_mpi.cpp carries what their processes tell each other.
#include <chrono>
#include <memory>
#include <optional>
#include <numeric>
#include <string>
#include <vector>

#include "analysis.cuh"        // what the program explains, the scaling, and the contrast: whole vectors
#include "common/gpu.cuh"
#include "common/program.hpp"  // run_guarded, the exit statuses
#include "multi_gpu.cuh"       // the two steps: launch_shard_partial, launch_combine
#include "processes.hpp"       // one process for every GPU, or one per GPU under mpirun

using namespace reduction;
using namespace ch10;

namespace ch10 {

// The chapter's registry, as --list shows it: one variant, the two steps of multi_gpu.cuh. Its
// float sum is not promised the same on every run: NCCL does not say in which order it adds.
inline reduction::VariantInfo variant() {
  return {"sharded_sum", "each GPU reduces its shard with fastest; one NCCL all-reduce of one element adds the partials",
          false};
}

// The chapter's own options beside the common ones: --gpus and --vector-max.
struct Settings {
  int gpus_asked = 0;                // --gpus; 0: every visible GPU (or every rank, under mpirun)
  std::size_t vector_max = 1 << 30;  // --vector-max, bytes
};

// Parses the common options into `options` and the chapter's into `settings`. Returns the status
// to exit with right away (after --help or --list, or for bad usage), or nothing to go on.
inline std::optional<int> parse_options(const reduction::ChapterInfo& info, reduction::Options& options,
                                        Settings& settings, const Processes& processes, int argc, char** argv) {
  using reduction::escaped;
  std::string gpus_text = "all", vector_max_text = "1G";
  reduction::CommandLine cli(info, options);
  cli.add_option("--gpus", gpus_text,
                 "GPUs to split the array over: all (every visible GPU) or a number; under mpirun, "
                 "the number of processes");
  cli.add_option("--vector-max", vector_max_text,
                 "largest vector of the all-reduce sweep, in bytes (1G, 2^28, ...; 0: no sweep)");
  cli.add_check([&]() -> std::optional<std::string> {
    if (gpus_text == "all") return std::nullopt;
    const auto g = reduction::parse_count(gpus_text);
    if (!g || *g < 1 || *g > 4096)
      return "--gpus must be all or a number of GPUs from 1 to 4096, got '" + escaped(gpus_text) + "'";
    settings.gpus_asked = static_cast<int>(*g);
    if (Processes::with_mpi() && settings.gpus_asked != processes.size())
      return "--gpus " + escaped(gpus_text) + " disagrees with the " + std::to_string(processes.size()) +
             " processes mpirun started: under mpirun, G is the number of processes (-np)";
    return std::nullopt;
  });
  cli.add_check([&]() -> std::optional<std::string> {
    const auto bytes = reduction::parse_count(vector_max_text);
    if (!bytes)
      return "--vector-max must be a number of bytes such as 0, 2^28 or 1G, got '" + escaped(vector_max_text) + "'";
    settings.vector_max = *bytes;
    return std::nullopt;
  });
  QuietUnless quiet(processes.rank() == 0);
  return cli.parse(argc, argv);
}

// --input: the whole file, read by every process (each then keeps its part); nothing without --input.
inline std::optional<reduction::HostData> read_input_file(const reduction::Options& options) {
  if (options.input.empty()) return std::nullopt;
  reduction::HostData file = reduction::load_input(options.input);
  if (std::visit([](const auto& v) { return v.empty(); }, file))
    throw reduction::InputError(reduction::escaped(options.input) + " holds no elements");
  return file;
}

}  // namespace ch10

// One GPU this process drives, and what it holds. Its device is made current first (made_current),
// so that every member below is created on it; the destructor makes it current again to free them.
inline int made_current(int device) {
  CUDA_CHECK(cudaSetDevice(device));
  return device;
}
template <typename T>
struct Gpu {
  int device, rank;  // the CUDA device number; its place among the G, which names its shard
  Shard shard;
  Reference<T> shard_ref;  // the CPU reference of this shard alone
  Event start, reduced, stop;
  cudaStream_t stream = nullptr;
  ncclComm_t comm = nullptr;
  DeviceBuffer<T> input, partial{1}, total{1};
  DeviceScratch scratch;  // fastest's block results and its block counter, this GPU's own
  Gpu(int device_, int rank_, Shard shard_) : device(made_current(device_)), rank(rank_), shard(shard_) {
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  }
  ~Gpu() {
    cudaSetDevice(device);
    if (comm) ncclCommAbort(comm);  // only after a failure: it does not wait for GPUs that may never come
    cudaStreamDestroy(stream);
  }
};
template <typename T>
using Gpus = std::vector<std::unique_ptr<Gpu<T>>>;

// One sum over the G GPUs as this process saw it: its slowest GPU's times from the start to the
// partial and to the total, its first GPU's total, and whether every GPU's total was right.
struct SumRun {
  double reduce_ms = 0, total_ms = 0, total = 0;
  bool correct = true;
};

template <typename T>
SumRun sum_over_gpus(const Gpus<T>& gpus, const Reference<T>& ref, long double tol) {
  for (auto& g : gpus) {  // step 1 on every GPU at once: each launch returns before its GPU is done
    CUDA_CHECK(cudaSetDevice(g->device));
    CUDA_CHECK(cudaMemsetAsync(g->partial.data(), 0xFF, sizeof(T), g->stream));  // poison, before the start
    CUDA_CHECK(cudaMemsetAsync(g->total.data(), 0xFF, sizeof(T), g->stream));
    CUDA_CHECK(cudaEventRecord(g->start.get(), g->stream));
    launch_shard_partial(g->input.data(), g->shard.count, g->partial.data(), g->scratch, g->stream);
    CUDA_CHECK(cudaEventRecord(g->reduced.get(), g->stream));
  }
  NCCL_CHECK(ncclGroupStart());  // step 2: one call per GPU, which ncclGroupEnd launches together
  for (auto& g : gpus) launch_combine(g->partial.data(), g->total.data(), 1, g->comm, g->stream);
  NCCL_CHECK(ncclGroupEnd());
  for (auto& g : gpus) {
    CUDA_CHECK(cudaSetDevice(g->device));
    CUDA_CHECK(cudaEventRecord(g->stop.get(), g->stream));
  }
  SumRun run;
  for (auto& g : gpus) {  // then wait for each GPU, read its times, copy its total back and check it
    CUDA_CHECK(cudaSetDevice(g->device));
    CUDA_CHECK(cudaEventSynchronize(g->stop.get()));
    float reduce_ms = 0, total_ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&reduce_ms, g->start.get(), g->reduced.get()));
    CUDA_CHECK(cudaEventElapsedTime(&total_ms, g->start.get(), g->stop.get()));
    run.reduce_ms = std::max(run.reduce_ms, double(reduce_ms)), run.total_ms = std::max(run.total_ms, double(total_ms));
    T total{};
    CUDA_CHECK(cudaMemcpy(&total, g->total.data(), sizeof(T), cudaMemcpyDeviceToHost));
    run.correct = run.correct && matches(total, ref, tol);
    if (&g == &gpus.front()) run.total = static_cast<double>(total);
  }
  return run;
}

// The reference of random_part(seed, part), made and reduced 2^24 elements at a time.
template <typename T>
Reference<T> reference_in_pieces(std::uint64_t seed, Shard part) {
  constexpr std::size_t kPiece = std::size_t(1) << 24;
  std::vector<Reference<T>> pieces;
  for (std::size_t b = 0; b < part.count || pieces.empty(); b += kPiece) {
    const std::vector<T> piece = random_part<T>(seed, {part.begin + b, std::min(kPiece, part.count - b)});
    pieces.push_back(reference_sum(piece.data(), piece.size()));
  }
  return combine_references(pieces);
}

template <typename T>
int run(const ChapterInfo& info, const Options& options, const Settings& settings, const Processes& processes,
        const std::vector<T>* file, const std::string& source) {
  const std::size_t n = file ? file->size() : options.n;
  Report report(info, options);
  report.set_input(data_type_of<T>(), n, source);
  // The GPUs: G is --gpus, every visible GPU, or under mpirun the number of processes. The analysis
  // needs only G; a machine that cannot run G GPUs stops after it, with status 77.
  const GpuStatus gpu = probe_gpu();
  int visible = 0;
  if (gpu.usable) CUDA_CHECK(cudaGetDeviceCount(&visible));
  const int G = Processes::with_mpi() ? processes.size() : settings.gpus_asked ? settings.gpus_asked : visible;
  const std::string problem = gpu_problem(processes, G, visible, gpu.reason);

  // Input: this process's part of the array (one process: all of it; under mpirun: its GPU's shard).
  // Without the GPUs to run on, random input is made a piece at a time for the reference and never
  // held whole (1 GiB by default): the analysis needs no more. A file is read and checked anyway.
  const Shard part = shard_of(n, processes.size(), processes.rank());
  const bool hold = file || problem.empty();
  const std::vector<T> made = file || !hold ? std::vector<T>() : random_part<T>(options.seed, part);
  const T* data = file ? file->data() + part.begin : made.data();
  // The reference: each process's part on the CPU, the parts combined (the same tree one level up).
  // A float sum that cannot fit its type is refused here (status 2), on any machine.
  const Reference<T> ref = combine_references(gather_items(
      processes, std::vector{hold ? reference_sum(data, part.count) : reference_in_pieces<T>(options.seed, part)}));
  if (ref.exact)
    report.set_reference(ref, 0);  // the float bound needs the GPUs: below
  else
    report.set_reference(json_value(ref.value), "higher-precision CPU sum");

  analyze<T>(report, n, G, processes);
  if (!problem.empty()) return processes.rank() == 0 ? report.finish_without_gpu(problem) : int(kNoGpu);
#ifdef REDUCTION_EXERCISE_UNFINISHED  // said once the options, the input and the GPUs are known to be good
  if (processes.rank() == 0) std::cerr << info.name << ": the NCCL combine in multi_gpu.cuh is not implemented yet\n";
#endif

  // Each GPU of this process (one process: GPUs 0 to G - 1; under mpirun: the GPU of its local rank)
  // gets its shard: room checked, its own reference, uploaded; then it is timed alone (fastest over
  // the shard, no NCCL, checked against the shard's reference). Then the float bound over all GPUs.
  const bool mpi = Processes::with_mpi();
  Gpus<T> gpus;
  std::vector<std::string> names;
  std::size_t depth = 0;
  Scaling measured;
  for (int r = mpi ? processes.rank() : 0; r <= (mpi ? processes.rank() : G - 1); ++r) {
    Gpu<T>& g = *gpus.emplace_back(std::make_unique<Gpu<T>>(mpi ? processes.local_rank() : r, r, shard_of(n, G, r)));
    const std::size_t bytes = g.shard.count * sizeof(T);
    check_room(g.device, bytes);
    const T* shard = data + (g.shard.begin - part.begin);
    g.shard_ref = reference_sum(shard, g.shard.count);
    g.input = DeviceBuffer<T>(g.shard.count);
    if (bytes) CUDA_CHECK(cudaMemcpy(g.input.data(), shard, bytes, cudaMemcpyHostToDevice));
    names.push_back(current_device().describe());
    depth = std::max(depth, sharded_sum_depth<T>(g.shard.count, G));
    const RunResult alone = run_reduction<T>(
        "alone",
        [&](cudaStream_t s) { launch_shard_partial(g.input.data(), g.shard.count, g.partial.data(), g.scratch, s); },
        g.partial, g.shard_ref, tolerance(g.shard_ref, sharded_sum_depth<T>(g.shard.count, 1)), options, double(bytes));
    measured.alone.push_back(
        {alone.time_ms, alone.gbps, alone.result.as_double(), alone.correct, g.device, g.shard.count});
  }
  const long double tol = tolerance(ref, static_cast<std::size_t>(processes.max(double(depth))));
  measured.alone = gather_items(processes, measured.alone);

  // The communicators, timed apart: a program makes them once. One process makes all G at once;
  // under mpirun rank 0 makes NCCL's unique id, MPI hands it to every rank, and each rank joins.
  processes.barrier();
  auto clock = std::chrono::steady_clock::now();
  if (!Processes::with_mpi()) {
    std::vector<ncclComm_t> comms(G);
    std::vector<int> devices(G);
    std::iota(devices.begin(), devices.end(), 0);  // GPUs 0 to G - 1
    NCCL_CHECK(ncclCommInitAll(comms.data(), G, devices.data()));
    for (int r = 0; r < G; ++r) gpus[r]->comm = comms[r];
  } else {
    ncclUniqueId id{};
    if (processes.rank() == 0) NCCL_CHECK(ncclGetUniqueId(&id));
    processes.broadcast(&id, sizeof id);
    CUDA_CHECK(cudaSetDevice(gpus[0]->device));
    NCCL_CHECK(ncclCommInitRank(&gpus[0]->comm, G, id, processes.rank()));
  }
  measured.init_ms = processes.max(milliseconds_since(clock));
  // The first sum, timed apart too (NCCL connects the GPUs on first use); warm-up; then the timed
  // sums, each as long as its slowest GPU over every process.
  processes.barrier();
  clock = std::chrono::steady_clock::now();
  bool correct = sum_over_gpus(gpus, ref, tol).correct;
  measured.first_ms = processes.max(milliseconds_since(clock));
  for (int i = 0; i < options.warmup; ++i) correct = sum_over_gpus(gpus, ref, tol).correct && correct;
  for (int i = 0; i < options.reps; ++i) {
    processes.barrier();
    const SumRun run = sum_over_gpus(gpus, ref, tol);
    measured.sum_ms.push_back(processes.max(run.total_ms));
    measured.combine_ms.push_back(measured.sum_ms.back() - processes.max(run.reduce_ms));
    correct = correct && run.correct, measured.total = run.total;
  }
  measured.correct = processes.max(correct ? 0 : 1) == 0;

  // The contrast: whole vectors, as large as --vector-max and the GPUs' free memory allow.
  const std::size_t vector_max = vector_room(gpus, settings.vector_max, processes);
  const auto rows = sweep_allreduce<T>(gpus, G, allreduce_sizes(sizeof(T), vector_max), options, processes);
  for (auto& g : gpus) {  // the normal end: every GPU idle, so that no call waits on another
    CUDA_CHECK(cudaSetDevice(g->device));
    CUDA_CHECK(cudaStreamSynchronize(g->stream));
    NCCL_CHECK(ncclCommDestroy(g->comm));
    g->comm = nullptr;
  }

  // The report, on rank 0 (every rank exits with the same status): the CUDA versions as every
  // chapter gives them, all G GPUs in one line, the runs and the scaling, then the contrast.
  const std::vector<std::string> all_names = gather_texts(processes, names);
  int status = measured.correct && std::all_of(rows.begin(), rows.end(), [](auto& r) { return !r.wrong; }) ? 0 : 1;
  if (processes.rank() == 0) {
    std::string unused;  // open_gpu: the CUDA versions; a GPU is known to be there
    open_gpu(report, unused);
    report.set_device(describe_gpus(all_names, G));
    report.fields().set("nccl_version", nccl_version());
    report.set_reference(ref, tol);
    report_scaling<T>(report, measured, G, n, ref, tol);
    report_allreduce<T>(report, rows, G, vector_max, settings.vector_max, all_names.front(), nccl_version());
    status = std::max(status, report.finish());
  }
  return processes.max(status);
}

int main(int argc, char** argv) {
  Processes processes(argc, argv);  // under mpirun: MPI_Init here, MPI_Finalize at the end
  ChapterInfo info{"10_multi_gpu"};
  info.title = "the sum over several GPUs: fastest on each GPU's shard, one NCCL all-reduce of the partials";
  info.default_n = std::size_t(1) << 28;  // 1 GiB of int in all: far past every L2, and it fits any GPU
  info.has_block = false;                 // fastest brings its own block size
  info.variants = {variant()};            // --list, --kernel
  info.makes_input = [] { return probe_gpu().usable; };  // without a GPU: the reference alone
  Options options;
  Settings settings;  // the chapter's own options: --gpus, --vector-max (above)
  if (const auto parsed = parse_options(info, options, settings, processes, argc, argv)) return *parsed;
  bool finished = false;  // false after an exception: that process failed on its own
  const int status = run_guarded(info.name, [&] {
    const std::optional<HostData> file = read_input_file(options);  // the whole --input file, on every process
    const std::string source = file ? "file " + escaped(options.input) : "random, seed " + std::to_string(options.seed);
    const int result = dispatch_type(file ? data_type_of(*file) : options.type, [&](auto tag) {
      using T = typename decltype(tag)::type;
      return run<T>(info, options, settings, processes, file ? &std::get<std::vector<T>>(*file) : nullptr, source);
    });
    finished = true;
    return result;
  });
  return finished ? status : processes.abort_all(status);  // one failed alone: end the others, who may wait for it
}
