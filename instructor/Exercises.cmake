# reduction_use_kernel_headers(<target>...): puts the current chapter's kernel headers on the
# targets' include path: its solution/ folder, or with REDUCTION_EXERCISES=ON the exercise versions
# generated from it at build time into ${CMAKE_BINARY_DIR}/exercises/<chapter>/. A chapter without
# solution/ is left alone.
function(reduction_use_kernel_headers)
  set(solution_dir ${CMAKE_CURRENT_SOURCE_DIR}/solution)
  if(NOT IS_DIRECTORY ${solution_dir})
    return()
  endif()
  set(generator ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/GenerateExercise.cmake)
  get_filename_component(chapter ${CMAKE_CURRENT_SOURCE_DIR} NAME)
  set(exercise_dir ${CMAKE_BINARY_DIR}/exercises/${chapter})
  if(REDUCTION_EXERCISES AND NOT TARGET ${chapter}_exercise_headers)  # made once per chapter
    file(GLOB solutions CONFIGURE_DEPENDS LIST_DIRECTORIES false ${solution_dir}/*)
    set(exercises "")
    foreach(solution IN LISTS solutions)
      get_filename_component(name ${solution} NAME)
      add_custom_command(OUTPUT ${exercise_dir}/${name}
        COMMAND ${CMAKE_COMMAND} -DSOLUTION=${solution} -DEXERCISE=${exercise_dir}/${name} -P ${generator}
        DEPENDS ${solution} ${generator}
        COMMENT "Generating the exercise version of ${chapter}/solution/${name}"
        VERBATIM)
      list(APPEND exercises ${exercise_dir}/${name})
    endforeach()
    # A header since removed from solution/ must not linger here and still be found.
    file(GLOB generated LIST_DIRECTORIES false ${exercise_dir}/*)
    foreach(file IN LISTS generated)
      if(NOT file IN_LIST exercises)
        file(REMOVE ${file})
      endif()
    endforeach()
    add_custom_target(${chapter}_exercise_headers DEPENDS ${exercises})
  endif()
  foreach(target IN LISTS ARGN)
    if(REDUCTION_EXERCISES)
      target_include_directories(${target} PRIVATE ${exercise_dir})
      add_dependencies(${target} ${chapter}_exercise_headers)
    else()
      target_include_directories(${target} PRIVATE ${solution_dir})
    endif()
  endforeach()
endfunction()

# reduction_add_exercise_tests(), once the chapters are known: the generator's tests (label
# exercises) and the `handout` target.
function(reduction_add_exercise_tests)
  set(here ${CMAKE_CURRENT_FUNCTION_LIST_DIR})
  set(work_dir ${CMAKE_BINARY_DIR}/exercise_tests)
  # A good fixture must come out exactly as its .expected file, one without it unchanged.
  file(GLOB fixtures CONFIGURE_DEPENDS ${here}/tests/*.cuh)
  foreach(fixture IN LISTS fixtures)
    get_filename_component(name ${fixture} NAME_WE)
    set(expected ${fixture})
    if(EXISTS ${fixture}.expected)
      set(expected ${fixture}.expected)
    endif()
    add_test(NAME exercises.generator.${name} COMMAND ${CMAKE_COMMAND} -DSOLUTION=${fixture}
             -DEXERCISE=${work_dir}/${name}.cuh -DEXPECTED=${expected} -P ${here}/GenerateExercise.cmake)
    set_tests_properties(exercises.generator.${name} PROPERTIES LABELS "exercises;cpu")
  endforeach()
  # A bad header, this one with one edit (<name>|<text>|<replaced by>|<line>|<message>), must stop
  # the generator with the file, line and message.
  set(header "#pragma once\n\nint f() {\n  // EXERCISE: return one.\n  return 1;\n  // END EXERCISE\n}\n")
  foreach(case
      "empty_exercise|// EXERCISE: return one.|// EXERCISE:|4|an EXERCISE without its text"
      "end_without_exercise|// END EXERCISE|// END EXERCISE\n  // END EXERCISE|7|an END EXERCISE without an EXERCISE"
      "hint_after_code|  // END EXERCISE|  // HINT: too late.\n  // END EXERCISE|6|a HINT after the solution code"
      "hint_outside|int f() {|// HINT: no exercise.\nint f() {|3|a HINT outside an exercise"
      "misspelt|// EXERCISE:|//EXERCISE:|4|a misspelt marker"
      "nested|  // END|  // EXERCISE: 2\n  // END EXERCISE\n  // END|6|an EXERCISE inside the exercise opened at line 4"
      "no_pragma_once|#pragma once\n\n||2|an exercise in a file without #pragma once"
      "placeholder_outside|int f() {|// PLACEHOLDER: int g()\nint f() {|3|a PLACEHOLDER outside an exercise"
      "unclosed|  // END EXERCISE\n||4|an EXERCISE without its // END EXERCISE")
    string(REGEX MATCH "^([^|]*)[|]([^|]*)[|]([^|]*)[|]([0-9]+)[|](.*)$" case "${case}")
    string(REPLACE "${CMAKE_MATCH_2}" "${CMAKE_MATCH_3}" bad "${header}")
    file(WRITE ${work_dir}/bad/${CMAKE_MATCH_1}.cuh "${bad}")
    set(test exercises.generator.${CMAKE_MATCH_1})
    add_test(NAME ${test} COMMAND ${CMAKE_COMMAND} -DSOLUTION=${work_dir}/bad/${CMAKE_MATCH_1}.cuh
             -DEXERCISE=${work_dir}/${CMAKE_MATCH_1}.cuh -P ${here}/GenerateExercise.cmake)
    set(expect "/${CMAKE_MATCH_1}.cuh:${CMAKE_MATCH_4}: ${CMAKE_MATCH_5}.*no exercise version was written")
    set_tests_properties(${test} PROPERTIES LABELS "exercises;cpu" PASS_REGULAR_EXPRESSION "${expect}")
  endforeach()

  string(REPLACE ";" "|" chapters "${REDUCTION_CHAPTERS}")
  add_test(NAME exercises.chapters
    COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${PROJECT_SOURCE_DIR} "-DCHAPTERS=${chapters}" -DWORK_DIR=${work_dir}/chapters
            -P ${here}/tests/CheckChapters.cmake)
  set_tests_properties(exercises.chapters PROPERTIES LABELS "exercises;cpu")

  # The students' tree, written afresh on every build of the target; and the same script, checked
  # without a build: the tree holds the project's files and no solution.
  find_package(Git QUIET)
  set(handout ${CMAKE_COMMAND} -DSOURCE_DIR=${PROJECT_SOURCE_DIR} -DBINARY_DIR=${CMAKE_BINARY_DIR} "-DGIT=${GIT_EXECUTABLE}")
  add_custom_target(handout
    COMMAND ${handout} -DHANDOUT_DIR=${CMAKE_BINARY_DIR}/handout -P ${here}/Handout.cmake
    VERBATIM
    COMMENT "Writing the students' tree, without solutions, to ${CMAKE_BINARY_DIR}/handout")
  add_test(NAME exercises.handout COMMAND ${handout} -DHANDOUT_DIR=${work_dir}/handout -DCHECK=ON -P ${here}/Handout.cmake)
  set_tests_properties(exercises.handout PROPERTIES LABELS "exercises;cpu" FIXTURES_SETUP handout)
  # And the solutions' code is nowhere in it (a handout holds no solution to look for).
  if(Python3_Interpreter_FOUND AND NOT EXISTS ${PROJECT_SOURCE_DIR}/HANDOUT.md)
    add_test(NAME exercises.handout_answers
      COMMAND ${Python3_EXECUTABLE} ${here}/tests/handout_answers.py ${PROJECT_SOURCE_DIR} ${work_dir}/handout)
    set_tests_properties(exercises.handout_answers PROPERTIES LABELS "exercises;cpu" FIXTURES_REQUIRED handout)
  endif()
endfunction()
