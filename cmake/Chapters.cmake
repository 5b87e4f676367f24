# How a chapter joins the build: one call in its folder's CMakeLists.txt adds its program, its tests
# and their labels (the chapter, chapter05; cpu or gpu; emulator for test_emulated.cpp, the kernel
# on the CPU emulator):
#
#   add_reduction_chapter(
#     PROGRAM main.cu                 # the chapter's program, named after its folder
#     [GPU]                           # the program runs kernels (links the GPU harness)
#     [CPU_TESTS test_model.cpp]      # Catch2 tests that need no GPU
#     [GPU_TESTS test_kernel.cu]      # Catch2 tests that do: skipped without one, and built with
#                                     # `all` only where a GPU was visible (cmake/CudaArchitectures.cmake)
#     [SMOKE_ARGS --n 1000]           # the program's run with --json, whose output must parse
#     [USAGE_ERRORS "name: args"...]  # bad values of the chapter's own options: exit 2, one line on stderr
#     [SANITIZE "clean: args"...])    # runs under compute-sanitizer (cmake/Sanitize.cmake), a test each
#
# A GPU program must also print its analysis and exit 77 with the GPU hidden (<chapter>.without_gpu).

set(_reduction_cmake_dir ${CMAKE_CURRENT_LIST_DIR})

function(_reduction_label chapter out)  # 05_shared_memory: chapter05
  string(REGEX REPLACE "^([0-9][0-9])_.*" "chapter\\1" label "${chapter}")
  set(${out} ${label} PARENT_SCOPE)
endfunction()

# No stale verdicts: every test requires (a CTest fixture) a test that builds what it runs, and is
# not run when that build fails. A chapter's tests require build.<chapter>, its folder's targets
# only (`ctest -L chapter08` compiles nothing of 09 and 10); other tests build.cpu or build.gpu.
# The zoo's tests require build.<chapter>.zoo: a student's header in place of the solution cannot
# make the zoo, and must not keep the chapter's own tests from running.
function(_reduction_add_build_test name fixture)  # builds the targets after `fixture`
  add_test(NAME ${name} COMMAND ${CMAKE_COMMAND} --build ${CMAKE_BINARY_DIR} --config $<CONFIG> --target ${ARGN})
  set_tests_properties(${name} PROPERTIES LABELS build FIXTURES_SETUP ${fixture} RESOURCE_LOCK reduction_build
                       TIMEOUT 3600)
endfunction()
function(_reduction_require_build)
  get_property(tests DIRECTORY PROPERTY TESTS)
  get_filename_component(folder ${CMAKE_CURRENT_SOURCE_DIR} NAME)
  set(cpu_fixture reduction_built_cpu)
  set(zoo_fixture ${cpu_fixture})
  if(folder MATCHES "^[0-9][0-9]_")
    get_property(targets DIRECTORY PROPERTY BUILDSYSTEM_TARGETS)
    get_property(gpu_programs GLOBAL PROPERTY REDUCTION_GPU_TEST_PROGRAMS)
    if(NOT REDUCTION_BUILD_GPU_TESTS AND gpu_programs)
      list(REMOVE_ITEM targets ${gpu_programs})
    endif()
    set(zoo_targets ${targets})
    list(FILTER zoo_targets INCLUDE REGEX "^${folder}_(zoo|with_zoo)")
    list(FILTER targets EXCLUDE REGEX "^${folder}_(zoo|with_zoo)")
    _reduction_add_build_test(build.${folder} reduction_built_${folder} ${targets})
    set(cpu_fixture reduction_built_${folder})
    set(zoo_fixture ${cpu_fixture})
    if(zoo_targets)
      _reduction_add_build_test(build.${folder}.zoo reduction_built_${folder}_zoo ${zoo_targets})
      set(zoo_fixture reduction_built_${folder}_zoo)
    endif()
  endif()
  foreach(test IN LISTS tests)
    if(NOT test MATCHES "^(build|exercises|summary|zoo[.]generator)[.]")
      get_test_property(${test} LABELS labels)
      set(fixture ${cpu_fixture})
      if("zoo" IN_LIST labels)
        set(fixture ${zoo_fixture})
      elseif("gpu" IN_LIST labels AND REDUCTION_BUILD_GPU_TESTS AND NOT folder MATCHES "^[0-9][0-9]_")
        set(fixture reduction_built_gpu)  # a chapter's GPU tests: build.<chapter>, which holds their programs
      endif()
      set_property(TEST ${test} APPEND PROPERTY FIXTURES_REQUIRED ${fixture})
    endif()
  endforeach()
