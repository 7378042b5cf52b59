// The run time compiled once: the library tritonpack::runtime (CMake) / tritonpack-runtime (Meson).
// Built with TRITONPACK_SEPARATE defined (and so is every translation unit that links it), it holds
// the out-of-line definitions of the calls generated headers make in separate mode
// (tritonpack/typed_api.hpp; docs/runtime-api.md, "Separate compilation") and of the memory and
// device API (runtime/memory.hpp), which separate-mode translation units see as declarations.
// Everything else of the run time stays inline in the headers and is instantiated here as the
// calls need it.
#if !defined(TRITONPACK_SEPARATE)
#error "src/runtime.cpp is the separate-mode run time: build it with TRITONPACK_SEPARATE defined"
#endif

#include "tritonpack/runtime/memory_impl.hpp"
#include "tritonpack/typed_api_impl.hpp"
