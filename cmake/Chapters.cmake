# How a chapter joins the build: one call of add_reduction_chapter() in its folder's
# CMakeLists.txt adds its program, its tests and their CTest labels.
#
#   add_reduction_chapter(
#     PROGRAM main.cu              # the chapter's program, named after its folder
#     [GPU]                        # the program runs kernels (links the GPU harness)
#     [CPU_TESTS test_model.cpp]   # Catch2 tests that need no GPU           (label cpu)
#     [GPU_TESTS test_kernel.cu]   # Catch2 tests that do; skipped without one (label gpu), and
#                                  # built with `all` only where a GPU was visible (REDUCTION_GPU_TESTS)
#     [SMOKE_ARGS --n 1000]        # arguments of the program's own run under ctest
#     [USAGE_ERRORS "name: args"...]  # bad values of the chapter's own options: each must exit 2
#                                     # with one line on stderr
#     [SANITIZE "clean: args"...])    # runs under compute-sanitizer (cmake/Sanitize.cmake), a test
#                                     # each, label sanitize; "racy: args" for one racecheck must catch
#
# A GPU chapter keeps its kernel header in solution/, and sources include it by name
# ("simple_kernel.cuh"). Markers in that header say what a student writes; with
# REDUCTION_EXERCISES=ON the build generates the exercise version of every solution/ file (the
# marked code left as a TODO with its hints) into build/exercises/<chapter>/ and puts that folder
# on the include path instead, and everything else (program, tests, tour) stays the same.
# instructor/Exercises.cmake does this, and makes the `handout` target: the repository for students,
# every solution/ header replaced by its exercise version.
#
# Every test is labelled with the chapter (chapter01, ...) and cpu or gpu, so
# `ctest -L chapter05` checks one chapter and `ctest -L cpu` everything that needs no GPU; the CPU
# tests that run the chapter's kernel on the CPU emulator (test_emulated.cpp) also emulator.
# Beside the Catch2 tests, each program gets: a run with --json whose output must parse (gpu
# label for GPU chapters), runs with bad values of its own options that must exit 2 with one line
# on stderr, and for GPU chapters a run with the GPU hidden that must print the analysis and exit 77.
# Also here, for chapters with tests of their own: reduction_add_program_test, reduction_add_list_test,
# reduction_add_gpu_executable and reduction_add_gpu_test.

set(_reduction_cmake_dir ${CMAKE_CURRENT_LIST_DIR})
set_property(GLOBAL PROPERTY REDUCTION_TOUR_PROGRAMS "")

function(_reduction_label chapter out)
  if(chapter MATCHES "^([0-9][0-9])_")
    set(${out} chapter${CMAKE_MATCH_1} PARENT_SCOPE)
  else()
    set(${out} ${chapter} PARENT_SCOPE)
  endif()
endfunction()

# No stale verdicts: every test requires (a CTest fixture) a test that builds what it runs; when
# that build fails, ctest shows its errors and runs none of the tests that need it. A chapter's CPU
# tests require build.<chapter>, its folder's targets only (`ctest -L chapter08` compiles nothing of
# 09 and 10, which include 08's kernel); other CPU tests build.cpu, GPU tests build.gpu (targets
# cpu_tests and gpu_tests, cmake/Fuzz.cmake; build.gpu where the GPU test programs are built).
function(_reduction_require_build)
  get_property(tests DIRECTORY PROPERTY TESTS)
  get_filename_component(folder ${CMAKE_CURRENT_SOURCE_DIR} NAME)
  set(cpu_fixture reduction_built_cpu)
  if(folder MATCHES "^[0-9][0-9]_")
    get_property(targets DIRECTORY PROPERTY BUILDSYSTEM_TARGETS)
    get_property(gpu_programs GLOBAL PROPERTY REDUCTION_GPU_TEST_PROGRAMS)
    if(NOT REDUCTION_BUILD_GPU_TESTS AND gpu_programs)
      list(REMOVE_ITEM targets ${gpu_programs})
    endif()
    add_test(NAME build.${folder} COMMAND ${CMAKE_COMMAND} --build ${CMAKE_BINARY_DIR} --config $<CONFIG> --target ${targets})
    set_tests_properties(build.${folder} PROPERTIES LABELS build FIXTURES_SETUP reduction_built_${folder}
                         RESOURCE_LOCK reduction_build TIMEOUT 3600)
    set(cpu_fixture reduction_built_${folder})
  endif()
  foreach(test IN LISTS tests)
    if(NOT test MATCHES "^(build|exercises|summary|zoo[.]generator)[.]")
      get_test_property(${test} LABELS labels)
      set(fixture ${cpu_fixture})
      if("gpu" IN_LIST labels AND REDUCTION_BUILD_GPU_TESTS)
        set(fixture reduction_built_gpu)
      endif()
      set_property(TEST ${test} APPEND PROPERTY FIXTURES_REQUIRED ${fixture})
    endif()
  endforeach()
