# Called once every chapter has been added (top-level CMakeLists.txt), since it needs them all:
#  - common.fuzz (labels cpu, fuzz): common/tests/fuzz_inputs.py runs every chapter program, with
#    the GPU hidden, on hostile files and option values, and checks exit statuses, stderr and
#    peak memory;
#  - cpu_tests: a target that builds what `ctest -L cpu` runs (the programs and the CPU test
#    programs), so that a build for the CPU tests alone (the asan preset) skips the GPU tests;
#    gpu_tests: that and every GPU test program, built with `all` or not (cmake/Chapters.cmake).
# Both take the chapters from the list add_reduction_chapter() keeps (cmake/Chapters.cmake).
function(reduction_add_fuzz_test)
  get_property(programs GLOBAL PROPERTY REDUCTION_TOUR_PROGRAMS)
  get_property(chapters GLOBAL PROPERTY REDUCTION_TOUR_TARGETS)

  find_package(Python3 COMPONENTS Interpreter)
  if(Python3_Interpreter_FOUND)
    add_test(NAME common.fuzz
      COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/common/tests/fuzz_inputs.py
              --work-dir ${CMAKE_BINARY_DIR}/fuzz ${programs})
    set_tests_properties(common.fuzz PROPERTIES LABELS "common;cpu;fuzz" TIMEOUT 300 COST 50)
  else()
    message(WARNING "python3 was not found: the fuzz test (common.fuzz) is left out")
  endif()

  # Programs that CPU tests run besides the chapters' own (chapter 10's mpirun program, say).
  get_property(extra GLOBAL PROPERTY REDUCTION_CPU_TEST_PROGRAMS)
  add_custom_target(cpu_tests)
  add_dependencies(cpu_tests common_cpu_tests ${chapters} ${extra})
  foreach(chapter IN LISTS chapters)
    if(TARGET ${chapter}_cpu_tests)
      add_dependencies(cpu_tests ${chapter}_cpu_tests)
    endif()
  endforeach()
  get_property(gpu_programs GLOBAL PROPERTY REDUCTION_GPU_TEST_PROGRAMS)
  add_custom_target(gpu_tests)
  add_dependencies(gpu_tests cpu_tests ${gpu_programs})
endfunction()
