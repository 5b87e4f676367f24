// Chapter 10 program: the sum of an array split over G GPUs. Each GPU reduces its shard with
// chapter 09's fastest, step 2 adds the G partials; then, for contrast, the all-reduce of whole
// vectors that data-parallel training does.
//   10_multi_gpu [--gpus G] [--combine auto|peer|nccl] [--launch gated|graph|threads|loop] [chapter options]
//   mpirun -np G 10_multi_gpu_mpi [the same]   (one process per GPU: processes_mpi.cpp, where MPI is found)
#include <algorithm>
#include <atomic>
#include <exception>
#include <memory>
#include <numeric>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "analysis.cuh"        // what the program explains, the scaling, and the contrast: whole vectors
#include "common/gpu.cuh"
#include "common/program.hpp"  // run_guarded, the exit statuses
#include "multi_gpu.cuh"       // step 1; step 2 by NCCL (launch_combine) or by peer stores (launch_peer_combine)
#include "processes.hpp"       // one process for every GPU, or one per GPU under mpirun

using namespace reduction;
using namespace ch10;

struct Settings {
  int gpus_asked = 0;                // --gpus; 0: every visible GPU (or every rank, under mpirun)
  std::size_t vector_max = 1 << 30;  // --vector-max, bytes
  std::string combine = "auto", launch = "gated";
};

// The common options into `options`, the chapter's into `settings`. Returns the status to exit
// with right away (after --help or --list, or for bad usage), or nothing to go on.
std::optional<int> parse_options(const ChapterInfo& info, Options& options, Settings& settings,
                                 const Processes& processes, int argc, char** argv) {
  std::string gpus_text = "all", vector_max_text = "1G";
  CommandLine cli(info, options);
  cli.add_option("--gpus", gpus_text, "GPUs to split the array over: all or a number; under mpirun, -np");
  cli.add_option("--combine", settings.combine, "step 2: peer, nccl, or auto (peer where every GPU reaches "
                 "every other's memory)", {"auto", "peer", "nccl"});
  cli.add_option("--launch", settings.launch, "how a process issues its GPUs' work: one CUDA graph, "
                 "queued behind a gate the host opens once every GPU has it (gated) or not (graph); a "
                 "thread per GPU; or a loop", {"gated", "graph", "threads", "loop"});
  cli.add_option("--vector-max", vector_max_text, "largest vector of the all-reduce sweep, in bytes (0: none)");
  cli.add_check([&]() -> std::optional<std::string> {
    if (gpus_text == "all") return std::nullopt;
    const auto g = parse_count(gpus_text);
    if (!g || *g < 1 || *g > 4096)
      return "--gpus must be all or a number of GPUs from 1 to 4096, got '" + escaped(gpus_text) + "'";
    settings.gpus_asked = static_cast<int>(*g);
    if (Processes::with_mpi() && settings.gpus_asked != processes.size())
      return "--gpus " + escaped(gpus_text) + " disagrees with the " + std::to_string(processes.size()) +
             " processes mpirun started: under mpirun, G is the number of processes (-np)";
    return std::nullopt;
  });
  cli.add_check([&]() -> std::optional<std::string> {
    const auto bytes = parse_count(vector_max_text);
    if (!bytes) return "--vector-max must be a number of bytes such as 0 or 1G, got '" + escaped(vector_max_text) + "'";
    settings.vector_max = *bytes;
    return std::nullopt;
  });
  QuietUnless quiet(processes.rank() == 0);
  return cli.parse(argc, argv);
}

