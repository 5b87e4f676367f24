# Whether this machine shows a GPU (nvidia-smi -L lists one), asked at every configure. It decides
# CMAKE_CUDA_ARCHITECTURES, unless set (-D or CUDAARCHS): "native" with a GPU, else 75 (Turing
# machine code plus PTX, which the driver compiles for any newer GPU); and with REDUCTION_GPU_TESTS=AUTO
# whether `all` builds the test programs that need a GPU. Without one they stay buildable (target
# gpu_tests) and their tests are reported skipped.
set(REDUCTION_GPU_VISIBLE FALSE)
find_program(REDUCTION_NVIDIA_SMI nvidia-smi)
if(REDUCTION_NVIDIA_SMI)
  execute_process(COMMAND ${REDUCTION_NVIDIA_SMI} -L RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_QUIET TIMEOUT 20)
  if(_rc EQUAL 0 AND _out MATCHES "GPU [0-9]+:")
    set(REDUCTION_GPU_VISIBLE TRUE)
  endif()
endif()

set(REDUCTION_GPU_TESTS AUTO CACHE STRING "Build the GPU test programs with all: AUTO (where a GPU is visible), ON, OFF")
set_property(CACHE REDUCTION_GPU_TESTS PROPERTY STRINGS AUTO ON OFF)
set(REDUCTION_BUILD_GPU_TESTS ${REDUCTION_GPU_VISIBLE})
if(NOT REDUCTION_GPU_TESTS STREQUAL "AUTO")
  set(REDUCTION_BUILD_GPU_TESTS ${REDUCTION_GPU_TESTS})
endif()
message(STATUS "GPU visible: ${REDUCTION_GPU_VISIBLE}; GPU test programs built: ${REDUCTION_BUILD_GPU_TESTS} (REDUCTION_GPU_TESTS=${REDUCTION_GPU_TESTS})")

if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES AND NOT DEFINED ENV{CUDAARCHS})
  if(REDUCTION_GPU_VISIBLE)
    set(CMAKE_CUDA_ARCHITECTURES native CACHE STRING "CUDA architectures to build for")
  else()
    set(CMAKE_CUDA_ARCHITECTURES 75 CACHE STRING "CUDA architectures to build for")
  endif()
  message(STATUS "CUDA architectures: ${CMAKE_CUDA_ARCHITECTURES} (set CMAKE_CUDA_ARCHITECTURES or CUDAARCHS to choose)")
endif()
