# reduction_write_chapter_list(): writes chapters.json into the build folder for the scripts in
# benchmark/, so that none of them keeps a list of its own. The chapters come in teaching order (the
# order of REDUCTION_CHAPTERS, as far as they are built), each as
#   {"name": "06_hierarchical", "program": "<build>/06_hierarchical/06_hierarchical", "gpu": true,
#    "multi_gpu": false}
# gpu: the program runs kernels; multi_gpu: it spreads one sum over several GPUs. A chapter's
# variants are not here: its program lists them (--list --json), from the chapter's registry.
function(reduction_write_chapter_list)
  get_property(targets GLOBAL PROPERTY REDUCTION_TOUR_TARGETS)
  set(entries "")
  foreach(chapter IN LISTS targets)
    set(facts "")
    foreach(property REDUCTION_USES_GPU REDUCTION_MULTI_GPU)
      get_target_property(value ${chapter} ${property})
      if(value)
        list(APPEND facts true)
      else()
        list(APPEND facts false)
      endif()
    endforeach()
    list(GET facts 0 gpu)
    list(GET facts 1 multi_gpu)
    list(APPEND entries "{\"name\": \"${chapter}\", \"program\": \"$<TARGET_FILE:${chapter}>\", \"gpu\": ${gpu}, \"multi_gpu\": ${multi_gpu}}")
  endforeach()
  list(JOIN entries ",\n  " body)
  file(GENERATE OUTPUT ${CMAKE_BINARY_DIR}/chapters.json CONTENT "{\"chapters\": [\n  ${body}\n]}\n")
endfunction()
