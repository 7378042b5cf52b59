// The benchmark's own copy of apps/ao2mo's Triton library (kernels.toml compiled for sm_90
// only, cubins only: CMakeLists.txt), seen by triton_ao2mo.hpp under the example's namespace.
#pragma once
#include <tensor4_ao2mo_kernels.hpp>
namespace ao2mo_kernels = tensor4_ao2mo_kernels;
