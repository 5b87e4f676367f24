# The bug zoo (cmake/GenerateZoo.cmake): a chapter's zoo.txt lists wrong kernels, each the
# solution with one edit; they are generated at build time into ${CMAKE_BINARY_DIR}/zoo/<chapter>/
# (always from solution/, also in exercise mode: the zoo tests the detectors, not the student).
#
# reduction_add_zoo(<kernel header>): in a chapter folder with a zoo.txt (a handout has none),
# the generated headers and the GPU test <chapter>.zoo_delayed_warps (03_simple_kernel/single_block/zoo_delayed_warps.cu), which holds
# some warps back and checks that every bug the zoo gives to that detector fails in every run; and
# the CPU test <chapter>.zoo_emulated (03_simple_kernel/single_block/zoo_emulated.cpp), which checks that the CPU emulator
# (03_simple_kernel/single_block/emulator.hpp) catches every bug the zoo gives to it.
function(reduction_add_zoo header)
  get_filename_component(chapter ${CMAKE_CURRENT_SOURCE_DIR} NAME)
  set(spec ${CMAKE_CURRENT_SOURCE_DIR}/zoo.txt)
  if(NOT EXISTS ${spec})
    return()
  endif()
  set(generator ${PROJECT_SOURCE_DIR}/cmake/GenerateZoo.cmake)
  set(out_dir ${CMAKE_BINARY_DIR}/zoo/${chapter})
  add_custom_command(OUTPUT ${out_dir}/zoo_list.hpp
    COMMAND ${CMAKE_COMMAND} -DSPEC=${spec} -DSOLUTION_DIR=${CMAKE_CURRENT_SOURCE_DIR}/solution
            -DOUT_DIR=${out_dir} -P ${generator}
    DEPENDS ${spec} ${CMAKE_CURRENT_SOURCE_DIR}/solution/${header} ${generator}
    COMMENT "Generating the bug zoo of ${chapter}"
    VERBATIM)
  add_custom_target(${chapter}_zoo DEPENDS ${out_dir}/zoo_list.hpp)

  _reduction_label(${chapter} label)
  set(target ${chapter}_zoo_tests)
  add_executable(${target} ${PROJECT_SOURCE_DIR}/03_simple_kernel/single_block/zoo_delayed_warps.cu)
  target_link_libraries(${target} PRIVATE reduction_test_gpu)
  # The solution, also in exercise mode: the zoo tests the detectors against the right kernel.
  target_include_directories(${target} PRIVATE ${out_dir} ${CMAKE_CURRENT_SOURCE_DIR}/solution)
  add_dependencies(${target} ${chapter}_zoo)
  add_test(NAME ${chapter}.zoo_delayed_warps COMMAND ${target})
  set_tests_properties(${chapter}.zoo_delayed_warps PROPERTIES LABELS "${label};gpu;zoo" SKIP_RETURN_CODE 77)

  set(cpu_target ${chapter}_zoo_cpu_tests)
  add_executable(${cpu_target} ${PROJECT_SOURCE_DIR}/03_simple_kernel/single_block/zoo_emulated.cpp)
  target_link_libraries(${cpu_target} PRIVATE reduction_test_cpu reduction_emulator)
  target_include_directories(${cpu_target} PRIVATE ${out_dir} ${CMAKE_CURRENT_SOURCE_DIR}/solution)
  add_dependencies(${cpu_target} ${chapter}_zoo)
  add_test(NAME ${chapter}.zoo_emulated COMMAND ${cpu_target})
  set_tests_properties(${chapter}.zoo_emulated PROPERTIES LABELS "${label};cpu;zoo")
  set_property(GLOBAL APPEND PROPERTY REDUCTION_CPU_TEST_PROGRAMS ${cpu_target})  # built by cpu_tests (asan)
endfunction()
