# The bug zoo (instructor/README.md): GenerateZoo.cmake makes instructor/zoo/<chapter>.txt's bugs at
# build time into ${CMAKE_BINARY_DIR}/zoo/<chapter>/, always from solution/ (the zoo tests the
# detectors, not the student).
#
# reduction_add_zoo(<kernel header> [GRID | PASSES] [KERNEL_OPTION [WRONG_RUN <args> RIGHT_RUN <args>]]):
# a test per detector the chapter's list names. GRID and PASSES: how zoo_emulated.cpp launches the
# kernel. KERNEL_OPTION (06 to 09): with -DREDUCTION_ZOO_KERNELS=ON the program also takes as
# zoo.<bug> each bug a GPU detector catches. WRONG_RUN and RIGHT_RUN: a zoo kernel that the
# program's own check must fail (exit 1), and its solution, which must pass; these run in every
# build, on <chapter>_with_zoo where the option is off.
set(_reduction_zoo_dir ${CMAKE_CURRENT_LIST_DIR})

# _reduction_zoo_program(<target> <cpu|gpu> <source>...): a test program of reduction_add_zoo's
# `chapter`, on the generated headers and the solution.
function(_reduction_zoo_program target kind)
  reduction_add_test_program(${target} ${kind} ${ARGN})
  target_include_directories(${target} PRIVATE ${CMAKE_BINARY_DIR}/zoo/${chapter} ${CMAKE_CURRENT_SOURCE_DIR}/solution)
  add_dependencies(${target} ${chapter}_zoo)
endfunction()

function(reduction_add_zoo header)
  cmake_parse_arguments(ARG "GRID;PASSES;KERNEL_OPTION" "WRONG_RUN;RIGHT_RUN" "" ${ARGN})
  get_filename_component(chapter ${CMAKE_CURRENT_SOURCE_DIR} NAME)
  set(spec ${_reduction_zoo_dir}/${chapter}.txt)
  if(NOT EXISTS ${spec})
    return()
  endif()
  _reduction_label(${chapter} label)
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

  # Each bug's detectors, read here for the tests (the generator checks the rest).
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${spec})
  file(STRINGS ${spec} lines REGEX "^(bug|caught):")
  set(detectors "")  # <bug>:<detector>
  foreach(line IN LISTS lines)
    if(line MATCHES "^bug: *([a-z0-9_]+)")
      set(bug ${CMAKE_MATCH_1})
    elseif(line MATCHES "^caught: *(.*)$")
      separate_arguments(caught UNIX_COMMAND "${CMAKE_MATCH_1}")
      list(TRANSFORM caught PREPEND "${bug}:")
      list(APPEND detectors ${caught})
    endif()
  endforeach()
  set(gpu_tests ${detectors})  # those of the zoo program
  list(FILTER gpu_tests EXCLUDE REGEX ":(emulator|pattern|delayed_warps)")

  if("${detectors}" MATCHES ":delayed_warps")
    _reduction_zoo_program(${chapter}_zoo_tests gpu ${_reduction_zoo_dir}/zoo_delayed_warps.cu)
    target_link_libraries(${chapter}_zoo_tests PRIVATE reduction_test_gpu)
    reduction_add_gpu_test(${chapter}.zoo_delayed_warps LABELS ${label} gpu zoo COMMAND ${chapter}_zoo_tests)
  endif()
  if("${detectors}" MATCHES ":(emulator|pattern)")  # pattern: the emulator finds nothing, the chapter's pattern check a difference
    _reduction_zoo_program(${chapter}_zoo_cpu_tests cpu ${_reduction_zoo_dir}/zoo_emulated.cpp)
    target_include_directories(${chapter}_zoo_cpu_tests PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})  # analysis.hpp
    target_link_libraries(${chapter}_zoo_cpu_tests PRIVATE reduction_test_cpu reduction_emulator)
    target_compile_definitions(${chapter}_zoo_cpu_tests PRIVATE $<$<BOOL:${ARG_GRID}>:REDUCTION_ZOO_GRID>
                                                                $<$<BOOL:${ARG_PASSES}>:REDUCTION_ZOO_PASSES>)
    add_test(NAME ${chapter}.zoo_emulated COMMAND ${chapter}_zoo_cpu_tests)
    set_tests_properties(${chapter}.zoo_emulated PROPERTIES LABELS "${label};cpu;zoo" TIMEOUT 600)
  endif()
  if(ARG_KERNEL_OPTION)
    _reduction_zoo_kernels("${gpu_tests}" "${ARG_WRONG_RUN}" "${ARG_RIGHT_RUN}")
  endif()
  if(NOT gpu_tests)
    return()
  endif()
  set(program ${chapter}_zoo_gpu)
  _reduction_zoo_program(${program} gpu ${_reduction_zoo_dir}/zoo_gpu.cu)
  target_link_libraries(${program} PRIVATE reduction_gpu)
  foreach(entry IN LISTS gpu_tests)
    string(REGEX MATCH "^(.*):(.*)$" entry "${entry}")
    set(bug ${CMAKE_MATCH_1})
    set(detector ${CMAKE_MATCH_2})
    set(name ${chapter}.zoo.${bug}.${detector})
    if(detector MATCHES "^(value|nondeterministic)$")
      # One at a time: the 32-bit-index bugs take 8 and 16 GiB of device memory each.
      reduction_add_gpu_test(${name} LABELS ${label} gpu zoo COMMAND ${program} --bug ${bug} --detector ${detector}
                             PROPERTIES RESOURCE_LOCK reduction_zoo_gpu_memory TIMEOUT 120)
    else()  # the bug must be caught, and the solution, which must run first, must be clean
      set(run --bug|${bug}|--detector|run)
      reduction_add_sanitize_test(${name} $<TARGET_FILE:${program}> "${run}|--solution" "caught:${run}@clean:${run}|--solution"
                                  ${detector} LABELS ${label} gpu zoo sanitize TIMEOUT 300)
    endif()
  endforeach()
