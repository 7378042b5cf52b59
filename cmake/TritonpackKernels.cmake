# TritonpackKernels.cmake — tritonpack_add_kernels(): Triton kernels as a build step of a C++ target.
#
#   tritonpack_add_kernels(<target> SPEC <kernels.toml>
#                          [NAME <namespace>]            # default: the spec's `name`, else its stem;
#                                                        #   one name, one spec per project
#                          [TARGETS <t>...]              # override the spec's targets (sm_80 gfx942 …)
#                          [MODE binary|ir|both]         # packaging mode (default: the spec's)
#                          [TUNING <table.json>]         # a tuning table (`tritonpack tune`) to
#                                                        #   embed: pack --tuning, re-packed when
#                                                        #   the table changes
#                          [PACK_OPTIONS <opt>...]       # more `tritonpack pack` options, e.g.
#                                                        #   --store-binaries, --level 22, --frames …
#                          [PUBLIC]                      # put the header dir on the target's usage
#                                                        #   requirements too (for libraries)
#                          [OUTPUT_DIRECTORY <dir>]      # default: <binary dir>/tritonpack/<target>
#                          [LANGUAGES CXX|C|Fortran...]  # default CXX; C adds the C API (NAME.h,
#                                                        #   NAME_c.cpp), Fortran module NAME (NAME.f90)
#                          [HEADER_ONLY])                # compile the run time in every translation
#                                                        #   unit instead of once (below)
#
# Two custom commands, run by the build tool:
#   1. ${TRITONPACK_PYTHON} -m tritonpack_compile SPEC -o <artifacts>   (Triton, no GPU needed)
#   2. tritonpack pack <artifacts>/manifest.json -o <include> --name NAME [--mode MODE]
#                      [--tuning TABLE] [PACK_OPTIONS]
# and <include>/NAME.hpp is made available to <target> as `#include <NAME.hpp>`. With LANGUAGES C
# the pack step also writes NAME.h and NAME_c.cpp: NAME_c.cpp is compiled into <target>, which links
# tritonpack::c_api (the memory API in C). With LANGUAGES Fortran also NAME.f90 (module NAME), compiled
# into <target>, which links tritonpack_fortran (module tritonpack, built once per project); Fortran
# must be enabled (project(... LANGUAGES C CXX Fortran)). docs/c-fortran.md.
#
# The run time is compiled once: <target> links tritonpack::runtime (separate mode,
# docs/runtime-api.md "Separate compilation"), so a translation unit that includes NAME.hpp compiles
# declarations instead of the whole run time (bench/compile_cost: ~25x less CPU, ~4.5x less memory).
# HEADER_ONLY links tritonpack::tritonpack instead, as does a build where tritonpack::runtime is not
# a target. The mode is the target's: one call without HEADER_ONLY makes the whole target separate.
#
# Dependencies: the compile step depends on the spec and on every kernel source file the spec names
# and the local modules they import (read at configure time; the spec is a configure dependency, so
# a kernel file added to it is seen too), and on the front end's depfile (`--depfile`: the same
# files, as the front end saw them). The pack step depends on the manifest, the packer and the
# TUNING table. Nothing
# else re-runs them; the front end's own cache (~/.cache/tritonpack/compile, or the environment
# variable TRITONPACK_COMPILE_CACHE_DIR at build time) skips unchanged work.
#
# Python: the cache variable TRITONPACK_PYTHON names an interpreter that can `import triton`. When
# unset it is searched for (environment variable TRITONPACK_PYTHON, an active virtual environment,
# Python3_EXECUTABLE, <top source dir>/.venv, python3 on PATH) and checked once.

include_guard(GLOBAL)
cmake_minimum_required(VERSION 3.25)

# Where the generator's Python package and this module's helper live. Set by the top-level
# CMakeLists.txt (source tree) or by tritonpackConfig.cmake (installed tree) *before* including
# this file; kept in global properties so that calls from any directory see them.
if(DEFINED TRITONPACK_GENERATOR_PYTHONPATH)
  set_property(GLOBAL PROPERTY TRITONPACK_GENERATOR_PYTHONPATH "${TRITONPACK_GENERATOR_PYTHONPATH}")
