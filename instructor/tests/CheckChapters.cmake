# ctest helper: every chapter's solution/ files generate their exercise versions without error,
# and every chapter with a solution/ folder marks what the student writes.
#
#   cmake -DGENERATOR=... -DSOURCE_DIR=<repository> -DCHAPTERS="01_x|02_y|..." -DWORK_DIR=<dir>
#         [-DREQUIRE_MARKERS=OFF] -P CheckChapters.cmake
#
# A hand-written exercise/ folder would be a second copy of a kernel that can drift: it is refused.
# In a handout the solution/ files are exercises already, so markers are not required there
# (REQUIRE_MARKERS=OFF).
cmake_minimum_required(VERSION 3.25)
include(${GENERATOR})
string(REPLACE "|" ";" chapters "${CHAPTERS}")
set(problems "")
foreach(chapter IN LISTS chapters)
  if(NOT IS_DIRECTORY ${SOURCE_DIR}/${chapter}/solution)
    continue()
  endif()
  file(GLOB solutions LIST_DIRECTORIES false ${SOURCE_DIR}/${chapter}/solution/*)
  set(exercises 0)
  foreach(solution IN LISTS solutions)
    get_filename_component(name ${solution} NAME)
    reduction_generate_exercise(${solution} ${WORK_DIR}/${chapter}/${name} count)  # stops on a bad marker
    math(EXPR exercises "${exercises} + ${count}")
  endforeach()
  if(IS_DIRECTORY ${SOURCE_DIR}/${chapter}/exercise)
    string(APPEND problems "${chapter}: a hand-written exercise/ folder beside the markers: delete exercise/\n")
  endif()
  if(NOT REQUIRE_MARKERS STREQUAL "OFF" AND exercises EQUAL 0)
    string(APPEND problems "${chapter}: no // EXERCISE: marker in solution/, so its exercise would be the solution\n")
  endif()
  message(STATUS "${chapter}: ${exercises} exercise(s)")
endforeach()
if(problems)
  message(FATAL_ERROR "${problems}")
endif()
