// Catch2's runner, compiled once for every test program (the v2 single header is slow to build).
#if REDUCTION_CATCH2_MAJOR == 3
#include <catch2/catch_session.hpp>
#else
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#endif

// A test program decides its own exit status: 1 on any failure, 0 otherwise. Catch2 v2 exits with
// the number of failed assertions (capped at 255), and CTest reads 77 as "skipped" (SKIP_RETURN_CODE):
// 77 failed checks passed for a skip, 256 for a success. 77 comes only from a program that chose to
// skip (testing/gpu_main.cpp, without a GPU), never from here.
int run_catch_session(int argc, char** argv) { return Catch::Session().run(argc, argv) == 0 ? 0 : 1; }
