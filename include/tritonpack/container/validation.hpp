// tritonpack/container/validation.hpp — the parse-time check of a container (docs/format.md): the
// header, the sections and their padding, the tables checksum, the structure of the tables (where
// each image lies, how the runs of child records tile their tables, the kernels' names), the
// frames and how images tile them. What it keeps is a container_layout: integers only, which
// container/reader.hpp builds the model from on demand and decodes images with.
//
// Why this much at parse time and no more: the run time trusts the layout afterwards (indices,
// sizes, image places) without re-checking on the launch path, and damage to the bytes is refused
// in one place, by the tables checksum, before anything is read. What each record says is checked
// when its kernel is first built (container/records.hpp; info() builds every kernel,
// as `tritonpack inspect` does), with the same messages naming the offending field
// ("args[3].type: ..."), so a first launch reads the records of its own kernel only. The zstd
// frames' own headers (content size, length, dictionary) and payloads are checked when a frame is
// decoded: parse touches the tables, never the data section, which keeps a program's first launch
// from paging in the whole container.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tritonpack/container/checksum.hpp"
#include "tritonpack/container/codec.hpp"
#include "tritonpack/container/format.hpp"
#include "tritonpack/container/ptx_lines.hpp"
#include "tritonpack/container/records.hpp"
#include "tritonpack/version.hpp"

TRITONPACK_BEGIN_NAMESPACE

// Where one frame's bytes are, and which images it holds (a contiguous run of image indices).
struct frame_view {
  std::uint64_t offset = 0;       // from the start of the container
  std::uint64_t stored_size = 0;  // bytes in the container
  std::uint64_t raw_size = 0;     // bytes once decoded
  std::uint32_t codec = format::codec_stored;
  bool uses_dictionary = false;
  std::uint32_t first_image = 0;
  std::uint32_t image_count = 0;
};

namespace detail {

// What the user is told to do about a container whose bytes no longer hash to what the packer
// recorded: it was damaged after packing (a truncated copy, a bad disk, a patched binary), so no
// run-time workaround is right; packing again is.
constexpr const char* damage_advice =
    "its bytes changed after `tritonpack pack` wrote them; rebuild the program (pack its kernels "
    "again and recompile), "
    "and run `tritonpack inspect` on the program or .tpk to check every image";

// A validated container, as integers: what decoding and building the model need.
struct container_layout {
  const std::uint8_t* data = nullptr;
  std::size_t size = 0;
  std::uint32_t format_version = 0;
  std::string name, triton_version, triton_commit;
  section_range sections[format::section_count];
  std::vector<image_location> images;
  std::vector<frame_view> frames;
  codec::ddict_ptr ddict;
  unsigned dict_id = 0;
};

class container_validator : record_reader {
 public:
  container_validator(const std::uint8_t* data, std::size_t size) : record_reader(data, size) {}

  // Throws error(errc::bad_container) naming the first field found wrong.
  container_layout run() {
    container_layout L;
    L.data = d_;
    L.size = n_;
    read_header(L);
    check_structure(L);
    read_frames(L);
    for (std::uint32_t s = 0; s < format::section_count; ++s) L.sections[s] = sec_[s];
    return L;
  }

