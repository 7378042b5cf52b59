# tritonpack_gpu_kernels(<target> <out_var> [pack options...]) — puts gpu_kernels.hpp, the kernels
# of tests/gpu/kernels.toml, on <target>'s include path, packed with the given `tritonpack pack`
# options (e.g. --store-binaries). Used by tests/gpu and bench/launch.
#
# Where the kernels come from, first match:
#   1. -DTRITONPACK_GPU_ARTIFACTS=<dir>: an artifact directory (manifest.json) made elsewhere;
#   2. a Python with Triton (tritonpack_find_python): compiled from kernels.toml at build time
#      through tritonpack_add_kernels(), like any user project;
#   3. the artifacts committed in tests/gpu/artifacts (regen.sh), packed at build time.
# Sets <out_var> in the caller to a short description of the choice.
set(TRITONPACK_GPU_ARTIFACTS "" CACHE PATH "Artifact directory of tests/gpu/kernels.toml (default: compile with Triton, else the committed ones)")
set(_tp_gpu_dir "${CMAKE_CURRENT_LIST_DIR}")

function(tritonpack_gpu_kernels target out_var)
  set(_pack_options ${ARGN})  # extra `tritonpack pack` options (--store-binaries, ...)
  set(_art "${TRITONPACK_GPU_ARTIFACTS}")
  if(NOT _art)
    tritonpack_find_python(QUIET RESULT _have_triton)
    if(_have_triton)
      tritonpack_add_kernels(${target} SPEC "${_tp_gpu_dir}/kernels.toml" NAME gpu_kernels PACK_OPTIONS ${_pack_options})
      set(${out_var} "compiled from tests/gpu/kernels.toml with ${TRITONPACK_PYTHON}" PARENT_SCOPE)
      return()
    endif()
    set(_art "${_tp_gpu_dir}/artifacts")
  endif()
  if(NOT TARGET tritonpack_cli)
    message(FATAL_ERROR "tritonpack_gpu_kernels: the tritonpack packer (tritonpack_cli) is needed to pack ${_art}")
  endif()
  set(_inc "${CMAKE_CURRENT_BINARY_DIR}/gpu_kernels_${target}")
  file(GLOB_RECURSE _files CONFIGURE_DEPENDS "${_art}/*")
  add_custom_command(
    OUTPUT "${_inc}/gpu_kernels.hpp"
    COMMAND "${CMAKE_COMMAND}" -E make_directory "${_inc}"
    COMMAND tritonpack_cli pack "${_art}/manifest.json" -o "${_inc}" --name gpu_kernels ${_pack_options}
    DEPENDS ${_files} tritonpack_cli
    COMMENT "tritonpack: packing ${_art} into gpu_kernels.hpp"
    VERBATIM)
  add_custom_target(${target}_gpu_kernels DEPENDS "${_inc}/gpu_kernels.hpp")
  add_dependencies(${target} ${target}_gpu_kernels)
  target_include_directories(${target} PRIVATE "${_inc}")
  set(${out_var} "packed from ${_art}" PARENT_SCOPE)
endfunction()
