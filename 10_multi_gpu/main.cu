// Chapter 10 program: the sum of an array split over G GPUs. Each GPU reduces its own shard with
// chapter 09's fastest, one NCCL all-reduce of one element adds the G partials; then, for contrast,
// the all-reduce of whole vectors that data-parallel training does, timed as nccl-tests time it.
//   10_multi_gpu [--gpus G] [--n N] [--type int|float|double] [--vector-max BYTES] [--json] [--list] ...
//   mpirun -np G 10_multi_gpu_mpi [the same options]     (one process per GPU; built with MPI)
// One file per stage, in order: command_line.hpp, plan.cuh (the GPUs), analysis.hpp, shards.cuh
// (shards, reference), measure.cuh and allreduce.cuh (timed, checked), results.cuh (the report).
#include "analysis.hpp"
#include "command_line.hpp"
#include "common/program.hpp"
#include "measure.cuh"
#include "plan.cuh"
#include "results.cuh"
#include "shards.cuh"

using namespace reduction;
using namespace ch10;

template <typename T>
int run(const ChapterInfo& info, const Options& options, const Settings& settings, const Processes& processes,
        const std::vector<T>* file, std::size_t n, const std::string& source) {
  Report report(info, options);
  report.set_input(data_type_of<T>(), n, source);
  const GpuPlan plan = plan_gpus(processes, settings.gpus_asked);  // G, or why this machine cannot run
  analyze<T>(report, n, plan.gpus, processes);                     // needs only G
  if (!plan.problem.empty()) return processes.rank() == 0 ? report.finish_without_gpu(plan.problem) : int(kNoGpu);
#ifdef REDUCTION_EXERCISE_UNFINISHED  // said once the options, the input and the GPUs are known to be good
  if (processes.rank() == 0)
    std::cerr << info.name << ": the NCCL combine in multi_gpu.cuh is not implemented yet\n";
#endif
  Loaded<T> loaded = load_shards<T>(plan, n, file, options.seed, processes);  // shards and the reference
  const Measured measured = measure(loaded, plan.gpus, n, options, settings.vector_max, processes);
  return report_results(report, loaded, measured, plan.gpus, n, options, settings.vector_max, processes);
}

int main(int argc, char** argv) {
  Processes processes(argc, argv);
  ChapterInfo info{"10_multi_gpu"};
  info.title = "the sum over several GPUs: fastest on each GPU's shard, one NCCL all-reduce of the partials";
  info.default_n = std::size_t(1) << 28;  // 1 GiB of int in all: far past every L2, and it fits any GPU
  info.has_block = false;                 // fastest brings its own block size
  info.variants = {variant()};            // --list, --kernel
  Options options;  // the common options; settings, the chapter's own
  Settings settings;
  if (const auto parsed = parse_options(info, options, settings, processes, argc, argv)) return *parsed;
  bool finished = false;  // false after an exception: that process failed on its own
  const int status = run_guarded(info.name, [&] {
    const std::optional<HostData> file = read_input_file(info, options);  // the whole file on every process
    const std::string source = file ? "file " + options.input : "random, seed " + std::to_string(options.seed);
    const int result = dispatch_type(file ? data_type_of(*file) : options.type, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const std::vector<T>* data = file ? &std::get<std::vector<T>>(*file) : nullptr;
      return run<T>(info, options, settings, processes, data, data ? data->size() : options.n, source);
    });
    finished = true;
    return result;
  });
  return finished ? status : processes.abort_all(status);  // one failed alone: end the others, who may wait for it
}
