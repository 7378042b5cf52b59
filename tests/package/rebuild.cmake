# cmake -DSOURCE=<tests/package> -DWORK=<scratch> -DPREFIX=<installed tritonpack> -DNINJA=<ninja>
#       -DCXX=<c++> -DPYTHON=<python with triton> -P rebuild.cmake
#
# What re-runs the kernel build of tritonpack_add_kernels(): a copy of the find_package project is
# built, then files are touched or edited one at a time and the next build's log is checked.
#   nothing changed            → ninja has no work to do
#   the C++ source touched     → the C++ is recompiled, the kernels are not
#   an unrelated file edited   → no work
#   the kernel .py edited      → compile + pack run again (then the C++ that includes the header)
#   the spec edited            → CMake re-configures, compile + pack run again
#   the TUNING table edited    → pack runs again, compile does not
#   a TUNING table that is missing → configure fails, saying how to write one

set(proj "${WORK}/src/find_package")
set(common "${WORK}/src/common")
set(build "${WORK}/build")
file(REMOVE_RECURSE "${WORK}")
file(COPY "${SOURCE}/find_package" "${SOURCE}/common" DESTINATION "${WORK}/src")

function(run_build label)
  execute_process(COMMAND "${CMAKE_COMMAND}" --build "${build}" -- -d explain
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(log "${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "[${label}] build failed (${rc}):\n${log}")
  endif()
  set(log "${log}" PARENT_SCOPE)
endfunction()

function(expect label)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "HAS;LACKS")
  foreach(s IN LISTS arg_HAS)
    string(FIND "${log}" "${s}" pos)
    if(pos EQUAL -1)
      message(FATAL_ERROR "[${label}] expected `${s}` in the build log:\n${log}")
    endif()
  endforeach()
  foreach(s IN LISTS arg_LACKS)
    string(FIND "${log}" "${s}" pos)
    if(NOT pos EQUAL -1)
      message(FATAL_ERROR "[${label}] did not expect `${s}` in the build log:\n${log}")
    endif()
  endforeach()
  message(STATUS "[${label}] ok")
endfunction()

# Ninja compares time stamps with a one-second granularity on some file systems.
function(later)
  execute_process(COMMAND "${CMAKE_COMMAND}" -E sleep 1.1)
endfunction()

# An empty tuning table (the kernels have one config each: nothing to choose), embedded with TUNING.
set(table "${WORK}/tuning.json")
set(empty_table "{\"schema\": \"tritonpack-tuning\", \"version\": 1, \"kernels\": {}}\n")
file(WRITE "${table}" "${empty_table}")

execute_process(
  COMMAND "${CMAKE_COMMAND}" -S "${proj}" -B "${build}" -G Ninja "-DCMAKE_MAKE_PROGRAM=${NINJA}"
          "-DCMAKE_CXX_COMPILER=${CXX}" "-DCMAKE_PREFIX_PATH=${PREFIX}" "-DTRITONPACK_PYTHON=${PYTHON}"
          -DCMAKE_BUILD_TYPE= "-DPKGTEST_TUNING=${table}"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configure failed:\n${out}${err}")
endif()

set(compile "tritonpack: compiling the kernels")
set(pack "tritonpack: packing")

run_build(first)
expect(first HAS "${compile}" "${pack}" "main.cpp")

run_build(nothing)
expect(nothing HAS "no work to do" LACKS "${compile}" "${pack}")

later()
file(TOUCH "${common}/main.cpp")
run_build(cpp-touched)
expect(cpp-touched HAS "main.cpp" LACKS "${compile}" "${pack}")

later()
file(WRITE "${common}/NOTES.txt" "not part of any build\n")
run_build(unrelated)
expect(unrelated HAS "no work to do" LACKS "${compile}" "${pack}")

later()
file(APPEND "${common}/kernels.py" "\n# an edit to the kernel source\n")
run_build(kernel-edited)
expect(kernel-edited HAS "${compile}" "${pack}" "main.cpp")

run_build(after-kernel)
expect(after-kernel HAS "no work to do")

later()
file(APPEND "${common}/kernels.toml" "\n# an edit to the spec\n")
run_build(spec-edited)
expect(spec-edited HAS "Re-running CMake" "${compile}" "${pack}")

run_build(after-spec)
expect(after-spec HAS "no work to do")

later()
file(WRITE "${table}" "${empty_table}\n")
run_build(tuning-edited)
expect(tuning-edited HAS "${pack}" LACKS "${compile}")

run_build(after-tuning)
expect(after-tuning HAS "no work to do")

execute_process(
  COMMAND "${CMAKE_COMMAND}" -S "${proj}" -B "${build}" "-DPKGTEST_TUNING=${WORK}/no-such-table.json"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(REGEX REPLACE "[ \t\r\n]+" " " flat "${out}${err}")
if(rc EQUAL 0 OR NOT flat MATCHES "the tuning table `[^`]*no-such-table.json` \\(TUNING\\) is not a file; write it on a GPU node with `tritonpack tune")
  message(FATAL_ERROR "[tuning-missing] expected the configure error for a missing TUNING table:\n${out}${err}")
endif()
message(STATUS "[tuning-missing] ok")
