# The bug zoo: wrong kernels that students (and textbooks) write, each made from the chapter's
# solution by one small edit, so that no copy of a kernel is kept.
#
#   cmake -DSPEC=instructor/zoo/<chapter>.txt -DSOLUTION_DIR=<chapter>/solution -DOUT_DIR=<out> -P GenerateZoo.cmake
#
# A list (04_convergent.txt is a short one) holds `key: value` lines, `#` lines being comments:
# first the chapter's keys, then one block per bug, from its `bug: <name>` line on.
#
# Before the first bug, besides header: and namespace: (both required):
#   kernel:  the kernel the CPU test runs, for the element E: `coarsened_kernel<2, E>`; needed when
#            a bug names the emulator
#   blocks:  for a grid kernel, the blocks for n elements in blocks of `block` threads, an expression
#            of the header: `block_count(n, block)`
#   launch:  the launcher the GPU tests call, `launch<E>` (arguments as in the chapters' registries);
#            needed when a bug names a GPU detector but delayed_warps
#   passes:  (08, 09) how the CPU test launches the kernel, as the launcher does: `two_passes`,
#            kernel(input, n, out) over the grid, then one block over its results; `one_pass`,
#            kernel(input, n, block_results, result, blocks_done), the last block finishing. With
#            passes:, `kernel:` is named as inside the header's namespace
#   shared:  with passes:, each launch's dynamic shared memory in bytes, an expression of the
#            header's names, `block` and E (`warp_finish_slots(block) * sizeof(E)`); default 0
# In a bug, besides find:, replace:, caught: and why:
#   header:, launch:, kernel:, passes:, shared:   the bug's own, where it edits what the chapter's do not name
#   n:       the elements the GPU tests give it (default 1000; past 2^31, see zoo_gpu.cu's input)
#
# `find` is text of the header that must occur exactly once (an edit of the solution that moves it
# stops the generator, rather than make another bug than the one described); `replace` takes its
# place (empty: deleted). A bug may have several pairs, applied in order; in both, `\n` stands for
# a line break. `caught` names the detectors that must catch the bug (instructor/README.md);
# `emulator:race,wrong_value` names the findings too.
#
# Out: <OUT_DIR>/<bug>/<header>, the solution with the edits and its namespace renamed <namespace>_<bug>,
# so that every bug compiles into one program beside the solution; and <OUT_DIR>/zoo_list.hpp, which
# includes them all and lists them for the zoo's tests (zoo_*.cpp, zoo_*.cu) and, under
# REDUCTION_ZOO_KERNELS, for a chapter's program (its comments say what each part is for).
cmake_minimum_required(VERSION 3.25)
include(${CMAKE_CURRENT_LIST_DIR}/../GenerateExercise.cmake)  # reduction_next_line

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

file(READ ${SPEC} rest)
foreach(key header namespace kernel blocks launch passes)
  set(${key} "")
endforeach()
set(shared 0)
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
    if(_caught_${bug} MATCHES "(^| )(value|nondeterministic|memcheck|racecheck|synccheck)( |$)"
       AND "${_launch_${bug}}" STREQUAL "" AND launch STREQUAL "")
      _zoo_error(${_start_${bug}} "bug ${bug} names a GPU detector: it needs a launch:")
    endif()
    if(_caught_${bug} MATCHES "(^| )(emulator|pattern)" AND "${_kernel_${bug}}" STREQUAL "")
      _zoo_error(${_start_${bug}} "the emulator runs the kernel: name it with kernel: (before the first bug, or in bug ${bug})")
    endif()
  endif()
