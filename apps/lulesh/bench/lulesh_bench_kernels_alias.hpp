// The benchmark's own copy of apps/lulesh's Triton library (kernels.toml compiled for sm_90
// only, cubins only: CMakeLists.txt), seen by triton_kernels.hpp under the example's namespace.
#pragma once
#include <lulesh_bench_kernels.hpp>
namespace lulesh_kernels = lulesh_bench_kernels;
