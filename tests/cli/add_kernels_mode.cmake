# cmake -DSOURCE=<tritonpack source> -DWORK=<scratch> -DPYTHON=<python with triton> -P add_kernels_mode.cmake
#
# Which run time tritonpack_add_kernels() links (docs/runtime-api.md, "Separate compilation"): by
# default tritonpack::runtime, so that translation units including the generated header compile
# declarations instead of the whole run time; with HEADER_ONLY, tritonpack::tritonpack; and
# tritonpack::tritonpack where no tritonpack::runtime target exists. Configure only: the two
# targets are stand-ins, nothing is compiled.
file(REMOVE_RECURSE "${WORK}")
file(WRITE "${WORK}/src/main.cpp" "int main() { return 0; }\n")
file(WRITE "${WORK}/src/CMakeLists.txt" [=[
cmake_minimum_required(VERSION 3.25)
project(add_kernels_mode LANGUAGES CXX)
set(TRITONPACK_GENERATOR_PYTHONPATH "${TP_SOURCE}/generator/python")
include("${TP_SOURCE}/cmake/TritonpackKernels.cmake")
add_library(tritonpack::tritonpack INTERFACE IMPORTED)
set(TRITONPACK_CLI_EXECUTABLE "${CMAKE_COMMAND}")  # not run: configure only
if(WITH_RUNTIME)
  add_library(tritonpack::runtime INTERFACE IMPORTED)
endif()
add_executable(app_default main.cpp)
tritonpack_add_kernels(app_default SPEC ${TP_SOURCE}/tests/package/common/kernels.toml NAME a)
add_executable(app_header_only main.cpp)
tritonpack_add_kernels(app_header_only SPEC ${TP_SOURCE}/tests/package/common/kernels.toml NAME b HEADER_ONLY)
foreach(t app_default app_header_only)
  get_target_property(_libs ${t} LINK_LIBRARIES)
  message(STATUS "links: ${t} = ${_libs}")
endforeach()
]=])

function(expect_links label expected_default expected_header_only)
  execute_process(COMMAND "${CMAKE_COMMAND}" -S "${WORK}/src" -B "${WORK}/build-${label}" "-DTP_SOURCE=${SOURCE}"
                          "-DTRITONPACK_PYTHON=${PYTHON}" ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "[${label}] configure failed:\n${out}${err}")
  endif()
  foreach(pair "app_default = ${expected_default}" "app_header_only = ${expected_header_only}")
    string(FIND "${out}" "links: ${pair}\n" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "[${label}] expected `links: ${pair}` in:\n${out}")
    endif()
  endforeach()
  message(STATUS "[${label}] as expected")
endfunction()

expect_links(with_runtime tritonpack::runtime tritonpack::tritonpack -DWITH_RUNTIME=ON)
expect_links(without_runtime tritonpack::tritonpack tritonpack::tritonpack -DWITH_RUNTIME=OFF)
