# tritonpack_gpu_kernels(<target> <out_var> [pack options...]) — puts gpu_kernels.hpp, the kernels
# of tests/gpu/kernels.toml, on <target>'s include path, packed with the given `tritonpack pack`
# options (e.g. --store-binaries). Used by tests/gpu and bench/launch.
# tritonpack_gpu_tune_kernels(<target> <out_var>) — the same for gpu_tune_kernels.hpp, the tuned
# kernels of tests/gpu/autotune/tune_kernels.toml (the GPU tuning test).
#
# Where the kernels come from, first match:
#   1. -DTRITONPACK_GPU_ARTIFACTS=<dir> (-DTRITONPACK_GPU_TUNE_ARTIFACTS=<dir>): an artifact
#      directory (manifest.json) made elsewhere;
#   2. a Python with Triton (tritonpack_find_python): compiled from the spec at build time
#      through tritonpack_add_kernels(), like any user project (HEADER_ONLY: the target's mode
#      is what it links itself, whichever way the kernels came);
#   3. the artifacts committed in tests/gpu/artifacts (tests/gpu/autotune/artifacts)
#      (scripts/regen-artifacts.sh gpu),
#      packed at build time.
# Sets <out_var> in the caller to a short description of the choice.
set(TRITONPACK_GPU_ARTIFACTS "" CACHE PATH "Artifact directory of tests/gpu/kernels.toml (default: compile with Triton, else the committed ones)")
set(TRITONPACK_GPU_TUNE_ARTIFACTS "" CACHE PATH "Artifact directory of tests/gpu/autotune/tune_kernels.toml (default: compile with Triton, else the committed ones)")
set(_tp_gpu_dir "${CMAKE_CURRENT_LIST_DIR}")

# The three-way rule above for one kernel set: library NAME from SPEC, committed artifacts in
# COMMITTED, an artifact directory given by the user in GIVEN (may be empty).
function(_tritonpack_gpu_kernel_set target out_var name spec committed given)
  set(_pack_options ${ARGN})  # extra `tritonpack pack` options (--store-binaries, ...)
  set(_art "${given}")
  if(NOT _art)
    tritonpack_find_python(QUIET RESULT _have_triton)
    if(_have_triton)
      tritonpack_add_kernels(${target} SPEC "${spec}" NAME ${name} PACK_OPTIONS ${_pack_options} HEADER_ONLY)
      file(RELATIVE_PATH _rel "${_tp_gpu_dir}/../.." "${spec}")
      set(${out_var} "compiled from ${_rel} with ${TRITONPACK_PYTHON}" PARENT_SCOPE)
      return()
    endif()
    set(_art "${committed}")
  endif()
  if(NOT TARGET tritonpack_cli)
    message(FATAL_ERROR "tritonpack_gpu_kernels: the tritonpack packer (tritonpack_cli) is needed to pack ${_art}")
  endif()
  set(_inc "${CMAKE_CURRENT_BINARY_DIR}/${name}_${target}")
  file(GLOB_RECURSE _files CONFIGURE_DEPENDS "${_art}/*")
  add_custom_command(
    OUTPUT "${_inc}/${name}.hpp"
    COMMAND "${CMAKE_COMMAND}" -E make_directory "${_inc}"
    COMMAND tritonpack_cli pack "${_art}/manifest.json" -o "${_inc}" --name ${name} ${_pack_options}
    DEPENDS ${_files} tritonpack_cli
    COMMENT "tritonpack: packing ${_art} into ${name}.hpp"
    VERBATIM)
  add_custom_target(${target}_${name} DEPENDS "${_inc}/${name}.hpp")
  add_dependencies(${target} ${target}_${name})
  target_include_directories(${target} PRIVATE "${_inc}")
  set(${out_var} "packed from ${_art}" PARENT_SCOPE)
endfunction()

function(tritonpack_gpu_kernels target out_var)
  _tritonpack_gpu_kernel_set(${target} _how gpu_kernels "${_tp_gpu_dir}/kernels.toml" "${_tp_gpu_dir}/artifacts"
                             "${TRITONPACK_GPU_ARTIFACTS}" ${ARGN})
  set(${out_var} "${_how}" PARENT_SCOPE)
endfunction()

function(tritonpack_gpu_tune_kernels target out_var)
  _tritonpack_gpu_kernel_set(${target} _how gpu_tune_kernels "${_tp_gpu_dir}/autotune/tune_kernels.toml" "${_tp_gpu_dir}/autotune/artifacts"
                             "${TRITONPACK_GPU_TUNE_ARTIFACTS}" ${ARGN})
  set(${out_var} "${_how}" PARENT_SCOPE)
endfunction()