endfunction()
function(_reduction_guard)
  get_property(guarded DIRECTORY PROPERTY REDUCTION_GUARDED)
  if(NOT guarded)
    set_property(DIRECTORY PROPERTY REDUCTION_GUARDED ON)
    cmake_language(DEFER CALL _reduction_require_build)  # at the end of the directory, once its tests are known
  endif()
endfunction()
function(reduction_add_build_tests)
  set(kinds cpu)
  if(REDUCTION_BUILD_GPU_TESTS)
    list(APPEND kinds gpu)
  endif()
  foreach(kind IN LISTS kinds)
    add_test(NAME build.${kind} COMMAND ${CMAKE_COMMAND} --build ${CMAKE_BINARY_DIR} --config $<CONFIG> --target ${kind}_tests)
    set_tests_properties(build.${kind} PROPERTIES LABELS build FIXTURES_SETUP reduction_built_${kind}
                         RESOURCE_LOCK reduction_build TIMEOUT 3600)
  endforeach()
  _reduction_guard()
endfunction()

# reduction_add_program_test(<test> <program> <args> <status> [ONE_LINE_ERROR] [JSON] [HIDE_GPU] LABELS ...):
# runs `program` with `args` ("|"-separated) and checks its exit status and output
# (cmake/ExpectExit.cmake).
# FSIZE <bytes>: under `prlimit --fsize`, with stdout and stderr files (skipped where prlimit is missing).
function(reduction_add_program_test name program args expect)
  cmake_parse_arguments(X "ONE_LINE_ERROR;JSON;HIDE_GPU" "FSIZE" "LABELS" ${ARGN})
  set(fsize "")
  if(X_FSIZE)
    find_program(REDUCTION_PRLIMIT prlimit)
    if(NOT REDUCTION_PRLIMIT)
      return()
    endif()
    set(fsize -DFSIZE=${X_FSIZE} -DPRLIMIT=${REDUCTION_PRLIMIT} -DNAME=${name})
  endif()
  add_test(NAME ${name}
    COMMAND ${CMAKE_COMMAND} -DPROGRAM=$<TARGET_FILE:${program}> "-DARGS=${args}" -DEXPECT=${expect}
            -DONE_LINE_ERROR=${X_ONE_LINE_ERROR} -DJSON=${X_JSON} -DHIDE_GPU=${X_HIDE_GPU} ${fsize}
            -P ${_reduction_cmake_dir}/ExpectExit.cmake)
  set_tests_properties(${name} PROPERTIES LABELS "${X_LABELS}" SKIP_REGULAR_EXPRESSION "^SKIPPED: no usable GPU")
  _reduction_guard()
endfunction()

# reduction_add_list_test(<chapter> <variant>...): `<chapter> --list --json`, which scripts read the
# chapter's variants from, names the chapter and these variants among its own (label cpu).
function(reduction_add_list_test chapter)
  _reduction_label(${chapter} label)
  list(JOIN ARGN "|" variants)
  add_test(NAME ${chapter}.list
    COMMAND ${CMAKE_COMMAND} -DPROGRAM=$<TARGET_FILE:${chapter}> "-DARGS=--list|--json" -DEXPECT=0
            -DCHAPTER=${chapter} "-DVARIANTS=${variants}" -P ${_reduction_cmake_dir}/ExpectExit.cmake)
  set_tests_properties(${chapter}.list PROPERTIES LABELS "${label};cpu")
  _reduction_guard()
endfunction()

# reduction_add_gpu_executable(<target> <source>...): a test program that needs a GPU to do
# anything. Where REDUCTION_BUILD_GPU_TESTS is off (cmake/CudaArchitectures.cmake: no GPU visible
# when configured) `all` leaves it out; the target gpu_tests builds it all the same.
function(reduction_add_gpu_executable target)
  if(REDUCTION_BUILD_GPU_TESTS)
    add_executable(${target} ${ARGN})
  else()
    add_executable(${target} EXCLUDE_FROM_ALL ${ARGN})
  endif()
  set_property(GLOBAL APPEND PROPERTY REDUCTION_GPU_TEST_PROGRAMS ${target})
endfunction()