endfunction()
function(_reduction_guard)
  get_property(guarded DIRECTORY PROPERTY REDUCTION_GUARDED)
  if(NOT guarded)
    set_property(DIRECTORY PROPERTY REDUCTION_GUARDED ON)
    cmake_language(DEFER CALL _reduction_require_build)  # once the directory's tests are known
  endif()
endfunction()
function(reduction_add_build_tests)
  _reduction_add_build_test(build.cpu reduction_built_cpu cpu_tests)
  if(REDUCTION_BUILD_GPU_TESTS)
    _reduction_add_build_test(build.gpu reduction_built_gpu gpu_tests)
  endif()
  _reduction_guard()
endfunction()

# reduction_add_program_test(<test> <program> <args> <status> [ONE_LINE_ERROR] [JSON] [HIDE_GPU]
#                            [FSIZE <bytes>] [LIST <chapter> [VARIANTS ...] [ZOO_BUGS ...]] LABELS ...):
# runs `program` with `args` ("|"-separated) and checks what cmake/ExpectExit.cmake says. FSIZE is
# left out where prlimit is missing.
function(reduction_add_program_test name program args expect)
  cmake_parse_arguments(X "ONE_LINE_ERROR;JSON;HIDE_GPU" "FSIZE;LIST" "LABELS;VARIANTS;ZOO_BUGS" ${ARGN})
  set(extra "")
  if(X_FSIZE)
    find_program(REDUCTION_PRLIMIT prlimit)
    if(NOT REDUCTION_PRLIMIT)
      return()
    endif()
    set(extra -DFSIZE=${X_FSIZE} -DPRLIMIT=${REDUCTION_PRLIMIT} -DNAME=${name})
  endif()
  if(X_LIST)
    list(JOIN X_VARIANTS "|" variants)
    set(extra -DCHAPTER=${X_LIST} "-DVARIANTS=${variants}")
    if("ZOO_BUGS" IN_LIST ARGN)  # given, even with no bug
      list(JOIN X_ZOO_BUGS "|" bugs)
      list(APPEND extra "-DZOO_BUGS=${bugs}")
    endif()
  endif()
  add_test(NAME ${name}
    COMMAND ${CMAKE_COMMAND} -DPROGRAM=$<TARGET_FILE:${program}> "-DARGS=${args}" -DEXPECT=${expect}
            -DONE_LINE_ERROR=${X_ONE_LINE_ERROR} -DJSON=${X_JSON} -DHIDE_GPU=${X_HIDE_GPU} ${extra}
            -P ${_reduction_cmake_dir}/ExpectExit.cmake)
  set_tests_properties(${name} PROPERTIES LABELS "${X_LABELS}" SKIP_REGULAR_EXPRESSION "(^|\n)SKIPPED: no usable GPU")
  _reduction_guard()
endfunction()

# reduction_add_list_test(<chapter> <variant>...): `<chapter> --list --json`, which scripts read,
# names these variants.
function(reduction_add_list_test chapter)
  _reduction_label(${chapter} label)
  reduction_add_program_test(${chapter}.list ${chapter} "--list|--json" 0 LIST ${chapter} VARIANTS ${ARGN}
                             LABELS "${label};cpu")
endfunction()

# reduction_add_test_program(<target> <cpu|gpu> <source>...): built by the target cpu_tests or
# gpu_tests (cmake/Fuzz.cmake); a gpu one is left out of `all` where REDUCTION_BUILD_GPU_TESTS is off.
function(reduction_add_test_program target kind)
  if(kind STREQUAL "cpu" OR REDUCTION_BUILD_GPU_TESTS)
    add_executable(${target} ${ARGN})
  else()
    add_executable(${target} EXCLUDE_FROM_ALL ${ARGN})
  endif()
  string(TOUPPER ${kind} kind)
  set_property(GLOBAL APPEND PROPERTY REDUCTION_${kind}_TEST_PROGRAMS ${target})
endfunction()

