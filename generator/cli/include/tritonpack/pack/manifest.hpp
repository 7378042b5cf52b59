// tritonpack/pack/manifest.hpp — reads manifest.json (docs/manifest.md) and every artifact it
// names into the container model, checking each artifact against its label on the way.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "tritonpack/core/model.hpp"

namespace tritonpack::pack {

enum class pack_mode { binary, ir, both };

const char* pack_mode_name(pack_mode m);
// "binary" | "ir" | "both"; throws error(bad_argument) otherwise.
pack_mode parse_pack_mode(const std::string& s);

struct load_options {
  // Narrows what the manifest holds (never widens it): binary keeps cubin/hsaco, ir keeps
  // ptx/llir. Unset: keep what the manifest's `mode` says.
  bool mode_given = false;
  pack_mode mode = pack_mode::both;
  // The files a manifest names (images, metadata) must lie under the manifest's directory: a
  // manifest is input, and one naming ../.. or /etc/... would pack whatever it names. True
  // (`pack --allow-outside-manifest-dir`) lets relative paths leave it and absolute paths in.
  bool allow_outside_manifest_dir = false;
};

struct loaded_manifest {
  container_info info;
  std::vector<std::vector<std::uint8_t>> image_bytes;  // one per info.images entry
  std::vector<std::string> image_files;                // manifest-relative path of each image
  pack_mode mode = pack_mode::both;                    // after narrowing
  std::string generator;                               // the manifest's `generator`
  // Images that run on their own target but not on every GPU that would pick them
  // (limits_check.hpp).
  std::vector<std::string> warnings;
};

// Loads `manifest_path` and its artifacts. Throws tritonpack::error (bad_argument for content
// that is wrong, with the JSON path or file named, and for images that need more shared memory or
// threads per block than their own target allows; io_error for files that cannot be read).
//
// Image order (which decides how frames group them, docs/format.md "Size"): kernel by kernel,
// CUDA before HIP, and within a backend binaries before IR, so a kernel's cubins sit at the
// front of its frame. A file named by several variants is packed once.
loaded_manifest load_manifest(const std::filesystem::path& manifest_path,
                              const load_options& options = {});

}  // namespace tritonpack::pack
