// Chapter 07 program: thread coarsening. By default it sweeps the coarsening factors upwards until
// one is clearly slower than the best so far, and names the best; --kernel coarseF (or the alias
// --coarse F) runs the factors named. common/driver.cuh runs it; analysis.cuh is the chapter as the
// driver sees it (its registry, the alias, and what it explains).
//   07_coarsening [--kernel coarse1,...] [--n N] [--type int|float|double] [--block 32..1024] [--input FILE] [--json]
#include "analysis.cuh"

int main(int argc, char** argv) {
  return reduction::run_chapter<ch07::Coarsening>(argc, argv, "07_coarsening",
                                                  "thread coarsening: more elements per thread, fewer blocks");
}
