# ctest helper: runs the exercise generator on one fixture, as the build runs it.
#
#   cmake -DGENERATOR=instructor/GenerateExercise.cmake -DFIXTURE=<name>.cuh -DWORK_DIR=<dir> -P CheckFixture.cmake
#
# With <name>.cuh.expected beside it, the fixture must generate and come out as that file, byte for
# byte. Without, its first line says how the generator must refuse it:
#   // expected error at line <N>: <the start of the message>
# and the generator must fail, print `<fixture>:<N>: <message>`, and write nothing.
cmake_minimum_required(VERSION 3.25)
get_filename_component(name ${FIXTURE} NAME)
set(output ${WORK_DIR}/${name})
file(REMOVE ${output})
execute_process(COMMAND ${CMAKE_COMMAND} -DSOLUTION=${FIXTURE} -DEXERCISE=${output} -P ${GENERATOR}
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)

if(EXISTS ${FIXTURE}.expected)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "the generator refused ${name} (status ${status}):\n${out}${err}")
  endif()
  file(READ ${FIXTURE}.expected expected)
  file(READ ${output} actual)
  if(NOT actual STREQUAL expected)
    execute_process(COMMAND diff -u ${FIXTURE}.expected ${output} OUTPUT_VARIABLE diff)
    message(FATAL_ERROR "${output} differs from ${name}.expected:\n${diff}")
  endif()
  message(STATUS "${name}: generated exactly as expected")
  return()
endif()

file(STRINGS ${FIXTURE} first_line LIMIT_COUNT 1)
if(NOT first_line MATCHES "^// expected error at line ([0-9]+): (.+)$")
  message(FATAL_ERROR "${name} has neither a .expected file nor a first line `// expected error at line N: ...`")
endif()
set(wanted "${FIXTURE}:${CMAKE_MATCH_1}: ${CMAKE_MATCH_2}")
if(status EQUAL 0)
  message(FATAL_ERROR "the generator accepted ${name}, which it must refuse with\n  ${wanted}")
endif()
string(FIND "${err}" "${wanted}" found)
if(found EQUAL -1)
  message(FATAL_ERROR "the generator refused ${name}, but did not say\n  ${wanted}\nIt said:\n${err}")
endif()
if(EXISTS ${output})
  message(FATAL_ERROR "the generator refused ${name} but still wrote ${output}")
endif()
message(STATUS "${name}: refused with \"${wanted}\"")
