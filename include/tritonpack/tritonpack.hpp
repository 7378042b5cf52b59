// tritonpack/tritonpack.hpp — the umbrella header of the run time: include this (generated headers
// do). Header-only C++17; link libzstd and libdl (and pthreads); no GPU driver at build time.
#pragma once

#include "tritonpack/error.hpp"
#include "tritonpack/model.hpp"
#include "tritonpack/types.hpp"
#include "tritonpack/arch.hpp"
#include "tritonpack/selection.hpp"
#include "tritonpack/container_reader.hpp"
#include "tritonpack/launch.hpp"
#include "tritonpack/tensor_descriptor.hpp"
#include "tritonpack/backend.hpp"
#include "tritonpack/registry.hpp"
#include "tritonpack/kernel.hpp"
#include "tritonpack/library.hpp"
#include "tritonpack/load_stats.hpp"
#include "tritonpack/memory.hpp"
#include "tritonpack/autotune.hpp"