# reduction_add_gpu_test(<test> LABELS <labels>... COMMAND <command>... [PROPERTIES <property> <value>...]):
# a test of such a program, skipped when it exits 77 (no usable GPU). Where the GPU test programs
# are not built, the test prints why instead and CTest reports it skipped.
function(reduction_add_gpu_test name)
  cmake_parse_arguments(X "" "" "LABELS;COMMAND;PROPERTIES" ${ARGN})
  if(REDUCTION_BUILD_GPU_TESTS)
    add_test(NAME ${name} COMMAND ${X_COMMAND})
    set_tests_properties(${name} PROPERTIES SKIP_RETURN_CODE 77 ${X_PROPERTIES})
  else()
    add_test(NAME ${name} COMMAND ${CMAKE_COMMAND} -E echo
             "SKIPPED: no GPU when configured (cmake -DREDUCTION_GPU_TESTS=ON builds this test's program)")
    set_tests_properties(${name} PROPERTIES SKIP_REGULAR_EXPRESSION "^SKIPPED: no GPU when configured")
  endif()
  set_tests_properties(${name} PROPERTIES LABELS "${X_LABELS}")
  _reduction_guard()
endfunction()

# reduction_add_tests(<chapter> <cpu|gpu> sources...): one Catch2 test program and its test.
function(reduction_add_tests chapter kind)
  set(target ${chapter}_${kind}_tests)
  if(kind STREQUAL "gpu")
    reduction_add_gpu_executable(${target} ${ARGN})
  else()
    add_executable(${target} ${ARGN})
  endif()
  target_link_libraries(${target} PRIVATE reduction_test_${kind})
  _reduction_label(${chapter} label)
  # The test cases tagged [huge] take 2 GiB of device memory or more (16 GiB for inputs past 2^32): they run
  # as a test of their own, one such test at a time (RESOURCE_LOCK reduction_gpu_memory), so that
  # none of them finds the memory taken by another and skips. The other GPU tests take a few
  # hundred MiB and share the GPU.
  set(huge FALSE)
  # A chapter's test_emulated.cpp runs the chapter's own kernel (the student's, in exercise mode) on
  # the CPU emulator: its test also gets the label emulator, by which the summary at the end of a
  # ctest run (cmake/TestSummary.cmake) tells "checked on the CPU" from "checked on a GPU".
  set(labels "${label};${kind}")
  foreach(source IN LISTS ARGN)
    file(READ ${CMAKE_CURRENT_SOURCE_DIR}/${source} text)
    if(kind STREQUAL "gpu" AND text MATCHES "\\[huge\\]")
      set(huge TRUE)
    endif()
    get_filename_component(source_name ${source} NAME)
    if(kind STREQUAL "cpu" AND source_name MATCHES "^test_emulated")
      list(APPEND labels emulator)
    endif()
  endforeach()
  set(filter "")
  if(huge)
    set(filter "~[huge]")
    reduction_add_gpu_test(${chapter}.${kind}_tests_huge LABELS ${labels} COMMAND ${target} "[huge]"
                           PROPERTIES RESOURCE_LOCK reduction_gpu_memory)
  endif()
  if(kind STREQUAL "gpu")
    reduction_add_gpu_test(${chapter}.gpu_tests LABELS ${labels} COMMAND ${target} ${filter})
  else()
    add_test(NAME ${chapter}.cpu_tests COMMAND ${target} ${filter})
    # A kernel that never ends is the emulator's finding (endless_loop); a loop with no memory access
    # in it is not, so the test has a time limit too, well above the slowest run on a busy laptop.
    set_tests_properties(${chapter}.cpu_tests PROPERTIES LABELS "${labels}" SKIP_RETURN_CODE 77 TIMEOUT 600)
    _reduction_guard()
  endif()
endfunction()

