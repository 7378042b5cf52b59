// tritonpack/pack/inspect.hpp — the report `tritonpack inspect` prints: kernels, variants and
// images with sizes and ratios, totals, and with a device, the image the run time would select.
#pragma once

#include <string>

#include "tritonpack/pack/container_finder.hpp"

namespace tritonpack::pack {

struct inspect_options {
  std::string file;     // shown in the report
  std::string source;   // what the file was ("generated header", ...)
  std::string device;   // "sm_90", "gfx942"; empty: no selection
  bool json = false;
};

// The report for every container found; throws error(bad_argument) for an unknown device.
std::string inspect_report(const search_result& found, const inspect_options& options);

}  // namespace tritonpack::pack
