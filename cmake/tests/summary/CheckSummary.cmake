# ctest helper: the summary script (cmake/PrintTestSummary.cmake) on one canned log of a ctest run.
#
#   cmake -DSCRIPT=cmake/PrintTestSummary.cmake -DCASE=<name>.log -DTESTS_JSON=tests.json -P CheckSummary.cmake
#
# Its output must be <name>.expected, byte for byte, and its exit status 0; also when the list of
# tests cannot be had (a missing file), since a failing post-test command would fail ctest. A
# case named exercises_* is a build of the student's kernels. The cases, logs as CTest writes them:
#   solutions_without_gpu   no GPU: the GPU tests skipped, by exit status 77 or by their output
#   exercises_without_gpu   no GPU, chapter 04's kernel unwritten: its emulator test and its trace fail
#   solutions_with_gpu      a GPU, ctest -j (in the order the tests ended): 04's sanitizer missing,
#                           08's GPU test failing, a test's output holding "Test Failed."
#   subset_not_built        ctest -R: a test run twice (the last result counts), programs not built
#   no_test_ran             no test ran: nothing is printed
# tests.json holds their labels, as `ctest --show-only=json-v1` gives them (chapters 01, 04, 08).
cmake_minimum_required(VERSION 3.25)
get_filename_component(name ${CASE} NAME_WE)
get_filename_component(dir ${CASE} DIRECTORY)
set(kernels "the tutorial's solutions")
if(name MATCHES "^exercises_")
  set(kernels "yours")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -DLOG=${CASE} -DTESTS_JSON=${TESTS_JSON} "-DKERNELS=${kernels}" -P ${SCRIPT}
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(actual "${out}${err}")
if(NOT status EQUAL 0)
  message(FATAL_ERROR "the summary of ${name}.log exited with ${status}:\n${actual}")
endif()
file(READ ${dir}/${name}.expected expected)
if(NOT actual STREQUAL expected)
  message(FATAL_ERROR "the summary of ${name}.log is\n${actual}\nwhere ${name}.expected says\n${expected}")
endif()
message(STATUS "${name}:\n${actual}")

execute_process(COMMAND ${CMAKE_COMMAND} -DLOG=${CASE} -DTESTS_JSON=${dir}/no_such_file.json "-DKERNELS=${kernels}"
                -P ${SCRIPT} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "without a list of tests, the summary of ${name}.log exited with ${status}:\n${out}${err}")
endif()
