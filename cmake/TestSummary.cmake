# The summary at the end of every ctest run: per chapter, whether its kernel was checked on the CPU
# emulator, on a GPU, or not at all (cmake/PrintTestSummary.cmake prints it).
#
# reduction_add_test_summary(): writes <build>/CTestCustom.cmake, which ctest reads from the
# folder it tests; its CTEST_CUSTOM_POST_TEST command runs after the tests of every `ctest`, with
# any options (-R, -L, -j, --rerun-failed), and of the test step of a workflow preset, and prints
# to the terminal without -V. And the script's own tests, on canned logs (cmake/tests/summary/).
function(reduction_add_test_summary)
  set(script ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/PrintTestSummary.cmake)
  if(EXISTS ${PROJECT_SOURCE_DIR}/HANDOUT.md)
    set(kernels "yours")  # a handout: the solution/ headers are the student's
  elseif(REDUCTION_EXERCISES)
    set(kernels "the exercise versions")
  else()
    set(kernels "the tutorial's solutions")
  endif()
  # ctest splits the command at spaces outside double quotes.
  file(WRITE ${CMAKE_BINARY_DIR}/CTestCustom.cmake
    "# Written by cmake/TestSummary.cmake: what each chapter's tests checked, after every ctest run.\n"
    "set(CTEST_CUSTOM_POST_TEST \"\\\"${CMAKE_COMMAND}\\\" \\\"-DBUILD_DIR=${CMAKE_BINARY_DIR}\\\" "
    "\\\"-DCTEST_COMMAND=${CMAKE_CTEST_COMMAND}\\\" \\\"-DKERNELS=${kernels}\\\" -P \\\"${script}\\\"\")\n")

  # The script on logs of runs with and without a GPU, of the solutions and of unwritten kernels.
  set(cases_dir ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/tests/summary)
  file(GLOB cases CONFIGURE_DEPENDS ${cases_dir}/*.log)
  foreach(case IN LISTS cases)
    get_filename_component(name ${case} NAME_WE)
    add_test(NAME summary.${name}
      COMMAND ${CMAKE_COMMAND} -DSCRIPT=${script} -DCASE=${case} -DTESTS_JSON=${cases_dir}/tests.json
              -P ${cases_dir}/CheckSummary.cmake)
    set_tests_properties(summary.${name} PROPERTIES LABELS "summary;cpu")
  endforeach()
  # And through ctest itself: printed without -V, by a workflow preset too, and a failed run still
  # fails.
  add_test(NAME summary.ctest
    COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${PROJECT_SOURCE_DIR} -DWORK_DIR=${CMAKE_BINARY_DIR}/summary_tests
            -P ${cases_dir}/CheckCtest.cmake)
  set_tests_properties(summary.ctest PROPERTIES LABELS "summary;cpu")
endfunction()