endfunction()

# The zoo's kernels in the chapter's program (KERNEL_OPTION), and their tests; chapter and label
# are reduction_add_zoo's.
function(_reduction_zoo_kernels gpu_tests wrong_run right_run)
  if(REDUCTION_ZOO_KERNELS)
    set(program ${chapter})
  elseif(NOT wrong_run STREQUAL "" AND NOT REDUCTION_EXERCISES)
    set(program ${chapter}_with_zoo)
    add_executable(${program} main.cu)
    target_include_directories(${program} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/solution)
    target_link_libraries(${program} PRIVATE reduction_gpu)
    set_property(GLOBAL APPEND PROPERTY REDUCTION_CPU_TEST_PROGRAMS ${program})
  else()
    return()
  endif()
  target_compile_definitions(${program} PRIVATE REDUCTION_ZOO_KERNELS)
  target_include_directories(${program} PRIVATE ${CMAKE_BINARY_DIR}/zoo/${chapter})
  add_dependencies(${program} ${chapter}_zoo)

  # The bugs the program must offer: those a GPU detector catches.
  list(TRANSFORM gpu_tests REPLACE ":.*" "")
  list(REMOVE_DUPLICATES gpu_tests)
  reduction_add_program_test(${chapter}.zoo_kernels.list ${program} "--list|--json" 0 LIST ${chapter} ZOO_BUGS ${gpu_tests}
                             LABELS "${label};cpu;zoo")
  if(wrong_run STREQUAL "")
    return()
  endif()
  # Without --kernel the program runs at least one kernel, and none of the zoo's.
  add_test(NAME ${chapter}.zoo_kernels.default_run COMMAND ${program} --n 100003 --reps 3 --warmup 1 --json)
  set_tests_properties(${chapter}.zoo_kernels.default_run PROPERTIES LABELS "${label};gpu;zoo" SKIP_RETURN_CODE 77
                       FAIL_REGULAR_EXPRESSION "\"kernel\": *\"zoo[.];\"runs\": *\\[ *\\]")
  # The wrong kernel fails the program's own check (exit status 1, kWrongResult); its solution passes.
  string(REPLACE " " "|" wrong_run "${wrong_run}|--json")
  string(REPLACE " " "|" right_run "${right_run}|--json")
  reduction_add_program_test(${chapter}.zoo_kernels.wrong_run ${program} "${wrong_run}" 1 JSON LABELS "${label};gpu;zoo")
  reduction_add_program_test(${chapter}.zoo_kernels.right_run ${program} "${right_run}" 0 JSON LABELS "${label};gpu;zoo")
endfunction()

# reduction_add_zoo_generator_tests(): GenerateZoo.cmake on bad lists, each of which must stop it
# with the message given; the good lists are the chapters', which every build generates. Each case
# is <name>|<the chapter's keys>|<the bug's keys>|<the message>, a list on chapter 08's solution.
function(reduction_add_zoo_generator_tests)
  set(launch "launch: launch_finish_kernel<E>")
  set(bug "find: x\nreplace: y\ncaught")
  foreach(case
      "bad_n|${launch}|${bug}: value\nn: 2^31|n: is a positive number, found: 2\\^31"
      "bad_passes|passes: three_passes|${bug}: emulator:race|passes: is two_passes or one_pass, found: three_passes"
      "emulator_without_kernel||${bug}: emulator:race|the emulator runs the kernel: name it with kernel:"
      "find_not_unique|${launch}|find: #include\nreplace:\ncaught: value|`#include` must occur exactly once in two_pass"
      "gpu_without_launch||${bug}: value|bug gpu_without_launch names a GPU detector: it needs a launch:"
      "missing_header|${launch}|header: missing.cuh\n${bug}: value|bug missing_header: no missing.cuh in"
      "unknown_detector|${launch}|${bug}: racechek|unknown detector racechek")
    string(REGEX MATCH "^([^|]*)[|]([^|]*)[|]([^|]*)[|](.*)$" case "${case}")
    set(spec ${CMAKE_BINARY_DIR}/zoo_tests/${CMAKE_MATCH_1}.txt)
    file(WRITE ${spec} "header: two_pass.cuh\nnamespace: ch08\n${CMAKE_MATCH_2}\n\nbug: ${CMAKE_MATCH_1}\n"
                       "${CMAKE_MATCH_3}\nwhy: a wrong list\n")
    add_test(NAME zoo.generator.${CMAKE_MATCH_1}
      COMMAND ${CMAKE_COMMAND} -DSPEC=${spec} -DSOLUTION_DIR=${PROJECT_SOURCE_DIR}/08_two_pass/solution
              -DOUT_DIR=${CMAKE_BINARY_DIR}/zoo_tests/${CMAKE_MATCH_1} -P ${_reduction_zoo_dir}/GenerateZoo.cmake)
    # And the generator must stop: a match alone would pass one that printed the message and went on.
    set_tests_properties(zoo.generator.${CMAKE_MATCH_1} PROPERTIES LABELS "zoo;cpu"
      PASS_REGULAR_EXPRESSION "${CMAKE_MATCH_4}.*no bug zoo was written")
  endforeach()
endfunction()
