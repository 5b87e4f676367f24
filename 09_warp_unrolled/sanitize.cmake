# ctest helper for chapter 09: the program under compute-sanitizer.
#   PROGRAM    the 09_warp_unrolled executable
#   SANITIZER  compute-sanitizer as found when configuring (empty or NOTFOUND: searched again here)
#   HINT       the CUDA toolkit's bin folder
# racecheck must report hazards in warp_volatile, the cautionary example, and in no other variant;
# memcheck and synccheck must find nothing in any variant. Each tool runs the variants at two
# block sizes (256, and 32: the warp finishes then pad their tree to 64 values) and `unrolled` at
# 8 threads (part of a warp: the warp barriers name fewer than 32 lanes). Without a GPU or
# without compute-sanitizer it prints "SKIPPED: ...", which ctest reports as a skip.
if(NOT SANITIZER OR NOT EXISTS "${SANITIZER}")
  find_program(found_sanitizer compute-sanitizer HINTS ${HINT} /usr/local/cuda/bin)
  set(SANITIZER "${found_sanitizer}")
endif()
if(NOT SANITIZER OR NOT EXISTS "${SANITIZER}")
  message("SKIPPED: compute-sanitizer not found")
  return()
endif()
execute_process(COMMAND ${PROGRAM} --n 1000 --kernel cub --reps 1 --warmup 0 RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
if(rc EQUAL 77)
  message("SKIPPED: no usable GPU")
  return()
endif()

set(others warp_syncwarp,unrolled,shuffle,fastest,cub)
set(failures "")

# Runs the program under `tool` with the arguments after it. Sets in the caller: `hazards`, the
# count in racecheck's summary ("RACECHECK SUMMARY: N hazards displayed (E errors, W warnings)"),
# `errors`, the count in memcheck's and synccheck's "ERROR SUMMARY: N errors" (-1 if absent),
# `status`, the program's exit status, and `log`, everything printed.
function(sanitize tool)
  execute_process(COMMAND ${SANITIZER} --tool ${tool} ${PROGRAM} --n 5003 --reps 1 --warmup 0 ${ARGN}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(all "${out}${err}")
  set(count -1)
  if(all MATCHES "RACECHECK SUMMARY: ([0-9]+) hazard")
    set(count ${CMAKE_MATCH_1})
  endif()
  set(error_count -1)
  if(all MATCHES "ERROR SUMMARY: ([0-9]+) error")
    set(error_count ${CMAKE_MATCH_1})
  endif()
  string(REPLACE ";" " " shown "${ARGN}")
  if(tool STREQUAL "racecheck")
    message("${tool} ${shown}: exit status ${rc}, ${count} hazard(s)")
  else()
    message("${tool} ${shown}: exit status ${rc}, ${error_count} error(s)")
  endif()
  set(hazards ${count} PARENT_SCOPE)
  set(errors ${error_count} PARENT_SCOPE)
  set(status ${rc} PARENT_SCOPE)
  set(log "${all}" PARENT_SCOPE)
endfunction()

# The cautionary example must be caught. Its result may even come out wrong under the tool, which
# changes the timing of the warp's lanes: only the report is checked.
foreach(block 256 32)
  sanitize(racecheck --kernel warp_volatile --block ${block})
  if(NOT hazards GREATER 0)
    string(APPEND failures "racecheck reported no hazard in warp_volatile (--block ${block}):\n${log}\n")
  endif()
endforeach()

# Everything else must be clean, and right. (memcheck and synccheck also run warp_volatile: a
# wrong result of it there is its race, which racecheck already reported, not the tool's finding.)
set(runs "racecheck|--kernel|${others}|--block|256" "racecheck|--kernel|${others}|--block|32"
         "racecheck|--kernel|unrolled|--block|8")
foreach(tool memcheck synccheck)
  list(APPEND runs "${tool}|--block|256" "${tool}|--block|32" "${tool}|--kernel|unrolled|--block|8")
endforeach()
foreach(run IN LISTS runs)
  string(REPLACE "|" ";" args "${run}")
  sanitize(${args})
  list(GET args 0 tool)
  list(JOIN args " " shown)
  if(tool STREQUAL "racecheck")
    set(clean FALSE)
    if(hazards EQUAL 0)
      set(clean TRUE)
    endif()
  else()
    set(clean FALSE)
    if(errors EQUAL 0)
      set(clean TRUE)
    endif()
  endif()
  if(NOT clean)
    string(APPEND failures "${shown}: the tool reported problems (or no summary):\n${log}\n")
  elseif(NOT status EQUAL 0 AND NOT log MATCHES "warp_volatile +[^ ]+ +NO")
    string(APPEND failures "${shown}: exit status ${status}\n${log}\n")
  endif()
endforeach()

if(failures)
  message(FATAL_ERROR "${failures}")
endif()
message("compute-sanitizer: racecheck flags warp_volatile only; memcheck and synccheck are clean")