// One GPU this process drives, and what it holds, all made with its device current.
inline int made_current(int device) {
  CUDA_CHECK(cudaSetDevice(device));
  return device;
}
template <typename T>
struct Gpu {
  int device, rank;  // the CUDA device number; its place among the G, which names its shard
  Shard shard;
  Event start, reduced, stop, mark;  // mark: where a graph's capture forks to this GPU and joins back
  cudaStream_t stream = nullptr;
  ncclComm_t comm = nullptr;
  DeviceBuffer<T> input, partial{1}, total{1};
  DeviceScratch scratch;                     // fastest's own, this GPU's alone
  DeviceBuffer<unsigned long long> mailbox;  // the peer combine's, in this GPU's memory
  PeerMailboxes boxes;                       // every GPU's, as this GPU addresses them
  std::vector<void*> opened;                 // other processes' mailboxes, opened by CUDA IPC
  Gpu(int device_, int rank_, Shard shard_) : device(made_current(device_)), rank(rank_), shard(shard_) {
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  }
  ~Gpu() {
    cudaSetDevice(device);
    if (comm) ncclCommAbort(comm);  // only after a failure: it does not wait for GPUs that may never come
    for (void* p : opened) cudaIpcCloseMemHandle(p);
    cudaStreamDestroy(stream);
  }
};
template <typename T>
using Gpus = std::vector<std::unique_ptr<Gpu<T>>>;

// Why the peer combine cannot run on GPUs 0 to G - 1, or "": every pair must reach the other's
// memory (over NVLink or PCIe), so every process must be on this machine.
std::string peer_problem(const Processes& processes, int G) {
  if (processes.local_size() != processes.size()) return "the processes span several machines";
  if (G > kMaxPeerGpus) return "more than " + std::to_string(kMaxPeerGpus) + " GPUs";
  for (int a = 0; a < G; ++a)
    for (int b = 0; b < G; ++b) {
      int can = 1;
      if (a != b) CUDA_CHECK(cudaDeviceCanAccessPeer(&can, a, b));
      if (!can) return "GPU " + std::to_string(a) + " cannot reach GPU " + std::to_string(b) + "'s memory";
    }
  return "";
}

// The mailboxes: each GPU's zeroed, then reachable from every GPU. One process turns on peer access
// between its GPUs; under mpirun each process hands the others a CUDA IPC handle and opens theirs.
template <typename T>
void connect_peers(Gpus<T>& gpus, int G, const Processes& processes) {
  for (auto& g : gpus) {
    CUDA_CHECK(cudaSetDevice(g->device));
    g->mailbox = DeviceBuffer<unsigned long long>(mailbox_words(G));
    CUDA_CHECK(cudaMemset(g->mailbox.data(), 0, mailbox_words(G) * sizeof(unsigned long long)));
    CUDA_CHECK(cudaDeviceSynchronize());
    g->boxes.gpus = G, g->boxes.rank = g->rank;
    for (auto& other : gpus)
      if (other != g) {
        const cudaError_t e = cudaDeviceEnablePeerAccess(other->device, 0);
        if (e == cudaErrorPeerAccessAlreadyEnabled) (void)cudaGetLastError();  // NCCL may have done it
        else CUDA_CHECK(e);
      }
  }
  if (!Processes::with_mpi()) {
    for (auto& g : gpus)
      for (int j = 0; j < G; ++j) g->boxes.of[j] = gpus[j]->mailbox.data();
    return;
  }
  Gpu<T>& g = *gpus.front();
  cudaIpcMemHandle_t mine;
  CUDA_CHECK(cudaIpcGetMemHandle(&mine, g.mailbox.data()));
  const auto all = gather_items(processes, std::vector{mine});  // after every process zeroed its mailbox
  for (int j = 0; j < G; ++j) {
    void* box = g.mailbox.data();
    if (j != g.rank) {
      CUDA_CHECK(cudaIpcOpenMemHandle(&box, all[j], cudaIpcMemLazyEnablePeerAccess));
      g.opened.push_back(box);
    }
    g.boxes.of[j] = static_cast<unsigned long long*>(box);
  }
}

