// The benchmark's own copy of apps/xsbench's Triton library (kernels.toml compiled for sm_90
// only, cubins only: CMakeLists.txt), seen by triton_lookups.hpp under the example's namespace.
#pragma once
#include <xsbench_bench_kernels.hpp>
namespace xsbench_kernels = xsbench_bench_kernels;
