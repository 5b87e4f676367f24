// Catch2's runner, compiled once for every test program (the v2 single header is slow to build).
#if REDUCTION_CATCH2_MAJOR == 3
#include <catch2/catch_session.hpp>
#else
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#endif

int run_catch_session(int argc, char** argv) { return Catch::Session().run(argc, argv); }
