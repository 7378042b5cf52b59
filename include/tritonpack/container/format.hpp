// tritonpack/container/format.hpp — the constants of container format v4 (and what is needed to
// read v1 to v3): magic, header and section layout, record sizes and field offsets. docs/format.md
// describes the same layout byte by byte; the reader (container/reader.hpp) and the packer
// (generator/cli) both take every number from here so the two cannot drift apart.
//
// Changing anything in this file changes the format: bump `format_version`, add a golden file
// under tests/container/golden/, and keep the reader accepting the old version or say why not.
#pragma once

#include <cstddef>
#include <cstdint>

#include "tritonpack/version.hpp"

TRITONPACK_BEGIN_NAMESPACE
namespace format {

// "\x89TPK\r\n\x1a\n": the high byte first makes the file non-text to any tool that guesses;
// CR LF / SUB / LF catch text-mode and line-ending mangling (the PNG trick). The sequence is 8
// bytes that do not occur in ELF headers, PTX or zstd frames by construction, so `inspect` finds
// an embedded container in an executable by scanning for it and then validating what follows.
constexpr std::uint8_t magic[8] = {0x89, 'T', 'P', 'K', 0x0D, 0x0A, 0x1A, 0x0A};
constexpr std::size_t magic_size = sizeof(magic);

constexpr std::uint32_t format_version = 4;
// The oldest version the reader still reads: v1 is v2 without the four tuning sections, v2 is v3
// without image_tools and with the header's triton_commit reserved, v3 is v4 with every image
// stored as is (image_rec's coding, base_image and frame_size all 0).
constexpr std::uint32_t oldest_readable_version = 1;

// Sections, in the order they are laid out after the header (v3 and v4). A v2 header lists 17 of
// them (no image_tools) and a v1 header 13 (no tuning ones either): v2_sections, v1_sections.
enum section : std::uint32_t {
  sec_strings = 0,        // bytes: every string of the container, referenced by (offset, length)
  sec_kernels = 1,        // kernel records
  sec_args = 2,           // kernel_arg records, each kernel's a contiguous run
  sec_variants = 3,       // variant records, each kernel's a contiguous run
  sec_specs = 4,          // arg_spec records, each variant's a contiguous run
  sec_constexprs = 5,     // (name, value) string pairs, each variant's config a contiguous run
  sec_image_refs = 6,     // u32 image indices, each variant's a contiguous run
  sec_images = 7,         // image records, in frame order
  sec_tensordescs = 8,    // tensordesc_meta records, each image's a contiguous run
  sec_dims = 9,           // u32 values: tensordesc block sizes, each descriptor's a contiguous run
  sec_tunings = 10,       // v2: one tuning record per kernel (configs, key, protected args, table)
  sec_tune_args = 11,     // v2: key and protected arguments, each kernel's a contiguous run
  sec_tune_entries = 12,  // v2: packed tuning-table rows, each kernel's a contiguous run
  sec_tune_values = 13,   // v2: u64 values: each row's key bucket, then each config's time in ns
  sec_image_tools = 14,   // v3: one str per image: the ptxas / LLVM that produced it, or empty
  sec_frames = 15,        // frame records: compressed runs of images
  sec_dictionary = 16,    // bytes: zstd dictionary shared by frames that say so; may be empty
  sec_data = 17,          // bytes: the frames' stored bytes, back to back
  section_count = 18,
};

// The sections a v1 header lists, in its order.
constexpr std::uint32_t v1_section_count = 13;
constexpr std::uint32_t v1_sections[v1_section_count] = {
    sec_strings,    sec_kernels,    sec_args,   sec_variants,    sec_specs,
    sec_constexprs, sec_image_refs, sec_images, sec_tensordescs, sec_dims,
    sec_frames,     sec_dictionary, sec_data};

// The sections a v2 header lists, in its order.
constexpr std::uint32_t v2_section_count = 17;
constexpr std::uint32_t v2_sections[v2_section_count] = {
    sec_strings,      sec_kernels,     sec_args,        sec_variants,   sec_specs,   sec_constexprs,
    sec_image_refs,   sec_images,      sec_tensordescs, sec_dims,       sec_tunings, sec_tune_args,
    sec_tune_entries, sec_tune_values, sec_frames,      sec_dictionary, sec_data};

inline const char* section_name(std::uint32_t s) noexcept {
  switch (s) {
    case sec_strings: return "strings";
    case sec_kernels: return "kernels";
    case sec_args: return "args";
    case sec_variants: return "variants";
    case sec_specs: return "specs";
    case sec_constexprs: return "constexprs";
    case sec_image_refs: return "image_refs";
    case sec_images: return "images";
    case sec_tensordescs: return "tensordescs";
    case sec_dims: return "dims";
    case sec_tunings: return "tunings";
    case sec_tune_args: return "tune_args";
    case sec_tune_entries: return "tune_entries";
    case sec_tune_values: return "tune_values";
    case sec_image_tools: return "image_tools";
    case sec_frames: return "frames";
    case sec_dictionary: return "dictionary";
    case sec_data: return "data";
    default: return "unknown";
  }
}

// Bytes per record of each section (1 for byte sections).
constexpr std::uint32_t record_size[section_count] = {1, 56, 24, 40, 12, 16, 4,  120, 24,
                                                      4, 24, 16, 16, 8,  8,  32, 1,   1};

// Sections start 8-byte aligned; the padding between two sections is zero bytes of the minimum
// length, so every valid container has exactly one byte layout for its content.
constexpr std::uint32_t section_align = 8;

// --- header -----------------------------------------------------------------------------------
namespace header {
constexpr std::size_t magic = 0;             // u8[8]
constexpr std::size_t version = 8;           // u32 format_version
constexpr std::size_t header_size = 12;      // u32, = size below
constexpr std::size_t total_size = 16;       // u64, bytes of the whole container
constexpr std::size_t tables_checksum = 24;  // u64, XXH64 of [0, data offset) with this field zero
constexpr std::size_t flags = 32;            // u32, 0
constexpr std::size_t section_count = 36;    // u32, = format::section_count
constexpr std::size_t name = 40;             // str: library name
constexpr std::size_t triton_version = 48;   // str
constexpr std::size_t triton_commit = 56;    // str (v3): the git commit, empty when not recorded;
                                             // v1, v2: u64 reserved, 0
constexpr std::size_t sections = 64;         // section_count × {u64 offset, u64 size}
constexpr std::size_t section_entry_size = 16;
constexpr std::size_t size = sections + section_entry_size * format::section_count;  // 352 (v3+)
constexpr std::size_t size_v2 = sections + section_entry_size * format::v2_section_count;  // 336
constexpr std::size_t size_v1 = sections + section_entry_size * format::v1_section_count;  // 272
}  // namespace header

// A string reference: u32 offset into the string table, u32 length (bytes, no terminator).
constexpr std::size_t str_size = 8;

namespace kernel_rec {
constexpr std::size_t name = 0;            // str
constexpr std::size_t source = 8;          // str
constexpr std::size_t grid = 16;           // str[3]: x, y, z (all empty: caller passes the grid)
constexpr std::size_t first_arg = 40;      // u32
constexpr std::size_t arg_count = 44;      // u32
constexpr std::size_t first_variant = 48;  // u32
constexpr std::size_t variant_count = 52;  // u32
}  // namespace kernel_rec

namespace arg_rec {
constexpr std::size_t name = 0;       // str
constexpr std::size_t type = 8;       // str
constexpr std::size_t flags = 16;     // u8: bit 0 is_const
constexpr std::size_t reserved = 17;  // u8[7], 0
constexpr std::uint8_t flag_const = 1;
}  // namespace arg_rec

namespace variant_rec {
constexpr std::size_t first_spec = 0;        // u32
constexpr std::size_t spec_count = 4;        // u32, = the kernel's arg_count
constexpr std::size_t num_warps = 8;         // u32
constexpr std::size_t num_stages = 12;       // u32
constexpr std::size_t num_ctas = 16;         // u32
constexpr std::size_t first_constexpr = 20;  // u32
constexpr std::size_t constexpr_count = 24;  // u32
constexpr std::size_t first_image_ref = 28;  // u32
constexpr std::size_t image_ref_count = 32;  // u32
constexpr std::size_t reserved = 36;         // u32, 0
}  // namespace variant_rec

namespace spec_rec {
constexpr std::size_t kind = 0;      // u8: spec_kind
constexpr std::size_t reserved = 1;  // u8[3], 0
constexpr std::size_t value = 4;     // str: constexpr literal, empty for other kinds
}  // namespace spec_rec

namespace constexpr_rec {
constexpr std::size_t name = 0;   // str
constexpr std::size_t value = 8;  // str
}  // namespace constexpr_rec

namespace image_rec {
constexpr std::size_t backend = 0;          // u8: backend_kind
constexpr std::size_t kind = 1;             // u8: image_kind
constexpr std::size_t launch_flags = 2;     // u8: bit 0 cooperative grid, bit 1 PDL
constexpr std::size_t coding = 3;           // u8: image_coding (v4; v1-v3: reserved, 0)
constexpr std::size_t ptx_version = 4;      // u32: major*10+minor, PTX only, else 0
constexpr std::size_t arch = 8;             // str
constexpr std::size_t entry = 16;           // str
constexpr std::size_t triton_version = 24;  // str
constexpr std::size_t raw_size = 32;        // u64
constexpr std::size_t checksum = 40;        // u64: XXH64 of the raw bytes
constexpr std::size_t frame = 48;           // u32: index into frames
constexpr std::size_t base_image = 52;      // u32: coding_ptx_lines: the cubin whose text it
                                            // uses, an earlier image of the same frame; else 0
constexpr std::size_t frame_offset = 56;    // u64: where the image starts in the decoded frame
constexpr std::size_t num_warps = 64;       // u32
constexpr std::size_t warp_size = 68;       // u32
constexpr std::size_t shared = 72;          // u32
constexpr std::size_t num_ctas = 76;        // u32
constexpr std::size_t tmem_size = 80;       // u32
constexpr std::size_t global_scratch_align = 84;    // u32
constexpr std::size_t global_scratch_size = 88;     // u64
constexpr std::size_t profile_scratch_size = 96;    // u64
constexpr std::size_t profile_scratch_align = 104;  // u32
constexpr std::size_t first_tensordesc = 108;       // u32
constexpr std::size_t tensordesc_count = 112;       // u32
constexpr std::size_t frame_size = 116;             // u32: coding_ptx_lines: bytes the image
                                                    // takes in the decoded frame; else 0
constexpr std::uint8_t flag_cooperative = 1;
constexpr std::uint8_t flag_pdl = 2;
}  // namespace image_rec

// How an image's bytes are held in its decoded frame (v4; docs/format.md "Image codings").
enum image_coding : std::uint8_t {
  coding_raw = 0,  // the image's raw_size bytes, as they are
  // A PTX held as the lines of its base_image cubin's PTX text (.nv_debug_ptx_txt, which ptxas
  // writes when the PTX carries line info: each line of the PTX without its indentation and
  // comments, NUL-terminated): u32 text offset and u32 text size in the cubin, then the PTX's
  // lines in which a NUL byte stands for that line's entry of the text. Lossless; the PTX's XXH64
  // is checked after the lines are put back together.
  coding_ptx_lines = 1,
};

// v3: one per image, in image order: what produced the image's code (docs/format.md "image_tools").
namespace image_tool_rec {
constexpr std::size_t version = 0;  // str: cubin: the ptxas version; hsaco: the LLVM; else empty
}  // namespace image_tool_rec

// v2: one per kernel, in kernel order.
namespace tuning_rec {
constexpr std::size_t first_arg = 0;      // u32 into tune_args
constexpr std::size_t arg_count = 4;      // u32
constexpr std::size_t first_entry = 8;    // u32 into tune_entries
constexpr std::size_t entry_count = 12;   // u32
constexpr std::size_t config_count = 16;  // u32: configs per specialisation, 1..variant_count
constexpr std::size_t flags = 20;         // u32: bit 0 tune on first use
constexpr std::uint32_t flag_on_first_use = 1;
}  // namespace tuning_rec

namespace tune_arg_rec {
constexpr std::size_t arg = 0;       // u32: index among the kernel's args
constexpr std::size_t role = 4;      // u8: tune_role (1 key, 2 reset_to_zero, 3 restore)
constexpr std::size_t bucket = 5;    // u8: bucket_rule for a key (0 exact, 1 pow2); 0 otherwise
constexpr std::size_t reserved = 6;  // u8[2], 0
constexpr std::size_t bytes =
    8;  // str: byte-size expression of a protected buffer; empty for a key
}  // namespace tune_arg_rec

namespace tune_entry_rec {
constexpr std::size_t device = 0;  // str: GPU name ("NVIDIA H200") or arch ("sm_90")
constexpr std::size_t config = 8;  // u32: the chosen config, < config_count
constexpr std::size_t first_value =
    12;  // u32 into tune_values: key_count buckets, then config_count times
}  // namespace tune_entry_rec

namespace tensordesc_rec {
constexpr std::size_t swizzle = 0;      // u32
constexpr std::size_t elem_size = 4;    // u32
constexpr std::size_t elem_type = 8;    // u32
constexpr std::size_t fp4_padded = 12;  // u8: 0 or 1
constexpr std::size_t reserved = 13;    // u8[3], 0
constexpr std::size_t first_dim = 16;   // u32
constexpr std::size_t dim_count = 20;   // u32
}  // namespace tensordesc_rec

namespace frame_rec {
constexpr std::size_t offset = 0;       // u64: from the start of the data section
constexpr std::size_t stored_size = 8;  // u64
constexpr std::size_t raw_size = 16;    // u64
constexpr std::size_t codec = 24;       // u32: codec below
constexpr std::size_t flags = 28;       // u32: bit 0 compressed with the container's dictionary
constexpr std::uint32_t flag_dictionary = 1;
}  // namespace frame_rec

enum frame_codec : std::uint32_t {
  codec_stored = 0,  // raw bytes, stored_size == raw_size
  codec_zstd = 1,    // one zstd frame (content size and content checksum in its header/trailer)
};

// Upper bounds that keep a hostile container from making the reader allocate without limit.
// A zstd block of at most 128 KiB can be encoded in 4 bytes (RLE), so no real frame expands more
// than 32768×; GPU images are far below 4 GiB.
constexpr std::uint64_t max_expansion = 32768;
constexpr std::uint64_t max_frame_raw_size = std::uint64_t{1} << 32;
// The dictionary section's size: the run time copies and digests the dictionary on first use
// (codec::lazy_ddict), so its size is bounded like every other length. 16 MiB is what `pack
// --dict-size` has always allowed (zstd's own trainer advises ~100 KiB), so every container any
// tritonpack wrote is within it.
constexpr std::uint64_t max_dictionary_size = std::uint64_t{1} << 24;

}  // namespace format
TRITONPACK_END_NAMESPACE
