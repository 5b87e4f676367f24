// What chapter 10's program explains before it needs a GPU: how the array is split over the G
// GPUs, what each GPU reads and what the GPUs exchange, how far a float sum may round, and how the
// processes that drive the GPUs find each other. It needs only n, the type and G (0 when the
// number of GPUs is not known: every visible GPU, and none visible), so it is printed even on a
// machine without a GPU, before the run stops there.
#pragma once

#include <cstdio>
#include <ostream>
#include <string>
#include <type_traits>

#include "common/report.hpp"
#include "common/types.hpp"
#include "processes.hpp"
#include "sharding.hpp"

namespace ch10 {

// "512 B", "1.50 KiB", "4.00 GiB": sizes in powers of 1024, as memory is sold.
inline std::string format_bytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (bytes >= 1024 && u < 4) bytes /= 1024, ++u;
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.2f %s", bytes, units[u]);
  return buf;
}

// The analysis into the report: its text, and the split in the JSON fields. With G = 0 the text
// shows a few G for example, then the rest for two GPUs, the smallest real case.
template <typename T>
void analyze(reduction::Report& report, std::size_t n, int gpus, const Processes& processes) {
  report.fields().set("launch", Processes::with_mpi() ? "mpi" : "one_process");
  std::ostream& text = report.text();
  const int gpus_known = gpus;  // the text below may pick an example G; the fields say what is known
  const std::string type = reduction::type_name(reduction::data_type_of<T>());
  if (gpus == 0) {
    text << "split      over every visible GPU (none is visible here); for example:\n"
         << "           GPUs  elements per GPU  bytes per GPU  sent per GPU in the combine\n";
    for (int g : {1, 2, 4, 8}) {
      char line[160];
      std::snprintf(line, sizeof line, "           %4d  %16zu  %13s  %s\n", g, largest_shard(n, g),
                    format_bytes(double(largest_shard(n, g)) * sizeof(T)).c_str(), format_bytes(sizeof(T)).c_str());
      text << line;
    }
    gpus = 2;  // the rest of the analysis for two, the smallest real case
    text << "           (below: for 2 GPUs)\n";
  } else {
    const Shard first = shard_of(n, gpus, 0), last = shard_of(n, gpus, gpus - 1);
    text << "split      " << n << " " << type << " elements over " << gpus << " GPU" << (gpus > 1 ? "s" : "")
         << ", one contiguous shard each: ";
    if (first.count == last.count)
      text << first.count << " on each (" << format_bytes(double(first.count) * sizeof(T)) << ")\n";
    else if (last.count == 0)
      text << "1 element on each of the first " << n << ", none on the last " << gpus - n
           << " (they bring 0 to the combine)\n";
    else if (n % gpus == 1)
      text << first.count << " on GPU 0, " << last.count << " on the others\n";
    else
      text << first.count << " on the first " << n % gpus << " GPUs, " << last.count << " on the others\n";
    text << "          ";
    for (int g = 0; g < gpus; ++g) {
      if (gpus > 8 && g == 3) {
        text << " ...";
        g = gpus - 2;
        continue;
      }
      const Shard s = shard_of(n, gpus, g);
      text << (g ? "   GPU " : " GPU ") << g << ": [" << s.begin << ", " << s.end() << ")";
    }
    text << "\n";
  }
  const double shard_bytes = double(largest_shard(n, gpus)) * sizeof(T);
  text << "step 1     each GPU reads its own shard once with chapter 09's fastest, all GPUs at the same\n"
       << "           time: " << format_bytes(shard_bytes) << " per GPU, the whole array read G times as fast\n"
       << "step 2     one ncclAllReduce of 1 " << type << " (" << sizeof(T)
       << " bytes) from each GPU adds the G partial sums; every GPU\n"
       << "           receives the total. The exchange is " << sizeof(T) << " bytes per GPU against "
       << format_bytes(shard_bytes) << " read:\n"
       << "           its cost is a few microseconds of latency, whatever n is\n"
       << "contrast   the all-reduce of a vector as large as a shard (" << format_bytes(shard_bytes)
       << ", as data-parallel training does with\n"
       << "           its gradients) carries 2 (G - 1) / G times its bytes in and out of every GPU: "
       << format_bytes(allreduce_bytes_per_gpu(std::size_t(shard_bytes), gpus)) << " each way\n"
       << "           over links far slower than the GPU's own memory (H200, vendor figures: NVLink 450 GB/s\n"
       << "           each way, HBM 4.8 TB/s): that all-reduce is bound by the links, not by reading\n";
  if constexpr (!std::is_integral_v<T>)
    text << "floats     each element meets at most fastest's additions on its GPU, then G - 1 = " << combine_depth(gpus)
         << " in the combine\n"
         << "           (NCCL does not document its order; G - 1 is the worst any order can do)\n";
  if (Processes::with_mpi())
    text << "launch     " << processes.size() << " process" << (processes.size() > 1 ? "es" : "")
         << " started by mpirun, one GPU each (the machine's GPU of its local rank): rank 0\n"
         << "           makes NCCL's unique id (ncclGetUniqueId), MPI_Bcast hands it to every rank, and\n"
         << "           each rank joins with ncclCommInitRank\n";
  else
    text << "launch     one process drives the GPUs: ncclCommInitAll makes one communicator per GPU, and\n"
         << "           the G calls of each collective go between ncclGroupStart and ncclGroupEnd\n";
  report.fields().set("gpus", gpus_known);
  if (gpus_known > 0) report.fields().set("elements_per_gpu", largest_shard(n, gpus_known));
  report.fields().set("exchange_bytes_per_gpu", sizeof(T));
}

}  // namespace ch10
