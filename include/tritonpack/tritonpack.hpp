// tritonpack/tritonpack.hpp — the umbrella header of the run time: include this (generated headers
// do). Header-only C++17; link libzstd and libdl (and pthreads); no GPU driver at build time.
#pragma once

#include "tritonpack/core/error.hpp"
#include "tritonpack/core/model.hpp"
#include "tritonpack/core/types.hpp"
#include "tritonpack/select/arch.hpp"
#include "tritonpack/select/image.hpp"
#include "tritonpack/container/reader.hpp"
#include "tritonpack/launch/params.hpp"
#include "tritonpack/launch/tensor_descriptor.hpp"
#include "tritonpack/runtime/backend.hpp"
#include "tritonpack/backends.hpp"
#include "tritonpack/runtime/kernel.hpp"
#include "tritonpack/runtime/library.hpp"
#include "tritonpack/core/load_stats.hpp"
#include "tritonpack/runtime/memory.hpp"
#include "tritonpack/tune/autotune.hpp"
