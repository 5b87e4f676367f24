# The bug zoo: wrong kernels that students (and textbooks) write, each made from the chapter's
# solution by one small edit, so that no copy of a kernel is kept.
#
#   cmake -DSPEC=<chapter>/zoo.txt -DSOLUTION_DIR=<chapter>/solution -DOUT_DIR=<out> -P cmake/GenerateZoo.cmake
#
# <chapter>/zoo.txt lists the bugs. Its first lines name the header, its namespace and the kernel
# template; then one block per bug, the blocks separated by blank lines, `#` lines being comments:
#
#   header: convergent.cuh
#   namespace: ch04
#   kernel: convergent_kernel
#
#   bug: missing_barrier
#   find: __syncthreads();  // the next step reads
#   replace:
#   caught: emulator delayed_warps
#   why: without the barrier a thread reads ... (one line: the answer, for the instructor)
#
# `find` is text of the solution header that must occur exactly once (so an edit of the solution
# that moves it away stops the generator, instead of making a bug that is not the one described);
# `replace` is what takes its place (empty: it is deleted). A bug may have several find/replace
# pairs, applied in order. In both, `\n` stands for a line break. `caught` names the detectors
# that must catch the bug (the tests check each one): `emulator` (the CPU emulator,
# 03_simple_kernel/single_block/emulator.hpp; `emulator:race` or `emulator:race,wrong_value` also names the
# findings it must report), `delayed_warps` (the GPU test that holds back some warps' stores).
#
# For each bug, <out>/<bug>/<header> is the solution with the edits and with its namespace renamed
# to <namespace>_<bug>, so that every bug of a chapter can be compiled into one program beside the
# solution; <out>/zoo_list.hpp includes the solution and them all, names the chapter and the kernel
# for the shared zoo tests (03_simple_kernel/single_block/zoo_*), and lists the bugs:
#
#   REDUCTION_ZOO_CHAPTER "chapter 04", REDUCTION_ZOO_TAG "[chapter04]"
#   REDUCTION_ZOO_KERNEL(ns, E): ns::convergent_kernel<E>, the kernel of namespace ns for elements E
#   REDUCTION_ZOO_SOLUTION(E): ch04::convergent_kernel<E>, the solution
#   REDUCTION_ZOO_BUG(<bug>, <namespace>_<bug>, "<caught>", "<why>")
cmake_minimum_required(VERSION 3.25)

foreach(required SPEC SOLUTION_DIR OUT_DIR)
  if("${${required}}" STREQUAL "")
    message(FATAL_ERROR "GenerateZoo.cmake needs -D${required}=...")
  endif()
endforeach()

function(_zoo_error line)
  string(JOIN "" what ${ARGN})
  message(NOTICE "${SPEC}:${line}: ${what}")
  message(FATAL_ERROR "no bug zoo was written")
endfunction()

# Parses the spec a line at a time, as one string (code is full of `;`, which a CMake list would split).
file(READ ${SPEC} rest)
set(header "")
set(namespace "")
set(kernel "")
set(bugs "")  # the names, in order; each bug's fields are in variables named after it
set(bug "")
set(number 0)
macro(_zoo_finish_bug)
  if(NOT bug STREQUAL "")
    if(_pairs_${bug} EQUAL 0)
      _zoo_error(${_start_${bug}} "bug ${bug} has no find:")
    endif()
    if("${_caught_${bug}}" STREQUAL "" OR "${_why_${bug}}" STREQUAL "")
      _zoo_error(${_start_${bug}} "bug ${bug} needs caught: and why:")
    endif()
  endif()
endmacro()
while(NOT rest STREQUAL "")
  math(EXPR number "${number} + 1")
  string(FIND "${rest}" "\n" end)
  if(end EQUAL -1)
    set(line "${rest}")
    set(rest "")
  else()
    string(SUBSTRING "${rest}" 0 ${end} line)
    math(EXPR after "${end} + 1")
    string(SUBSTRING "${rest}" ${after} -1 rest)
  endif()
  if(line MATCHES "^[ \t]*$" OR line MATCHES "^#")
    continue()
  endif()
  if(NOT line MATCHES "^([a-z]+):[ ]?(.*)$")
    _zoo_error(${number} "expected `key: value`, found: ${line}")
  endif()
  set(key "${CMAKE_MATCH_1}")
  set(value "${CMAKE_MATCH_2}")
  string(REPLACE "\\n" "\n" value "${value}")
  if(key STREQUAL "header" OR key STREQUAL "namespace" OR key STREQUAL "kernel")
    set(${key} "${value}")
  elseif(key STREQUAL "bug")
    _zoo_finish_bug()
    if(NOT value MATCHES "^[a-z][a-z0-9_]*$" OR value IN_LIST bugs)
      _zoo_error(${number} "a bug's name is lower_case and unique: ${value}")
    endif()
    set(bug "${value}")
    list(APPEND bugs ${bug})
    set(_pairs_${bug} 0)
    set(_start_${bug} ${number})
    set(_caught_${bug} "")
    set(_why_${bug} "")
  elseif(bug STREQUAL "")
    _zoo_error(${number} "${key}: before the first bug:")
  elseif(key STREQUAL "find")
    math(EXPR _pairs_${bug} "${_pairs_${bug}} + 1")
    set(_find_${bug}_${_pairs_${bug}} "${value}")
    set(_replace_${bug}_${_pairs_${bug}} "")
    set(_replace_set_${bug}_${_pairs_${bug}} FALSE)
  elseif(key STREQUAL "replace")
    if(_pairs_${bug} EQUAL 0 OR _replace_set_${bug}_${_pairs_${bug}})
      _zoo_error(${number} "replace: without its find:")
    endif()
    set(_replace_${bug}_${_pairs_${bug}} "${value}")
    set(_replace_set_${bug}_${_pairs_${bug}} TRUE)
  elseif(key STREQUAL "caught")
    separate_arguments(detectors UNIX_COMMAND "${value}")  # separated by spaces
    foreach(detector IN LISTS detectors)
      set(finding "(race|out_of_bounds|uninitialized_read|divergent_barrier|result_not_written|wrong_value)")
      if(NOT detector MATCHES "^(emulator(:${finding}(,${finding})*)?|delayed_warps)$")
        _zoo_error(${number} "unknown detector ${detector} (emulator, emulator:<finding>[,<finding>...], "
                   "delayed_warps; the findings: race, out_of_bounds, uninitialized_read, divergent_barrier, "
                   "result_not_written, wrong_value)")
      endif()
    endforeach()
    set(_caught_${bug} "${value}")
  elseif(key STREQUAL "why")
    set(_why_${bug} "${value}")
  else()
    _zoo_error(${number} "unknown key ${key}")
  endif()