 private:
  void read_header(container_layout& L) {
    namespace H = format::header;
    if (n_ < format::magic_size || std::memcmp(d_, format::magic, format::magic_size) != 0)
      fail({"header", no_index, "magic"},
           "not a tritonpack container (expected \\x89TPK\\r\\n\\x1a\\n)");
    if (n_ < 12) fail({"header", no_index, "version"}, "truncated: the container is %zu bytes", n_);
    const std::uint32_t version = u32(d_ + H::version);
    if (version < format::oldest_readable_version || version > format::format_version)
      fail({"header", no_index, "version"},
           "format version %u is not supported (this reader reads versions %u to %u)%s", version,
           format::oldest_readable_version, format::format_version,
           version > format::format_version
               ? "; the container was packed by a newer tritonpack: build the program with that "
                 "tritonpack's headers, or pack the kernels again with this one"
               : "");
    // v1: 13 sections (no tuning ones, which stay empty); v2: 17 (no image_tools, which stays
    // empty); v3: all of them.
    const std::uint32_t* order = version == 1   ? format::v1_sections
                                 : version == 2 ? format::v2_sections
                                                : nullptr;  // v3: in enum order
    const std::uint32_t nsections = version == 1   ? format::v1_section_count
                                    : version == 2 ? format::v2_section_count
                                                   : format::section_count;
    const std::size_t hsize_want = version == 1 ? H::size_v1 : version == 2 ? H::size_v2 : H::size;
    if (n_ < hsize_want)
      fail({"header"}, "truncated: the container is %zu bytes, the v%u header alone is %zu", n_,
           version, hsize_want);
    const std::uint32_t hsize = u32(d_ + H::header_size);
    if (hsize != hsize_want)
      fail({"header", no_index, "header_size"}, "is %u, v%u requires %zu", hsize, version,
           hsize_want);
    const std::uint64_t total = u64v(d_ + H::total_size);
    if (total != n_)
      fail({"header", no_index, "total_size"}, "is %llu but %zu bytes were given (%s)",
           static_cast<u64>(total), n_, total < n_ ? "trailing bytes" : "truncated");
    const std::uint32_t flags = u32(d_ + H::flags);
    if (flags != 0) fail({"header", no_index, "flags"}, "is %u, must be 0", flags);
    const std::uint32_t nsec = u32(d_ + H::section_count);
    if (nsec != nsections)
      fail({"header", no_index, "section_count"}, "is %u, v%u has %u", nsec, version, nsections);
    if (version < 3) zero(d_ + H::triton_commit, 8, {"header", no_index, "reserved"});

    // Sections: in order, 8-aligned, separated only by minimal zero padding, ending exactly at
    // the end of the container.
    for (std::uint32_t s = 0; s < format::section_count; ++s) sec_[s] = {};
    std::uint64_t pos = hsize_want;
    for (std::uint32_t j = 0; j < nsections; ++j) {
      const std::uint32_t s = order ? order[j] : j;
      const std::uint8_t* e = d_ + H::sections + j * H::section_entry_size;
      const std::uint64_t off = u64v(e), size = u64v(e + 8);
      const char* sn = format::section_name(s);
      const std::uint64_t aligned =
          (pos + format::section_align - 1) / format::section_align * format::section_align;
      if (off != aligned)
        fail({"sections", no_index, sn, "offset"},
             "is %llu, expected %llu (sections follow each other in order, 8-byte aligned)",
             static_cast<u64>(off), static_cast<u64>(aligned));
      if (!byte_io::range_within(off, size, n_))
        fail({"sections", no_index, sn, "size"},
             "is %llu: the section would run past the container's %zu bytes",
             static_cast<u64>(size), n_);
      zero(d_ + pos, static_cast<std::size_t>(off - pos), {"sections", no_index, sn, "padding"});
      if (size % format::record_size[s] != 0)
        fail({"sections", no_index, sn, "size"}, "is %llu, not a multiple of the %u-byte record",
             static_cast<u64>(size), format::record_size[s]);
      sec_[s] = {off, size, size / format::record_size[s]};
      if (sec_[s].count > 0xFFFFFFFFull)
        fail({"sections", no_index, sn, "size"}, "holds more than 2^32-1 records");
      pos = off + size;
    }
    if (pos != n_)
      fail({"sections", no_index, "data", "size"},
           "the data section ends at %llu, the container at %zu", static_cast<u64>(pos), n_);

    // Tables checksum: everything before the frame data, with the checksum field itself zero.
    const std::uint64_t recorded = u64v(d_ + H::tables_checksum);
    const std::size_t covered = static_cast<std::size_t>(sec_[format::sec_data].offset);
    static const std::uint8_t zeros[8] = {};
    xxh64_stream hash;
    hash.update(d_, H::tables_checksum);
    hash.update(zeros, 8);
    hash.update(d_ + H::tables_checksum + 8, covered - (H::tables_checksum + 8));
    const std::uint64_t actual = hash.digest();
    if (actual != recorded)
      fail({"header", no_index, "tables_checksum"},
           "is 0x%016llx but the header and tables hash to 0x%016llx: the container is damaged; %s",
           static_cast<u64>(recorded), static_cast<u64>(actual), damage_advice);

    L.format_version = version;
    L.name.assign(view(d_ + H::name, {"header", no_index, "name"}));
    L.triton_version.assign(view(d_ + H::triton_version, {"header", no_index, "triton_version"}));
    if (version >= 3)
      L.triton_commit.assign(view(d_ + H::triton_commit, {"header", no_index, "triton_commit"}));
  }