endif()
if(DEFINED TRITONPACK_FORTRAN_MODULE_SOURCE)
  set_property(GLOBAL PROPERTY TRITONPACK_FORTRAN_MODULE_SOURCE "${TRITONPACK_FORTRAN_MODULE_SOURCE}")
endif()
set_property(GLOBAL PROPERTY TRITONPACK_CMAKE_DIR "${CMAKE_CURRENT_LIST_DIR}")

set(TRITONPACK_PYTHON "" CACHE FILEPATH "Python interpreter that can import triton (runs the tritonpack front end)")

# tritonpack_find_python([QUIET] [RESULT <var>])
# Sets the cache variable TRITONPACK_PYTHON to a Python that imports triton and, with RESULT, <var>
# to TRUE/FALSE. Without QUIET a missing Triton is a configure error that says what to do.
function(tritonpack_find_python)
  cmake_parse_arguments(PARSE_ARGV 0 arg "QUIET" "RESULT" "")
  # Checked once per build tree: importing triton takes a second or two.
  if(TRITONPACK_PYTHON AND EXISTS "${TRITONPACK_PYTHON}"
     AND "${TRITONPACK_PYTHON_CHECKED}" STREQUAL "${TRITONPACK_PYTHON}")
    if(arg_RESULT)
      set(${arg_RESULT} TRUE PARENT_SCOPE)
    endif()
    return()
  endif()

  set(_candidates)
  if(TRITONPACK_PYTHON)
    # An explicit choice is the only candidate: never silently replace it.
    list(APPEND _candidates "${TRITONPACK_PYTHON}")
  else()
    if(DEFINED ENV{TRITONPACK_PYTHON} AND NOT "$ENV{TRITONPACK_PYTHON}" STREQUAL "")
      list(APPEND _candidates "$ENV{TRITONPACK_PYTHON}")
    endif()
    if(DEFINED ENV{VIRTUAL_ENV})
      list(APPEND _candidates "$ENV{VIRTUAL_ENV}/bin/python")
    endif()
    if(Python3_EXECUTABLE)
      list(APPEND _candidates "${Python3_EXECUTABLE}")
    endif()
    list(APPEND _candidates "${CMAKE_SOURCE_DIR}/.venv/bin/python")
    find_program(_tp_python3_on_path NAMES python3 python NO_CACHE)
    if(_tp_python3_on_path)
      list(APPEND _candidates "${_tp_python3_on_path}")
    endif()
  endif()

  set(_tried)
  foreach(_py IN LISTS _candidates)
    if(NOT EXISTS "${_py}")
      list(APPEND _tried "${_py} (does not exist)")
      continue()
    endif()
    execute_process(
      COMMAND "${_py}" -c "import sys, triton; sys.stdout.write('%d.%d %s' % (sys.version_info[0], sys.version_info[1], triton.__version__))"
      RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(_rc EQUAL 0)
      string(REPLACE " " ";" _parts "${_out}")
      list(GET _parts 0 _pyver)
      list(GET _parts 1 _tver)
      if(_pyver VERSION_LESS 3.9)
        list(APPEND _tried "${_py} (Python ${_pyver}; 3.9 or newer is needed)")
        continue()
      endif()
      set(TRITONPACK_PYTHON "${_py}" CACHE FILEPATH "Python interpreter that can import triton (runs the tritonpack front end)" FORCE)
      set(TRITONPACK_TRITON_VERSION "${_tver}" CACHE INTERNAL "")
      set(TRITONPACK_PYTHON_CHECKED "${_py}" CACHE INTERNAL "")
      message(STATUS "tritonpack: Python with Triton ${_tver}: ${_py}")
      if(arg_RESULT)
        set(${arg_RESULT} TRUE PARENT_SCOPE)
      endif()
      return()
    endif()
    list(APPEND _tried "${_py} (cannot import triton)")
  endforeach()

  list(JOIN _tried "\n    " _tried_text)
  set(_msg "tritonpack: no Python that can `import triton` was found. Tried:\n    ${_tried_text}\n"
           "Triton compiles the kernels at build time (no GPU needed). Install it, for example\n"
           "    python3 -m venv .venv && .venv/bin/pip install triton==3.9.0\n"
           "and configure with -DTRITONPACK_PYTHON=$PWD/.venv/bin/python.")
  if(arg_QUIET)
    message(STATUS "tritonpack: no Python with Triton found (set TRITONPACK_PYTHON to enable kernel builds)")
  else()
    message(FATAL_ERROR ${_msg})
  endif()
  if(arg_RESULT)
    set(${arg_RESULT} FALSE PARENT_SCOPE)
  endif()
endfunction()

# One name, one spec, per project (docs/spec.md, "Names"): two different libraries with one name
# in a program would run each other's kernels, so a tritonpack_add_kernels() whose name another
# call already gave to a different spec is an error naming both calls. The same spec may be built
# under its name for several targets, packed differently (bench/launch packs one spec twice for two
# programs); linking two such packings into one program is still an error: the generated headers
# make the link fail where the toolchain allows it, and the first call fail everywhere else.
function(_tritonpack_claim_library_name target name spec)
  get_property(_first_spec GLOBAL PROPERTY "TRITONPACK_LIBRARY_${name}")
  if(NOT _first_spec)
    set_property(GLOBAL PROPERTY "TRITONPACK_LIBRARY_${name}" "${spec}")
    set_property(GLOBAL PROPERTY "TRITONPACK_LIBRARY_${name}_CALL"
                 "tritonpack_add_kernels(${target}) in ${CMAKE_CURRENT_LIST_FILE} (SPEC ${spec})")
    return()
  endif()
  if(_first_spec STREQUAL spec)
    return()
  endif()
  get_property(_first_call GLOBAL PROPERTY "TRITONPACK_LIBRARY_${name}_CALL")
  string(REGEX REPLACE "[^A-Za-z0-9_]" "_" _suggest "${target}_${name}")
  message(FATAL_ERROR
    "tritonpack_add_kernels(${target}): the library name `${name}` is already taken by ${_first_call}.\n"
    "Two different libraries with one name in a program run each other's kernels (both headers define "
    "namespace ${name}). Give each library its own name: pass NAME (e.g. NAME ${_suggest}) or set "
    "`name = \"...\"` in ${spec}.")
endfunction()

# tritonpack_fortran: module tritonpack (include/tritonpack/fortran/tritonpack.f90) as a static
# library, made once per project by the first LANGUAGES Fortran call; its .mod directory is on the
# include path of whatever links it.
function(_tritonpack_fortran_library caller)
  if(TARGET tritonpack_fortran)
    return()
  endif()
  get_property(_languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  if(NOT "Fortran" IN_LIST _languages)
    message(FATAL_ERROR "${caller}: LANGUAGES Fortran needs a Fortran compiler enabled in this project: "
                        "project(... LANGUAGES C CXX Fortran) or enable_language(Fortran) before this call")
  endif()
  get_property(_source GLOBAL PROPERTY TRITONPACK_FORTRAN_MODULE_SOURCE)
  if(NOT EXISTS "${_source}")
    message(FATAL_ERROR "${caller}: module tritonpack's source `${_source}` is missing (an incomplete tritonpack install?)")
  endif()
  set(_modules "${CMAKE_BINARY_DIR}/tritonpack_fortran_modules")
  add_library(tritonpack_fortran STATIC "${_source}")
  set_target_properties(tritonpack_fortran PROPERTIES Fortran_MODULE_DIRECTORY "${_modules}")
  target_include_directories(tritonpack_fortran PUBLIC "${_modules}")
  target_link_libraries(tritonpack_fortran PUBLIC tritonpack::c_api)
endfunction()

function(tritonpack_add_kernels target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "PUBLIC;HEADER_ONLY" "SPEC;NAME;MODE;OUTPUT_DIRECTORY;TUNING" "TARGETS;PACK_OPTIONS;LANGUAGES")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "tritonpack_add_kernels(${target}): unknown arguments: ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT TARGET ${target})
    message(FATAL_ERROR "tritonpack_add_kernels(${target}): no target named `${target}` (call it after add_executable/add_library)")
  endif()
  if(NOT arg_SPEC)
    message(FATAL_ERROR "tritonpack_add_kernels(${target}): SPEC <kernels.toml> is required")
  endif()
  if(arg_MODE AND NOT arg_MODE MATCHES "^(binary|ir|both)$")
    message(FATAL_ERROR "tritonpack_add_kernels(${target}): MODE must be binary, ir or both (got `${arg_MODE}`)")
  endif()
  set(_want_c OFF)
  set(_want_fortran OFF)
  foreach(_language IN LISTS arg_LANGUAGES)
    if(_language STREQUAL "C")
      set(_want_c ON)
    elseif(_language STREQUAL "Fortran")
      set(_want_c ON)  # module NAME binds to the C functions
      set(_want_fortran ON)
    elseif(NOT _language STREQUAL "CXX")
      message(FATAL_ERROR "tritonpack_add_kernels(${target}): LANGUAGES takes CXX, C and Fortran (got `${_language}`)")
    endif()
  endforeach()
  if(_want_c)
    get_target_property(_type ${target} TYPE)
    if(_type STREQUAL "INTERFACE_LIBRARY")
      message(FATAL_ERROR "tritonpack_add_kernels(${target}): LANGUAGES C/Fortran compiles the library's C "
                          "definitions (and Fortran module) into `${target}`, which an INTERFACE library cannot "
                          "hold; use a STATIC or OBJECT library")
    endif()
  endif()
  if(_want_c AND arg_HEADER_ONLY)
    message(FATAL_ERROR "tritonpack_add_kernels(${target}): HEADER_ONLY cannot hold with LANGUAGES C/Fortran: their "
                        "calls go through tritonpack::c_api, which links the run time compiled once "
                        "(tritonpack::runtime), and one program uses one mode (docs/runtime-api.md, \"Separate "
                        "compilation\"); drop HEADER_ONLY")
  endif()
  if(_want_c AND NOT TARGET tritonpack::c_api)
    message(FATAL_ERROR "tritonpack_add_kernels(${target}): LANGUAGES C/Fortran needs tritonpack::c_api, which this tritonpack does not provide (update it)")
  endif()
  if(_want_fortran)
    _tritonpack_fortran_library("tritonpack_add_kernels(${target})")
  endif()
  cmake_path(ABSOLUTE_PATH arg_SPEC BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}" NORMALIZE)
  if(NOT EXISTS "${arg_SPEC}")
    message(FATAL_ERROR "tritonpack_add_kernels(${target}): the spec `${arg_SPEC}` does not exist")
  endif()

  set(_tuning)
  if(arg_TUNING)
    cmake_path(ABSOLUTE_PATH arg_TUNING BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}" NORMALIZE OUTPUT_VARIABLE _tuning)
    if(NOT EXISTS "${_tuning}" OR IS_DIRECTORY "${_tuning}")
      message(FATAL_ERROR "tritonpack_add_kernels(${target}): the tuning table `${_tuning}` (TUNING) is not a file; write it "
                          "on a GPU node with `tritonpack tune <NAME.tpk> --sizes SIZES.json -o ${arg_TUNING}` "
                          "(generator/cli/README.md), or drop TUNING")
    endif()
  endif()

  tritonpack_find_python()
  get_property(_pythonpath GLOBAL PROPERTY TRITONPACK_GENERATOR_PYTHONPATH)
  get_property(_cmake_dir GLOBAL PROPERTY TRITONPACK_CMAKE_DIR)

  # What the spec depends on and what the library is called (NAME, else the spec's `name`, else
  # the spec file's stem), checked by the front end's name rule: read now, re-read whenever the
  # spec changes.
  execute_process(
    COMMAND "${CMAKE_COMMAND}" -E env "PYTHONPATH=${_pythonpath}" "PYTHONDONTWRITEBYTECODE=1"
            "${TRITONPACK_PYTHON}" "${_cmake_dir}/tritonpack_spec_info.py" "${arg_SPEC}" ${arg_NAME}
    RESULT_VARIABLE _rc OUTPUT_VARIABLE _info ERROR_VARIABLE _err)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "tritonpack_add_kernels(${target}): ${_err}")
  endif()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${arg_SPEC}")
  string(REPLACE "\n" ";" _info "${_info}")
  set(_name "")
  set(_sources)
  foreach(_line IN LISTS _info)
    if(_line MATCHES "^name=(.*)$")
      set(_name "${CMAKE_MATCH_1}")
    elseif(_line MATCHES "^source=(.*)$")
      list(APPEND _sources "${CMAKE_MATCH_1}")
      if(NOT EXISTS "${CMAKE_MATCH_1}")
        message(FATAL_ERROR "tritonpack_add_kernels(${target}): the spec ${arg_SPEC} names the kernel source `${CMAKE_MATCH_1}`, which does not exist")
      endif()
    endif()
  endforeach()
  if(NOT _sources)
    message(FATAL_ERROR "tritonpack_add_kernels(${target}): the spec ${arg_SPEC} names no kernel source (`source = \"file.py:function\"`)")
  endif()

  _tritonpack_claim_library_name("${target}" "${_name}" "${arg_SPEC}")

  set(_out "${arg_OUTPUT_DIRECTORY}")
  if(NOT _out)
    set(_out "${CMAKE_CURRENT_BINARY_DIR}/tritonpack/${target}")
  endif()
  cmake_path(ABSOLUTE_PATH _out BASE_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}" NORMALIZE)
  set(_artifacts "${_out}/artifacts")
  set(_include "${_out}/include")
  set(_manifest "${_artifacts}/manifest.json")
  set(_depfile "${_out}/compile.d")
  set(_header "${_include}/${_name}.hpp")
  set(_tpk "${_include}/${_name}.tpk")

  # The packer: the in-project target, the installed imported one, or a `tritonpack` on PATH.
  if(TARGET tritonpack::cli)
    set(_packer tritonpack::cli)
    get_target_property(_real tritonpack::cli ALIASED_TARGET)
    if(_real)
      set(_packer_dep ${_real})
    else()
      set(_packer_dep "$<TARGET_FILE:tritonpack::cli>")
    endif()
  else()
    find_program(TRITONPACK_CLI_EXECUTABLE tritonpack DOC "The tritonpack packer (tritonpack pack)")
    if(NOT TRITONPACK_CLI_EXECUTABLE)
      message(FATAL_ERROR "tritonpack_add_kernels(${target}): the `tritonpack` packer is not built here (TRITONPACK_BUILD_CLI=OFF?) and not on PATH; set TRITONPACK_CLI_EXECUTABLE")
    endif()
    set(_packer "${TRITONPACK_CLI_EXECUTABLE}")
    set(_packer_dep "${TRITONPACK_CLI_EXECUTABLE}")
  endif()

  set(_compile_args "${arg_SPEC}" -o "${_artifacts}" --depfile "${_depfile}")
  if(arg_TARGETS)
    list(JOIN arg_TARGETS "," _targets)
    list(APPEND _compile_args --targets "${_targets}" --targets-from "TARGETS of tritonpack_add_kernels(${target})")
  endif()
  if(arg_MODE)
    list(APPEND _compile_args --mode "${arg_MODE}")
  endif()
  if(DEFINED CMAKE_BUILD_PARALLEL_LEVEL)
    list(APPEND _compile_args -j "${CMAKE_BUILD_PARALLEL_LEVEL}")
  endif()
  set(_pack_args pack "${_manifest}" -o "${_include}" --name "${_name}")
  if(arg_MODE)
    list(APPEND _pack_args --mode "${arg_MODE}")
  endif()
  set(_foreign)
  if(_want_fortran)
    list(APPEND _pack_args --languages c,fortran)
    set(_foreign "${_include}/${_name}.h" "${_include}/${_name}_c.cpp" "${_include}/${_name}.f90")
  elseif(_want_c)
    list(APPEND _pack_args --languages c)
    set(_foreign "${_include}/${_name}.h" "${_include}/${_name}_c.cpp")
  endif()
  if(_tuning)
    list(APPEND _pack_args --tuning "${_tuning}")
  endif()
  list(APPEND _pack_args ${arg_PACK_OPTIONS})

  file(RELATIVE_PATH _rel_spec "${CMAKE_SOURCE_DIR}" "${arg_SPEC}")
  add_custom_command(
    OUTPUT "${_manifest}"
    COMMAND "${CMAKE_COMMAND}" -E make_directory "${_artifacts}"
    COMMAND "${CMAKE_COMMAND}" -E env "PYTHONPATH=${_pythonpath}" "PYTHONDONTWRITEBYTECODE=1"
            "${TRITONPACK_PYTHON}" -m tritonpack_compile ${_compile_args}
    # The front end skips unchanged work; the manifest's time stamp records that this step ran.
    COMMAND "${CMAKE_COMMAND}" -E touch "${_manifest}"
    DEPENDS "${arg_SPEC}" ${_sources}
    DEPFILE "${_depfile}"
    COMMENT "tritonpack: compiling the kernels of ${_rel_spec} with Triton"
    # The front end uses every core and shows progress: one at a time, on the terminal.
    USES_TERMINAL
    VERBATIM)
  add_custom_command(
    OUTPUT "${_header}" "${_tpk}" ${_foreign}
    COMMAND "${CMAKE_COMMAND}" -E make_directory "${_include}"
    COMMAND ${_packer} ${_pack_args}
    COMMAND "${CMAKE_COMMAND}" -E touch "${_header}" "${_tpk}" ${_foreign}
    DEPENDS "${_manifest}" ${_packer_dep} ${_tuning}
    COMMENT "tritonpack: packing ${_name}.hpp"
    VERBATIM)

  set(_gen_target "${target}_tritonpack_${_name}")
  add_custom_target(${_gen_target} DEPENDS "${_header}")
  add_dependencies(${target} ${_gen_target})
  if(arg_PUBLIC)
    set(_scope PUBLIC)
  else()
    get_target_property(_type ${target} TYPE)
    if(_type STREQUAL "INTERFACE_LIBRARY")
      set(_scope INTERFACE)
    else()
      set(_scope PRIVATE)
    endif()
  endif()
  target_include_directories(${target} ${_scope} "$<BUILD_INTERFACE:${_include}>")
  if(NOT arg_HEADER_ONLY AND TARGET tritonpack::runtime)
    # Compiled once, not in every translation unit that includes the header (see the top).
    target_link_libraries(${target} ${_scope} tritonpack::runtime)
  elseif(TARGET tritonpack::tritonpack)
    target_link_libraries(${target} ${_scope} tritonpack::tritonpack)
  endif()
  if(_want_c)
    # NAME_c.cpp (and NAME.f90) are compiled into the target itself, so its own sources see the
    # same library; the C API's memory functions and module tritonpack come from libraries built once.
    target_sources(${target} PRIVATE "${_include}/${_name}_c.cpp")
    target_link_libraries(${target} ${_scope} tritonpack::c_api)
  endif()
  if(_want_fortran)
    target_sources(${target} PRIVATE "${_include}/${_name}.f90")
    target_link_libraries(${target} ${_scope} tritonpack_fortran)
  endif()
  set_property(TARGET ${target} APPEND PROPERTY TRITONPACK_GENERATED_HEADERS "${_header}")
  set_property(TARGET ${target} APPEND PROPERTY TRITONPACK_CONTAINERS "${_tpk}")
endfunction()
