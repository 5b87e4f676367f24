# ctest helper: a chapter program under compute-sanitizer.
#   PROGRAM    the chapter's executable
#   SANITIZER  compute-sanitizer as found when configuring (empty or NOTFOUND: searched again here)
#   HINT       the CUDA toolkit's bin folder
#   RUNS       "@"-separated runs, each "kind:arg|arg|...":
#                clean  memcheck, racecheck and synccheck report nothing, and the program verifies
#                       its result (exit status 0)
#                racy   racecheck reports hazards (the run is a lesson in what goes wrong), while
#                       memcheck and synccheck report nothing; its exit status is not checked, since a
#                       race may corrupt the result, which is exactly what the lesson is about
# memcheck finds out-of-bounds and misaligned accesses, racecheck hazards between threads on shared
# memory, synccheck misused barriers. Without a GPU or without compute-sanitizer the script prints
# "SKIPPED: ...", which ctest reports as a skip.
cmake_minimum_required(VERSION 3.25)
if(NOT SANITIZER OR NOT EXISTS "${SANITIZER}")
  find_program(found_sanitizer compute-sanitizer HINTS ${HINT} /usr/local/cuda/bin)
  set(SANITIZER "${found_sanitizer}")
endif()
if(NOT SANITIZER OR NOT EXISTS "${SANITIZER}")
  message("SKIPPED: compute-sanitizer not found")
  return()
endif()
execute_process(COMMAND ${PROGRAM} --n 1 --reps 1 --warmup 0
  RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
if(rc EQUAL 77)
  message("SKIPPED: no usable GPU")
  return()
endif()

string(REPLACE "@" ";" runs "${RUNS}")
set(failures "")
foreach(run IN LISTS runs)
  string(FIND "${run}" ":" colon)
  string(SUBSTRING "${run}" 0 ${colon} kind)
  math(EXPR start "${colon} + 1")
  string(SUBSTRING "${run}" ${start} -1 arg_text)
  string(REPLACE "|" ";" args "${arg_text}")
  foreach(tool memcheck racecheck synccheck)
    execute_process(COMMAND ${SANITIZER} --tool ${tool} ${PROGRAM} ${args} --reps 1 --warmup 0
      RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    set(log "${out}${err}")
    set(found -1)
    if(tool STREQUAL "racecheck" AND log MATCHES "RACECHECK SUMMARY: ([0-9]+) hazard")
      set(found ${CMAKE_MATCH_1})
    elseif(NOT tool STREQUAL "racecheck" AND log MATCHES "ERROR SUMMARY: ([0-9]+) error")
      set(found ${CMAKE_MATCH_1})
    endif()
    list(JOIN args " " shown)
    set(line "${kind} ${tool} ${shown}: exit status ${rc}, ${found} reported")
    message("${line}")
    if(found EQUAL -1)
      string(APPEND failures "${line}: no summary from compute-sanitizer\n${log}\n")
    elseif(kind STREQUAL "racy" AND tool STREQUAL "racecheck")
      if(found EQUAL 0)
        string(APPEND failures "${line}: the race was not detected\n")
      endif()
    elseif(NOT found EQUAL 0 OR (kind STREQUAL "clean" AND NOT rc EQUAL 0))
      string(APPEND failures "${line}\n${log}\n")
    endif()
  endforeach()
endforeach()
if(failures)
  message(FATAL_ERROR "${failures}")
endif()
message("compute-sanitizer: every run as expected")