function(add_reduction_chapter)
  cmake_parse_arguments(ARG "GPU" "PROGRAM" "CPU_TESTS;GPU_TESTS;SMOKE_ARGS;USAGE_ERRORS;SANITIZE" ${ARGN})
  get_filename_component(chapter ${CMAKE_CURRENT_SOURCE_DIR} NAME)
  _reduction_label(${chapter} label)

  add_executable(${chapter} ${ARG_PROGRAM})
  reduction_use_kernel_headers(${chapter})  # solution/, or its exercise version (instructor/Exercises.cmake)
  if(ARG_GPU)
    target_link_libraries(${chapter} PRIVATE reduction_gpu)
    set(kind gpu)
  else()
    target_link_libraries(${chapter} PRIVATE reduction_common)
    set(kind cpu)
  endif()
  set_property(GLOBAL APPEND PROPERTY REDUCTION_TOUR_PROGRAMS $<TARGET_FILE:${chapter}>)
  set_property(GLOBAL APPEND PROPERTY REDUCTION_TOUR_TARGETS ${chapter})
  set_target_properties(${chapter} PROPERTIES REDUCTION_USES_GPU "${ARG_GPU}")  # for chapters.json

  foreach(kind_ cpu gpu)
    string(TOUPPER ${kind_} upper)
    if(ARG_${upper}_TESTS)
      reduction_add_tests(${chapter} ${kind_} ${ARG_${upper}_TESTS})
      reduction_use_kernel_headers(${chapter}_${kind_}_tests)
    endif()
  endforeach()

  string(REPLACE ";" "|" smoke "${ARG_SMOKE_ARGS}")
  reduction_add_program_test(${chapter}.json ${chapter} "${smoke}|--json|--reps|3|--warmup|1" 0 JSON LABELS "${label};${kind}")
  # The shared options (--n abc, --type quad, a missing file, ...) are checked once, in common/
  # (common/tests/test_options.cpp, and common.fuzz against every program); here only the
  # chapter's own options.
  set(bad_usage "")
  foreach(case IN LISTS ARG_USAGE_ERRORS)  # "name: --a 1 --b" -> "name@--a|1|--b"
    string(REGEX REPLACE "^([^:]+): *" "\\1@" case "${case}")
    string(REPLACE " " "|" case "${case}")
    list(APPEND bad_usage "${case}")
  endforeach()
  foreach(case IN LISTS bad_usage)
    string(REPLACE "@" ";" parts "${case}")
    list(GET parts 0 case_name)
    list(GET parts 1 case_args)
    reduction_add_program_test(${chapter}.usage.${case_name} ${chapter} "${case_args}" 2 ONE_LINE_ERROR LABELS "${label};cpu")
  endforeach()
  # Output past a file-size limit (prlimit --fsize, ulimit -f) cannot be written: status 5 and one
  # line, as for a broken pipe, where SIGXFSZ killed every program with status 153 and no word; a
  # bad option's message to a size-limited stderr is still status 2.
  # --list answers only a command line that would run: an --input it cannot read is status 2 (03, 06
  # and 10 exited 0); in 01 and 02, which have no --list, the option is the bad usage.
  reduction_add_program_test(${chapter}.usage.list_unusable_input ${chapter} "--list|--input|/nonexistent/x.npy" 2
                             ONE_LINE_ERROR LABELS "${label};cpu")
  reduction_add_program_test(${chapter}.file_size_limit ${chapter} "${smoke}|--json" 5 ONE_LINE_ERROR FSIZE 100
                             LABELS "${label};cpu")
  reduction_add_program_test(${chapter}.file_size_limit_help ${chapter} "--help" 5 ONE_LINE_ERROR FSIZE 100
                             LABELS "${label};cpu")
  reduction_add_program_test(${chapter}.file_size_limit_usage ${chapter} "--n|not_a_number" 2 FSIZE 10
                             LABELS "${label};cpu")
  # Each run under compute-sanitizer is a test of its own (<chapter>.sanitize.<kind>_<n>), so that
  # the slow tools run side by side.
  find_program(REDUCTION_COMPUTE_SANITIZER compute-sanitizer HINTS ${CUDAToolkit_BIN_DIR} /usr/local/cuda/bin)
  set(n 0)
  foreach(run IN LISTS ARG_SANITIZE)  # "clean: --n 13" -> "clean:--n|13"
    math(EXPR n "${n} + 1")
    string(REGEX REPLACE "^([a-z]+): *" "\\1:" run "${run}")
    string(REGEX REPLACE ":.*" "" kind_ "${run}")
    string(REPLACE " " "|" run "${run}")
    reduction_add_gpu_test(${chapter}.sanitize.${kind_}_${n} LABELS ${label} gpu sanitize
      COMMAND ${CMAKE_COMMAND} -DPROGRAM=$<TARGET_FILE:${chapter}> "-DSANITIZER=${REDUCTION_COMPUTE_SANITIZER}"
              "-DHINT=${CUDAToolkit_BIN_DIR}" "-DRUNS=${run}" -P ${_reduction_cmake_dir}/Sanitize.cmake
      PROPERTIES SKIP_REGULAR_EXPRESSION "^SKIPPED:" TIMEOUT 600)
  endforeach()
  if(ARG_GPU)
    reduction_add_program_test(${chapter}.without_gpu ${chapter} "${smoke}" 77 HIDE_GPU LABELS "${label};cpu")
  endif()
endfunction()