# reduction_add_gpu_test(<test> LABELS ... COMMAND ... [PROPERTIES ...]): a test of a gpu program,
# skipped when it exits 77 (no usable GPU), and where the GPU test programs are not built.
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
  reduction_add_test_program(${target} ${kind} ${ARGN})
  target_link_libraries(${target} PRIVATE reduction_test_${kind})
  reduction_use_kernel_headers(${target})  # in a chapter with solution/
  _reduction_label(${chapter} label)
  set(labels "${label};${kind}")
  if(kind STREQUAL "gpu")
    # [huge] cases take 2 GiB of device memory or more: a test of their own, one such test at a
    # time, so that none finds the memory taken by another and skips. COST: they start as soon as
    # their chapter is built, while the others build, not after the tour (which shares their lock).
    set(filter "")
    foreach(source IN LISTS ARGN)
      file(READ ${CMAKE_CURRENT_SOURCE_DIR}/${source} text)
      if(text MATCHES "\\[huge\\]")
        set(filter "~[huge]")
      endif()
    endforeach()
    if(filter)
      reduction_add_gpu_test(${chapter}.gpu_tests_huge LABELS ${labels} COMMAND ${target} "[huge]"
                             PROPERTIES RESOURCE_LOCK reduction_gpu_memory COST 200)
    endif()
    # COST: with no timings of an earlier run, ctest starts the long tests first.
    reduction_add_gpu_test(${chapter}.gpu_tests LABELS ${labels} COMMAND ${target} ${filter} PROPERTIES COST 50)
    return()
  endif()
  # The kernel's check on the CPU emulator (test_emulated.cpp, cases tagged [emulator]) is labelled
  # emulator, for the summary (cmake/TestSummary.cmake). The program's other CPU tests (03 to 05:
  # the analysis, of the chapter's pattern) are a test of their own, so that a kernel right in
  # another pattern is not reported as failing on the emulator.
  set(emulated ${ARGN})
  list(FILTER emulated INCLUDE REGEX "(^|/)test_emulated[^/]*$")
  list(LENGTH emulated emulated)
  list(LENGTH ARGN sources)
  set(tests ${chapter}.cpu_tests)
  if(emulated GREATER 0 AND sources GREATER emulated)
    add_test(NAME ${chapter}.cpu_tests COMMAND ${target} "[emulator]")
    add_test(NAME ${chapter}.analysis_tests COMMAND ${target} "~[emulator]")
    list(APPEND tests ${chapter}.analysis_tests)
  else()
    add_test(NAME ${chapter}.cpu_tests COMMAND ${target})
  endif()
  set_tests_properties(${tests} PROPERTIES LABELS "${labels}")
  if(emulated GREATER 0)
    set_property(TEST ${chapter}.cpu_tests APPEND PROPERTY LABELS emulator)
    target_link_libraries(${target} PRIVATE reduction_emulator)
  endif()
  # A kernel that never ends is the emulator's finding (endless_loop), but a loop with no memory
  # access in it is not: a time limit too, well above the slowest run on a busy laptop.
  set_tests_properties(${tests} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600 COST 50)
  _reduction_guard()
endfunction()

