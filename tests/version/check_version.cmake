# cmake -DPROBE=<tritonpack_version_probe> -DCMAKE_PROJECT_VERSION=<PROJECT_VERSION> -DPACKAGE_FILES=<files>
#       -DCLI=<tritonpack> -DPYTHON=<python3> -DPYTHONPATH=<generator/python> -DMESON=<meson>
#       -DSOURCE=<tritonpack source> -DWORK=<scratch dir> -P check_version.cmake
# The version as the compiler reads include/tritonpack/version.hpp (the probe) must be the one that
# every other place states. An empty CLI, PYTHON or MESON is reported as not checked.
set(failures "")
macro(expect what got)
  if("${got}" STREQUAL "${version}")
    message(STATUS "${what}: ${got}")
  else()
    string(APPEND failures "\n  ${what}: `${got}`, version.hpp: `${version}`")
  endif()
endmacro()
function(run out_var)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    list(JOIN ARGN " " cmd)
    message(FATAL_ERROR "`${cmd}` failed (${rc}):\n${out}${err}")
  endif()
  set(${out_var} "${out}" PARENT_SCOPE)
endfunction()
# What the command prints must match <regex>, whose first group must be the version.
function(expect_output what regex)
  run(out ${ARGN})
  if(out MATCHES "${regex}")
    expect("${what}" "${CMAKE_MATCH_1}")
  else()
    string(APPEND failures "\n  ${what} printed `${out}`")
  endif()
  set(failures "${failures}" PARENT_SCOPE)
endfunction()

run(probe "${PROBE}")
if(NOT probe MATCHES "string=(([0-9]+)\\.([0-9]+)\\.([0-9]+))\ninteger=([0-9]+)\nnamespace=([^\n]*)")
  message(FATAL_ERROR "the probe printed something else:\n${probe}")
endif()
set(version "${CMAKE_MATCH_1}")
set(major "${CMAKE_MATCH_2}")
set(minor "${CMAKE_MATCH_3}")
set(integer "${CMAKE_MATCH_5}")
set(namespace "${CMAKE_MATCH_6}")
message(STATUS "version.hpp: ${version} (TRITONPACK_VERSION ${integer}, namespace tritonpack::${namespace})")
if(NOT namespace STREQUAL "v${major}_${minor}")
  string(APPEND failures "\n  the versioned namespace is `${namespace}`, not `v${major}_${minor}`")
endif()

expect("CMake project()" "${CMAKE_PROJECT_VERSION}")
foreach(f IN LISTS PACKAGE_FILES)
  file(READ "${f}" text)
  if(text MATCHES "set\\(PACKAGE_VERSION \"([^\"]*)\"\\)")      # tritonpackConfigVersion.cmake
    expect("${f}" "${CMAKE_MATCH_1}")
  elseif(text MATCHES "\nVersion: ([^\n]*)")                     # tritonpack.pc
    expect("${f}" "${CMAKE_MATCH_1}")
  else()
    string(APPEND failures "\n  ${f} states no version")
  endif()
endforeach()

if(CLI)
  expect_output("tritonpack --version" "^tritonpack ([^ ]+) \\(container format v[0-9]+\\)\n$" "${CLI}" --version)
else()
  message(STATUS "tritonpack --version: not checked (the CLI is not built)")
endif()

if(PYTHON)
  expect_output("python -m tritonpack_compile --version" "^tritonpack-compile ([^\n]+)\n$"
                "${CMAKE_COMMAND}" -E env "PYTHONPATH=${PYTHONPATH}" PYTHONDONTWRITEBYTECODE=1
                "${PYTHON}" -m tritonpack_compile --version)
else()
  message(STATUS "the front end: not checked (no Python)")
endif()

if(MESON)
  # Configure only, with nothing optional: project() is what is checked.
  file(REMOVE_RECURSE "${WORK}/meson")
  run(out "${MESON}" setup "${WORK}/meson" "${SOURCE}" -Dtests=disabled -Dexamples=disabled -Dbench=disabled
      -Dgpu_tests=disabled -Dcli=disabled)
  run(info "${MESON}" introspect "${WORK}/meson" --projectinfo)
  string(JSON meson_version GET "${info}" version)
  expect("Meson project()" "${meson_version}")
else()
  message(STATUS "Meson project(): not checked (no meson on PATH)")
endif()

if(failures)
  message(FATAL_ERROR "these disagree with include/tritonpack/version.hpp:${failures}")
endif()