// --launch gated: a GPU's sum waits behind this kernel until the host opens the gate, one word of
// pinned host memory that every GPU reads over PCIe (with UVA its host address is its device one).
__global__ void wait_at_gate(const volatile unsigned* gate) {
  while (*gate == 0) {
  }
}
struct Gate {
  volatile unsigned* word = nullptr;  // 0: shut, 1: open
  Gate() {
    CUDA_CHECK(cudaHostAlloc((void**)&word, sizeof *word, cudaHostAllocMapped | cudaHostAllocPortable));
    *word = 1;
  }
  ~Gate() { cudaFreeHost((void*)word); }
};

// GPU g's part of one sum, on its stream: its partial and total poisoned (a sum that writes nothing
// fails its check), step 1 between its start and reduced events, then step 2 and its stop: the peer
// combine, or its NCCL call unless the caller groups NCCL's calls. In a graph's capture, flags is
// cudaEventRecordExternal: each event a node of the graph. With a gate, the GPU waits at it first.
template <typename T>
void issue_steps(Gpu<T>& g, bool peer, bool nccl_call, unsigned flags, const volatile unsigned* gate = nullptr) {
  CUDA_CHECK(cudaSetDevice(g.device));
  CUDA_CHECK(cudaMemsetAsync(g.partial.data(), 0xFF, sizeof(T), g.stream));
  CUDA_CHECK(cudaMemsetAsync(g.total.data(), 0xFF, sizeof(T), g.stream));
  if (gate) wait_at_gate<<<1, 1, 0, g.stream>>>(gate);
  CUDA_CHECK(cudaEventRecordWithFlags(g.start.get(), g.stream, flags));
  launch_shard_partial(g.input.data(), g.shard.count, g.partial.data(), g.scratch, g.stream);
  CUDA_CHECK(cudaEventRecordWithFlags(g.reduced.get(), g.stream, flags));
  if (peer) launch_peer_combine(g.partial.data(), g.total.data(), g.boxes, g.stream);
  else if (nccl_call) launch_combine(g.partial.data(), g.total.data(), 1, g.comm, g.stream);
  else return;
  CUDA_CHECK(cudaEventRecordWithFlags(g.stop.get(), g.stream, flags));
}

// Every GPU's part, GPU after GPU (--launch loop, and what a graph captures). One thread driving
// several GPUs groups NCCL's G calls: alone, the first could wait for GPUs it has not reached yet.
template <typename T>
void issue_sum(const Gpus<T>& gpus, bool peer, unsigned flags, const volatile unsigned* gate = nullptr) {
  const bool grouped = !peer && gpus.size() > 1;
  for (auto& g : gpus) issue_steps(*g, peer, !grouped, flags, gate);
  if (!grouped) return;
  NCCL_CHECK(ncclGroupStart());
  for (auto& g : gpus) launch_combine(g->partial.data(), g->total.data(), 1, g->comm, g->stream);
  NCCL_CHECK(ncclGroupEnd());
  for (auto& g : gpus) {
    CUDA_CHECK(cudaSetDevice(g->device));
    CUDA_CHECK(cudaEventRecordWithFlags(g->stop.get(), g->stream, flags));
  }
}

// --launch graph: what `issue` queues on `stream` (and on the streams it forks from there)
// captured once into a CUDA graph, so that each run is one cudaGraphLaunch whatever it holds.
using Graph = std::unique_ptr<CUgraphExec_st, cudaError_t (*)(cudaGraphExec_t)>;
template <typename Issue>
Graph capture(cudaStream_t stream, Issue&& issue) {
  CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  issue();
  cudaGraph_t graph = nullptr;
  CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
  cudaGraphExec_t exec = nullptr;
  const cudaError_t instantiated = cudaGraphInstantiate(&exec, graph, 0);
  cudaGraphDestroy(graph);
  CUDA_CHECK(instantiated);
  return Graph(exec, cudaGraphExecDestroy);
}

