# Finds NCCL (chapter 10) in NCCL_ROOT (a CMake or environment variable), in the CUDA toolkit's
# folders, then in the system's. Sets NCCL_FOUND, NCCL_VERSION, NCCL_INCLUDE_DIR, NCCL_LIBRARY and
# the imported target NCCL::NCCL; needs find_package(CUDAToolkit) first.
set(_nccl_hints ${NCCL_ROOT} $ENV{NCCL_ROOT} ${CUDAToolkit_LIBRARY_ROOT} ${CUDAToolkit_TARGET_DIR})

find_path(NCCL_INCLUDE_DIR nccl.h
  HINTS ${_nccl_hints} ${CUDAToolkit_INCLUDE_DIRS}
  PATH_SUFFIXES include)
find_library(NCCL_LIBRARY NAMES nccl
  HINTS ${_nccl_hints} ${CUDAToolkit_LIBRARY_DIR}
  PATH_SUFFIXES lib lib64 lib/x86_64-linux-gnu lib/aarch64-linux-gnu)

if(NCCL_INCLUDE_DIR AND EXISTS ${NCCL_INCLUDE_DIR}/nccl.h)
  file(STRINGS ${NCCL_INCLUDE_DIR}/nccl.h _nccl_version_lines REGEX "^#define NCCL_(MAJOR|MINOR|PATCH) +[0-9]+")
  foreach(part MAJOR MINOR PATCH)
    string(REGEX REPLACE ".*#define NCCL_${part} +([0-9]+).*" "\\1" NCCL_VERSION_${part} "${_nccl_version_lines}")
  endforeach()
  set(NCCL_VERSION ${NCCL_VERSION_MAJOR}.${NCCL_VERSION_MINOR}.${NCCL_VERSION_PATCH})
endif()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(NCCL REQUIRED_VARS NCCL_LIBRARY NCCL_INCLUDE_DIR VERSION_VAR NCCL_VERSION)

if(NCCL_FOUND AND NOT TARGET NCCL::NCCL)
  add_library(NCCL::NCCL UNKNOWN IMPORTED)
  set_target_properties(NCCL::NCCL PROPERTIES
    IMPORTED_LOCATION ${NCCL_LIBRARY}
    INTERFACE_INCLUDE_DIRECTORIES ${NCCL_INCLUDE_DIR}
    INTERFACE_LINK_LIBRARIES CUDA::cudart)
endif()
mark_as_advanced(NCCL_INCLUDE_DIR NCCL_LIBRARY)
unset(_nccl_hints)
unset(_nccl_version_lines)