endmacro()
while(NOT rest STREQUAL "")
  math(EXPR number "${number} + 1")
  reduction_next_line(rest line newline)
  if(line MATCHES "^[ \t]*$" OR line MATCHES "^#")
    continue()
  endif()
  if(NOT line MATCHES "^([a-z]+):[ ]?(.*)$")
    _zoo_error(${number} "expected `key: value`, found: ${line}")
  endif()
  set(key "${CMAKE_MATCH_1}")
  set(value "${CMAKE_MATCH_2}")
  string(REPLACE "\\n" "\n" value "${value}")
  if(key STREQUAL "passes" AND NOT value MATCHES "^(two_passes|one_pass)$")
    _zoo_error(${number} "passes: is two_passes or one_pass, found: ${value}")
  endif()
  if(bug STREQUAL "" AND key MATCHES "^(header|namespace|kernel|blocks|launch|passes|shared)$")
    set(${key} "${value}")
  elseif(NOT bug STREQUAL "" AND key MATCHES "^(header|launch|kernel|passes|shared)$")  # this bug's own
    set(_${key}_${bug} "${value}")
  elseif(NOT bug STREQUAL "" AND key STREQUAL "n")
    if(NOT value MATCHES "^[1-9][0-9]*$")
      _zoo_error(${number} "n: is a positive number, found: ${value}")
    endif()
    set(_n_${bug} "${value}")
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
    foreach(key header launch kernel passes shared)  # the chapter's, unless the bug names its own
      set(_${key}_${bug} "${${key}}")
    endforeach()
    set(_n_${bug} 1000)
  elseif(bug STREQUAL "")
    _zoo_error(${number} "${key}: before the first bug:")
  elseif(key STREQUAL "find")
    math(EXPR _pairs_${bug} "${_pairs_${bug}} + 1")
    set(_find_${bug}_${_pairs_${bug}} "${value}")
  elseif(key STREQUAL "replace")
    if(_pairs_${bug} EQUAL 0 OR DEFINED _replace_${bug}_${_pairs_${bug}})
      _zoo_error(${number} "replace: without its find:")
    endif()
    set(_replace_${bug}_${_pairs_${bug}} "${value}")
  elseif(key STREQUAL "caught")
    separate_arguments(detectors UNIX_COMMAND "${value}")  # separated by spaces
    foreach(detector IN LISTS detectors)
      set(finding "(race|out_of_bounds|uninitialized_read|divergent_barrier|result_not_written|wrong_value|bad_warp_mask|endless_loop)")
      set(gpu "(delayed_warps|value|nondeterministic|memcheck|racecheck|synccheck)")
      if(NOT detector MATCHES "^(emulator(:${finding}(,${finding})*)?|pattern|${gpu})$")
        _zoo_error(${number} "unknown detector ${detector} (emulator, emulator:<finding>[,<finding>...], pattern, "
                   "delayed_warps, value, nondeterministic, memcheck, racecheck, synccheck. The findings: race, "
                   "out_of_bounds, uninitialized_read, divergent_barrier, result_not_written, wrong_value, bad_warp_mask, endless_loop)")
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
if(header STREQUAL "" OR namespace STREQUAL "" OR bugs STREQUAL "")
  message(FATAL_ERROR "${SPEC}: needs header:, namespace: and at least one bug:")
endif()

# _zoo_define(<macro> <entries>): appends to `list` a #define of <macro> as the entries, one a line.
function(_zoo_define macro entries)
  string(REPLACE "\n" " \\\n" continued "${entries}")
  set(list "${list}#define ${macro} \\\n${continued}\n" PARENT_SCOPE)
endfunction()

set(list "// Generated by instructor/zoo/GenerateZoo.cmake from ${SPEC}: do not edit.\n#pragma once\n\n")
# The chapter, from the list's name: instructor/zoo/05_shared_memory.txt gives "chapter 05".
get_filename_component(_chapter_number "${SPEC}" NAME)
string(SUBSTRING "${_chapter_number}" 0 2 _chapter_number)
string(APPEND list "#define REDUCTION_ZOO_NAMESPACE ${namespace}\n#define REDUCTION_ZOO_CHAPTER \"chapter ${_chapter_number}\"\n"
                   "#define REDUCTION_ZOO_TAG \"[chapter${_chapter_number}]\"\n")
if(NOT kernel STREQUAL "" AND passes STREQUAL "")
  string(APPEND list "#define REDUCTION_ZOO_KERNEL(ns, E) ns::${kernel}\n"
                     "#define REDUCTION_ZOO_SOLUTION(E) ${namespace}::${kernel}\n")
endif()
if(NOT blocks STREQUAL "")
  string(APPEND list "#define REDUCTION_ZOO_BLOCKS(ns, n, block) ns::${blocks}\n")
endif()
string(APPEND list "\n// Before the headers of each namespace; the includer may define it.\n"
                   "#ifndef REDUCTION_ZOO_PREPARE\n#define REDUCTION_ZOO_PREPARE(ns)\n#endif\n"
                   "REDUCTION_ZOO_PREPARE(${namespace})\n")