// One sum in one graph over this process's GPUs: the other GPUs' streams fork from the first's
// through an event, and join it again at the end.
template <typename T>
Graph capture_sum(const Gpus<T>& gpus, bool peer, const volatile unsigned* gate) {
  Gpu<T>& first = *gpus.front();
  CUDA_CHECK(cudaSetDevice(first.device));
  return capture(first.stream, [&] {
    CUDA_CHECK(cudaEventRecord(first.mark.get(), first.stream));
    for (auto& g : gpus) {
      CUDA_CHECK(cudaSetDevice(g->device));
      if (g != gpus.front()) CUDA_CHECK(cudaStreamWaitEvent(g->stream, first.mark.get()));
    }
    issue_sum(gpus, peer, cudaEventRecordExternal, gate);
    for (auto& g : gpus) {
      if (g == gpus.front()) continue;
      CUDA_CHECK(cudaSetDevice(g->device));
      CUDA_CHECK(cudaEventRecord(g->mark.get(), g->stream));
      CUDA_CHECK(cudaSetDevice(first.device));
      CUDA_CHECK(cudaStreamWaitEvent(first.stream, g->mark.get()));
    }
  });
}

// GPU g alone: step 1 and nothing else, issued as the sums are (with --launch graph, in a graph of
// its own) and timed the same way, from its start event to its reduced one; every result checked.
template <typename T>
AloneRun time_alone(Gpu<T>& g, const Settings& settings, const Reference<T>& shard_ref, long double tol,
                    const Options& options) {
  CUDA_CHECK(cudaSetDevice(g.device));
  const bool graphed = settings.launch == "graph" || settings.launch == "gated";
  const unsigned flags = graphed ? cudaEventRecordExternal : cudaEventRecordDefault;
  issue_steps(g, false, false, cudaEventRecordDefault);  // sets up fastest's scratch, which a capture may not
  CUDA_CHECK(cudaStreamSynchronize(g.stream));
  Graph graph(nullptr, cudaGraphExecDestroy);
  if (graphed) graph = capture(g.stream, [&] { issue_steps(g, false, false, flags); });
  std::vector<double> times;
  bool correct = true;
  for (int i = -std::max(1, options.warmup); i < options.reps; ++i) {
    if (graph) CUDA_CHECK(cudaGraphLaunch(graph.get(), g.stream));
    else issue_steps(g, false, false, flags);
    CUDA_CHECK(cudaStreamSynchronize(g.stream));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, g.start.get(), g.reduced.get()));
    if (i >= 0) times.push_back(ms);
    correct = matches(g.partial.download_one(), shard_ref, tol) && correct;
  }
  const double median = summarize(times).median_ms, bytes = double(g.shard.count) * sizeof(T);
  return {median, gigabytes_per_second(bytes, median), double(g.partial.download_one()), correct, g.shard.count};
}

// One sum over the G GPUs as this process saw it: the slowest GPU's time and step 1; step 2 on the
// GPU that finished step 1 last (it waits for no one); when the host began and ended issuing it.
struct SumRun {
  double total_ms = 0, step1_ms = 0, step2_ms = 1e300, began_us = 0, ended_us = 0, total = 0;
  bool correct = true;
};

