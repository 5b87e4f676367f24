# reduction_add_fuzz_test(), once every chapter is added:
#  - common.fuzz.<chapter>: common/tests/fuzz_inputs.py runs the chapter's program, with the GPU
#    hidden, on hostile files and option values, and checks exit statuses, stderr and peak memory
#    (a test per program, so that ctest runs them side by side);
#  - cpu_tests, the target that builds what `ctest -L cpu` runs (the asan preset builds only that),
#    and gpu_tests, that and every GPU test program (cmake/Chapters.cmake).
function(reduction_add_fuzz_test)
  get_property(chapters GLOBAL PROPERTY REDUCTION_TOUR_TARGETS)
  if(Python3_Interpreter_FOUND)
    foreach(chapter IN LISTS chapters)
      add_test(NAME common.fuzz.${chapter}
        COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/common/tests/fuzz_inputs.py
                --work-dir ${CMAKE_BINARY_DIR}/fuzz/${chapter} $<TARGET_FILE:${chapter}>)
      set_tests_properties(common.fuzz.${chapter} PROPERTIES LABELS "common;cpu;fuzz" TIMEOUT 300 COST 50)
    endforeach()
  else()
    message(WARNING "python3 was not found: the fuzz tests (common.fuzz.*) are left out")
  endif()

  get_property(cpu_programs GLOBAL PROPERTY REDUCTION_CPU_TEST_PROGRAMS)
  add_custom_target(cpu_tests)
  add_dependencies(cpu_tests ${chapters} ${cpu_programs})
  get_property(gpu_programs GLOBAL PROPERTY REDUCTION_GPU_TEST_PROGRAMS)
  add_custom_target(gpu_tests)
  add_dependencies(gpu_tests cpu_tests ${gpu_programs})
endfunction()