# The solution's headers that the bugs edit, each read and included once.
set(solution_headers "")
foreach(bug IN LISTS bugs)
  if(NOT _header_${bug} IN_LIST solution_headers)
    list(APPEND solution_headers ${_header_${bug}})
    if(NOT EXISTS ${SOLUTION_DIR}/${_header_${bug}})
      _zoo_error(${_start_${bug}} "bug ${bug}: no ${_header_${bug}} in ${SOLUTION_DIR}")
    endif()
    string(APPEND list "#include \"${_header_${bug}}\"  // the solution, namespace ${namespace}\n")
  endif()
endforeach()
set(launchers "")
set(gpu_entries "")
set(zoo_kernels "")  # the calls of zoo_kernels::append_one, one per bug a GPU detector catches
set(passes_classes "")
set(passes_entries "")
foreach(bug IN LISTS bugs)
  set(this_header "${_header_${bug}}")
  file(READ ${SOLUTION_DIR}/${this_header} text)
  foreach(k RANGE 1 ${_pairs_${bug}})
    set(find "${_find_${bug}_${k}}")
    string(FIND "${text}" "${find}" first)
    string(FIND "${text}" "${find}" last REVERSE)
    if(first EQUAL -1 OR NOT first EQUAL last)
      _zoo_error(${_start_${bug}} "bug ${bug}: `${find}` must occur exactly once in ${this_header}")
    endif()
    string(REPLACE "${find}" "${_replace_${bug}_${k}}" text "${text}")
  endforeach()
  foreach(form IN ITEMS "namespace ${namespace} {" "}  // namespace ${namespace}")
    string(FIND "${text}" "${form}" at)
    if(at EQUAL -1)
      _zoo_error(${_start_${bug}} "${this_header} has no `${form}` to rename")
    endif()
  endforeach()
  # The names of the solution's other headers that this one includes stay in the solution's
  # namespace: the renamed one reaches them through a using-directive (its own names come first).
  set(open_renamed "namespace ${namespace}_${bug} {")
  string(REGEX MATCHALL "#include \"[^\"/]+\"" siblings "${text}")
  foreach(sibling IN LISTS siblings)
    string(REGEX REPLACE "#include \"([^\"]+)\"" "\\1" sibling "${sibling}")
    if(EXISTS ${SOLUTION_DIR}/${sibling})
      set(open_renamed "${open_renamed}\nusing namespace ${namespace};  // the solution's other headers, included above")
      break()
    endif()
  endforeach()
  string(REPLACE "namespace ${namespace} {" "${open_renamed}" text "${text}")
  string(REPLACE "}  // namespace ${namespace}" "}  // namespace ${namespace}_${bug}" text "${text}")
  string(PREPEND text "// Generated by instructor/zoo/GenerateZoo.cmake: ${this_header} with the bug `${bug}` of ${SPEC}.\n")
  file(CONFIGURE OUTPUT ${OUT_DIR}/${bug}/${this_header} CONTENT "${text}" @ONLY NEWLINE_STYLE UNIX)
  string(REPLACE "\\" "\\\\" why "${_why_${bug}}")
  string(REPLACE "\"" "\\\"" why "${why}")
  string(APPEND list "REDUCTION_ZOO_PREPARE(${namespace}_${bug})\n#include \"${bug}/${this_header}\"\n")
  string(APPEND entries "REDUCTION_ZOO_BUG(${bug}, ${namespace}_${bug}, \"${_caught_${bug}}\", \"${why}\")\n")
  if(NOT "${_passes_${bug}}" STREQUAL "" AND _caught_${bug} MATCHES "(^| )emulator")
    string(COMPARE EQUAL "${_passes_${bug}}" one_pass one_pass)
    string(CONCAT passes_class "template <typename E>\nstruct ZooPasses_${bug} {\n  static constexpr auto kernel = &${_kernel_${bug}};\n"
                     "  static constexpr bool kOnePass = ${one_pass};\n"
                     "  static std::size_t shared_bytes([[maybe_unused]] int block) {\n"
                     "    return ${_shared_${bug}};\n  }\n};\n")
    string(APPEND passes_classes "namespace ${namespace} {\n${passes_class}}  // namespace ${namespace}\n"
                                 "namespace ${namespace}_${bug} {\n${passes_class}}  // namespace ${namespace}_${bug}\n")
    string(APPEND passes_entries "REDUCTION_ZOO_PASSES_BUG(${bug}, ${namespace}_${bug}, ${namespace}, \"${_caught_${bug}}\")\n")
  endif()
  set(launcher "${_launch_${bug}}")
  if(NOT launcher STREQUAL "")
    string(APPEND launchers "template <typename E>\nconstexpr auto solution_${bug} = &${namespace}::${launcher};\n"
                            "template <typename E>\nconstexpr auto bug_${bug} = &${namespace}_${bug}::${launcher};\n"
                            "constexpr std::size_t kN_${bug} = ${_n_${bug}}ull;\n")
    string(APPEND gpu_entries "REDUCTION_ZOO_GPU_BUG(${bug}, \"${_caught_${bug}}\")\n")
    if(_caught_${bug} MATCHES "(^| )(value|nondeterministic|memcheck|racecheck|synccheck)( |$)")
      string(APPEND zoo_kernels "  append_one<E>(registry, \"zoo.${bug}\", &${namespace}::${launcher},\n"
                                "                &${namespace}_${bug}::${launcher}, \"${namespace}::${launcher}\");\n")
    endif()
  endif()
