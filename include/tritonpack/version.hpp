// tritonpack/version.hpp — tritonpack's version, written here and nowhere else.
//
// Every other place takes it from this file: CMake's project() (cmake/TritonpackVersion.cmake),
// Meson's project() and the Python front end's __version__
// (generator/python/tritonpack_compile/_version.py), and `tritonpack --version`, which includes
// this header. tests/version checks that they all agree. To release another version, change the
// three numbers below and nothing else.
#pragma once

#define TRITONPACK_VERSION_MAJOR 0
#define TRITONPACK_VERSION_MINOR 1
#define TRITONPACK_VERSION_PATCH 0

// One integer to compare with #if, as fmt's FMT_VERSION: major * 10000 + minor * 100 + patch.
#define TRITONPACK_VERSION \
  (TRITONPACK_VERSION_MAJOR * 10000 + TRITONPACK_VERSION_MINOR * 100 + TRITONPACK_VERSION_PATCH)

#define TRITONPACK_VERSION_STR_(x) #x
#define TRITONPACK_VERSION_STR(x) TRITONPACK_VERSION_STR_(x)
// "0.1.0": built from the three numbers above, so it cannot disagree with them.
#define TRITONPACK_VERSION_STRING                                                  \
  TRITONPACK_VERSION_STR(TRITONPACK_VERSION_MAJOR)                                 \
  "." TRITONPACK_VERSION_STR(TRITONPACK_VERSION_MINOR) "." TRITONPACK_VERSION_STR( \
      TRITONPACK_VERSION_PATCH)

// The run time's namespace, versioned: `namespace tritonpack { inline namespace v0_1 {`. The run
// time is header-only, so its inline functions and class members are compiled into every program
// that includes it. If two parts of one program (say, two libraries, each with kernels packed
// against another tritonpack) were built with different versions, unversioned names would be the
// same symbols with different bodies: the linker would keep one of them for both, silently (an ODR
// violation). With the version in the namespace the symbols differ, so each part keeps its own
// definitions, while user code still writes `tritonpack::name`. A patch release keeps the
// namespace, so it must keep every layout and signature these headers define.
#define TRITONPACK_VERSION_NS_(major, minor) v##major##_##minor
#define TRITONPACK_VERSION_NS(major, minor) TRITONPACK_VERSION_NS_(major, minor)
#define TRITONPACK_BEGIN_NAMESPACE \
  namespace tritonpack {           \
  inline namespace TRITONPACK_VERSION_NS(TRITONPACK_VERSION_MAJOR, TRITONPACK_VERSION_MINOR) {
#define TRITONPACK_END_NAMESPACE \
  }                              \
  }