function(add_reduction_chapter)
  cmake_parse_arguments(ARG "GPU" "PROGRAM" "CPU_TESTS;GPU_TESTS;SMOKE_ARGS;USAGE_ERRORS;SANITIZE" ${ARGN})
  get_filename_component(chapter ${CMAKE_CURRENT_SOURCE_DIR} NAME)
  _reduction_label(${chapter} label)

  add_executable(${chapter} ${ARG_PROGRAM})
  reduction_use_kernel_headers(${chapter})
  if(ARG_GPU)
    set(kind gpu)
    target_link_libraries(${chapter} PRIVATE reduction_gpu)
  else()
    set(kind cpu)
    target_link_libraries(${chapter} PRIVATE reduction_common)
  endif()
  set_property(GLOBAL APPEND PROPERTY REDUCTION_TOUR_TARGETS ${chapter})
  set_target_properties(${chapter} PROPERTIES REDUCTION_USES_GPU "${ARG_GPU}")
  if(ARG_CPU_TESTS)
    reduction_add_tests(${chapter} cpu ${ARG_CPU_TESTS})
  endif()
  if(ARG_GPU_TESTS)
    reduction_add_tests(${chapter} gpu ${ARG_GPU_TESTS})
  endif()

  string(REPLACE ";" "|" smoke "${ARG_SMOKE_ARGS}")
  reduction_add_program_test(${chapter}.json ${chapter} "${smoke}|--json|--reps|3|--warmup|1" 0 JSON LABELS "${label};${kind}")
  # The shared options are checked once, in common/ (test_options.cpp, common.fuzz.*); here the chapter's own.
  foreach(case IN LISTS ARG_USAGE_ERRORS)  # "name: --a 1" -> <chapter>.usage.name, "--a|1"
    string(REGEX MATCH "^([^:]+): *(.*)$" case "${case}")
    string(REPLACE " " "|" args "${CMAKE_MATCH_2}")
    reduction_add_program_test(${chapter}.usage.${CMAKE_MATCH_1} ${chapter} "${args}" 2 ONE_LINE_ERROR LABELS "${label};cpu")
  endforeach()
  # --list answers only a command line that would run: an --input it cannot read is status 2.
  reduction_add_program_test(${chapter}.usage.list_unusable_input ${chapter} "--list|--input|/nonexistent/x.npy" 2
                             ONE_LINE_ERROR LABELS "${label};cpu")
  # Output past a file-size limit (prlimit --fsize, ulimit -f) cannot be written: status 5 and one
  # line, as for a broken pipe; a bad option's message to a size-limited stderr is still status 2.
  reduction_add_program_test(${chapter}.file_size_limit ${chapter} "${smoke}|--json" 5 ONE_LINE_ERROR FSIZE 100
                             LABELS "${label};cpu")
  reduction_add_program_test(${chapter}.file_size_limit_help ${chapter} "--help" 5 ONE_LINE_ERROR FSIZE 100
                             LABELS "${label};cpu")
  reduction_add_program_test(${chapter}.file_size_limit_usage ${chapter} "--n|not_a_number" 2 FSIZE 10
                             LABELS "${label};cpu")
  set(n 0)
  foreach(run IN LISTS ARG_SANITIZE)  # "clean: --n 13" -> <chapter>.sanitize.clean_<n>
    math(EXPR n "${n} + 1")
    string(REGEX MATCH "^([a-z]+): *(.*)$" run "${run}")
    string(REPLACE " " "|" args "${CMAKE_MATCH_2}|--reps|1|--warmup|0")
    reduction_add_sanitize_test(${chapter}.sanitize.${CMAKE_MATCH_1}_${n} $<TARGET_FILE:${chapter}>
                                "--n|1|--reps|1|--warmup|0" "${CMAKE_MATCH_1}:${args}" "" LABELS ${label} gpu sanitize
                                TIMEOUT 600)
  endforeach()
  if(ARG_GPU)
    reduction_add_program_test(${chapter}.without_gpu ${chapter} "${smoke}" 77 HIDE_GPU LABELS "${label};cpu")
  endif()
endfunction()

# reduction_add_sanitize_test(<test> <program> <probe> <runs> <tools> LABELS ... TIMEOUT <s>):
# cmake/Sanitize.cmake's runs.
function(reduction_add_sanitize_test name program probe runs tools)
  cmake_parse_arguments(X "" "TIMEOUT" "LABELS" ${ARGN})
  reduction_add_gpu_test(${name} LABELS ${X_LABELS}
    COMMAND ${CMAKE_COMMAND} -DPROGRAM=${program} "-DHINT=${CUDAToolkit_BIN_DIR}" "-DPROBE=${probe}"
            "-DRUNS=${runs}" "-DTOOLS=${tools}" -P ${_reduction_cmake_dir}/Sanitize.cmake
    PROPERTIES SKIP_REGULAR_EXPRESSION "^SKIPPED:" TIMEOUT ${X_TIMEOUT} COST 40)  # three tools: start early
endfunction()

