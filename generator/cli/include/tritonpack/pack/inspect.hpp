// tritonpack/pack/inspect.hpp — the report `tritonpack inspect` prints: kernels, variants and
// images with sizes and ratios, totals, and with a device, the image the run time would select.
// Unless `quick`, every frame is decoded and every image checked against its recorded checksum,
// and a damaged image is reported as such, with its kernel; frames that decode to more than
// `max_image_size` bytes are not decoded, and their images are reported as not checked.
// Every string from the container is printed with its control bytes escaped.
#pragma once

#include <cstdint>
#include <string>

#include "tritonpack/pack/container_finder.hpp"

namespace tritonpack::pack {

// What `inspect` and `extract` decode at most per frame unless --max-image-size says otherwise:
// far above any image Triton writes, far below what a hostile frame header may claim (4 GiB).
constexpr std::uint64_t default_max_image_size = std::uint64_t{1} << 30;

struct inspect_options {
  std::string file;    // shown in the report
  std::string source;  // what the file was ("generated header", ...)
  std::string device;  // "sm_90", "gfx942"; empty: no selection
  bool json = false;
  bool quick = false;  // skip decoding the frames (the header and tables are validated regardless)
  std::uint64_t max_image_size = default_max_image_size;  // frames larger are not decoded
};

struct inspect_result {
  std::string report;
  std::size_t damaged_images = 0;    // over every container; 0 when all intact or `quick`
  std::size_t unchecked_images = 0;  // in frames above max_image_size: neither intact nor damaged
};

// The report for every container found; throws error(bad_argument) for an unknown device.
inspect_result inspect_report(const search_result& found, const inspect_options& options);

}  // namespace tritonpack::pack
