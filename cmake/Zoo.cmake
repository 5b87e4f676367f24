# The bug zoo (cmake/GenerateZoo.cmake): a chapter's zoo.txt lists wrong kernels, each the
# solution with one edit; they are generated at build time into ${CMAKE_BINARY_DIR}/zoo/<chapter>/
# (always from solution/, also in exercise mode: the zoo tests the detectors, not the student).
#
# reduction_add_zoo(<kernel header> [GRID | PASSES]): in a chapter folder with a zoo.txt (a handout has none),
# the generated headers, and a test for each detector that zoo.txt names, each also checking the
# solution the same way:
#   emulator          CPU test <chapter>.zoo_emulated: the CPU emulator (emulator.hpp) catches every
#                     bug given to it, with the findings named; the single-block launch
#                     (03_simple_kernel/single_block/zoo_emulated.cpp), with GRID a grid launch
#                     (zoo_grid_emulated.cpp beside it), or with PASSES the launches each bug's
#                     passes: names (zoo_passes_emulated.cpp, chapters 08 and 09)
#   delayed_warps     GPU test <chapter>.zoo_delayed_warps (single_block/zoo_delayed_warps.cu): with
#                     some warps' stores held back, every such bug is wrong in every run
#   value, nondeterministic
#                     GPU test <chapter>.zoo.<bug>.<detector>, the chapter's zoo program
#                     (common/testing/zoo_gpu.cu) run directly
#   memcheck, racecheck, synccheck
#                     GPU test <chapter>.zoo.<bug>.<tool>, the zoo program under compute-sanitizer
#                     (cmake/ZooSanitize.cmake)
# Without a GPU the GPU tests are skipped, never passed.
function(reduction_add_zoo header)
  cmake_parse_arguments(ARG "GRID;PASSES" "" "" ${ARGN})
  get_filename_component(chapter ${CMAKE_CURRENT_SOURCE_DIR} NAME)
  set(spec ${CMAKE_CURRENT_SOURCE_DIR}/zoo.txt)
  if(NOT EXISTS ${spec})
    return()
  endif()
  set(generator ${PROJECT_SOURCE_DIR}/cmake/GenerateZoo.cmake)
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
        if(detector MATCHES "^emulator")
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
    add_executable(${target} ${PROJECT_SOURCE_DIR}/03_simple_kernel/single_block/zoo_delayed_warps.cu)
    target_link_libraries(${target} PRIVATE reduction_test_gpu)
    # The solution, also in exercise mode: the zoo tests the detectors against the right kernel.
    target_include_directories(${target} PRIVATE ${out_dir} ${CMAKE_CURRENT_SOURCE_DIR}/solution)
    add_dependencies(${target} ${chapter}_zoo)
    add_test(NAME ${chapter}.zoo_delayed_warps COMMAND ${target})
    set_tests_properties(${chapter}.zoo_delayed_warps PROPERTIES LABELS "${label};gpu;zoo" SKIP_RETURN_CODE 77)
  endif()

  if(emulator)
    set(cpu_target ${chapter}_zoo_cpu_tests)
    if(ARG_PASSES)
      add_executable(${cpu_target} ${PROJECT_SOURCE_DIR}/03_simple_kernel/single_block/zoo_passes_emulated.cpp)
    elseif(ARG_GRID)
      add_executable(${cpu_target} ${PROJECT_SOURCE_DIR}/03_simple_kernel/single_block/zoo_grid_emulated.cpp)
    else()
      add_executable(${cpu_target} ${PROJECT_SOURCE_DIR}/03_simple_kernel/single_block/zoo_emulated.cpp)
    endif()
    target_link_libraries(${cpu_target} PRIVATE reduction_test_cpu reduction_emulator)
    target_include_directories(${cpu_target} PRIVATE ${out_dir} ${CMAKE_CURRENT_SOURCE_DIR}/solution)
    add_dependencies(${cpu_target} ${chapter}_zoo)
    add_test(NAME ${chapter}.zoo_emulated COMMAND ${cpu_target})
    set_tests_properties(${chapter}.zoo_emulated PROPERTIES LABELS "${label};cpu;zoo")
    set_property(GLOBAL APPEND PROPERTY REDUCTION_CPU_TEST_PROGRAMS ${cpu_target})  # built by cpu_tests (asan)
  endif()

  if(gpu_tests)
    set(gpu_target ${chapter}_zoo_gpu)
    add_executable(${gpu_target} ${PROJECT_SOURCE_DIR}/common/testing/zoo_gpu.cu)
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
        add_test(NAME ${name} COMMAND ${gpu_target} --bug ${bug} --detector ${detector})
        # One at a time: the 32-bit-index bugs take 8 and 16 GiB of device memory each. A
        # timeout, for a bug that would loop forever (none here should).
        set_tests_properties(${name} PROPERTIES LABELS "${label};gpu;zoo" SKIP_RETURN_CODE 77
                             RESOURCE_LOCK reduction_zoo_gpu_memory TIMEOUT 120)
      else()
        add_test(NAME ${name}
          COMMAND ${CMAKE_COMMAND} -DPROGRAM=$<TARGET_FILE:${gpu_target}> -DBUG=${bug} -DTOOL=${detector}
                  "-DSANITIZER=${REDUCTION_COMPUTE_SANITIZER}" "-DHINT=${CUDAToolkit_BIN_DIR}"
                  -P ${PROJECT_SOURCE_DIR}/cmake/ZooSanitize.cmake)
        set_tests_properties(${name} PROPERTIES LABELS "${label};gpu;zoo;sanitize" SKIP_REGULAR_EXPRESSION "SKIPPED:"
                             TIMEOUT 300)
      endif()
    endforeach()
  endif()
endfunction()

# reduction_add_zoo_generator_tests(): GenerateZoo.cmake on small bad specs (cmake/tests/zoo/*.txt,
# each against chapter 08's solution), each of which must stop the generator with the message its
# first line names (`# expect: <regular expression>`). The good specs are the chapters' own zoo.txt,
# which every build generates.
function(reduction_add_zoo_generator_tests)
  set(tests_dir ${PROJECT_SOURCE_DIR}/cmake/tests/zoo)
  file(GLOB specs CONFIGURE_DEPENDS ${tests_dir}/*.txt)
  foreach(spec IN LISTS specs)
    get_filename_component(name ${spec} NAME_WE)
    file(STRINGS ${spec} expect LIMIT_COUNT 1 REGEX "^# expect: ")
    string(REGEX REPLACE "^# expect: " "" expect "${expect}")
    add_test(NAME zoo.generator.${name}
      COMMAND ${CMAKE_COMMAND} -DSPEC=${spec} -DSOLUTION_DIR=${PROJECT_SOURCE_DIR}/08_two_pass/solution
              -DOUT_DIR=${CMAKE_BINARY_DIR}/zoo_tests/${name} -P ${PROJECT_SOURCE_DIR}/cmake/GenerateZoo.cmake)
    # The message must be there and the generator must stop: a match alone would pass a generator
    # that printed it and went on, so "no bug zoo was written" is required too.
    set_tests_properties(zoo.generator.${name} PROPERTIES LABELS "zoo;cpu"
      PASS_REGULAR_EXPRESSION "${expect}.*no bug zoo was written")
  endforeach()
endfunction()
