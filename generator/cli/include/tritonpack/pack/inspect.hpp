// tritonpack/pack/inspect.hpp — the report `tritonpack inspect` prints: kernels, variants and
// images with sizes and ratios, totals, and with a device, the image the run time would select.
// Unless `quick`, every frame is decoded and every image checked against its recorded checksum,
// and a damaged image is reported as such, with its kernel.
#pragma once

#include <string>

#include "tritonpack/pack/container_finder.hpp"

namespace tritonpack::pack {

struct inspect_options {
  std::string file;    // shown in the report
  std::string source;  // what the file was ("generated header", ...)
  std::string device;  // "sm_90", "gfx942"; empty: no selection
  bool json = false;
  bool quick = false;  // skip decoding the frames (the header and tables are validated regardless)
};

struct inspect_result {
  std::string report;
  std::size_t damaged_images = 0;  // over every container; 0 when all intact or `quick`
};

// The report for every container found; throws error(bad_argument) for an unknown device.
inspect_result inspect_report(const search_result& found, const inspect_options& options);

}  // namespace tritonpack::pack
