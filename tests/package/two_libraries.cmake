# cmake -DSOURCE=<tests/package> -DWORK=<scratch> -DPREFIX=<installed tritonpack> -DNINJA=<ninja>
#       -DCXX=<c++> -DPYTHON=<python with triton> -DVERSION=<major.minor> -P two_libraries.cmake
#
# Two libraries with one name in one program (tests/package/two_libraries): each layer that guards
# against it, checked in turn.
#   1. tritonpack_add_kernels() twice with the name `kernels`: configure fails, naming both calls.
#   2. the two packed by hand under that name: the link fails, naming the symbol.
#   3. the same with the link check off: the program runs, and the first call of the component
#      whose library was not kept fails with the error, never a launch.
set(proj "${WORK}/src/two_libraries")
set(build "${WORK}/build")
file(REMOVE_RECURSE "${WORK}")
file(COPY "${SOURCE}/two_libraries" "${SOURCE}/common" DESTINATION "${WORK}/src")

function(run label)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(rc "${rc}" PARENT_SCOPE)
  set(log "${out}${err}" PARENT_SCOPE)
  message(STATUS "[${label}] exit ${rc}")
endfunction()

function(expect label)
  cmake_parse_arguments(PARSE_ARGV 1 arg "FAILS;SUCCEEDS" "" "HAS")
  if(arg_FAILS AND rc EQUAL 0)
    message(FATAL_ERROR "[${label}] expected a failure, it succeeded:\n${log}")
  endif()
  if(arg_SUCCEEDS AND NOT rc EQUAL 0)
    message(FATAL_ERROR "[${label}] expected success, it failed (${rc}):\n${log}")
  endif()
  # CMake wraps its messages at spaces: compare with runs of white space made one space.
  string(REGEX REPLACE "[ \t\r\n]+" " " flat "${log}")
  foreach(s IN LISTS arg_HAS)
    if(NOT flat MATCHES "${s}")
      message(FATAL_ERROR "[${label}] expected `${s}` in the output:\n${log}")
    endif()
  endforeach()
  message(STATUS "[${label}] ok")
endfunction()

set(configure "${CMAKE_COMMAND}" -S "${proj}" -B "${build}" -G Ninja "-DCMAKE_MAKE_PROGRAM=${NINJA}"
    "-DCMAKE_CXX_COMPILER=${CXX}" "-DCMAKE_PREFIX_PATH=${PREFIX}" "-DTRITONPACK_PYTHON=${PYTHON}"
    "-DTRITONPACK_TEST_VERSION=${VERSION}" -DCMAKE_BUILD_TYPE=)

run(configure ${configure})
expect(configure FAILS HAS
  "tritonpack_add_kernels\\(comp_b\\): the library name `kernels` is already taken by"
  "tritonpack_add_kernels\\(comp_a\\) in [^\n]*comp_a/CMakeLists.txt"
  "Give each library its own name: pass NAME \\(e.g. NAME comp_b_kernels\\)")

file(REMOVE_RECURSE "${build}")
run(configure-by-hand ${configure} -DBY_HAND=ON)
expect(configure-by-hand SUCCEEDS)
run(link "${CMAKE_COMMAND}" --build "${build}")
expect(link FAILS HAS
  "(multiple definition of|duplicate symbol:) .?tritonpack_two_different_libraries_named_kernels__give_each_its_own_NAME")

run(configure-no-link-check ${configure} -DBY_HAND=ON -DLINK_CHECK=OFF)
expect(configure-no-link-check SUCCEEDS)
run(build-no-link-check "${CMAKE_COMMAND}" --build "${build}")
expect(build-no-link-check SUCCEEDS)
run(first-use "${build}/app")
expect(first-use SUCCEEDS HAS "two different libraries named \"kernels\" are linked into this program: kernels::")