endwhile()
_zoo_finish_bug()
if(header STREQUAL "" OR namespace STREQUAL "" OR kernel STREQUAL "" OR bugs STREQUAL "")
  message(FATAL_ERROR "${SPEC}: needs header:, namespace:, kernel: and at least one bug:")
endif()

file(READ ${SOLUTION_DIR}/${header} solution)
set(list "// Generated by cmake/GenerateZoo.cmake from ${SPEC}: do not edit.\n#pragma once\n\n")
# The chapter, from the folder of zoo.txt: 05_shared_memory gives "chapter 05".
get_filename_component(_chapter_dir "${SPEC}" DIRECTORY)
get_filename_component(_chapter_dir "${_chapter_dir}" NAME)
string(SUBSTRING "${_chapter_dir}" 0 2 _chapter_number)
string(APPEND list "#define REDUCTION_ZOO_CHAPTER \"chapter ${_chapter_number}\"\n"
                   "#define REDUCTION_ZOO_TAG \"[chapter${_chapter_number}]\"\n"
                   "#define REDUCTION_ZOO_KERNEL(ns, E) ns::${kernel}<E>\n"
                   "#define REDUCTION_ZOO_SOLUTION(E) ${namespace}::${kernel}<E>\n\n"
                   "#include \"${header}\"  // the solution, namespace ${namespace}\n")
foreach(bug IN LISTS bugs)
  set(text "${solution}")
  foreach(k RANGE 1 ${_pairs_${bug}})
    set(find "${_find_${bug}_${k}}")
    string(FIND "${text}" "${find}" first)
    string(FIND "${text}" "${find}" last REVERSE)
    if(first EQUAL -1 OR NOT first EQUAL last)
      _zoo_error(${_start_${bug}} "bug ${bug}: `${find}` must occur exactly once in ${header}")
    endif()
    string(REPLACE "${find}" "${_replace_${bug}_${k}}" text "${text}")
  endforeach()
  foreach(form IN ITEMS "namespace ${namespace} {" "}  // namespace ${namespace}")
    string(FIND "${text}" "${form}" at)
    if(at EQUAL -1)
      _zoo_error(${_start_${bug}} "${header} has no `${form}` to rename")
    endif()
  endforeach()
  string(REPLACE "namespace ${namespace} {" "namespace ${namespace}_${bug} {" text "${text}")
  string(REPLACE "}  // namespace ${namespace}" "}  // namespace ${namespace}_${bug}" text "${text}")
  string(PREPEND text "// Generated by cmake/GenerateZoo.cmake: ${header} with the bug `${bug}` of ${SPEC}.\n")
  file(CONFIGURE OUTPUT ${OUT_DIR}/${bug}/${header} CONTENT "${text}" @ONLY NEWLINE_STYLE UNIX)
  string(REPLACE "\\" "\\\\" why "${_why_${bug}}")
  string(REPLACE "\"" "\\\"" why "${why}")
  string(APPEND list "#include \"${bug}/${header}\"\n")
  string(APPEND entries "REDUCTION_ZOO_BUG(${bug}, ${namespace}_${bug}, \"${_caught_${bug}}\", \"${why}\")\n")
endforeach()
string(APPEND list "\n// REDUCTION_ZOO_BUG(name, namespace, detectors, why), defined by the includer.\n#define REDUCTION_ZOO_BUGS \\\n")
string(REPLACE "\n" " \\\n" entries_continued "${entries}")
string(APPEND list "${entries_continued}\n")
file(CONFIGURE OUTPUT ${OUT_DIR}/zoo_list.hpp CONTENT "${list}" @ONLY NEWLINE_STYLE UNIX)