template <typename T>
SumRun sum_over_gpus(const Gpus<T>& gpus, const Settings& settings, cudaGraphExec_t graph, bool peer,
                     const Reference<T>& ref, long double tol, Gate* gate, const Processes& processes) {
  SumRun run;
  struct Opener {  // a gate left shut would hold its GPUs, and every cudaFree after, for ever
    Gate* gate;
    ~Opener() { if (gate) *gate->word = 1; }
  } opener{gate};
  if (settings.launch == "threads" && !graph) {  // a thread per GPU, each with its own NCCL call
    std::atomic<int> ready{0};
    std::vector<double> began(gpus.size()), ended(gpus.size());
    std::vector<std::exception_ptr> failed(gpus.size());
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < gpus.size(); ++i)
      threads.emplace_back([&, i] {
        ready.fetch_add(1);
        while (ready.load() < int(gpus.size())) {  // spin: the threads leave within a microsecond
        }
        try {
          began[i] = now_us();
          issue_steps(*gpus[i], peer, true, cudaEventRecordDefault);
          ended[i] = now_us();
        } catch (...) {
          failed[i] = std::current_exception();
        }
      });
    for (auto& t : threads) t.join();
    for (auto& f : failed)
      if (f) std::rethrow_exception(f);
    run.began_us = *std::min_element(began.begin(), began.end());
    run.ended_us = *std::max_element(ended.begin(), ended.end());
  } else {
    if (gate) *gate->word = 0;
    run.began_us = now_us();
    if (graph) CUDA_CHECK(cudaSetDevice(gpus.front()->device));
    if (graph) CUDA_CHECK(cudaGraphLaunch(graph, gpus.front()->stream));
    else issue_sum(gpus, peer, cudaEventRecordDefault);
    run.ended_us = now_us();
    if (gate) processes.barrier();  // under mpirun, every process's GPUs queued before any gate opens
    if (gate) *gate->word = 1;
  }
  for (auto& g : gpus) {  // then wait for each GPU, read its times, copy its total back and check it
    CUDA_CHECK(cudaSetDevice(g->device));
    CUDA_CHECK(cudaEventSynchronize(g->stop.get()));
    float step1 = 0, step2 = 0;
    CUDA_CHECK(cudaEventElapsedTime(&step1, g->start.get(), g->reduced.get()));
    CUDA_CHECK(cudaEventElapsedTime(&step2, g->reduced.get(), g->stop.get()));
    run.total_ms = std::max(run.total_ms, double(step1) + step2);
    run.step1_ms = std::max(run.step1_ms, double(step1)), run.step2_ms = std::min(run.step2_ms, double(step2));
    T total{};
    CUDA_CHECK(cudaMemcpy(&total, g->total.data(), sizeof(T), cudaMemcpyDeviceToHost));
    run.correct = run.correct && matches(total, ref, tol);
    if (&g == &gpus.front()) run.total = static_cast<double>(total);
  }
  return run;
}

