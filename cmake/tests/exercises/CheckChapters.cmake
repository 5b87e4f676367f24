# ctest helper: every chapter's solution/ files generate their exercise versions without error,
# and every chapter with a solution/ folder marks what the student writes.
#
#   cmake -DGENERATOR=... -DSOURCE_DIR=<repository> -DCHAPTERS="01_x|02_y|..." -DWORK_DIR=<dir>
#         [-DREQUIRE_MARKERS=OFF] -P CheckChapters.cmake
#
# A chapter not yet moved to markers still keeps a hand-written exercise/ folder; it is reported,
# and must not have markers as well (two exercise versions of one kernel). In a handout the
# solution/ files are exercises already, so markers are not required there (REQUIRE_MARKERS=OFF).
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
  if(NOT REQUIRE_MARKERS STREQUAL "OFF")
    if(IS_DIRECTORY ${SOURCE_DIR}/${chapter}/exercise)
      if(exercises GREATER 0)
        string(APPEND problems "${chapter}: has markers and a hand-written exercise/ folder: delete exercise/\n")
      else()
        message(STATUS "${chapter}: no markers yet, still a hand-written exercise/ folder")
      endif()
      continue()
    elseif(exercises EQUAL 0)
      string(APPEND problems "${chapter}: no // EXERCISE: marker in solution/, so its exercise would be the solution\n")
    endif()
  endif()
  message(STATUS "${chapter}: ${exercises} exercise(s)")
endforeach()
if(problems)
  message(FATAL_ERROR "${problems}")
endif()
