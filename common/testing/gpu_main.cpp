// Entry point of every GPU test program: without a usable GPU it runs nothing and exits with 77,
// which CTest reports as "skipped" (SKIP_RETURN_CODE), never as passed or failed.
#include <iostream>

#include "common/gpu.cuh"

int run_catch_session(int argc, char** argv);

int main(int argc, char** argv) {
  reduction::GpuStatus gpu = reduction::probe_gpu();
  if (!gpu.usable) {
    std::cout << "SKIPPED: no usable GPU (" << gpu.reason << ")" << std::endl;
    return 77;
  }
  return run_catch_session(argc, argv);
}
