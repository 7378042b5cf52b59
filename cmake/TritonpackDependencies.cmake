# Finds what tritonpack builds against, all from Debian packages (libzstd-dev, libfmt-dev,
# nlohmann-json3-dev, doctest-dev, libbenchmark-dev) and gives zstd one target name whichever way
# it was found (its CMake config is missing on some distributions; pkg-config is always there).
include(GNUInstallDirs)
find_package(Threads REQUIRED)

if(NOT TARGET tritonpack_zstd)
  find_package(zstd CONFIG QUIET)
  add_library(tritonpack_zstd INTERFACE)
  if(TARGET zstd::libzstd_shared)
    target_link_libraries(tritonpack_zstd INTERFACE zstd::libzstd_shared)
    set(TRITONPACK_ZSTD_VIA config)   # recorded in tritonpackConfig.cmake
  else()
    set(TRITONPACK_ZSTD_VIA pkgconfig)
    find_package(PkgConfig REQUIRED)
    pkg_check_modules(TP_ZSTD REQUIRED IMPORTED_TARGET libzstd)
    target_link_libraries(tritonpack_zstd INTERFACE PkgConfig::TP_ZSTD)
  endif()
endif()
