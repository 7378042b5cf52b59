# cmake -DBUILD_DIR=<tritonpack build> -DPREFIX=<dir> -P install.cmake
# A clean install of the build tree, then a check that the package's parts are where users look.
file(REMOVE_RECURSE "${PREFIX}")
execute_process(COMMAND "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${PREFIX}"
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed (${rc})")
endif()
include(GNUInstallDirs)
foreach(f
    include/tritonpack/tritonpack.hpp
    bin/tritonpack
    share/tritonpack/python/tritonpack_compile/__main__.py
    share/tritonpack/python/tritonpack_compile/version.hpp
    share/pkgconfig/tritonpack.pc)
  if(NOT EXISTS "${PREFIX}/${f}")
    message(FATAL_ERROR "not installed: ${PREFIX}/${f}")
  endif()
endforeach()
file(GLOB_RECURSE configs "${PREFIX}/*/tritonpackConfig.cmake" "${PREFIX}/*/tritonpackConfigVersion.cmake"
     "${PREFIX}/*/TritonpackKernels.cmake" "${PREFIX}/*/tritonpackTargets.cmake")
list(LENGTH configs n)
if(NOT n EQUAL 4)
  message(FATAL_ERROR "expected the 4 CMake package files under ${PREFIX}, found: ${configs}")
endif()
message(STATUS "installed into ${PREFIX}")
