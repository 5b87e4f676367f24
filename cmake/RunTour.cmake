# The tour: runs each chapter program (listed one per line in PROGRAMS_FILE) in order with its
# defaults.
# A program that finds no GPU (exit 77) has printed what it can show without one; the tour goes
# on. Any other failure stops it.
file(STRINGS "${PROGRAMS_FILE}" programs)
set(skipped 0)
foreach(program IN LISTS programs)
  get_filename_component(name ${program} NAME)
  message("\n################ ${name} ################\n")
  execute_process(COMMAND ${program} RESULT_VARIABLE rc)
  if(rc EQUAL 77)
    math(EXPR skipped "${skipped} + 1")
  elseif(NOT rc EQUAL 0)
    message(FATAL_ERROR "${name} failed with exit status ${rc}")
  endif()
endforeach()
if(skipped)
  message("\nThe tour is done; ${skipped} chapter(s) showed only their analysis, for lack of a GPU.")
else()
  message("\nThe tour is done: every chapter verified its result.")
endif()
