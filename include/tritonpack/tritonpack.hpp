// tritonpack/tritonpack.hpp — the umbrella header of the run time: include this (generated headers
// do, through typed_api.hpp). Header-only C++17; link libzstd and libdl (and pthreads); no GPU
// driver at build time.
//
// The entry points (docs/runtime-api.md):
//   tritonpack/tritonpack.hpp    everything below, in dependency order
//   tritonpack/typed_api.hpp     what a generated header includes: its typed functions' six calls
//   runtime/library.hpp          tritonpack::library and tritonpack::kernel: a container's
//                                kernels, the dynamic launch API, preload, the device's facts
//   runtime/memory.hpp           devices, memory, copies, streams, device_array<T>
//   c/tritonpack.h               the C API (memory and devices; generated C headers use it),
//                                with fortran/tritonpack.f90 over it
//
// The folders are the pipeline, read top down: core/ (errors, the model, environment, log),
// container/ (the format, shared with the packer), select/ (which image and which variant),
// launch/ (parameters, grids, tensor descriptors), runtime/ (the backend-neutral library, kernels,
// contexts, memory, the JIT cache), then the vendors, cuda/ and hip/, which only backends.hpp
// includes, and tune/ (on-device autotuning) over all of them.
#pragma once

#include "tritonpack/version.hpp"

#include "tritonpack/backends.hpp"
#include "tritonpack/container/reader.hpp"
#include "tritonpack/core/error.hpp"
#include "tritonpack/core/load_stats.hpp"
#include "tritonpack/core/model.hpp"
#include "tritonpack/core/types.hpp"
#include "tritonpack/launch/params.hpp"
#include "tritonpack/launch/tensor_descriptor.hpp"
#include "tritonpack/runtime/backend.hpp"
#include "tritonpack/runtime/kernel.hpp"
#include "tritonpack/runtime/library.hpp"
#include "tritonpack/runtime/load_plan.hpp"
#include "tritonpack/runtime/memory.hpp"
#include "tritonpack/select/arch.hpp"
#include "tritonpack/select/image.hpp"
#include "tritonpack/tune/autotune.hpp"
