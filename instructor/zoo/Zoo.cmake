# The bug zoo (instructor/zoo/GenerateZoo.cmake): a chapter's list, instructor/zoo/<chapter>.txt, lists wrong kernels, each the
# solution with one edit; they are generated at build time into ${CMAKE_BINARY_DIR}/zoo/<chapter>/
# (always from solution/, also in exercise mode: the zoo tests the detectors, not the student).
#
# reduction_add_zoo(<kernel header> [GRID | PASSES]): in a chapter folder whose list instructor/zoo/<chapter>.txt exists,
# the generated headers, and a test for each detector that the zoo list names, each also checking the
# solution the same way:
#   emulator          CPU test <chapter>.zoo_emulated: the CPU emulator (emulator.hpp) catches every
#                     bug given to it, with the findings named; the single-block launch
#                     (instructor/zoo/zoo_emulated.cpp), with GRID a grid launch
#                     (zoo_grid_emulated.cpp beside it), or with PASSES the launches each bug's
#                     passes: names (zoo_passes_emulated.cpp, chapters 08 and 09); pattern there
#                     too: the emulator finds nothing, and the chapter's pattern check a difference
#   delayed_warps     GPU test <chapter>.zoo_delayed_warps (instructor/zoo/zoo_delayed_warps.cu): with
#                     some warps' stores held back, every such bug is wrong in every run
#   value, nondeterministic
#                     GPU test <chapter>.zoo.<bug>.<detector>, the chapter's zoo program
#                     (instructor/zoo/zoo_gpu.cu) run directly
#   memcheck, racecheck, synccheck
#                     GPU test <chapter>.zoo.<bug>.<tool>, the zoo program under compute-sanitizer
#                     (instructor/zoo/ZooSanitize.cmake)
# Without a GPU the GPU tests are skipped, never passed.
#
# KERNEL_OPTION, for a chapter whose program has --kernel (06 to 09): in a build with
# -DREDUCTION_ZOO_KERNELS=ON the program also takes, as zoo.<bug>, each bug that a GPU detector
# catches (GenerateZoo.cmake: zoo_kernels::append_to), and the CPU test <chapter>.zoo_kernels.list
# checks its --list (instructor/zoo/ExpectZooKernels.cmake). The chapters 03 to 05 have no --kernel.
# WRONG_RUN "<args>" and RIGHT_RUN "<args>", besides: a zoo kernel that the program's own check must
# fail with those arguments (exit status 1), and its solution, which must pass (0): GPU tests
# <chapter>.zoo_kernels.wrong_run and .right_run, and .default_run, which must run none of the zoo's.
# Given for one chapter, these tests run in every build: without REDUCTION_ZOO_KERNELS (and not in
# exercise mode) on <chapter>_with_zoo, the chapter's program built as with it, one compile more.
set(_reduction_zoo_dir ${CMAKE_CURRENT_LIST_DIR})