  // The tables as far as the run time relies on them before it builds a kernel: where each image
  // lies and how it is held (what decoding reads), and how the runs of child records tile their
  // tables (each parent's run starts where the previous one ended, and all stay inside their
  // table), with the kernels' names, which name lookups read in place. A few integers per record:
  // what each record says (names, types, enums, limits, reserved bytes) is checked when its kernel
  // is first built (records.hpp; info() builds them all), so parsing reads no record's strings
  // and builds nothing per record. Every check that a record passes at build time and every one
  // made here together are the whole of docs/format.md's rules.
  void check_structure(container_layout& L) {
    using namespace format;
    const std::uint64_t nimages = sec_[sec_images].count;
    if (L.format_version >= 3 && sec_[sec_image_tools].count != nimages)
      fail({"sections", no_index, "image_tools"}, "holds %llu records, one per image needs %llu",
           static_cast<u64>(sec_[sec_image_tools].count), static_cast<u64>(nimages));
    L.images.resize(static_cast<std::size_t>(nimages));
    std::uint64_t next_td = 0, next_dim = 0;  // where the runs of tensordescs and dims continue
    for (std::uint64_t i = 0; i < nimages; ++i)
      locate_image(i, L.format_version, L.images[static_cast<std::size_t>(i)], next_td, next_dim);
    run_end(next_td, sec_tensordescs, "images");
    run_end(next_dim, sec_dims, "tensordescs");

    const std::uint64_t nkernels = sec_[sec_kernels].count;
    if (L.format_version >= 2 && sec_[sec_tunings].count != nkernels)
      fail({"sections", no_index, "tunings"}, "holds %llu records, one per kernel needs %llu",
           static_cast<u64>(sec_[sec_tunings].count), static_cast<u64>(nkernels));
    // args, variants, specs, constexprs, image refs, tune_args, tune_entries, tune_values
    std::uint64_t next[8] = {};
    std::vector<std::pair<std::string_view, std::uint64_t>> names;
    names.reserve(static_cast<std::size_t>(nkernels));
    for (std::uint64_t i = 0; i < nkernels; ++i) names.emplace_back(kernel_runs(i, next), i);
    run_end(next[0], sec_args, "kernels");
    run_end(next[1], sec_variants, "kernels");
    run_end(next[2], sec_specs, "variants");
    run_end(next[3], sec_constexprs, "variants");
    run_end(next[4], sec_image_refs, "variants");
    run_end(next[5], sec_tune_args, "tunings");
    run_end(next[6], sec_tune_entries, "tunings");
    run_end(next[7], sec_tune_values, "tune_entries");
    // One kernel per name (find_kernel returns the first): sorted, equal names are neighbours; the
    // error names the first kernel, in index order, whose name an earlier one has.
    std::sort(names.begin(), names.end());
    std::uint64_t dup = no_index;
    for (std::size_t j = 1; j < names.size(); ++j)
      if (names[j].first == names[j - 1].first && names[j].second < dup) dup = names[j].second;
    if (dup != no_index) {
      const std::string_view name = kernel_name(dup);
      fail({"kernels", dup, "name"}, "\"%.*s\" is also the name of an earlier kernel",
           static_cast<int>(name.size()), name.data());
    }
  }