endforeach()
string(APPEND list "\n// REDUCTION_ZOO_BUG(name, namespace, detectors, why), defined by the includer.\n")
_zoo_define(REDUCTION_ZOO_BUGS "${entries}")
if(NOT launchers STREQUAL "")
  string(APPEND list "\n#ifdef REDUCTION_ZOO_LAUNCHERS  // defined by the GPU test, a CUDA source\n"
                     "namespace zoo_launch {\n${launchers}}  // namespace zoo_launch\n\n"
                     "// REDUCTION_ZOO_GPU_BUG(name, detectors), defined by the includer.\n")
  _zoo_define(REDUCTION_ZOO_GPU_BUGS "${gpu_entries}")
  string(APPEND list "#endif  // REDUCTION_ZOO_LAUNCHERS\n")
endif()
if(NOT zoo_kernels STREQUAL "")
  string(APPEND list [=[

#ifdef REDUCTION_ZOO_KERNELS  // defined by a chapter program built with -DREDUCTION_ZOO_KERNELS=ON
#include <stdexcept>
#include <string>
#include <vector>

#include "common/gpu.cuh"

namespace zoo_kernels {

template <typename E>
using Registry = std::vector<reduction::Variant<reduction::MultiBlockLaunch<E>>>;

// One bug as a kernel of the program: a copy of the chapter's entry whose launcher is the bug's
// solution (its depth, so its float tolerance, its determinism and its smallest block), with the
// bug's launcher. The idea does not say what is wrong: the zoo list's why: is the answer.
template <typename E>
void append_one(Registry<E>& registry, const char* name, reduction::MultiBlockLaunch<E> solution,
                reduction::MultiBlockLaunch<E> bug, const char* solution_text) {
  for (const auto& v : registry)
    if (v.launch == solution && v.zoo_of == nullptr) {
      auto entry = v;
      entry.name = name;
      entry.idea = "wrong on purpose (bug zoo): find why; the zoo list says what catches it";
      entry.launch = bug;
      entry.zoo_of = v.name;
      registry.push_back(entry);
      return;
    }
  throw std::logic_error(std::string("the bug zoo of ") + REDUCTION_ZOO_CHAPTER + ": " + name + "'s solution, " +
                         solution_text + " (the zoo list's launch:), is the launcher of none of the chapter's kernels");
}

// Appends the bugs a GPU detector catches, after the chapter's own kernels.
template <typename E>
void append_to(Registry<E>& registry) {
]=] "${zoo_kernels}" [=[}

}  // namespace zoo_kernels
#endif  // REDUCTION_ZOO_KERNELS
]=])
endif()
if(NOT passes_classes STREQUAL "")
  string(APPEND list "\n#ifdef REDUCTION_ZOO_PASSES  // defined by the CPU test of the chapters with launches\n"
                     "${passes_classes}\n// REDUCTION_ZOO_PASSES_BUG(name, namespace, solution namespace, detectors), "
                     "defined by the includer.\n")
  _zoo_define(REDUCTION_ZOO_PASSES_BUGS "${passes_entries}")
  string(APPEND list "#endif  // REDUCTION_ZOO_PASSES\n")
endif()
file(CONFIGURE OUTPUT ${OUT_DIR}/zoo_list.hpp CONTENT "${list}" @ONLY NEWLINE_STYLE UNIX)
