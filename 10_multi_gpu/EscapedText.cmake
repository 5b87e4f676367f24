# ctest helper of chapter 10: a newline or an ESC in --gpus, in --vector-max or in an --input file's
# name comes back escaped, as common/program.hpp's escaped() writes it: every error is one line on
# stderr, and no raw ESC reaches stdout or stderr. Runs PROGRAM with the GPU hidden.
#   cmake -DPROGRAM=<10_multi_gpu> -DWORK=<a folder for the files it names> -P EscapedText.cmake
string(ASCII 27 esc)
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
file(WRITE "${WORK}/empty${esc}[31m.txt" "")
file(WRITE "${WORK}/empty\nname.txt" "")
file(WRITE "${WORK}/three${esc}[2J.txt" "1 2 3\n")

set(failures 0)
# expect(<status> <argument>...): the exit status, one line on stderr, no ESC or newline inside it,
# no ESC on stdout, and with status 77 the name on stdout as escaped() writes it.
function(expect status)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env CUDA_VISIBLE_DEVICES= ${PROGRAM} ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(STRIP "${err}" line)
  string(REPLACE "${esc}" "<ESC>" shown "${ARGN}")
  set(problem "")
  if(NOT rc STREQUAL "${status}")
    set(problem "exit status ${rc}, expected ${status}")
  elseif(line STREQUAL "" OR line MATCHES "\n")
    set(problem "stderr is not one line")
  elseif(err MATCHES "${esc}" OR out MATCHES "${esc}")
    set(problem "a raw ESC on stdout or stderr")
  elseif(status EQUAL 77 AND NOT out MATCHES [[three\\\\?x1b\[2J\.txt]])
    set(problem "stdout does not name the file as three\\x1b[2J.txt")
  endif()
  if(problem)
    message("FAILED (${shown}): ${problem}\n--- stdout\n${out}--- stderr\n${err}---")
    math(EXPR count "${failures} + 1")
    set(failures ${count} PARENT_SCOPE)
  else()
    message("ok (${shown}): ${line}")
  endif()
endfunction()

expect(2 --gpus "2\n3")
expect(2 --gpus "${esc}[31mred")
expect(2 --vector-max "1\nG")
expect(2 --vector-max "${esc}[2J")
expect(2 --input "${WORK}/empty${esc}[31m.txt")     # holds no elements
expect(2 --input "${WORK}/empty\nname.txt")
expect(2 --input "${WORK}/missing${esc}[31m.txt")   # no such file
expect(77 --n 1000 --input "${WORK}/three${esc}[2J.txt")
expect(77 --json --n 1000 --input "${WORK}/three${esc}[2J.txt")  # a '[' keeps CMake from splitting after it: last
if(failures GREATER 0)
  message(FATAL_ERROR "${failures} of the cases above failed")
endif()
