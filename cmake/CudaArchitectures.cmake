# Chooses CMAKE_CUDA_ARCHITECTURES when the user has not:
#  - a value given with -DCMAKE_CUDA_ARCHITECTURES=... or the CUDAARCHS environment variable wins;
#  - otherwise "native" (the GPUs of this machine) when nvidia-smi lists one;
#  - otherwise 75: machine code for Turing plus PTX, which the driver compiles for any newer GPU
#    at start-up. Building needs no GPU; only running the kernels does.
if(DEFINED CMAKE_CUDA_ARCHITECTURES OR DEFINED ENV{CUDAARCHS})
  return()
endif()

set(_reduction_gpu_visible FALSE)
find_program(_reduction_nvidia_smi nvidia-smi)
if(_reduction_nvidia_smi)
  execute_process(COMMAND ${_reduction_nvidia_smi} -L
    RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_QUIET TIMEOUT 20)
  if(_rc EQUAL 0 AND _out MATCHES "GPU [0-9]+:")
    set(_reduction_gpu_visible TRUE)
  endif()
endif()

if(_reduction_gpu_visible)
  set(CMAKE_CUDA_ARCHITECTURES native CACHE STRING "CUDA architectures to build for")
  message(STATUS "CUDA architectures: native (a GPU is visible)")
else()
  set(CMAKE_CUDA_ARCHITECTURES 75 CACHE STRING "CUDA architectures to build for")
  message(STATUS "CUDA architectures: 75 (no GPU visible; set CMAKE_CUDA_ARCHITECTURES or CUDAARCHS to choose)")
endif()