  // Image `i`'s place in its frame and its coding, into `loc`; its tensor descriptors' runs.
  void locate_image(std::uint64_t i, std::uint32_t version, image_location& loc,
                    std::uint64_t& next_td, std::uint64_t& next_dim) {
    using namespace format;
    const std::uint8_t* r = rec(sec_images, i);
    auto F = [i](const char* field) { return field_ref{"images", i, field}; };
    const unsigned coding = r[image_rec::coding];
    if (coding != coding_raw && coding != coding_ptx_lines)
      fail(F("coding"), "is %u, must be 0 (as is) or 1 (PTX lines of its cubin's text)", coding);
    if (version < 4 && coding != coding_raw)
      fail(F("coding"), "is %u; a v%u container holds every image as is (0)", coding, version);
    const unsigned kind = r[image_rec::kind];
    if (coding == coding_ptx_lines && kind != static_cast<unsigned>(image_kind::ptx))
      fail(F("coding"), "is 1 (PTX lines) on an image of kind %u; only a PTX (2) is stored so",
           kind);
    const std::uint32_t frame = u32(r + image_rec::frame);
    if (frame >= sec_[sec_frames].count)
      fail(F("frame"), "is %u, the container has %llu frames", frame,
           static_cast<u64>(sec_[sec_frames].count));
    const std::uint32_t base_image = u32(r + image_rec::base_image),
                        frame_size = u32(r + image_rec::frame_size);
    if (coding == coding_raw && base_image != 0)
      fail(F("base_image"), "is %u on an image stored as is (coding 0), must be 0", base_image);
    if (coding == coding_raw && frame_size != 0)
      fail(F("frame_size"), "is %u on an image stored as is (coding 0), must be 0", frame_size);
    loc.frame = frame;
    loc.offset = u64v(r + image_rec::frame_offset);
    loc.raw_size = u64v(r + image_rec::raw_size);
    loc.checksum = u64v(r + image_rec::checksum);
    loc.coding = static_cast<std::uint8_t>(coding);
    loc.base_image = base_image;
    loc.frame_size = coding == coding_raw ? loc.raw_size : frame_size;
    const std::uint32_t td0 = u32(r + image_rec::first_tensordesc),
                        tdn = u32(r + image_rec::tensordesc_count);
    run_range(td0, tdn, next_td, sec_tensordescs, F("first_tensordesc"), F("tensordesc_count"));
    for (std::uint32_t t = td0; t < td0 + tdn; ++t) {
      const std::uint8_t* tr = rec(sec_tensordescs, t);
      const std::uint32_t dn = u32(tr + tensordesc_rec::dim_count);
      run_range(u32(tr + tensordesc_rec::first_dim), dn, next_dim, sec_dims,
                {"tensordescs", t, "first_dim"}, {"tensordescs", t, "dim_count"});
      if (dn == 0 || dn > 5)
        fail({"tensordescs", t, "dim_count"}, "is %u, a tensor descriptor has 1..5 dimensions", dn);
    }
  }

