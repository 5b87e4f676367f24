# Writes the students' tree (the `handout` target, instructor/Exercises.cmake):
#
#   cmake -DSOURCE_DIR=<repository> -DHANDOUT_DIR=<out> [-DBINARY_DIR=<build>] [-DGIT=<git>] [-DCHECK=ON] -P Handout.cmake
#
# HANDOUT_DIR is emptied, then filled with the project's files (those git lists, tracked or new and
# not ignored; else every file but build folders and .git), as instructor/README.md says.
# CHECK=ON (the test exercises.handout) then checks the tree.
cmake_minimum_required(VERSION 3.25)
include(${CMAKE_CURRENT_LIST_DIR}/GenerateExercise.cmake)

foreach(required SOURCE_DIR HANDOUT_DIR)
  if("${${required}}" STREQUAL "")
    message(FATAL_ERROR "Handout.cmake needs -D${required}=...")
  endif()
endforeach()
cmake_path(ABSOLUTE_PATH SOURCE_DIR NORMALIZE)
cmake_path(ABSOLUTE_PATH HANDOUT_DIR NORMALIZE)
cmake_path(IS_PREFIX HANDOUT_DIR "${SOURCE_DIR}" NORMALIZE handout_holds_source)
if(handout_holds_source)  # emptying it would delete the repository
  message(FATAL_ERROR "the handout folder ${HANDOUT_DIR} holds the source ${SOURCE_DIR}: choose another")
endif()

if(GIT AND EXISTS ${SOURCE_DIR}/.git)
  execute_process(COMMAND ${GIT} -c core.quotepath=off ls-files --cached --others --exclude-standard
                  WORKING_DIRECTORY ${SOURCE_DIR} RESULT_VARIABLE status OUTPUT_VARIABLE listing ERROR_VARIABLE error)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "git ls-files failed in ${SOURCE_DIR}: ${error}")
  endif()
  # git quotes a name with a quote, tab or newline in it; `;`, `[` and `]` would split or glue
  # CMake's list items. No file of the project has such a name: stop rather than miscopy one.
  if(listing MATCHES "[\";]|\\[|\\]")
    message(FATAL_ERROR "a file name in ${SOURCE_DIR} holds one of \" ; [ ]: rename it to make a handout")
  endif()
  string(REGEX REPLACE "\n$" "" listing "${listing}")
  string(REPLACE "\n" ";" files "${listing}")
else()
  file(GLOB_RECURSE files LIST_DIRECTORIES false RELATIVE ${SOURCE_DIR} ${SOURCE_DIR}/*)
  # The build folders (the presets' build*/), git's own files, fetched dependencies, caches.
  list(FILTER files EXCLUDE REGEX "^(build[^/]*|\\.git|\\.devdeps)(/|$)|(^|/)__pycache__/")
endif()
# A build folder or the handout inside the source, under a name git does not ignore, is not the project's.
foreach(dir IN ITEMS ${BINARY_DIR} ${HANDOUT_DIR})
  cmake_path(RELATIVE_PATH dir BASE_DIRECTORY "${SOURCE_DIR}" OUTPUT_VARIABLE relative)
  foreach(file IN LISTS files)
    cmake_path(IS_PREFIX relative "${file}" NORMALIZE inside)
    if(inside AND NOT relative MATCHES "^[.][.]")
      list(REMOVE_ITEM files "${file}")
    endif()
  endforeach()
endforeach()

# What restates the kernels outside solution/: benchmark/experiments.cu (the benchmark skips its
# steps without it) and the bug zoo.
set(_handout_left_out "^benchmark/experiments\\.cu$|^instructor/zoo/")

# A README listing between `<!-- answer -->` and `<!-- end answer -->` becomes a note. The markers
# are first made characters that no README holds, which a regular expression can match up to.
function(_handout_without_answers from to)
  file(READ ${from} text)
  string(ASCII 1 begin)
  string(ASCII 2 end)
  string(REPLACE "<!-- answer -->" "${begin}" text "${text}")
  string(REPLACE "<!-- end answer -->" "${end}" text "${text}")
  string(CONCAT note "*(A listing of the code you write in the exercises stood here: it is left out of the handout. "
                     "Write yours at the `TODO`s in `solution/`.)*")
  string(REGEX REPLACE "${begin}[^${end}]*${end}" "${note}" text "${text}")
  if(text MATCHES "${begin}")
    message(FATAL_ERROR "${from}: `<!-- answer -->` without `<!-- end answer -->`")
  endif()
  string(REPLACE "${end}" "<!-- end answer -->" text "${text}")  # one without its `<!-- answer -->` stays
  file(WRITE ${to} "${text}")