template <typename T>
int run(const ChapterInfo& info, const Options& options, const Settings& settings, const Processes& processes,
        const std::vector<T>* file, const std::string& source) {
  const std::size_t n = file ? file->size() : options.n;
  Report report(info, options);
  report.set_input(data_type_of<T>(), n, source);
  // G: --gpus, every visible GPU, or under mpirun the processes; then step 2's way. A machine that
  // cannot run the G GPUs stops after the analysis (status 77).
  const GpuStatus gpu = probe_gpu();
  int visible = 0;
  if (gpu.usable) CUDA_CHECK(cudaGetDeviceCount(&visible));
  const bool mpi = Processes::with_mpi();
  const int G = mpi ? processes.size() : settings.gpus_asked ? settings.gpus_asked : visible;
  std::string problem = gpu_problem(processes, G, visible, gpu.reason);
  const std::string no_peer = settings.combine == "nccl" ? "--combine nccl"
                              : problem.empty()          ? peer_problem(processes, G)
                                                         : problem;
  if (problem.empty() && settings.combine == "peer" && !no_peer.empty()) problem = "--combine peer: " + no_peer;
  const bool peer = no_peer.empty();

  // Input: this process's part of the array (under mpirun: its GPU's shard). Without the GPUs,
  // random input is made a piece at a time for the reference, never whole.
  const Shard part = shard_of(n, processes.size(), processes.rank());
  const bool hold = file || problem.empty();
  const std::vector<T> made = file || !hold ? std::vector<T>() : random_part<T>(options.seed, part);
  const T* data = file ? file->data() + part.begin : made.data();
  // The reference: each process's part on the CPU, the parts combined. A float sum that cannot fit
  // its type is refused here (status 2), on any machine.
  const Reference<T> mine =
      hold ? reference_sum(data, part.count) : reference_in_pieces<Sum, T>(part.count, options.seed, part.begin);
  const Reference<T> ref = combine_references(gather_items(processes, std::vector{mine}));
  if (ref.exact)
    report.set_reference(ref, 0);  // the float bound needs the GPUs: below
  else
    report.set_reference(json_value(ref.value), "higher-precision CPU sum");

  analyze<T>(report, n, G, problem.empty() ? (peer ? "peer" : "nccl") : settings.combine);
  if (!problem.empty()) return processes.rank() == 0 ? report.finish_without_gpu(problem) : int(kNoGpu);
#ifdef REDUCTION_EXERCISE_UNFINISHED  // said once the options, the input and the GPUs are known to be good
  if (processes.rank() == 0) std::cerr << info.name << ": the NCCL combine in multi_gpu.cuh is not implemented yet\n";
#endif

  // Each GPU of this process (one process: GPUs 0 to G - 1; under mpirun: the GPU of its local
  // rank) gets its shard, uploaded, and is timed alone. Then the float bound over all GPUs.
  const auto gate = settings.launch == "gated" ? std::make_unique<Gate>() : nullptr;  // outlives the GPUs
  Gpus<T> gpus;
  std::vector<std::string> names;
  std::size_t depth = 0;
  Scaling measured;
  for (int r = mpi ? processes.rank() : 0; r <= (mpi ? processes.rank() : G - 1); ++r) {
    Gpu<T>& g = *gpus.emplace_back(std::make_unique<Gpu<T>>(mpi ? processes.local_rank() : r, r, shard_of(n, G, r)));
    const std::size_t bytes = g.shard.count * sizeof(T);
    check_room(g.device, bytes);
    const T* shard = data + (g.shard.begin - part.begin);
    const Reference<T> shard_ref = reference_sum(shard, g.shard.count);
    g.input = DeviceBuffer<T>(g.shard.count);
    if (bytes) CUDA_CHECK(cudaMemcpy(g.input.data(), shard, bytes, cudaMemcpyHostToDevice));
    names.push_back(current_device().describe());
    depth = std::max(depth, sharded_sum_depth<T>(g.shard.count, G));
    measured.alone.push_back(
        time_alone(g, settings, shard_ref, tolerance(shard_ref, sharded_sum_depth<T>(g.shard.count, 1)), options));
  }
  const long double tol = tolerance(ref, static_cast<std::size_t>(processes.max(double(depth))));
  measured.alone = gather_items(processes, measured.alone);

  // Set-up, timed apart (a program does it once): the communicators and the mailboxes.
  processes.barrier();
  double began = now_us();
  if (!mpi) {
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
  if (peer) connect_peers(gpus, G, processes);
  measured.init_ms = processes.max(now_us() - began) / 1e3;
  // The first sum, timed apart too, issued in a loop: NCCL connects the GPUs on first use, which
  // a graph's capture should not have to do. Then the graph, warm-up, and the timed sums, each as
  // long as its slowest GPU over every process.
  processes.barrier();
  began = now_us();
  Settings first = settings;
  first.launch = "loop";
  bool correct = sum_over_gpus(gpus, first, nullptr, peer, ref, tol, nullptr, processes).correct;
  measured.first_ms = processes.max(now_us() - began) / 1e3;
  Graph graph(nullptr, cudaGraphExecDestroy);
  if (settings.launch == "graph" || settings.launch == "gated")
    graph = capture_sum(gpus, peer, gate ? gate->word : nullptr);
  for (int i = 0; i < options.warmup; ++i)
    correct = sum_over_gpus(gpus, settings, graph.get(), peer, ref, tol, gate.get(), processes).correct && correct;
  for (int i = 0; i < options.reps; ++i) {
    processes.barrier();
    const SumRun run = sum_over_gpus(gpus, settings, graph.get(), peer, ref, tol, gate.get(), processes);
    measured.sum_ms.push_back(processes.max(run.total_ms));
    measured.combine_ms.push_back(measured.sum_ms.back() - processes.max(run.step1_ms));
    measured.step2_ms.push_back(-processes.max(-run.step2_ms));
    // The issue window: from the first call for any GPU to the last one's return (one machine's
    // processes read one clock; across machines, each process's own window).
    measured.issue_us.push_back(processes.local_size() == processes.size()
                                    ? processes.max(run.ended_us) + processes.max(-run.began_us)
                                    : processes.max(run.ended_us - run.began_us));
    correct = correct && run.correct, measured.total = run.total;
  }
  measured.correct = processes.max(correct ? 0.0 : 1.0) == 0;
  measured.combine = peer ? "peer" : "nccl";
  measured.launch = mpi ? "mpirun, " + settings.launch : settings.launch;

  // The contrast: whole vectors, as large as --vector-max and the GPUs' free memory allow.
  const std::size_t vector_max = vector_room(gpus, settings.vector_max, processes);
  const auto rows = sweep_allreduce<T>(gpus, G, allreduce_sizes(sizeof(T), vector_max), options, processes);
  graph.reset();  // before the communicators its NCCL calls use
  for (auto& g : gpus) {  // the normal end: every GPU idle, so that no call waits on another
    CUDA_CHECK(cudaSetDevice(g->device));
    CUDA_CHECK(cudaStreamSynchronize(g->stream));
    NCCL_CHECK(ncclCommDestroy(g->comm));
    g->comm = nullptr;
    for (void* p : g->opened) CUDA_CHECK(cudaIpcCloseMemHandle(p));
    g->opened.clear();
  }
  processes.barrier();  // every process has closed the others' mailboxes before any frees its own

  // The report, on rank 0 (every rank exits with the same status).
  const std::vector<std::string> all_names = gather_texts(processes, names);
  int status = measured.correct && std::all_of(rows.begin(), rows.end(), [](auto& r) { return !r.wrong; }) ? 0 : 1;
  if (processes.rank() == 0) {
    std::string unused;  // open_gpu: the CUDA versions; a GPU is known to be there
    open_gpu(report, unused);
    report.set_device(describe_gpus(all_names, G));
    report.fields().set("nccl_version", nccl_version());
    report.set_reference(ref, tol);
    report_scaling<T>(report, measured, G, n, ref, tol);
    report_allreduce<T>(report, rows, G, vector_max, settings.vector_max);
    status = std::max(status, report.finish());
  }
  return int(processes.max(double(status)));
}

int main(int argc, char** argv) {
  Processes processes(argc, argv);  // under mpirun: MPI_Init here, MPI_Finalize at the end
  ChapterInfo info{"10_multi_gpu"};
  info.title = "the sum over several GPUs: fastest on each GPU's shard, then the G partials added";
  info.default_n = std::size_t(1) << 30;  // 4 GiB of int: 1 GiB a GPU on 4 GPUs, long enough to hide step 2
  info.has_block = false;                 // fastest brings its own block size
  // The registry, as --list shows it: one variant. Its float sum is not promised the same on every
  // run: NCCL does not say in which order it adds.
  info.variants = {{"sharded_sum", "each GPU reduces its shard with fastest; step 2 adds the G partials", false}};
  info.makes_input = [] { return probe_gpu().usable; };  // without a GPU: the reference alone
  Options options;
  Settings settings;
  if (const auto parsed = parse_options(info, options, settings, processes, argc, argv)) return *parsed;
  bool finished = false;  // false after an exception: that process failed on its own
  const int status = run_guarded(info.name, [&] {
    // --input: the whole file, read by every process; each keeps its part.
    std::optional<HostData> file;
    if (!options.input.empty()) file = load_input(options.input);
    if (file && std::visit([](const auto& v) { return v.empty(); }, *file))
      throw InputError(escaped(options.input) + " holds no elements");
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
