# The libraries: the system's package where one is installed, else a download whose SHA-256 is
# checked. Catch2 (the tests: v2.13 as Debian 12 and Ubuntu 22.04 package it, or v3, which is the
# download; REDUCTION_CATCH2_MAJOR says which), CLI11 2.x (the options), nlohmann_json (--json).
# Where one is missing and cannot be downloaded, configuring stops with one message naming the
# Debian packages to install.
include(FetchContent)
set(_reduction_downloads ${FETCHCONTENT_BASE_DIR}/downloads)
set(_reduction_missing "")

# _reduction_dependency(<name> <Debian package> <sha256> <url>... FIND_PACKAGE_ARGS <args>...):
# declares <name> for FetchContent and, when find_package() does not find it, downloads the archive
# now, so that a failed download is one line rather than a page of FetchContent's sub-build log
# (FetchContent then finds it in DOWNLOAD_DIR). A failed download adds <package> to _reduction_missing.
function(_reduction_dependency name package sha256)
  cmake_parse_arguments(PARSE_ARGV 3 ARG "" "" "FIND_PACKAGE_ARGS")
  set(urls ${ARG_UNPARSED_ARGUMENTS})
  list(GET urls 0 first_url)
  get_filename_component(archive_name ${first_url} NAME)
  string(PREPEND archive_name ${name}-)
  FetchContent_Declare(${name} URL ${urls} URL_HASH SHA256=${sha256}
    DOWNLOAD_DIR ${_reduction_downloads} DOWNLOAD_NAME ${archive_name}
    FIND_PACKAGE_ARGS ${ARG_FIND_PACKAGE_ARGS})
  find_package(${name} ${ARG_FIND_PACKAGE_ARGS} QUIET)
  if(${name}_FOUND)
    return()
  endif()
  set(archive ${_reduction_downloads}/${archive_name})
  if(EXISTS ${archive})
    file(SHA256 ${archive} actual)
    if(actual STREQUAL sha256)
      return()  # downloaded by an earlier run
    endif()
  endif()
  foreach(url IN LISTS urls)
    message(STATUS "${name}: not installed; downloading ${url}")
    # The hash is checked here: file(DOWNLOAD EXPECTED_HASH) makes a failed download an error, even
    # where the next address succeeds.
    file(DOWNLOAD ${url} ${archive} STATUS status TIMEOUT 120 INACTIVITY_TIMEOUT 30)
    list(GET status 0 code)
    if(code EQUAL 0)
      file(SHA256 ${archive} actual)
      if(NOT actual STREQUAL sha256)
        file(REMOVE ${archive})
        message(FATAL_ERROR "${name}: ${url} is not the expected archive: SHA-256 ${actual}, expected ${sha256}")
      endif()
      return()
    endif()
    message(STATUS "${name}: the download failed: ${status}")
  endforeach()
  file(REMOVE ${archive})
  set(_reduction_missing ${_reduction_missing} ${package} PARENT_SCOPE)
endfunction()

# Catch2 accepts only its own major version: a v3 package is taken below.
find_package(Catch2 2.13 QUIET CONFIG)
if(Catch2_FOUND)
  set(REDUCTION_CATCH2_MAJOR 2)
else()
  set(REDUCTION_CATCH2_MAJOR 3)
  # Hash: Spack's catch2 recipe (spack/spack-packages) for this archive.
  _reduction_dependency(Catch2 catch2 c991b247a1a0d7bb9c39aa35faf0fe9e19764213f28ffba3109388e62ee0269c
    https://github.com/catchorg/Catch2/archive/refs/tags/v3.7.1.tar.gz
    FIND_PACKAGE_ARGS 3 CONFIG)
endif()

# Hash: Spack's cli11 recipe (spack/spack-packages) for this archive.
_reduction_dependency(CLI11 libcli11-dev f2d893a65c3b1324c50d4e682c0cdc021dd0477ae2c048544f39eed6654b699a
  https://github.com/CLIUtils/CLI11/archive/v2.4.2.tar.gz
  FIND_PACKAGE_ARGS 2 CONFIG)

# The version Debian 12 packages; Debian's copy of the archive is the same file (its SHA-512 is the
# one of vcpkg's nlohmann-json port for the GitHub archive; the SHA-256 was computed from it).
_reduction_dependency(nlohmann_json nlohmann-json3-dev d69f9deb6a75e2580465c6c4c5111b89c4dc2fa94e3a85fcd2ffcd9a143d9273
  https://github.com/nlohmann/json/archive/refs/tags/v3.11.2.tar.gz
  http://deb.debian.org/debian/pool/main/n/nlohmann-json3/nlohmann-json3_3.11.2.orig.tar.gz
  FIND_PACKAGE_ARGS 3 CONFIG)

if(_reduction_missing)
  list(JOIN _reduction_missing " " packages)
  message(FATAL_ERROR "Some libraries are not installed and could not be downloaded. Install them, "
    "on Debian or Ubuntu: sudo apt-get install ${packages}")
endif()

if(REDUCTION_CATCH2_MAJOR EQUAL 3)
  FetchContent_MakeAvailable(Catch2)
endif()
FetchContent_MakeAvailable(CLI11 nlohmann_json)
message(STATUS "Catch2: version ${REDUCTION_CATCH2_MAJOR}")