endfunction()

file(REMOVE_RECURSE ${HANDOUT_DIR})
set(left_out 0)
set(copied 0)
set(generated 0)
set(exercises 0)
foreach(relative IN LISTS files)
  set(from ${SOURCE_DIR}/${relative})
  if(NOT EXISTS ${from} OR IS_DIRECTORY ${from})  # deleted, not yet committed; or a submodule
    continue()
  endif()
  if(relative MATCHES "^[0-9][0-9]_[^/]+/solution/[^/]+$")
    reduction_generate_exercise(${from} ${HANDOUT_DIR}/${relative} count)
    math(EXPR exercises "${exercises} + ${count}")
    math(EXPR generated "${generated} + 1")
  elseif(relative MATCHES "${_handout_left_out}")
    math(EXPR left_out "${left_out} + 1")
  elseif(relative MATCHES "\\.md$")
    _handout_without_answers(${from} ${HANDOUT_DIR}/${relative})
    math(EXPR copied "${copied} + 1")
  else()
    get_filename_component(to_dir ${HANDOUT_DIR}/${relative} DIRECTORY)
    file(COPY ${from} DESTINATION ${to_dir})  # keeps the permissions: .ci/run stays executable
    math(EXPR copied "${copied} + 1")
  endif()
endforeach()

# instructor/Exercises.cmake looks for this file: a handout's solution/ headers carry no markers.
file(WRITE ${HANDOUT_DIR}/HANDOUT.md [=[
# Exercises: the kernels are yours to write

This tree is the GPU reduction tutorial with the kernels left out. In each GPU chapter the
header in `NN_name/solution/` is the exercise version: where the tutorial has the kernel's code,
it has a `TODO` saying what to write, with hints. Everything else (the programs, the tests, the
lessons in each chapter's `README.md`) is the tutorial's own.

- Read the chapter's `README.md`, then write the code at its `TODO`s.
- Build and check your work with the tests that check the tutorial's own kernels:

  ```bash
  cmake --workflow --preset test
  ctest --test-dir build -L chapter06 --output-on-failure
  ```

  With a GPU: until a kernel is written, its program says on stderr that the kernel is not
  implemented yet, its result is wrong (exit status 1), and the chapter's GPU tests fail. Without
  a GPU the programs show their analysis and exit 77; in chapters 03 to 09 the CPU tests
  (`NN.cpu_tests`) run your kernel on a CPU emulator in many orders of its threads, and fail until
  it is right, naming what they found (a race, a read past the end, a barrier not every thread
  reaches, ...).
- When a kernel is done, delete the line `#define REDUCTION_EXERCISE_UNFINISHED 1` near the top of
  its header, as the comment above it says.
- Every `ctest` run ends with what it checked in each chapter: your kernel on the CPU emulator, on
  a GPU, or not at all ("on a GPU: not run (no GPU)").
]=])
message(STATUS "handout in ${HANDOUT_DIR}: ${copied} files copied, ${generated} solution files "
               "replaced by their exercise versions (${exercises} exercises), ${left_out} left out")

if(CHECK)
  set(problems "")
  foreach(relative IN LISTS files)
    if(EXISTS ${SOURCE_DIR}/${relative} AND NOT EXISTS ${HANDOUT_DIR}/${relative} AND NOT relative MATCHES "${_handout_left_out}")
      string(APPEND problems "${relative} is missing from the handout\n")
    endif()
  endforeach()
  file(GLOB handed_out LIST_DIRECTORIES false ${HANDOUT_DIR}/[0-9][0-9]_*/solution/*)
  foreach(path IN LISTS handed_out)
    file(READ ${path} text)
    if(text MATCHES "(^|\n)[ \t]*// (EXERCISE:|HINT:|PLACEHOLDER:|END EXERCISE)")
      string(APPEND problems "${path} still holds exercise markers, and so the solution\n")
    endif()
  endforeach()
  file(GLOB_RECURSE readmes LIST_DIRECTORIES false ${HANDOUT_DIR}/*.md)
  foreach(path IN LISTS readmes)
    file(READ ${path} text)
    string(FIND "${text}" "<!-- answer -->" marker)
    if(NOT marker EQUAL -1)
      string(APPEND problems "${path} still holds a listing marked as an answer\n")
    endif()
  endforeach()
  if(NOT EXISTS ${SOURCE_DIR}/HANDOUT.md AND exercises EQUAL 0)
    string(APPEND problems "no exercise was generated: the solutions were handed out as they are\n")
  endif()
  if(problems)
    message(FATAL_ERROR "the handout is wrong:\n${problems}")
  endif()
endif()
