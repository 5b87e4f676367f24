// One process per GPU, started by mpirun (10_multi_gpu_mpi): processes.hpp's calls through MPI.
#include <mpi.h>

#include <climits>
#include <string>
#include <stdexcept>

#include "processes.hpp"

namespace ch10 {

namespace {
void check(int code, const char* call) {
  if (code != MPI_SUCCESS) {
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(code, text, &length);
    throw std::runtime_error(std::string(call) + " failed: " + std::string(text, length));
  }
}

// `value` of every rank, combined by `op`, on every rank.
template <typename V>
V all_reduce(V value, MPI_Datatype type, MPI_Op op) {
  V result{};
  check(MPI_Allreduce(&value, &result, 1, type, op, MPI_COMM_WORLD), "MPI_Allreduce");
  return result;
}
}  // namespace

Processes::Processes(int& argc, char**& argv) {
  check(MPI_Init(&argc, &argv), "MPI_Init");
  check(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "MPI_Comm_rank");
  check(MPI_Comm_size(MPI_COMM_WORLD, &size_), "MPI_Comm_size");
  // The processes that share this machine (and so its GPUs): MPI-3's shared-memory split.
  MPI_Comm local;
  check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &local),
        "MPI_Comm_split_type");
  check(MPI_Comm_rank(local, &local_rank_), "MPI_Comm_rank");
  check(MPI_Comm_size(local, &local_size_), "MPI_Comm_size");
  MPI_Comm_free(&local);
}

Processes::~Processes() { MPI_Finalize(); }

bool Processes::with_mpi() { return true; }

void Processes::broadcast(void* data, std::size_t bytes) const {
  if (bytes > INT_MAX) throw std::invalid_argument("broadcast: too many bytes");
  check(MPI_Bcast(data, static_cast<int>(bytes), MPI_BYTE, 0, MPI_COMM_WORLD), "MPI_Bcast");
}

std::vector<unsigned char> Processes::all_gather(const void* data, std::size_t bytes) const {
  if (bytes * static_cast<std::size_t>(size_) > INT_MAX) throw std::invalid_argument("all_gather: too many bytes");
  std::vector<unsigned char> all(bytes * size_);
  check(MPI_Allgather(data, static_cast<int>(bytes), MPI_BYTE, all.data(), static_cast<int>(bytes), MPI_BYTE,
                      MPI_COMM_WORLD),
        "MPI_Allgather");
  return all;
}

double Processes::max(double value) const { return all_reduce(value, MPI_DOUBLE, MPI_MAX); }
double Processes::sum(double value) const { return all_reduce(value, MPI_DOUBLE, MPI_SUM); }

void Processes::barrier() const { check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier"); }

int Processes::abort_all(int status) const {
  MPI_Abort(MPI_COMM_WORLD, status);
  return status;  // not reached: MPI_Abort ends every process of the run
}

}  // namespace ch10
