// tritonpack/pack/keep_targets.hpp — narrows a container's model to the images of some targets:
// what `tritonpack strip` does to an existing container and `tritonpack pack --keep-targets` to
// a manifest's artifacts (generator/cli/README.md, "strip"). The kept images are not touched, so
// they load and run exactly as before.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tritonpack/container/reader.hpp"
#include "tritonpack/core/model.hpp"
#include "tritonpack/pack/container_writer.hpp"

namespace tritonpack::pack {

// Which IR (PTX, AMD LLVM IR) survives next to the kept binaries.
enum class keep_ir {
  targets,  // the IR of the kept targets (default)
  generic,  // only PTX that is not arch-specific (sm_80, not sm_90a): what a newer GPU JITs
  none,     // no IR: binaries only
  all,      // every IR image, of any target
};

struct keep_spec {
  // Targets as a user writes them (sm_90a, sm_90, 90, cuda:90, gfx942, hip:gfx90a:xnack-). An
  // NVIDIA number without a suffix also names its arch-specific images (sm_90 keeps sm_90a: the
  // front end compiles sm_90 to sm_90a); an AMD processor without features names every feature
  // variant of it.
  std::vector<std::string> targets;
  keep_ir ir = keep_ir::targets;
};

// "sm_90a,gfx942" and "targets|generic|none|all"; throws error(bad_argument) naming the entry
// that is not a target, or the IR choice that is not one of the four.
keep_spec parse_keep_spec(const std::string& targets, const std::string& ir);

// "sm_90a binaries + generic PTX", for messages and the generated header's first comment.
std::string describe(const keep_spec& spec);

struct keep_summary {
  std::size_t kept = 0, removed = 0;  // images
};

// Removes from `info` (and the matching `image_bytes`) every image `spec` does not keep; the
// kept images keep their bytes and relative order, variants refer to them by their new indices.
// Throws error(bad_argument), changing nothing, when a target names no image of `what` (the
// message lists the targets present), when --keep-ir generic finds no generic PTX, and when a
// kernel variant would be left without any image (it could then run on no GPU: refused, not
// warned).
keep_summary keep_targets(container_info& info, std::vector<std::vector<std::uint8_t>>& image_bytes,
                          const keep_spec& spec, const std::string& what);

// Whether every binary of `c` is alone in a frame stored uncompressed (`pack --store-binaries`),
// which strip keeps so unless told otherwise.
bool binaries_stored(const container& c);

struct stripped {
  container_info info;              // what the new container holds (for the header)
  std::vector<std::uint8_t> bytes;  // the new container
  keep_summary summary;
};

// `tritonpack strip`: decodes every image of `c` (each checked against its checksum, so a
// damaged input is refused), keeps what `spec` says (keep_targets) and writes a container of
// today's format with `options`; `name` renames the library (empty: keep it).
stripped strip_container(const container& c, const keep_spec& spec, const std::string& what,
                         const write_options& options, const std::string& name = "");

}  // namespace tritonpack::pack
