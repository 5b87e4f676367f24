// One process drives every GPU (10_multi_gpu): it is rank 0 of 1, and what it would tell the
// other processes it already knows.
#include "processes.hpp"

namespace ch10 {

Processes::Processes(int&, char**&) {}
Processes::~Processes() = default;
bool Processes::with_mpi() { return false; }
void Processes::broadcast(void*, std::size_t) const {}
std::vector<unsigned char> Processes::all_gather(const void* data, std::size_t bytes) const {
  const auto* p = static_cast<const unsigned char*>(data);
  return std::vector<unsigned char>(p, p + bytes);
}
double Processes::max(double value) const { return value; }
double Processes::sum(double value) const { return value; }
void Processes::barrier() const {}
int Processes::abort_all(int status) const { return status; }

}  // namespace ch10
