// tritonpack/pack/container_writer.hpp — serialises a container_info plus its image bytes into a
// container of format v1 (docs/format.md). Part of tritonpack_packlib: the `tritonpack pack` CLI
// uses it, and tests of every area link it to build containers of any shape they need.
#pragma once

#include <cstdint>
#include <vector>

#include "tritonpack/core/model.hpp"

namespace tritonpack::pack {

// Which images share one zstd frame. Images of one frame compress against each other (an sm_80
// and an sm_90 cubin of one kernel, or its PTX for several targets, are near-duplicates), but
// loading any of them decodes the frame up to that image.
enum class frame_grouping {
  per_image,           // one frame per image: smallest decode per image, biggest file
  per_kernel_backend,  // one frame per kernel and backend (default; see docs/format.md "Size")
  per_kernel,          // one frame per kernel
  // Each binary (cubin, code object) alone in a frame, the IR of a kernel and backend together:
  // loading a binary decodes exactly its own bytes; PTX for several targets still compress
  // against each other.
  binaries_alone,
  // One frame for a kernel's binaries and one for its IR, per backend: loading a binary never
  // decodes IR.
  per_kernel_backend_kind,
  // Each binary in a frame of its own, with the IR of its variant for the same target behind it
  // (held as lines of the cubin's text when it is a PTX): loading a binary decodes exactly its
  // own bytes, a PTX its cubin's and its own. The images are reordered to make target-mates
  // neighbours (variant, backend, target, binary before IR); variants refer to them as before.
  // Pair it with a dictionary (`dictionary_size`) to win back some of what the kernel's other
  // targets shared in one frame (bench/size/RESULTS.md).
  per_target,
};

struct write_options {
  int level = 19;  // zstd level, 1..22 (ZSTD_maxCLevel)
  frame_grouping grouping = frame_grouping::per_kernel_backend;
  // Train a zstd dictionary over the images and store it in the container (frames then compress
  // against it). 0: no dictionary; at most format::max_dictionary_size.
  std::uint32_t dictionary_size = 0;
  // Each binary (cubin, code object) alone in a frame stored uncompressed: the first launch then
  // loads it without decompressing (see bench/launch), at the cost of the binaries' full size.
  // The IR stays compressed, grouped as `grouping` says.
  bool store_binaries = false;
  // A PTX behind a cubin in its frame that carries its PTX text (line info: .nv_debug_ptx_txt) is
  // held as what it adds to that text (format::coding_ptx_lines): the same bytes once decoded,
  // 20-25 % less for a kernel's images (bench/size). false: every PTX as is.
  bool ptx_lines = true;
  // Lays each kernel's images out for loading (binaries before IR, by variant, the newest target
  // first: a load decodes its frame up to the image it needs, so the first variant's binary for
  // the newest GPU decodes alone), the variants' references following them; false keeps the order
  // of `info.images`. `tritonpack pack` and `strip` set it (`--image-order newest-first`, their
  // default). per_target has an order of its own and ignores it.
  bool newest_first = false;
};

// Writes `info` (kernels, variants, images' descriptions) with `image_bytes[i]` as the content of
// `info.images[i]`, in that order (frame_grouping::per_target and `newest_first` reorder the
// images: the container's image table then differs from `info.images` in order only). The images' raw_size,
// checksum and stored_size are computed here (the values in `info` are ignored). The output is
// parsed back with the run-time reader before it is returned, so a model the reader would refuse
// throws error(bad_argument) here.
std::vector<std::uint8_t> write_container(const container_info& info,
                                          const std::vector<std::vector<std::uint8_t>>& image_bytes,
                                          const write_options& options = {});

}  // namespace tritonpack::pack