# add_single_block_chapter(<gpu tests> <array> <kernel header> <kernel>): a chapter of one block (03
# to 05), whose kernel (the template <kernel> in <kernel header>) also runs on the CPU emulator for
# the program's analysis and the tests; <array> is where the trace takes the result from.
function(add_single_block_chapter gpu_tests result_array kernel_header kernel)
  get_filename_component(chapter ${CMAKE_CURRENT_SOURCE_DIR} NAME)
  _reduction_label(${chapter} label)
  add_reduction_chapter(
    PROGRAM main.cu
    GPU
    CPU_TESTS test_model.cpp test_emulated.cpp
    GPU_TESTS ${gpu_tests}
    SMOKE_ARGS --n 1000
    # The sizes one block cannot take, a trace too large to draw, and rows.
    USAGE_ERRORS "n_zero: --n 0" "n_2049: --n 2049" "trace_too_large: --n 65 --trace" "rows_zero: --rows 0"
                 "rows_not_a_number: --rows 3x" "rows_traced: --n 8 --rows 3 --trace" "rows_past_a_grid: --rows 2^31"
    # The smallest and the largest size, and one that is not a power of two, over rows.
    SANITIZE "clean: --n 1" "clean: --n 13 --rows 3 --type double" "clean: --n 2048 --type float")
  # The same kernel header as the program's (solution/, or the student's), compiled for the emulator.
  add_library(${chapter}_emulated STATIC ${PROJECT_SOURCE_DIR}/emulator/emulated.cpp)
  target_compile_definitions(${chapter}_emulated PRIVATE "REDUCTION_KERNEL_HEADER=\"${kernel_header}\""
                                                         REDUCTION_KERNEL=${kernel})
  reduction_use_kernel_headers(${chapter}_emulated)
  target_link_libraries(${chapter}_emulated PUBLIC reduction_emulator)
  foreach(target ${chapter} ${chapter}_cpu_tests ${chapter}_gpu_tests)
    target_link_libraries(${target} PRIVATE ${chapter}_emulated)
  endforeach()
  reduction_add_program_test(${chapter}.rows ${chapter} "--n|1000|--rows|300|--json|--reps|3|--warmup|1" 0 JSON
                             LABELS "${label};gpu")
  # The trace is part of the analysis: it needs no GPU.
  reduction_add_program_test(${chapter}.trace_without_gpu ${chapter} "--n|13|--trace" 77 HIDE_GPU LABELS "${label};cpu")
  set_tests_properties(${chapter}.trace_without_gpu PROPERTIES
    PASS_REGULAR_EXPRESSION "exit status 77.*step 1, .*result: ${result_array}\\[0\\] = ")
endfunction()

# The tour, every chapter's program with its defaults in teaching order, and build/chapters.json,
# the chapters in that order for the scripts in benchmark/ ("gpu": the program runs kernels;
# "multi_gpu": it spreads one sum over several GPUs).
function(reduction_add_tour)
  get_property(targets GLOBAL PROPERTY REDUCTION_TOUR_TARGETS)
  set(entries "")
  foreach(chapter IN LISTS targets)
    set(gpu "$<IF:$<BOOL:$<TARGET_PROPERTY:${chapter},REDUCTION_USES_GPU>>,true,false>")
    set(multi_gpu "$<IF:$<BOOL:$<TARGET_PROPERTY:${chapter},REDUCTION_MULTI_GPU>>,true,false>")
    list(APPEND entries "{\"name\": \"${chapter}\", \"program\": \"$<TARGET_FILE:${chapter}>\", \"gpu\": ${gpu}, \"multi_gpu\": ${multi_gpu}}")
  endforeach()
  list(JOIN entries ",\n  " body)
  file(GENERATE OUTPUT ${CMAKE_BINARY_DIR}/chapters.json CONTENT "{\"chapters\": [\n  ${body}\n]}\n")
  add_custom_target(tour
    COMMAND ${CMAKE_COMMAND} -DCHAPTERS=${CMAKE_BINARY_DIR}/chapters.json -P ${_reduction_cmake_dir}/RunTour.cmake
    DEPENDS ${targets}
    USES_TERMINAL
    VERBATIM
    COMMENT "The tour: every chapter in order")
  # Through the build tool, as a newcomer starts it; not beside a [huge] test (a few GiB each).
  add_test(NAME tour COMMAND ${CMAKE_COMMAND} --build ${CMAKE_BINARY_DIR} --target tour)
  set_tests_properties(tour PROPERTIES LABELS "tour" RESOURCE_LOCK "reduction_gpu_memory;reduction_build" TIMEOUT 1200
                                       COST 100)
endfunction()
