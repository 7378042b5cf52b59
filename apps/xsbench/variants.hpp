// variants.hpp — the ways of running the lookups (triton_lookups.hpp, apps/xsbench/bench's CUDA twin).
#pragma once

#include <stdexcept>
#include <string>

namespace xsbench {

// sorted: by material; energy: by material, then energy (buckets).
enum class variant { fused, split, sorted, energy };

inline const char *variant_name(variant v) {
  switch (v) {
    case variant::fused: return "fused";
    case variant::split: return "split";
    case variant::sorted: return "sorted";
    case variant::energy: return "energy";
  }
  return "?";
}

inline variant variant_named(const std::string &name) {
  if (name == "fused" || name == "baseline") return variant::fused;
  if (name == "split") return variant::split;
  if (name == "sorted") return variant::sorted;
  if (name == "energy") return variant::energy;
  throw std::invalid_argument("xsbench: unknown variant '" + name + "' (fused, split, sorted or energy)");
}

}  // namespace xsbench
