# Turns a chapter's solution header into the exercise version a student starts from:
#
#   cmake -DSOLUTION=<solution>/<name>.cuh -DEXERCISE=<out>/<name>.cuh [-DEXPECTED=<file>] -P GenerateExercise.cmake
#
# The markers (instructor/README.md) are comment lines, so the solution compiles as it is: EXERCISE
# becomes a TODO, its HINTs the lines under it, a PLACEHOLDER's code stays (so that the exercise
# compiles), and the solution code and END EXERCISE are dropped. A file with an exercise gets
# `#define REDUCTION_EXERCISE_UNFINISHED 1` after its `#pragma once` (the programs then say the
# kernel is not written yet). A marker out of place stops the generator with `<file>:<line>: <what>`.
# EXPECTED (the generator's tests): the output must equal that file, byte for byte.
cmake_minimum_required(VERSION 3.25)

# Stops with `<where>: <what>` on a line of its own, as a compiler reports an error.
function(_exercise_error where)
  string(JOIN "" what ${ARGN})
  message(NOTICE "${where}: ${what}")
  message(FATAL_ERROR "no exercise version was written")
endfunction()

# reduction_next_line(<text> <line> <newline>): takes the first line off the string in <text>;
# <newline> is "" for a last line without one. A file walked this way, never as a CMake list,
# keeps its `;`, `[` and `]`, which a list would take apart or glue together.
macro(reduction_next_line text line newline)
  string(FIND "${${text}}" "\n" _end)
  if(_end EQUAL -1)
    set(${line} "${${text}}")
    set(${newline} "")
    set(${text} "")
  else()
    string(SUBSTRING "${${text}}" 0 ${_end} ${line})
    math(EXPR _end "${_end} + 1")
    string(SUBSTRING "${${text}}" ${_end} -1 ${text})
    set(${newline} "\n")
  endif()
endmacro()

# reduction_generate_exercise(<solution> <exercise> <count_var>): writes the exercise version and
# sets <count_var> to its number of exercises.
function(reduction_generate_exercise solution exercise count_var)
  if(NOT EXISTS "${solution}")
    _exercise_error("${solution}" "no such file")
  endif()
  file(READ "${solution}" rest)
  set(head "")          # the output up to and including `#pragma once`
  set(output "")        # the output after it
  set(seen_pragma FALSE)
  set(state outside)    # outside | hints (right after EXERCISE or a HINT) | code (the solution code)
  set(opened_at 0)
  set(exercises 0)
  set(number 0)
  while(NOT rest STREQUAL "")
    reduction_next_line(rest line newline)  # a last line without a newline stays without one
    math(EXPR number "${number} + 1")
    set(where "${solution}:${number}")

    # Each pattern is anchored and open-ended only at its end: one pass over the line.
    set(marker "")
    if(line MATCHES "^([ \t]*)// (EXERCISE|HINT|PLACEHOLDER): ?(.*)$")  # one space after the colon is the marker's
      set(marker ${CMAKE_MATCH_2})
      set(indent "${CMAKE_MATCH_1}")
      set(text "${CMAKE_MATCH_3}")
    elseif(line MATCHES "^[ \t]*// END EXERCISE[ \t\r]*$")
      set(marker END)
    elseif(line MATCHES "^[ \t]*//[ \t]*(EXERCISE|HINT|PLACEHOLDER|END EXERCISE)")
      _exercise_error("${where}" "a misspelt marker: write `// EXERCISE: <text>`, `// HINT: <text>`, "
                          "`// PLACEHOLDER: <code>` or `// END EXERCISE`")
    endif()

    if(marker STREQUAL "EXERCISE")
      if(NOT state STREQUAL "outside")
        _exercise_error("${where}" "an EXERCISE inside the exercise opened at line ${opened_at}: "
                            "exercises do not nest (close that one with // END EXERCISE first)")
      endif()
      if(text MATCHES "^[ \t\r]*$")
        _exercise_error("${where}" "an EXERCISE without its text (what the student writes here)")
      endif()
      if(NOT seen_pragma)
        _exercise_error("${where}" "an exercise in a file without #pragma once, after which the exercise "
                            "version defines REDUCTION_EXERCISE_UNFINISHED")
      endif()
      string(APPEND output "${indent}// TODO: ${text}${newline}")
      set(state hints)
      set(opened_at ${number})
      math(EXPR exercises "${exercises} + 1")
    elseif(marker STREQUAL "HINT")
      if(state STREQUAL "outside")
        _exercise_error("${where}" "a HINT outside an exercise (hints go directly after their EXERCISE line)")
      elseif(state STREQUAL "code")
        _exercise_error("${where}" "a HINT after the solution code or a PLACEHOLDER of the exercise opened "
                            "at line ${opened_at} (hints go directly after their EXERCISE line)")
      endif()
      if(text STREQUAL "")
        string(APPEND output "${indent}//${newline}")
      else()
        string(APPEND output "${indent}//   ${text}${newline}")
      endif()
    elseif(marker STREQUAL "PLACEHOLDER")
      if(state STREQUAL "outside")
        _exercise_error("${where}" "a PLACEHOLDER outside an exercise (it belongs between EXERCISE and END EXERCISE)")
      endif()
      if(text MATCHES "^[ \t\r]*$")
        _exercise_error("${where}" "a PLACEHOLDER without code")
      endif()
      string(APPEND output "${indent}${text}${newline}")
      set(state code)
    elseif(marker STREQUAL "END")
      if(state STREQUAL "outside")
        _exercise_error("${where}" "an END EXERCISE without an EXERCISE before it")
      endif()
      set(state outside)
    elseif(NOT state STREQUAL "outside")
      set(state code)  # the solution code: the student writes it, so the exercise leaves it out
    elseif(NOT seen_pragma AND line MATCHES "^[ \t]*#[ \t]*pragma[ \t]+once")
      string(APPEND head "${output}${line}${newline}")
      set(output "")
      set(seen_pragma TRUE)
    else()
      string(APPEND output "${line}${newline}")
    endif()
  endwhile()

  if(NOT state STREQUAL "outside")
    _exercise_error("${solution}:${opened_at}" "an EXERCISE without its // END EXERCISE "
                        "(the file ends at line ${number})")
  endif()
  if(exercises GREATER 0)
    string(APPEND head "// The exercise version, generated from the solution: write the TODOs, then delete the next line.\n"
                       "#define REDUCTION_EXERCISE_UNFINISHED 1\n")
  endif()
  file(WRITE "${exercise}" "${head}${output}")
  set(${count_var} ${exercises} PARENT_SCOPE)
endfunction()

if(CMAKE_SCRIPT_MODE_FILE STREQUAL CMAKE_CURRENT_LIST_FILE)
  if(NOT DEFINED SOLUTION OR NOT DEFINED EXERCISE)
    message(FATAL_ERROR "usage: cmake -DSOLUTION=<solution header> -DEXERCISE=<exercise header> -P ${CMAKE_CURRENT_LIST_FILE}")
  endif()
  reduction_generate_exercise("${SOLUTION}" "${EXERCISE}" exercises)
  if(DEFINED EXPECTED)
    execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files "${EXPECTED}" "${EXERCISE}" RESULT_VARIABLE differs)
    if(differs)
      execute_process(COMMAND diff -u "${EXPECTED}" "${EXERCISE}")
      message(FATAL_ERROR "${EXERCISE} differs from ${EXPECTED}")
    endif()
  endif()
endif()