  // Kernel `i`'s runs of args and variants, its variants' runs of specs, constexprs and image
  // refs, and its tuning's runs (`next`: where each must continue), with the fields their lengths
  // follow from (a variant per kernel at least, a spec per arg, the tuning's roles and config
  // count); returns its name, checked non-empty.
  std::string_view kernel_runs(std::uint64_t i, std::uint64_t (&next)[8]) {
    using namespace format;
    const std::uint8_t* r = rec(sec_kernels, i);
    auto F = [i](const char* field) { return field_ref{"kernels", i, field}; };
    const std::string_view name = view(r + kernel_rec::name, F("name"));
    if (name.empty()) fail(F("name"), "is empty");
    const std::uint32_t an = u32(r + kernel_rec::arg_count);
    run_range(u32(r + kernel_rec::first_arg), an, next[0], sec_args, F("first_arg"),
              F("arg_count"));
    const std::uint32_t v0 = u32(r + kernel_rec::first_variant),
                        vn = u32(r + kernel_rec::variant_count);
    run_range(v0, vn, next[1], sec_variants, F("first_variant"), F("variant_count"));
    if (vn == 0) fail(F("variant_count"), "is 0; a kernel needs at least one variant");
    for (std::uint32_t v = v0; v < v0 + vn; ++v) {
      const std::uint8_t* vr = rec(sec_variants, v);
      auto V = [v](const char* field) { return field_ref{"variants", v, field}; };
      const std::uint32_t sn = u32(vr + variant_rec::spec_count);
      run_range(u32(vr + variant_rec::first_spec), sn, next[2], sec_specs, V("first_spec"),
                V("spec_count"));
      if (sn != an) fail(V("spec_count"), "is %u, the kernel has %u args", sn, an);
      run_range(u32(vr + variant_rec::first_constexpr), u32(vr + variant_rec::constexpr_count),
                next[3], sec_constexprs, V("first_constexpr"), V("constexpr_count"));
      run_range(u32(vr + variant_rec::first_image_ref), u32(vr + variant_rec::image_ref_count),
                next[4], sec_image_refs, V("first_image_ref"), V("image_ref_count"));
    }
    if (i >= sec_[sec_tunings].count) return name;
    const std::uint8_t* tr = rec(sec_tunings, i);
    auto T = [i](const char* field) { return field_ref{"tunings", i, field}; };
    const std::uint32_t ta0 = u32(tr + tuning_rec::first_arg),
                        tan = u32(tr + tuning_rec::arg_count);
    run_range(ta0, tan, next[5], sec_tune_args, T("first_arg"), T("arg_count"));
    // Each row holds a bucket per key argument and a time per config (read_tuning), so the roles
    // and the config count are part of the structure.
    std::uint64_t keys = 0;
    for (std::uint32_t a = ta0; a < ta0 + tan; ++a) {
      const unsigned role = rec(sec_tune_args, a)[tune_arg_rec::role];
      if (role < 1 || role > 3)
        fail({"tune_args", a, "role"}, "is %u, must be 1 (key), 2 (reset_to_zero) or 3 (restore)",
             role);
      keys += role == static_cast<unsigned>(tune_role::key);
    }
    const std::uint32_t configs = u32(tr + tuning_rec::config_count);
    if (configs == 0 || vn % configs != 0)
      fail(T("config_count"),
           "is %u, must divide the kernel's %u variants (specialisations x configs)", configs, vn);
    const std::uint32_t e0 = u32(tr + tuning_rec::first_entry),
                        en = u32(tr + tuning_rec::entry_count);
    run_range(e0, en, next[6], sec_tune_entries, T("first_entry"), T("entry_count"));
    for (std::uint32_t e = e0; e < e0 + en; ++e) {
      const std::uint8_t* er = rec(sec_tune_entries, e);
      const field_ref f{"tune_entries", e, "first_value"};
      if (keys + configs > 0xFFFFFFFFull) fail(f, "%s", "runs past 2^32-1 values");
      run_range(u32(er + tune_entry_rec::first_value), static_cast<std::uint32_t>(keys + configs),
                next[7], sec_tune_values, f, f);
    }
    return name;
  }