function(reduction_add_zoo header)
  cmake_parse_arguments(ARG "GRID;PASSES;KERNEL_OPTION" "WRONG_RUN;RIGHT_RUN" "" ${ARGN})
  get_filename_component(chapter ${CMAKE_CURRENT_SOURCE_DIR} NAME)
  set(spec ${_reduction_zoo_dir}/${chapter}.txt)
  if(NOT EXISTS ${spec})
    return()
  endif()
  set(generator ${_reduction_zoo_dir}/GenerateZoo.cmake)
  set(out_dir ${CMAKE_BINARY_DIR}/zoo/${chapter})
  file(GLOB solution_headers ${CMAKE_CURRENT_SOURCE_DIR}/solution/*.cuh)  # a bug may edit any of them
  add_custom_command(OUTPUT ${out_dir}/zoo_list.hpp
    COMMAND ${CMAKE_COMMAND} -DSPEC=${spec} -DSOLUTION_DIR=${CMAKE_CURRENT_SOURCE_DIR}/solution
            -DOUT_DIR=${out_dir} -P ${generator}
    DEPENDS ${spec} ${solution_headers} ${generator}
    COMMENT "Generating the bug zoo of ${chapter}"
    VERBATIM)
  add_custom_target(${chapter}_zoo DEPENDS ${out_dir}/zoo_list.hpp)
  _reduction_label(${chapter} label)

  # Which tests to add: each bug's name and detectors, read here (the generator checks the rest).
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${spec})
  file(STRINGS ${spec} lines REGEX "^(bug|caught):")
  set(bug "")
  set(gpu_tests "")  # <bug>:<detector>
  set(emulator FALSE)
  set(delayed FALSE)
  foreach(line IN LISTS lines)
    if(line MATCHES "^bug: *([a-z0-9_]+)")
      set(bug ${CMAKE_MATCH_1})
    elseif(line MATCHES "^caught: *(.*)$")
      separate_arguments(detectors UNIX_COMMAND "${CMAKE_MATCH_1}")
      foreach(detector IN LISTS detectors)
        if(detector MATCHES "^(emulator|pattern)")
          set(emulator TRUE)
        elseif(detector STREQUAL "delayed_warps")
          set(delayed TRUE)
        else()
          list(APPEND gpu_tests "${bug}:${detector}")
        endif()
      endforeach()
    endif()
  endforeach()

  if(delayed)
    set(target ${chapter}_zoo_tests)
    reduction_add_gpu_executable(${target} ${_reduction_zoo_dir}/zoo_delayed_warps.cu)
    target_link_libraries(${target} PRIVATE reduction_test_gpu)
    # The solution, also in exercise mode: the zoo tests the detectors against the right kernel.
    target_include_directories(${target} PRIVATE ${out_dir} ${CMAKE_CURRENT_SOURCE_DIR}/solution)
    add_dependencies(${target} ${chapter}_zoo)
    reduction_add_gpu_test(${chapter}.zoo_delayed_warps LABELS ${label} gpu zoo COMMAND ${target})
  endif()

  if(emulator)
    set(cpu_target ${chapter}_zoo_cpu_tests)
    if(ARG_PASSES)
      add_executable(${cpu_target} ${_reduction_zoo_dir}/zoo_passes_emulated.cpp)
    elseif(ARG_GRID)
      add_executable(${cpu_target} ${_reduction_zoo_dir}/zoo_grid_emulated.cpp)
    else()
      add_executable(${cpu_target} ${_reduction_zoo_dir}/zoo_emulated.cpp)
    endif()
    target_link_libraries(${cpu_target} PRIVATE reduction_test_cpu reduction_emulator)
    target_include_directories(${cpu_target} PRIVATE ${out_dir} ${CMAKE_CURRENT_SOURCE_DIR}/solution
                                                     ${CMAKE_CURRENT_SOURCE_DIR})  # analysis.hpp: the pattern
    add_dependencies(${cpu_target} ${chapter}_zoo)
    add_test(NAME ${chapter}.zoo_emulated COMMAND ${cpu_target})
    set_tests_properties(${chapter}.zoo_emulated PROPERTIES LABELS "${label};cpu;zoo" TIMEOUT 600)
    set_property(GLOBAL APPEND PROPERTY REDUCTION_CPU_TEST_PROGRAMS ${cpu_target})  # built by cpu_tests (asan)
  endif()

  if(ARG_KERNEL_OPTION)
    _reduction_zoo_kernels(${chapter} ${label} "${gpu_tests}" "${ARG_WRONG_RUN}" "${ARG_RIGHT_RUN}")
  endif()

  if(gpu_tests)
    set(gpu_target ${chapter}_zoo_gpu)
    reduction_add_gpu_executable(${gpu_target} ${_reduction_zoo_dir}/zoo_gpu.cu)
    target_link_libraries(${gpu_target} PRIVATE reduction_gpu)
    target_include_directories(${gpu_target} PRIVATE ${out_dir} ${CMAKE_CURRENT_SOURCE_DIR}/solution)
    add_dependencies(${gpu_target} ${chapter}_zoo)
    find_program(REDUCTION_COMPUTE_SANITIZER compute-sanitizer HINTS ${CUDAToolkit_BIN_DIR} /usr/local/cuda/bin)
    foreach(entry IN LISTS gpu_tests)
      string(REPLACE ":" ";" entry "${entry}")
      list(GET entry 0 bug)
      list(GET entry 1 detector)
      set(name ${chapter}.zoo.${bug}.${detector})
      if(detector MATCHES "^(value|nondeterministic)$")
        # One at a time: the 32-bit-index bugs take 8 and 16 GiB of device memory each. A
        # timeout, for a bug that would loop forever (none here should).
        reduction_add_gpu_test(${name} LABELS ${label} gpu zoo COMMAND ${gpu_target} --bug ${bug} --detector ${detector}
                               PROPERTIES RESOURCE_LOCK reduction_zoo_gpu_memory TIMEOUT 120)
      else()
        reduction_add_gpu_test(${name} LABELS ${label} gpu zoo sanitize
          COMMAND ${CMAKE_COMMAND} -DPROGRAM=$<TARGET_FILE:${gpu_target}> -DBUG=${bug} -DTOOL=${detector}
                  "-DSANITIZER=${REDUCTION_COMPUTE_SANITIZER}" "-DHINT=${CUDAToolkit_BIN_DIR}"
                  -P ${_reduction_zoo_dir}/ZooSanitize.cmake
          PROPERTIES SKIP_REGULAR_EXPRESSION "^SKIPPED:" TIMEOUT 300)
      endif()
    endforeach()
  endif()
endfunction()

# The zoo's kernels in the chapter's program (reduction_add_zoo's KERNEL_OPTION): the program built
# with REDUCTION_ZOO_KERNELS defined, the zoo on its include path, and its tests.
function(_reduction_zoo_kernels chapter label gpu_tests wrong_run right_run)
  set(out_dir ${CMAKE_BINARY_DIR}/zoo/${chapter})
  if(REDUCTION_ZOO_KERNELS)
    set(program ${chapter})
  elseif(NOT wrong_run STREQUAL "" AND NOT REDUCTION_EXERCISES)
    # The program as a REDUCTION_ZOO_KERNELS build makes it (add_reduction_chapter's PROGRAM is
    # main.cu in the chapter's folder; the zoo needs the solution's headers, never the exercises').
    set(program ${chapter}_with_zoo)
    add_executable(${program} main.cu)
    target_include_directories(${program} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/solution)
    target_link_libraries(${program} PRIVATE reduction_gpu)
    set_property(GLOBAL APPEND PROPERTY REDUCTION_CPU_TEST_PROGRAMS ${program})  # built by cpu_tests (asan)
  else()
    return()
  endif()
  target_compile_definitions(${program} PRIVATE REDUCTION_ZOO_KERNELS)
  target_include_directories(${program} PRIVATE ${out_dir})
  add_dependencies(${program} ${chapter}_zoo)

  # The bugs the program must offer: those a GPU detector catches (the emulator's alone are left out).
  set(bugs "")
  foreach(entry IN LISTS gpu_tests)
    string(REGEX REPLACE ":.*" "" bug "${entry}")
    if(NOT bug IN_LIST bugs)
      list(APPEND bugs ${bug})
    endif()
  endforeach()
  string(REPLACE ";" "|" bugs "${bugs}")
  set(script ${_reduction_zoo_dir}/ExpectZooKernels.cmake)
  add_test(NAME ${chapter}.zoo_kernels.list
    COMMAND ${CMAKE_COMMAND} -DPROGRAM=$<TARGET_FILE:${program}> "-DBUGS=${bugs}" -P ${script})
  set_tests_properties(${chapter}.zoo_kernels.list PROPERTIES LABELS "${label};cpu;zoo")
  if(wrong_run STREQUAL "")
    return()
  endif()
  # Without --kernel the program runs at least one kernel, and none of the zoo's.
  add_test(NAME ${chapter}.zoo_kernels.default_run COMMAND ${program} --n 100003 --reps 3 --warmup 1 --json)
  set_tests_properties(${chapter}.zoo_kernels.default_run PROPERTIES LABELS "${label};gpu;zoo" SKIP_RETURN_CODE 77
                       FAIL_REGULAR_EXPRESSION "\"kernel\": *\"zoo[.];\"runs\": *\\[ *\\]")
  foreach(run wrong right)
    if(run STREQUAL "wrong")
      set(status 1)  # kWrongResult (common/program.hpp): the program's own check failed
      string(REPLACE " " "|" args "${wrong_run}")
    else()
      set(status 0)
      string(REPLACE " " "|" args "${right_run}")
    endif()
    reduction_add_program_test(${chapter}.zoo_kernels.${run}_run ${program} "${args}|--json" ${status} JSON
                               LABELS "${label};gpu;zoo")
  endforeach()
endfunction()

# reduction_add_zoo_generator_tests(): GenerateZoo.cmake on small bad specs (instructor/zoo/tests/*.txt,
# each against chapter 08's solution), each of which must stop the generator with the message its
# first line names (`# expect: <regular expression>`). The good specs are the chapters' own lists,
# which every build generates.
function(reduction_add_zoo_generator_tests)
  set(tests_dir ${_reduction_zoo_dir}/tests)
  file(GLOB specs CONFIGURE_DEPENDS ${tests_dir}/*.txt)
  foreach(spec IN LISTS specs)
    get_filename_component(name ${spec} NAME_WE)
    file(STRINGS ${spec} expect LIMIT_COUNT 1 REGEX "^# expect: ")
    string(REGEX REPLACE "^# expect: " "" expect "${expect}")
    add_test(NAME zoo.generator.${name}
      COMMAND ${CMAKE_COMMAND} -DSPEC=${spec} -DSOLUTION_DIR=${PROJECT_SOURCE_DIR}/08_two_pass/solution
              -DOUT_DIR=${CMAKE_BINARY_DIR}/zoo_tests/${name} -P ${_reduction_zoo_dir}/GenerateZoo.cmake)
    # The message must be there and the generator must stop: a match alone would pass a generator
    # that printed it and went on, so "no bug zoo was written" is required too.
    set_tests_properties(zoo.generator.${name} PROPERTIES LABELS "zoo;cpu"
      PASS_REGULAR_EXPRESSION "${expect}.*no bug zoo was written")
  endforeach()
endfunction()
