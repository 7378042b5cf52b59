// tritonpack/core/identify.hpp — how messages name a kernel and an image, spelled in one place.
//
// identify(k)      "kernel vector_add"               the subject of a kernel's messages
// identify(k, im)  "kernel vector_add (sm_90a cubin)" a kernel as loaded or launched from one image
// identify(im)     "cubin sm_90a"                     an image among the candidates of a selection
// A device is named by device_props::describe() (runtime/backend.hpp).
#pragma once

#include <string>

#include "tritonpack/core/model.hpp"
#include "tritonpack/version.hpp"

TRITONPACK_BEGIN_NAMESPACE

inline std::string identify(const kernel_info& k) { return "kernel " + k.name; }

inline std::string identify(const image_info& im) {
  return image_kind_name(im.kind) + (" " + im.arch);
}

inline std::string identify(const kernel_info& k, const image_info& im) {
  return identify(k) + " (" + im.arch + " " + image_kind_name(im.kind) + ")";
}

TRITONPACK_END_NAMESPACE
