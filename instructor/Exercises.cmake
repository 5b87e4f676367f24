# Exercises, generated from the solutions: a chapter's solution/ headers mark what the student
# writes (// EXERCISE: ... // END EXERCISE, see instructor/GenerateExercise.cmake), and the exercise
# version is made from them, so the two can never drift apart.
#
#   REDUCTION_EXERCISES=ON   every file of a chapter's solution/ is generated at build time into
#                            ${CMAKE_BINARY_DIR}/exercises/<chapter>/, and that folder takes the
#                            place of solution/ on the include path (an edit of a solution header
#                            regenerates its exercise version on the next build)
#   target handout           ${CMAKE_BINARY_DIR}/handout/: the repository for students, each
#                            solution/ header replaced by its exercise version (instructor/Handout.cmake)
#   tests exercises.*        the generator on small fixtures (instructor/tests/), and every
#                            chapter's markers (label exercises;cpu)

# reduction_use_kernel_headers(<target>...): puts the current chapter's kernel headers on the
# include path of the targets: its solution/ folder, or with REDUCTION_EXERCISES=ON the exercise
# versions generated from it. A chapter without solution/ (a CPU chapter) is left alone.
function(reduction_use_kernel_headers)
  set(generator ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/GenerateExercise.cmake)
  set(solution_dir ${CMAKE_CURRENT_SOURCE_DIR}/solution)
  if(NOT IS_DIRECTORY ${solution_dir})
    return()
  endif()
  if(NOT REDUCTION_EXERCISES)
    foreach(target IN LISTS ARGN)
      target_include_directories(${target} PRIVATE ${solution_dir})
    endforeach()
    return()
  endif()

  get_filename_component(chapter ${CMAKE_CURRENT_SOURCE_DIR} NAME)
  set(exercise_dir ${CMAKE_BINARY_DIR}/exercises/${chapter})
  set(headers_target ${chapter}_exercise_headers)
  if(NOT TARGET ${headers_target})  # the rules are made once per chapter, whoever asks first
    # CONFIGURE_DEPENDS: a header added to solution/ is picked up by the next build.
    file(GLOB solutions CONFIGURE_DEPENDS LIST_DIRECTORIES false ${solution_dir}/*)
    set(exercises "")
    foreach(solution IN LISTS solutions)
      get_filename_component(name ${solution} NAME)
      add_custom_command(OUTPUT ${exercise_dir}/${name}
        COMMAND ${CMAKE_COMMAND} -DSOLUTION=${solution} -DEXERCISE=${exercise_dir}/${name}
                -P ${generator}
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
    add_custom_target(${headers_target} DEPENDS ${exercises})
  endif()
  foreach(target IN LISTS ARGN)
    target_include_directories(${target} PRIVATE ${exercise_dir})
    add_dependencies(${target} ${headers_target})
  endforeach()
endfunction()

# reduction_add_exercise_tests(): the generator's tests and the handout target. Called once the
# chapters are known (REDUCTION_CHAPTERS).
function(reduction_add_exercise_tests)
  set(generator ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/GenerateExercise.cmake)
  set(tests_dir ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/tests)
  set(work_dir ${CMAKE_BINARY_DIR}/exercise_tests)
  # A good fixture must come out exactly as its .expected file; each bad one must stop the
  # generator with the file and line that its first line names.
  file(GLOB fixtures CONFIGURE_DEPENDS ${tests_dir}/*.cuh)
  foreach(fixture IN LISTS fixtures)
    get_filename_component(name ${fixture} NAME_WE)
    add_test(NAME exercises.generator.${name}
      COMMAND ${CMAKE_COMMAND} -DGENERATOR=${generator} -DFIXTURE=${fixture}
              -DWORK_DIR=${work_dir} -P ${tests_dir}/CheckFixture.cmake)
    set_tests_properties(exercises.generator.${name} PROPERTIES LABELS "exercises;cpu")
  endforeach()

  # Every chapter's solution headers generate, and every chapter with a solution/ has markers,
  # except in a handout (instructor/Handout.cmake writes HANDOUT.md), where they are exercises already.
  string(REPLACE ";" "|" chapters "${REDUCTION_CHAPTERS}")
  set(require_markers ON)
  if(EXISTS ${PROJECT_SOURCE_DIR}/HANDOUT.md)
    set(require_markers OFF)
  endif()
  add_test(NAME exercises.chapters
    COMMAND ${CMAKE_COMMAND} -DGENERATOR=${generator} -DSOURCE_DIR=${PROJECT_SOURCE_DIR}
            "-DCHAPTERS=${chapters}" -DWORK_DIR=${work_dir}/chapters -DREQUIRE_MARKERS=${require_markers}
            -P ${tests_dir}/CheckChapters.cmake)
  set_tests_properties(exercises.chapters PROPERTIES LABELS "exercises;cpu")

  # The student's tree. Written afresh on every build of the target; git, when the source is a
  # checkout, says which files belong to the project.
  find_package(Git QUIET)
  set(handout_dir ${CMAKE_BINARY_DIR}/handout)
  add_custom_target(handout
    COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${PROJECT_SOURCE_DIR} -DHANDOUT_DIR=${handout_dir}
            -DBINARY_DIR=${CMAKE_BINARY_DIR} "-DGIT=${GIT_EXECUTABLE}"
            -P ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/Handout.cmake
    VERBATIM
    COMMENT "Writing the students' tree, without solutions, to ${handout_dir}")
  # The same script, checked without a build: the tree holds the project's files and no solution.
  add_test(NAME exercises.handout
    COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${PROJECT_SOURCE_DIR} -DHANDOUT_DIR=${work_dir}/handout
            -DBINARY_DIR=${CMAKE_BINARY_DIR} "-DGIT=${GIT_EXECUTABLE}" -DCHECK=ON
            -P ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/Handout.cmake)
  set_tests_properties(exercises.handout PROPERTIES LABELS "exercises;cpu" FIXTURES_SETUP handout)
  # And the solutions' code is nowhere in it: not in a README, a helper or a test.
  find_package(Python3 COMPONENTS Interpreter)
  if(Python3_Interpreter_FOUND AND NOT EXISTS ${PROJECT_SOURCE_DIR}/HANDOUT.md)
    add_test(NAME exercises.handout_answers
      COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/tests/handout_answers.py
              ${PROJECT_SOURCE_DIR} ${work_dir}/handout)
    set_tests_properties(exercises.handout_answers PROPERTIES LABELS "exercises;cpu" FIXTURES_REQUIRED handout)
  endif()
endfunction()
