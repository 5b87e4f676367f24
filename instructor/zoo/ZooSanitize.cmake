# ctest helper: one bug of a chapter's zoo under one compute-sanitizer tool (instructor/zoo/Zoo.cmake).
#   PROGRAM    the chapter's zoo program (instructor/zoo/zoo_gpu.cu)
#   BUG        the bug's name in the zoo list
#   TOOL       memcheck, racecheck or synccheck
#   SANITIZER  compute-sanitizer as found when configuring (empty or NOTFOUND: searched again here)
#   HINT       the CUDA toolkit's bin folder
# The tool must report at least one error (racecheck: hazard) in a run of the bug, and none in a run
# of the solution on the same input, which must also finish with exit status 0: a detector that
# fires on the right kernel too proves nothing. Without a GPU or without compute-sanitizer the
# script prints "SKIPPED: ...", which ctest reports as a skip.
cmake_minimum_required(VERSION 3.25)
if(NOT SANITIZER OR NOT EXISTS "${SANITIZER}")
  find_program(found_sanitizer compute-sanitizer HINTS ${HINT} /usr/local/cuda/bin)
  set(SANITIZER "${found_sanitizer}")
endif()
if(NOT SANITIZER OR NOT EXISTS "${SANITIZER}")
  message("SKIPPED: compute-sanitizer not found")
  return()
endif()
# The solution, without the tool: a GPU (77 without one) and a run that finishes.
execute_process(COMMAND ${PROGRAM} --bug ${BUG} --detector run --solution
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 77)  # the program has said why, in a line that starts with "SKIPPED:"
  string(STRIP "${out}" out)
  message("${out}")
  return()
elseif(NOT rc EQUAL 0)
  message(FATAL_ERROR "the solution's run failed (exit status ${rc}):\n${out}${err}")
endif()

set(failures "")
foreach(subject IN ITEMS bug solution)
  set(args --bug ${BUG} --detector run)
  if(subject STREQUAL "solution")
    list(APPEND args --solution)
  endif()
  execute_process(COMMAND ${SANITIZER} --tool ${TOOL} ${PROGRAM} ${args}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(log "${out}${err}")
  set(found -1)
  if(TOOL STREQUAL "racecheck" AND log MATCHES "RACECHECK SUMMARY: ([0-9]+) hazard")
    set(found ${CMAKE_MATCH_1})
  elseif(NOT TOOL STREQUAL "racecheck" AND log MATCHES "ERROR SUMMARY: ([0-9]+) error")
    set(found ${CMAKE_MATCH_1})
  endif()
  set(line "${TOOL}, the ${subject} (${BUG}): exit status ${rc}, ${found} reported")
  message("${line}")
  if(found EQUAL -1)
    string(APPEND failures "${line}: no summary from compute-sanitizer\n${log}\n")
  elseif(subject STREQUAL "bug" AND found EQUAL 0)
    string(APPEND failures "${line}: the bug was not caught\n${log}\n")
  elseif(subject STREQUAL "solution" AND (NOT found EQUAL 0 OR NOT rc EQUAL 0))
    string(APPEND failures "${line}: the solution must pass\n${log}\n")
  endif()
endforeach()
if(failures)
  message(FATAL_ERROR "${failures}")
endif()
message("compute-sanitizer ${TOOL}: caught ${BUG}, and the solution is clean")
