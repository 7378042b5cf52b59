// tritonpack/pack/tuning_table.hpp — `tritonpack pack --tuning FILE`: rows of a tuning table,
// measured on GPUs (bench/autotune's sweep writes one), embedded into the container
// (docs/format.md "tune_entries"; docs/runtime.md "Choosing a config").
#pragma once

#include <filesystem>
#include <string>

#include "tritonpack/core/model.hpp"

namespace tritonpack::pack {

// Reads FILE —
//   {"schema": "tritonpack-tuning", "version": 1,
//    "kernels": {"matmul": [{"device": "NVIDIA H200", "bucket": [1024, 1024, 64], "config": 3,
//                            "times_ns": [81234, 65536, null, ...]}]}}
// — and appends its rows to the kernels' tables. `device` is a GPU name or an arch; `bucket` has
// one value per key of the kernel (already bucketed); `times_ns` one per config, null when not
// measured (optional: all unmeasured). Throws error(bad_argument) naming the JSON path and what is
// wrong (an unknown kernel, a kernel with one config, a bucket of the wrong length, a config out of
// range, a second row for one device and bucket); io_error when the file cannot be read.
void apply_tuning_table(container_info& info, const std::filesystem::path& file);
// The same from the table's text; `file` names it in messages (`tritonpack tune` checks the table
// it resumes with this).
void apply_tuning_table_text(container_info& info, const std::string& text,
                             const std::string& file);

}  // namespace tritonpack::pack
