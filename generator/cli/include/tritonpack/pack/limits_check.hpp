// tritonpack/pack/limits_check.hpp — images whose block needs more than a GPU allows (shared
// memory, threads per block; include/tritonpack/select/arch_limits.hpp), found when packing rather
// than at launch on the GPU node.
#pragma once

#include <string>
#include <vector>

#include "tritonpack/core/model.hpp"

namespace tritonpack::pack {

struct limits_report {
  // Images that cannot run on the target they were compiled for, one line per kernel, variant and
  // target: "matmul variant 2, sm_90a: needs 320 KB of shared memory per block; sm_90a allows
  // 227 KB (matmul/v2/cuda_sm_90a.cubin, ...)".
  std::vector<std::string> errors;
  // Images that run on their own target but are what another GPU would pick and cannot run:
  // "matmul variant 0, cubin sm_80: needs 160 KB of shared memory per block; it is also the image
  // for sm_86 and sm_89, which allow 99 KB: there this variant has no image that fits".
  std::vector<std::string> warnings;
};

// Checks every image of `info` (`image_files[i]` names image i in messages) against the limits of
// its own target, and every variant against each GPU the limit tables know, using the run time's
// own selection. Architectures the tables do not know are not checked.
limits_report check_limits(const container_info& info, const std::vector<std::string>& image_files);

// The errors of `r` as one message for error(bad_argument), with what to do; empty when none.
std::string limits_error_message(const limits_report& r);

}  // namespace tritonpack::pack
