# ctest helper: the summary as a student meets it, through ctest itself, in a small project of its
# own whose tests stand for one chapter's (cmake/TestSummary.cmake's hook, unchanged):
#
#   cmake -DSOURCE_DIR=<repository> -DWORK_DIR=<dir> -P CheckCtest.cmake
#
# - plain `ctest` (no -V) prints the summary, and exits 0 when every test passed or was skipped;
# - with the emulator's test failing, `ctest` says FAILED and still exits non-zero: the summary
#   never turns a failed run into a passed one; `ctest -j 2` and `ctest --rerun-failed` likewise;
# - `cmake --workflow --preset test` prints it too;
# - Testing/Temporary/LastTest.log still holds the run's tests afterwards.
cmake_minimum_required(VERSION 3.25)
set(project ${WORK_DIR}/project)
file(REMOVE_RECURSE ${project})
file(MAKE_DIRECTORY ${project})
# The GPU test without a GPU: the project's GPU test programs print this line and exit 77.
file(WRITE ${project}/CMakeLists.txt [=[
cmake_minimum_required(VERSION 3.25)
project(summary_check NONE)
include(@SOURCE_DIR@/cmake/TestSummary.cmake)
enable_testing()
option(FAIL "the emulator's test fails" OFF)
if(FAIL)
  add_test(NAME 04_convergent.cpu_tests COMMAND ${CMAKE_COMMAND} -E false)
else()
  add_test(NAME 04_convergent.cpu_tests COMMAND ${CMAKE_COMMAND} -E true)
endif()
set_tests_properties(04_convergent.cpu_tests PROPERTIES LABELS "chapter04;cpu;emulator")
add_test(NAME 04_convergent.gpu_tests COMMAND sh -c "echo 'SKIPPED: no usable GPU (none found)'; exit 77")
set_tests_properties(04_convergent.gpu_tests PROPERTIES LABELS "chapter04;gpu" SKIP_RETURN_CODE 77)
add_test(NAME 04_convergent.usage.n_zero COMMAND ${CMAKE_COMMAND} -E true)
set_tests_properties(04_convergent.usage.n_zero PROPERTIES LABELS "chapter04;cpu")
reduction_add_test_summary()
]=])
file(READ ${project}/CMakeLists.txt text)
string(REPLACE "@SOURCE_DIR@" "${SOURCE_DIR}" text "${text}")
file(WRITE ${project}/CMakeLists.txt "${text}")
# The tests of the summary script come with the hook; here only the stand-ins run.
file(WRITE ${project}/CMakePresets.json [=[
{
  "version": 6,
  "configurePresets": [{"name": "default", "binaryDir": "${sourceDir}/build"}],
  "testPresets": [{"name": "default", "configurePreset": "default",
                   "output": {"outputOnFailure": true, "shortProgress": true},
                   "filter": {"exclude": {"name": "^summary\\."}}}],
  "workflowPresets": [{"name": "test", "steps": [{"type": "configure", "name": "default"},
                                                 {"type": "test", "name": "default"}]}]
}
]=])

set(problems "")
set(passed_line "chapter 04  kernel on the CPU emulator: passed   on a GPU: not run (no GPU)")
set(failed_line "chapter 04  kernel on the CPU emulator: FAILED (04_convergent.cpu_tests)   on a GPU: not run (no GPU)")
# check(<what> <expected status: 0 or nonzero> <text the output must hold> <command>...)
function(check what expect wanted)
  execute_process(COMMAND ${ARGN} WORKING_DIRECTORY ${project} RESULT_VARIABLE status
                  OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(out "${out}${err}")
  if(NOT ((expect STREQUAL "0" AND status EQUAL 0) OR (expect STREQUAL "nonzero" AND NOT status EQUAL 0)))
    string(APPEND problems "${what}: exit status ${status}, expected ${expect}\n")
  endif()
  string(FIND "${out}" "${wanted}" found)
  if(found EQUAL -1)
    string(APPEND problems "${what}: the output does not hold\n  ${wanted}\n")
  endif()
  if(out MATCHES "Problem running command|Problem executing post-test")
    string(APPEND problems "${what}: the summary's command failed\n")
  endif()
  set(problems "${problems}" PARENT_SCOPE)
  message("---- ${what} (exit status ${status}):\n${out}")
endfunction()

check("cmake --workflow --preset test" 0 "${passed_line}" ${CMAKE_COMMAND} --workflow --preset test)
check("ctest" 0 "${passed_line}" ${CMAKE_CTEST_COMMAND} --test-dir build -E "^summary[.]")
check("ctest -j 2" 0 "${passed_line}" ${CMAKE_CTEST_COMMAND} --test-dir build -j 2 -E "^summary[.]")
# The run's log, which ctest points to after a failure, is still the run's, not the summary's.
file(READ ${project}/build/Testing/Temporary/LastTest.log log)
if(NOT log MATCHES "04_convergent.cpu_tests")
  string(APPEND problems "LastTest.log no longer holds the run's tests:\n${log}\n")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -S ${project} -B ${project}/build-fail -DFAIL=ON
                OUTPUT_QUIET RESULT_VARIABLE status)
check("ctest, the emulator's test failing" nonzero "${failed_line}"
      ${CMAKE_CTEST_COMMAND} --test-dir build-fail -E "^summary[.]")
check("ctest --rerun-failed" nonzero
      "chapter 04  kernel on the CPU emulator: FAILED (04_convergent.cpu_tests)   on a GPU: not run (not selected)"
      ${CMAKE_CTEST_COMMAND} --test-dir build-fail --rerun-failed)
check("ctest -L gpu" 0 "kernel on the CPU emulator: not run (not selected)   on a GPU: not run (no GPU)"
      ${CMAKE_CTEST_COMMAND} --test-dir build-fail -L gpu)

if(problems)
  message(FATAL_ERROR "${problems}")
endif()