# add_single_block_chapter(<gpu tests> <array> <kernel header> <kernel>): a chapter of one block (03
# to 05): its program, its tests (test_model.cpp on the CPU, <gpu tests> on the GPU), its kernel
# (the template <kernel>, in <kernel header>) on the CPU emulator (emulator/emulated.cpp) and the
# runs they all share. <array>
# is where the kernel's result is taken from ("data", "partial"), as the trace prints it.
function(add_single_block_chapter gpu_tests result_array kernel_header kernel)
  get_filename_component(chapter ${CMAKE_CURRENT_SOURCE_DIR} NAME)
  _reduction_label(${chapter} label)
  add_reduction_chapter(
    PROGRAM main.cu
    GPU
    CPU_TESTS test_model.cpp test_emulated.cpp  # test_emulated.cpp: the kernel on the CPU emulator
    GPU_TESTS ${gpu_tests}
    SMOKE_ARGS --n 1000
    # This chapter's limits: the sizes one block cannot take, a trace too large to draw, and rows.
    USAGE_ERRORS "n_zero: --n 0" "n_2049: --n 2049" "trace_too_large: --n 65 --trace" "rows_zero: --rows 0"
                 "rows_not_a_number: --rows 3x" "rows_traced: --n 8 --rows 3 --trace" "rows_past_a_grid: --rows 2^31"
    # The smallest and the largest size, and one that is not a power of two, over rows.
    SANITIZE "clean: --n 1" "clean: --n 13 --rows 3 --type double" "clean: --n 2048 --type float")
  # The kernel on the CPU emulator (emulator/emulated.cpp, compiled by the host compiler), from the same
  # kernel header as the program (solution/, or the student's in exercise mode): the program's
  # analysis comes from it, the CPU tests check the counts and figures on it, and the GPU tests
  # hold it against the recording on the GPU.
  add_library(${chapter}_emulated STATIC ${PROJECT_SOURCE_DIR}/emulator/emulated.cpp)
  target_compile_definitions(${chapter}_emulated PRIVATE "REDUCTION_KERNEL_HEADER=\"${kernel_header}\""
                                                         REDUCTION_KERNEL=${kernel})
  reduction_use_kernel_headers(${chapter}_emulated)
  target_link_libraries(${chapter}_emulated PUBLIC reduction_emulator)
  foreach(target ${chapter} ${chapter}_cpu_tests ${chapter}_gpu_tests)
    target_link_libraries(${target} PRIVATE ${chapter}_emulated)
  endforeach()
  # Many rows, every one checked; and the trace, which is part of the analysis: it needs no GPU.
  reduction_add_program_test(${chapter}.rows ${chapter} "--n|1000|--rows|300|--json|--reps|3|--warmup|1" 0 JSON
                             LABELS "${label};gpu")
  reduction_add_program_test(${chapter}.trace_without_gpu ${chapter} "--n|13|--trace" 77 HIDE_GPU LABELS "${label};cpu")
  set_tests_properties(${chapter}.trace_without_gpu PROPERTIES
    PASS_REGULAR_EXPRESSION "exit status 77.*step 1, .*result: ${result_array}\\[0\\] = ")
endfunction()

# The tour: every chapter's program with its defaults, in the order of REDUCTION_CHAPTERS.
# The list of programs goes to RunTour.cmake in a file, not on a command line: a build tool runs
# a custom command through a shell, and no separator survives every shell and generator.
function(reduction_add_tour)
  get_property(programs GLOBAL PROPERTY REDUCTION_TOUR_PROGRAMS)
  get_property(targets GLOBAL PROPERTY REDUCTION_TOUR_TARGETS)
  set(list_file ${CMAKE_BINARY_DIR}/tour_programs.txt)
  file(GENERATE OUTPUT ${list_file} CONTENT "$<JOIN:${programs},\n>\n")
  add_custom_target(tour
    COMMAND ${CMAKE_COMMAND} -DPROGRAMS_FILE=${list_file} -P ${_reduction_cmake_dir}/RunTour.cmake
    DEPENDS ${targets}
    USES_TERMINAL
    VERBATIM
    COMMENT "The tour: every chapter in order")
  # The tour as a newcomer starts it: through the build tool, so that the command line the
  # generator wrote is tested too. Without a GPU every GPU chapter shows its analysis and exits
  # 77, which the tour accepts; with one, every chapter must verify its result.
  add_test(NAME tour COMMAND ${CMAKE_COMMAND} --build ${CMAKE_BINARY_DIR} --target tour)
  # The tour's programs take up to a few GiB of device memory each: not beside a [huge] test.
  set_tests_properties(tour PROPERTIES LABELS "tour" RESOURCE_LOCK "reduction_gpu_memory;reduction_build" TIMEOUT 1200)
endfunction()
