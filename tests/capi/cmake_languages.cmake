# cmake -DSOURCE=<tritonpack source> -DWORK=<scratch> -P cmake_languages.cmake
#
# tritonpack_add_kernels(... LANGUAGES ...) refuses what it cannot build at configure time, each
# with a message saying what to do: an unknown language, C for an INTERFACE library, C without
# tritonpack::c_api, Fortran in a project without Fortran, C with HEADER_ONLY. (What it builds: examples/c,
# examples/fortran.)
file(REMOVE_RECURSE "${WORK}")
file(WRITE "${WORK}/src/main.cpp" "int main() { return 0; }\n")
file(WRITE "${WORK}/src/kernels.toml" "name = \"k\"\n")
file(WRITE "${WORK}/src/CMakeLists.txt" [=[
cmake_minimum_required(VERSION 3.25)
project(languages LANGUAGES CXX)
set(TRITONPACK_GENERATOR_PYTHONPATH "${TP_SOURCE}/generator/python")
include("${TP_SOURCE}/cmake/TritonpackKernels.cmake")
if(WITH_C_API)
  add_library(tritonpack::c_api INTERFACE IMPORTED)
endif()
if(INTERFACE_TARGET)
  add_library(app INTERFACE)
else()
  add_executable(app main.cpp)
endif()
string(REPLACE "," ";" LANGS "${LANGS}")
set(_header_only)
if(HEADER_ONLY)
  set(_header_only HEADER_ONLY)
endif()
tritonpack_add_kernels(app SPEC kernels.toml LANGUAGES ${LANGS} ${_header_only})
]=])

function(expect_refusal label message)
  execute_process(COMMAND "${CMAKE_COMMAND}" -S "${WORK}/src" -B "${WORK}/build-${label}" "-DTP_SOURCE=${SOURCE}" ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(REGEX REPLACE "[ \t\r\n]+" " " flat "${out}${err}")
  if(rc EQUAL 0)
    message(FATAL_ERROR "[${label}] configure succeeded; expected the refusal `${message}`")
  endif()
  string(FIND "${flat}" "${message}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "[${label}] expected `${message}` in:\n${out}${err}")
  endif()
  message(STATUS "[${label}] refused as expected")
endfunction()

expect_refusal(unknown "LANGUAGES takes CXX, C and Fortran (got `Rust`)" -DLANGS=CXX,Rust -DWITH_C_API=ON)
expect_refusal(interface "which an INTERFACE library cannot hold; use a STATIC or OBJECT library" -DLANGS=C
               -DINTERFACE_TARGET=ON -DWITH_C_API=ON)
expect_refusal(no_c_api "LANGUAGES C/Fortran needs tritonpack::c_api" -DLANGS=C)
expect_refusal(no_fortran "LANGUAGES Fortran needs a Fortran compiler enabled in this project" -DLANGS=Fortran
               -DWITH_C_API=ON)
expect_refusal(header_only "HEADER_ONLY cannot hold with LANGUAGES C/Fortran" -DLANGS=CXX,C -DWITH_C_API=ON
               -DHEADER_ONLY=ON)