  void read_frames(container_layout& L) {
    using namespace format;
    const section_range& data = sec_[sec_data];
    const section_range& dict = sec_[sec_dictionary];
    if (dict.size > max_dictionary_size)
      fail({"sections", no_index, "dictionary", "size"},
           "is %llu, above the %llu-byte limit on a dictionary", static_cast<u64>(dict.size),
           static_cast<u64>(max_dictionary_size));
    // Digested on first use (codec::lazy_ddict): zstd judges the bytes then, and a dictionary it
    // cannot load is reported as damage of the image being decoded.
    L.ddict = std::make_shared<const codec::lazy_ddict>(d_ + dict.offset,
                                                        static_cast<std::size_t>(dict.size));
    L.dict_id = codec::dictionary_id(d_ + dict.offset, static_cast<std::size_t>(dict.size));
    const std::uint64_t nframes = sec_[sec_frames].count;
    L.frames.resize(static_cast<std::size_t>(nframes));
    std::uint64_t next_offset = 0;
    for (std::uint64_t i = 0; i < nframes; ++i) {
      const std::uint8_t* r = rec(sec_frames, i);
      auto F = [i](const char* field) { return field_ref{"frames", i, field}; };
      frame_view& fv = L.frames[static_cast<std::size_t>(i)];
      const std::uint64_t off = u64v(r + frame_rec::offset);
      if (off != next_offset)
        fail(F("offset"), "is %llu, expected %llu (frames follow each other in the data section)",
             static_cast<u64>(off), static_cast<u64>(next_offset));
      fv.stored_size = u64v(r + frame_rec::stored_size);
      if (!byte_io::range_within(off, fv.stored_size, data.size))
        fail(F("stored_size"), "is %llu: the frame would run past the data section (%llu bytes)",
             static_cast<u64>(fv.stored_size), static_cast<u64>(data.size));
      next_offset = off + fv.stored_size;
      fv.offset = data.offset + off;
      fv.raw_size = u64v(r + frame_rec::raw_size);
      fv.codec = u32(r + frame_rec::codec);
      const std::uint32_t flags = u32(r + frame_rec::flags);
      if (flags & ~frame_rec::flag_dictionary)
        fail(F("flags"), "is %u, only bit 0 (dictionary) is defined", flags);
      fv.uses_dictionary = (flags & frame_rec::flag_dictionary) != 0;
      if (fv.raw_size > max_frame_raw_size)
        fail(F("raw_size"), "is %llu, above the 4 GiB limit", static_cast<u64>(fv.raw_size));
      if (fv.codec == codec_stored) {
        if (fv.stored_size != fv.raw_size)
          fail(F("raw_size"),
               "is %llu but a stored frame's raw_size must equal its stored_size (%llu)",
               static_cast<u64>(fv.raw_size), static_cast<u64>(fv.stored_size));
        if (fv.uses_dictionary) fail(F("flags"), "a stored frame cannot use the dictionary");
      } else if (fv.codec == codec_zstd) {
        if (fv.uses_dictionary && dict.size == 0)
          fail(F("flags"), "the frame uses the dictionary but the container has none");
        if (fv.raw_size / max_expansion > fv.stored_size)
          fail(F("raw_size"), "is %llu, more than zstd can encode in %llu bytes",
               static_cast<u64>(fv.raw_size), static_cast<u64>(fv.stored_size));
      } else {
        fail(F("codec"), "is %u, must be 0 (stored) or 1 (zstd)", fv.codec);
      }
    }
    if (next_offset != data.size)
      fail({"sections", no_index, "data", "size"}, "is %llu but the frames account for %llu bytes",
           static_cast<u64>(data.size), static_cast<u64>(next_offset));

    // Images tile the frames in order: each frame holds a contiguous, non-empty run of images
    // laid end to end from offset 0 to its raw_size.
    std::uint64_t pos = 0;
    std::uint32_t cur = 0;
    const std::size_t nimages = L.images.size();
    if (nframes == 0 && nimages != 0)
      fail({"sections", no_index, "frames"}, "is empty but the container has images");
    for (std::size_t i = 0; i < nimages; ++i) {
      const std::uint32_t fr = L.images[i].frame;
      if (fr != cur) {
        if (fr != cur + 1 || L.frames[cur].image_count == 0)
          fail({"images", i, "frame"},
               "is %u, expected %u (images are stored in frame order and every frame holds at "
               "least one)",
               fr, L.frames[cur].image_count == 0 ? cur : cur + 1);
        if (pos != L.frames[cur].raw_size)
          fail({"frames", cur, "raw_size"}, "is %llu but its images add up to %llu",
               static_cast<u64>(L.frames[cur].raw_size), static_cast<u64>(pos));
        cur = fr;
        pos = 0;
      }
      if (L.frames[cur].image_count == 0) L.frames[cur].first_image = static_cast<std::uint32_t>(i);
      ++L.frames[cur].image_count;
      const std::uint64_t off = L.images[i].offset;
      if (off != pos)
        fail({"images", i, "frame_offset"},
             "is %llu, expected %llu (images follow each other in their frame)",
             static_cast<u64>(off), static_cast<u64>(pos));
      const image_location& im = L.images[i];
      const bool coded = im.coding != coding_raw;
      if (!byte_io::range_within(off, im.frame_size, L.frames[cur].raw_size))
        fail({"images", i, coded ? "frame_size" : "raw_size"},
             "is %llu: the image would run past the end of frame %u (%llu bytes)",
             static_cast<u64>(im.frame_size), cur, static_cast<u64>(L.frames[cur].raw_size));
      // A coded PTX is put back from a cubin decoded before it: an earlier image of its frame,
      // itself stored as is.
      if (im.coding == coding_ptx_lines) {
        const std::uint32_t b = im.base_image;
        if (b >= i || L.images[b].frame != cur ||
            rec(sec_images, b)[image_rec::kind] != static_cast<std::uint8_t>(image_kind::cubin) ||
            L.images[b].coding != coding_raw)
          fail({"images", i, "base_image"},
               "is %u, must be a cubin stored as is before this image in its frame (%u)", b, cur);
        if (im.frame_size < ptx_lines::header_size)
          fail({"images", i, "frame_size"}, "is %llu, below the %zu bytes of its header",
               static_cast<u64>(im.frame_size), ptx_lines::header_size);
        // Put back, a PTX is at most its lines and its cubin's text together: a larger raw_size
        // is damage, refused here, before anything is sized by it (decode_image reserves it).
        const std::uint64_t most = im.frame_size - ptx_lines::header_size + L.images[b].raw_size;
        if (im.raw_size > most)
          fail({"images", i, "raw_size"},
               "is %llu, more than its %llu bytes of lines and its cubin's %llu bytes can make",
               static_cast<u64>(im.raw_size),
               static_cast<u64>(im.frame_size - ptx_lines::header_size),
               static_cast<u64>(L.images[b].raw_size));
      }
      pos = off + im.frame_size;
    }
    if (nframes != 0) {
      if (nimages == 0 || cur + 1 != nframes)
        fail({"frames", nimages == 0 ? 0 : cur + 1u},
             "holds no image (every frame holds at least one)");
      if (pos != L.frames[cur].raw_size)
        fail({"frames", cur, "raw_size"}, "is %llu but its images add up to %llu",
             static_cast<u64>(L.frames[cur].raw_size), static_cast<u64>(pos));
    }

    // Each image's share of its frame's stored bytes, proportional to its size in the frame; the
    // last image of a frame takes the remainder so the shares add up to the frame's stored size
    // exactly.
    for (const frame_view& fv : L.frames) {
      std::uint64_t given = 0;
      for (std::uint32_t k = 0; k < fv.image_count; ++k) {
        image_location& im = L.images[fv.first_image + k];
        std::uint64_t share;
        if (k + 1 == fv.image_count) {
          share = fv.stored_size - given;
        } else if (fv.raw_size == 0) {
          share = 0;
        } else {
          // Both sizes can exceed 2^32, so the product is taken in long double, not uint64.
          share = static_cast<std::uint64_t>(static_cast<long double>(fv.stored_size) *
                                             im.frame_size / fv.raw_size);
          if (share > fv.stored_size - given) share = fv.stored_size - given;
        }
        im.stored_size = share;
        given += share;
      }
    }
  }
};

}  // namespace detail
TRITONPACK_END_NAMESPACE
