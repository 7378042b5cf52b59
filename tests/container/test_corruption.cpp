// Corruption and truncation: every header field, every section entry and every field of every
// record kind, damaged in turn, is rejected with a message naming the field; every single-byte
// flip and every truncation is rejected (by the parse or, for frame payload bytes, by the decode);
// nothing crashes (this file also runs under ASan+UBSan with TRITONPACK_SANITIZE=ON).
#include <doctest/doctest.h>

#include <fstream>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <functional>
#include <set>
#include <optional>
#include <string>

#include "damaged_container.hpp"
#include "sample_model.hpp"
#include "tritonpack/container/byte_io.hpp"
#include "tritonpack/container/checksum.hpp"
#include "tritonpack/container/format.hpp"
#include "tritonpack/container/reader.hpp"
#include "tritonpack/pack/container_writer.hpp"

using namespace tritonpack;
namespace F = tritonpack::format;
using byte_io::load_u32;
using byte_io::load_u64;
using byte_io::store_u32;
using byte_io::store_u64;

namespace {

using tp_test::build_error;
using tp_test::fix_checksum;
using tp_test::parse_error;
using tp_test::section_offset;
using tp_test::section_size;

std::vector<std::uint8_t> sample_blob() {
  pack::write_options opt;
  opt.grouping = pack::frame_grouping::per_kernel_backend;
  return pack::write_container(tp_test::sample_info(), tp_test::sample_images(), opt);
}


struct field {
  std::string name;      // the name the message must contain, e.g. "images[0].warp_size"
  std::uint64_t offset;  // absolute byte offset in the container
  int width;             // 1, 4 or 8
  std::uint64_t bad;     // a value the reader must refuse for this field
};

void put(std::vector<std::uint8_t>& b, std::uint64_t off, int width, std::uint64_t v) {
  if (width == 1) b[off] = static_cast<std::uint8_t>(v);
  else if (width == 4) store_u32(b.data() + off, static_cast<std::uint32_t>(v));
  else store_u64(b.data() + off, v);
}

std::uint64_t rec(const std::vector<std::uint8_t>& b, std::uint32_t s, std::uint64_t i) {
  return section_offset(b, s) + i * F::record_size[s];
}

// Every constrained field of the header and of one record of each kind, with an invalid value.
// (Unconstrained numbers such as num_stages or shared are covered by the raw-damage test below:
// the tables checksum refuses them.)
std::vector<field> constrained_fields(const std::vector<std::uint8_t>& b) {
  using namespace F;
  std::vector<field> f = {
      {"header.magic", header::magic, 1, 0x88},
      {"header.version", header::version, 4, format_version + 1},
      {"header.version", header::version, 4, 0},
      {"header.header_size", header::header_size, 4, 264},
      {"header.total_size", header::total_size, 8, b.size() + 1},
      {"header.flags", header::flags, 4, 1},
      {"header.section_count", header::section_count, 4, 12},
      {"header.name", header::name, 4, 0xFFFFFF00u},
      {"header.name", header::name + 4, 4, 0xFFFFFF00u},
      {"header.triton_version", header::triton_version, 4, 0xFFFFFF00u},
      {"header.triton_commit", header::triton_commit, 4, 0xFFFFFF00u},
  };
  for (std::uint32_t s = 0; s < section_count; ++s) {
    const std::string n = std::string("sections.") + section_name(s);
    f.push_back({n + ".offset", header::sections + s * header::section_entry_size, 8, section_offset(b, s) + 8});
    // Record sections: a size that is not a whole number of records; byte sections: past the end.
    f.push_back({n + ".size", header::sections + s * header::section_entry_size + 8, 8,
                 record_size[s] > 1 ? section_size(b, s) + 1 : (std::uint64_t{1} << 62)});
  }
  const std::uint64_t k = rec(b, sec_kernels, 0), k1 = rec(b, sec_kernels, 1);
  f.insert(f.end(), {
                        {"kernels[0].name", k + kernel_rec::name, 4, 0xFFFFFF00u},
                        {"kernels[0].name", k + kernel_rec::name + 4, 4, 0},  // empty name
                        {"kernels[1].name", k1 + kernel_rec::name, 8, load_u64(b.data() + k + kernel_rec::name)},  // duplicate
                        {"kernels[0].source", k + kernel_rec::source + 4, 4, 0xFFFFFF00u},
                        {"kernels[0].grid.x", k + kernel_rec::grid, 4, 0xFFFFFF00u},
                        {"kernels[0].grid.y", k + kernel_rec::grid + 8, 4, 0xFFFFFF00u},
                        {"kernels[0].grid.z", k + kernel_rec::grid + 16, 4, 0xFFFFFF00u},
                        {"kernels[0].grid", k + kernel_rec::grid + 12, 4, 0},  // one axis empty
                        {"kernels[0].first_arg", k + kernel_rec::first_arg, 4, 1},
                        {"kernels[1].first_arg", k1 + kernel_rec::first_arg, 4, 0},  // kernel 0's args again
                        {"kernels[0].arg_count", k + kernel_rec::arg_count, 4, 0xFFFFFFF0u},
                        {"kernels[0].first_variant", k + kernel_rec::first_variant, 4, 1},
                        {"kernels[0].variant_count", k + kernel_rec::variant_count, 4, 0xFFFFFFF0u},
                        {"kernels[0].variant_count", k + kernel_rec::variant_count, 4, 0},
                    });
  const std::uint64_t a = rec(b, sec_args, 0), a4 = rec(b, sec_args, 4);
  f.insert(f.end(), {
                        {"args[0].name", a + arg_rec::name, 4, 0xFFFFFF00u},
                        {"args[0].name", a + arg_rec::name + 4, 4, 0},
                        {"args[0].type", a + arg_rec::type, 4, 0xFFFFFF00u},
                        {"args[0].type", a + arg_rec::type + 4, 4, 0},
                        {"args[0].flags", a + arg_rec::flags, 1, 2},
                        {"args[4].flags", a4 + arg_rec::flags, 1, 1},  // const on an fp32 scalar
                        {"args[0].reserved", a + arg_rec::reserved + 3, 1, 1},
                    });
  const std::uint64_t v = rec(b, sec_variants, 0);
  f.insert(f.end(), {
                        {"variants[0].first_spec", v + variant_rec::first_spec, 4, 1},
                        {"variants[0].spec_count", v + variant_rec::spec_count, 4, 0xFFFFFFF0u},
                        {"variants[0].spec_count", v + variant_rec::spec_count, 4, 4},
                        {"variants[0].num_warps", v + variant_rec::num_warps, 4, 0},
                        {"variants[0].num_ctas", v + variant_rec::num_ctas, 4, 0},
                        {"variants[0].first_constexpr", v + variant_rec::first_constexpr, 4, 7},
                        {"variants[0].constexpr_count", v + variant_rec::constexpr_count, 4, 0xFFFFFFF0u},
                        {"variants[0].first_image_ref", v + variant_rec::first_image_ref, 4, 3},
                        {"variants[0].image_ref_count", v + variant_rec::image_ref_count, 4, 0xFFFFFFF0u},
                        {"variants[0].reserved", v + variant_rec::reserved, 4, 1},
                    });
  const std::uint64_t s0 = rec(b, sec_specs, 0);
  f.insert(f.end(), {
                        {"specs[0].kind", s0 + spec_rec::kind, 1, 4},
                        {"specs[0]", s0 + spec_rec::kind, 1, 3},  // constexpr without a value (names specs[0].value)
                        {"specs[0].reserved", s0 + spec_rec::reserved, 1, 1},
                        {"specs[0].value", s0 + spec_rec::value, 4, 0xFFFFFF00u},
                    });
  const std::uint64_t c = rec(b, sec_constexprs, 0);
  f.insert(f.end(), {
                        {"constexprs[0].name", c + constexpr_rec::name, 4, 0xFFFFFF00u},
                        {"constexprs[0].name", c + constexpr_rec::name + 4, 4, 0},
                        {"constexprs[0].value", c + constexpr_rec::value + 4, 4, 0xFFFFFF00u},
                    });
  f.push_back({"image_refs[0]", rec(b, sec_image_refs, 0), 4, 1000});
  const std::uint64_t im = rec(b, sec_images, 0);
  // images[2] is the PTX of the sample (kind 2).
  const std::uint64_t ptx = rec(b, sec_images, 2);
  f.insert(f.end(), {
                        {"images[0].backend", im + image_rec::backend, 1, 3},
                        {"images[0].kind", im + image_rec::kind, 1, 5},
                        {"images[0].kind", im + image_rec::kind, 1, 3},  // hsaco on cuda
                        {"images[0].launch_flags", im + image_rec::launch_flags, 1, 4},
                        {"images[0].coding", im + image_rec::coding, 1, 1},  // PTX lines on a cubin
                        {"images[0].coding", im + image_rec::coding, 1, 2},
                        {"images[0].ptx_version", im + image_rec::ptx_version, 4, 87},
                        {"images[2].ptx_version", ptx + image_rec::ptx_version, 4, 0},
                        {"images[0].arch", im + image_rec::arch, 4, 0xFFFFFF00u},
                        {"images[0].arch", im + image_rec::arch + 4, 4, 0},
                        {"images[0].entry", im + image_rec::entry, 4, 0xFFFFFF00u},
                        {"images[0].entry", im + image_rec::entry + 4, 4, 0},
                        {"images[0].triton_version", im + image_rec::triton_version + 4, 4, 0xFFFFFF00u},
                        {"images[0].raw_size", im + image_rec::raw_size, 8, ~std::uint64_t{0} - 4},
                        {"images[0].frame", im + image_rec::frame, 4, 99},
                        {"images[0].frame", im + image_rec::frame, 4, 1},
                        {"images[0].base_image", im + image_rec::base_image, 4, 1},
                        {"images[0].frame_offset", im + image_rec::frame_offset, 8, 1},
                        {"images[0].num_warps", im + image_rec::num_warps, 4, 0},
                        {"images[0].warp_size", im + image_rec::warp_size, 4, 48},
                        {"images[0].num_ctas", im + image_rec::num_ctas, 4, 0},
                        {"images[0].global_scratch_align", im + image_rec::global_scratch_align, 4, 3},
                        {"images[0].profile_scratch_align", im + image_rec::profile_scratch_align, 4, 0},
                        {"images[0].first_tensordesc", im + image_rec::first_tensordesc, 4, 1},
                        {"images[0].tensordesc_count", im + image_rec::tensordesc_count, 4, 0xFFFFFFF0u},
                        {"images[0].frame_size", im + image_rec::frame_size, 4, 1},
                        {"image_tools[0].version", rec(b, sec_image_tools, 0) + image_tool_rec::version, 4, 0xFFFFFF00u},
                        // A tool version on the PTX: the sm_90a cubin's string, on image 2.
                        {"image_tools[2].version", rec(b, sec_image_tools, 2), 8, load_u64(b.data() + rec(b, sec_image_tools, 0))},
                    });
  const std::uint64_t t = rec(b, sec_tensordescs, 0);
  f.insert(f.end(), {
                        {"tensordescs[0].fp4_padded", t + tensordesc_rec::fp4_padded, 1, 2},
                        {"tensordescs[0].reserved", t + tensordesc_rec::reserved, 1, 1},
                        {"tensordescs[0].first_dim", t + tensordesc_rec::first_dim, 4, 1},
                        {"tensordescs[0].dim_count", t + tensordesc_rec::dim_count, 4, 0xFFFFFFF0u},
                        {"tensordescs[0].dim_count", t + tensordesc_rec::dim_count, 4, 0},
                    });
  const std::uint64_t tu = rec(b, sec_tunings, 1), ta = rec(b, sec_tune_args, 0), te = rec(b, sec_tune_entries, 0);
  f.insert(f.end(), {
                        {"tunings[1].config_count", tu + tuning_rec::config_count, 4, 0},
                        {"tunings[1].config_count", tu + tuning_rec::config_count, 4, 3},
                        {"tunings[1].flags", tu + tuning_rec::flags, 4, 2},
                        {"tunings[1].first_arg", tu + tuning_rec::first_arg, 4, 1},
                        {"tunings[1].entry_count", tu + tuning_rec::entry_count, 4, 9},
                        {"tune_args[0].arg", ta + tune_arg_rec::arg, 4, 9},
                        {"tune_args[0].arg", ta + tune_arg_rec::arg, 4, 0},  // a tensor descriptor as a key
                        {"tune_args[0].role", ta + tune_arg_rec::role, 1, 0},
                        {"tune_args[0].bucket", ta + tune_arg_rec::bucket, 1, 2},
                        {"tune_args[0].reserved", ta + tune_arg_rec::reserved, 1, 1},
                        {"tune_args[0].bytes", ta + tune_arg_rec::bytes + 4, 4, 3},  // a key with a byte size
                        {"tune_args[1].arg", ta + 16 + tune_arg_rec::arg, 4, 2},     // an integer as a buffer
                        {"tune_args[1].bytes", ta + 16 + tune_arg_rec::bytes + 4, 4, 0},
                        {"tune_entries[0].device", te + tune_entry_rec::device + 4, 4, 0},
                        {"tune_entries[0].config", te + tune_entry_rec::config, 4, 2},
                        {"tune_entries[0].first_value", te + tune_entry_rec::first_value, 4, 1},
                    });
  const std::uint64_t fr = rec(b, sec_frames, 0);
  f.insert(f.end(), {
                        {"frames[0].offset", fr + frame_rec::offset, 8, 1},
                        {"frames[0].stored_size", fr + frame_rec::stored_size, 8, std::uint64_t{1} << 40},
                        {"frames[0].raw_size", fr + frame_rec::raw_size, 8, std::uint64_t{1} << 40},
                        {"frames[0].codec", fr + frame_rec::codec, 4, 7},
                        {"frames[0].flags", fr + frame_rec::flags, 4, 2},
                        {"frames[0].flags", fr + frame_rec::flags, 4, 1},  // dictionary, none present
                    });
  return f;
}

}  // namespace

TEST_CASE("the sample container has every table non-empty (so every record kind is tested)") {
  const auto b = sample_blob();
  for (std::uint32_t s = 0; s < F::section_count; ++s) {
    CAPTURE(F::section_name(s));
    if (s == F::sec_dictionary) continue;  // the sample has no dictionary (tested in round trips)
    CHECK(section_size(b, s) > 0);
  }
}

// The fields whose rules are checked when their kernel is built, not at parse: what a record says
// (enums, limits, strings, reserved bytes). Every other field of constrained_fields is part of the
// structure — where an image lies and how it is held, how runs of records tile their tables and
// the fields their lengths follow from, the kernels' names — and is refused by parse itself.
const std::set<std::string> checked_when_built = {
    "kernels[0].source", "kernels[0].grid.x", "kernels[0].grid.y", "kernels[0].grid.z",
    "kernels[0].grid", "args[0].name", "args[0].type", "args[0].flags", "args[4].flags",
    "args[0].reserved", "variants[0].num_warps", "variants[0].num_ctas", "variants[0].reserved",
    "specs[0].kind", "specs[0]", "specs[0].reserved", "specs[0].value", "constexprs[0].name",
    "constexprs[0].value", "image_refs[0]", "images[0].backend", "images[0].kind",
    "images[0].launch_flags", "images[0].ptx_version", "images[2].ptx_version", "images[0].arch",
    "images[0].entry", "images[0].triton_version", "images[0].num_warps", "images[0].warp_size",
    "images[0].num_ctas", "images[0].global_scratch_align", "images[0].profile_scratch_align",
    "image_tools[0].version", "image_tools[2].version", "tensordescs[0].fp4_padded",
    "tensordescs[0].reserved", "tunings[1].flags", "tune_args[0].arg", "tune_args[0].bucket",
    "tune_args[0].reserved", "tune_args[0].bytes", "tune_args[1].arg", "tune_args[1].bytes",
    "tune_entries[0].device", "tune_entries[0].config"};

TEST_CASE("every constrained field, damaged, is refused with a message naming it: structure at parse, contents when built") {
  const auto good = sample_blob();
  REQUIRE(parse_error(good).empty());
  REQUIRE(build_error(good).empty());
  std::set<std::string> seen;
  for (const field& f : constrained_fields(good)) {
    CAPTURE(f.name);
    CAPTURE(f.bad);
    auto b = good;
    put(b, f.offset, f.width, f.bad);
    if (f.name != "header.magic" && f.name != "header.version" && f.name != "header.total_size") fix_checksum(b);
    if (checked_when_built.count(f.name)) {
      seen.insert(f.name);
      const std::string msg = build_error(b);
      CHECK_MESSAGE(msg.find(f.name) != std::string::npos, "message: " << msg);
    } else {
      const std::string msg = parse_error(b);
      CHECK_MESSAGE(msg.find(f.name) != std::string::npos, "message: " << msg);
    }
  }
  CHECK(seen == checked_when_built);  // every name above is a field of the list
}

TEST_CASE("a damaged record is refused when its kernel is first used; the other kernels still build and load") {
  // Kernel 1 (matmul) with a damaged arg type and, separately, a damaged image of its own: the
  // tables checksum made to match, as a hostile container would. Kernel 0 (vector_add) is intact.
  const auto good = sample_blob();
  const container intact = container::parse(good.data(), good.size());
  const kernel_info& mm = intact.kernel(1);
  REQUIRE(mm.name == "matmul");
  const std::uint32_t mm_arg = load_u32(good.data() + rec(good, F::sec_kernels, 1) + F::kernel_rec::first_arg);
  const std::uint32_t mm_image = mm.variants[0].images[0];
  for (const auto& [name, offset] : std::vector<std::pair<std::string, std::uint64_t>>{
           {"args[" + std::to_string(mm_arg) + "].type", rec(good, F::sec_args, mm_arg) + F::arg_rec::type + 4},
           {"images[" + std::to_string(mm_image) + "].warp_size", rec(good, F::sec_images, mm_image) + F::image_rec::warp_size}}) {
    CAPTURE(name);
    auto b = good;
    put(b, offset, 4, name.find("warp_size") != std::string::npos ? 48 : 0);
    fix_checksum(b);
    const container c = container::parse(b.data(), b.size());  // the structure is intact
    const kernel_info& va = c.kernel(0);
    CHECK(va.name == "vector_add");
    for (std::uint32_t i : va.variants[0].images) CHECK(c.decode_image(i) == intact.decode_image(i));
    for (int attempt = 0; attempt < 2; ++attempt) {  // refused on every use, not only the first
      try {
        (void)c.kernel(1);
        FAIL("kernel 1 was built from a damaged record");
      } catch (const error& e) {
        CHECK(e.code() == errc::bad_container);
        CHECK_MESSAGE(std::string(e.what()).find("kernel matmul of container \"sample\": " + name + ": ") != std::string::npos,
                      e.what());
        CHECK_MESSAGE(std::string(e.what()).find("pack the kernels again") != std::string::npos, e.what());
      }
    }
    CHECK_THROWS_AS((void)c.info(), error);
    CHECK(c.kernel(0).name == "vector_add");  // a failed build leaves the built kernels as they were
    CHECK(c.find_kernel("matmul") == 1);      // names are read in place, checked at parse
  }
}

TEST_CASE("image_tools must hold one record per image (v3 and later)") {
  // Drop the last image_tools record and move the sections after it up by its 8 bytes: a layout
  // that is valid in every other respect. Both in a container of today's format and in the v3
  // golden one, the first version with the section (a check keyed to today's version alone would
  // let the v3 file through with its provenance "not recorded").
  auto drop_last_record = [](std::vector<std::uint8_t> b) {
    const std::uint64_t end = section_offset(b, F::sec_image_tools) + section_size(b, F::sec_image_tools);
    b.erase(b.begin() + static_cast<std::ptrdiff_t>(end - 8), b.begin() + static_cast<std::ptrdiff_t>(end));
    auto entry = [&](std::uint32_t s) { return b.data() + F::header::sections + s * F::header::section_entry_size; };
    store_u64(entry(F::sec_image_tools) + 8, section_size(b, F::sec_image_tools) - 8);
    for (std::uint32_t s = F::sec_image_tools + 1; s < F::section_count; ++s) store_u64(entry(s), section_offset(b, s) - 8);
    store_u64(b.data() + F::header::total_size, b.size());
    fix_checksum(b);
    return b;
  };
  std::ifstream in(std::string(TP_GOLDEN_DIR) + "/v3/sample.tpk", std::ios::binary);
  const std::vector<std::uint8_t> v3((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  REQUIRE(v3.size() > F::header::size);
  REQUIRE(load_u32(v3.data() + F::header::version) == 3);
  REQUIRE(parse_error(v3).empty());
  for (const auto& [what, good] : {std::pair<std::string, std::vector<std::uint8_t>>{"today's format", sample_blob()},
                                   {"v3 golden", v3}}) {
    CAPTURE(what);
    const std::string m = parse_error(drop_last_record(good));
    CHECK_MESSAGE(m.find("sections.image_tools") != std::string::npos, m);
    CHECK_MESSAGE(m.find("one per image") != std::string::npos, m);
  }
}

TEST_CASE("a v2 container still has header bytes 56-63 reserved (v3 made them triton_commit)") {
  std::ifstream in(std::string(TP_GOLDEN_DIR) + "/v2/layout.tpk", std::ios::binary);
  std::vector<std::uint8_t> b((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  REQUIRE(b.size() > F::header::size_v2);
  REQUIRE(parse_error(b).empty());
  b[F::header::triton_commit + 4] = 1;  // as if a one-byte commit string
  // The tables checksum, with v2's data section (its last, entry 16) where the hashed bytes end.
  const std::uint64_t covered = load_u64(b.data() + F::header::sections + 16 * F::header::section_entry_size);
  store_u64(b.data() + F::header::tables_checksum, 0);
  store_u64(b.data() + F::header::tables_checksum, xxh64(b.data(), static_cast<std::size_t>(covered)));
  const std::string m = parse_error(b);
  CHECK_MESSAGE(m.find("header.reserved") != std::string::npos, m);
}

TEST_CASE("a damaged tables checksum is refused") {
  auto b = sample_blob();
  b[F::header::tables_checksum] ^= 1;
  const std::string m = parse_error(b);
  CHECK(m.find("header.tables_checksum") != std::string::npos);
  CHECK(m.find("the container is damaged; its bytes changed after `tritonpack pack` wrote them; rebuild the program") != std::string::npos);
}

TEST_CASE("an unconstrained field changed without fixing the checksum is refused by the checksum") {
  const auto good = sample_blob();
  const std::uint64_t im = rec(good, F::sec_images, 0);
  for (std::size_t off : {F::image_rec::shared, F::image_rec::tmem_size, F::image_rec::global_scratch_size,
                          F::image_rec::profile_scratch_size}) {
    auto b = good;
    b[im + off] ^= 0x40;
    CHECK(parse_error(b).find("header.tables_checksum") != std::string::npos);
  }
  auto b = good;
  b[rec(good, F::sec_variants, 0) + F::variant_rec::num_stages] ^= 1;
  CHECK(parse_error(b).find("header.tables_checksum") != std::string::npos);
}

TEST_CASE("image checksums are verified on decode: a mismatch is damage, naming the image and its kernel") {
  auto b = sample_blob();
  store_u64(b.data() + rec(b, F::sec_images, 0) + F::image_rec::checksum, 12345);
  fix_checksum(b);
  const container c = container::parse(b.data(), b.size());
  const error e = [&] {
    try {
      (void)c.decode_image(0);
    } catch (const error& x) {
      return x;
    }
    return error(errc::bad_argument, "no error");
  }();
  CHECK(e.code() == errc::bad_container);
  const std::string m = e.what();
  CHECK_MESSAGE(m.find("container \"sample\" is damaged: image 0 (cuda cubin sm_90a) of kernel vector_add") != std::string::npos, m);
  CHECK_MESSAGE(m.find("0x0000000000003039 recorded for it") != std::string::npos, m);
  CHECK_MESSAGE(m.find("rebuild the program") != std::string::npos, m);
  CHECK_MESSAGE(m.find("tritonpack inspect") != std::string::npos, m);
  CHECK_NOTHROW(c.decode_image(1));
  const std::vector<image_damage> d = c.find_damage();
  REQUIRE(d.size() == 1);
  CHECK(d[0].image == 0);
  CHECK(c.describe_image(6) == "image 6 (hip llir gfx90a:xnack-) of kernel matmul");
}

namespace {

// Flips every byte of `good` in turn. A flip in the header, tables or dictionary is refused at
// parse (the tables checksum covers them). A flip in the data section — frame headers, compressed
// payload, zstd block headers and content checksums, stored images — must leave each image either
// decoding to exactly its original bytes (zstd never reads some payload bits) or refused with
// errc::bad_container saying the container is damaged and naming the image and its kernel, as
// decode_image (the run time's path) and find_damage (`tritonpack inspect`'s) both report it.
void flip_every_byte(const std::vector<std::uint8_t>& good, const std::vector<std::vector<std::uint8_t>>& originals) {
  const container intact = container::parse(good.data(), good.size());
  const std::uint64_t data_start = section_offset(good, F::sec_data);
  std::vector<std::string> names;  // "image 3 (cuda cubin sm_80) of kernel vector_add"
  for (std::uint32_t k = 0; k < originals.size(); ++k) names.push_back(intact.describe_image(k));
  int at_parse = 0, at_decode = 0, harmless = 0;
  for (std::size_t i = 0; i < good.size(); ++i) {
    auto b = good;
    b[i] ^= 0x5A;
    std::optional<container> c;
    try {
      c.emplace(container::parse(b.data(), b.size()));
    } catch (const error& e) {
      CHECK(e.code() == errc::bad_container);
      ++at_parse;
      continue;
    }
    CAPTURE(i);
    REQUIRE_MESSAGE(i >= data_start, "a flip in the header or tables was accepted");
    // Only the images of the frame holding the byte can change (the others' bytes are untouched);
    // decode those, and expect find_damage to list exactly the ones refused.
    std::uint32_t frame = 0;
    while (frame + 1 < c->frames().size() && c->frames()[frame + 1].offset <= i) ++frame;
    const frame_view& f = c->frames()[frame];
    std::vector<std::uint32_t> refused;
    for (std::uint32_t k = f.first_image; k < f.first_image + f.image_count; ++k) {
      try {
        const bool same = c->decode_image(k) == originals[k];
        CHECK_MESSAGE(same, "image " << k << " decoded to different bytes without an error");
      } catch (const error& e) {
        refused.push_back(k);
        const std::string m = e.what();
        CHECK(e.code() == errc::bad_container);
        CHECK_MESSAGE(m.find("container \"sample\" is damaged: " + names[k]) != std::string::npos, m);
        CHECK_MESSAGE(m.find("rebuild the program") != std::string::npos, m);
      }
    }
    std::vector<std::uint32_t> found;
    for (const image_damage& d : c->find_damage()) found.push_back(d.image);
    CHECK(found == refused);
    if (refused.empty()) ++harmless;
    else ++at_decode;
  }
  CHECK(at_parse >= static_cast<int>(data_start));
  CHECK(at_decode > 0);
  MESSAGE(at_parse << " flips refused at parse, " << at_decode << " at decode, " << harmless
                   << " in compressed payload bits zstd does not read (decoded bytes unchanged)");
}

}  // namespace

TEST_CASE("every single-byte flip is refused as damage, or (inside compressed payload) changes nothing") {
  const auto originals = tp_test::sample_images();
  SUBCASE("zstd frames holding several images") { flip_every_byte(sample_blob(), originals); }
  SUBCASE("stored binaries (--store-binaries)") {
    pack::write_options opt;
    opt.store_binaries = true;
    flip_every_byte(pack::write_container(tp_test::sample_info(), originals, opt), originals);
  }
  SUBCASE("one frame per image") {
    pack::write_options opt;
    opt.grouping = pack::frame_grouping::per_image;
    flip_every_byte(pack::write_container(tp_test::sample_info(), originals, opt), originals);
  }
}

TEST_CASE("every truncation and any trailing byte is refused") {
  const auto good = sample_blob();
  for (std::size_t n = 0; n < good.size(); ++n) {
    CAPTURE(n);
    const std::string msg = [&] {
      try {
        (void)container::parse(good.data(), n);
      } catch (const error& e) {
        return std::string(e.what());
      }
      return std::string();
    }();
    CHECK(!msg.empty());
    if (n >= F::header::size) CHECK(msg.find("header.total_size") != std::string::npos);
  }
  auto longer = good;
  longer.push_back(0);
  CHECK(parse_error(longer).find("trailing bytes") != std::string::npos);
  CHECK_THROWS_AS(container::parse(nullptr, 10), error);
  CHECK_THROWS_AS(container::parse(nullptr, 0), error);
}

TEST_CASE("a frame whose zstd header disagrees with the table is refused") {
  auto good = sample_blob();
  const container c = container::parse(good.data(), good.size());
  // Find a zstd frame and claim a different raw size for it and its last image.
  std::uint32_t z = 0;
  while (z < c.frames().size() && c.frames()[z].codec != F::codec_zstd) ++z;
  REQUIRE(z < c.frames().size());
  auto b = good;
  const std::uint64_t fr = rec(b, F::sec_frames, z);
  store_u64(b.data() + fr + F::frame_rec::raw_size, c.frames()[z].raw_size + 1);
  const std::uint32_t last = c.frames()[z].first_image + c.frames()[z].image_count - 1;
  const std::uint64_t im = rec(b, F::sec_images, last);
  store_u64(b.data() + im + F::image_rec::raw_size, load_u64(b.data() + im + F::image_rec::raw_size) + 1);
  fix_checksum(b);
  // The tables are consistent, so parse accepts them; the frame's own header is checked when the
  // frame is decoded, and by verify_frames() for the whole container.
  REQUIRE(parse_error(b).empty());
  const container bad = container::parse(b.data(), b.size());
  for (const auto& what : {std::function<void()>([&] { bad.verify_frames(); }),
                           std::function<void()>([&] { (void)bad.decode_image(last); })}) {
    std::string msg;
    try {
      what();
    } catch (const error& e) {
      CHECK(e.code() == errc::bad_container);
      msg = e.what();
    }
    CHECK(msg.find("frames[" + std::to_string(z) + "]") != std::string::npos);
    CHECK(msg.find("zstd frame header says") != std::string::npos);
  }
  // Frames other than the damaged one still decode.
  for (std::uint32_t f = 0; f < bad.frames().size(); ++f)
    if (f != z) CHECK(bad.decode_image(bad.frames()[f].first_image).size() == bad.info().images[bad.frames()[f].first_image].raw_size);
}

TEST_CASE("images must tile their frames: a gap, an overlap and an empty frame are refused") {
  const auto good = sample_blob();
  SUBCASE("overlap: second image starts inside the first") {
    auto b = good;
    const std::uint64_t im = rec(b, F::sec_images, 1);
    store_u64(b.data() + im + F::image_rec::frame_offset, load_u64(b.data() + im + F::image_rec::frame_offset) - 1);
    fix_checksum(b);
    CHECK(parse_error(b).find("images[1].frame_offset") != std::string::npos);
  }
  SUBCASE("frame raw size larger than its images") {
    auto b = good;
    // A stored frame: the 1-byte-image frames of the sample are stored ones.
    const container c = container::parse(good.data(), good.size());
    std::uint32_t z = 0;
    while (z < c.frames().size() && c.frames()[z].codec != F::codec_stored) ++z;
    REQUIRE(z < c.frames().size());
    const std::uint64_t fr = rec(b, F::sec_frames, z);
    store_u64(b.data() + fr + F::frame_rec::raw_size, c.frames()[z].raw_size + 1);
    fix_checksum(b);
    CHECK(parse_error(b).find("frames[" + std::to_string(z) + "]") != std::string::npos);
  }
}

TEST_CASE("a zstd frame followed by extra bytes inside its stored_size is refused, naming both sizes") {
  // The tables stay consistent (frames still tile the data section, checksum recomputed): only
  // the frame's own bytes show that stored_size covers more than one zstd frame.
  const auto good = sample_blob();
  const container c = container::parse(good.data(), good.size());
  std::uint32_t z = 0;
  while (z < c.frames().size() && c.frames()[z].codec != F::codec_zstd) ++z;
  REQUIRE(z < c.frames().size());
  constexpr std::uint64_t extra = 4;
  auto b = good;
  const std::uint64_t data = section_offset(b, F::sec_data);
  const std::uint64_t fr = rec(b, F::sec_frames, z);
  const std::uint64_t end_of_z = data + load_u64(b.data() + fr + F::frame_rec::offset) + c.frames()[z].stored_size;
  b.insert(b.begin() + static_cast<std::ptrdiff_t>(end_of_z), extra, std::uint8_t{0});
  store_u64(b.data() + fr + F::frame_rec::stored_size, c.frames()[z].stored_size + extra);
  for (std::uint32_t f = z + 1; f < c.frames().size(); ++f) {
    const std::uint64_t r = rec(b, F::sec_frames, f);
    store_u64(b.data() + r + F::frame_rec::offset, load_u64(b.data() + r + F::frame_rec::offset) + extra);
  }
  const std::size_t data_size_field = F::header::sections + F::sec_data * F::header::section_entry_size + 8;
  store_u64(b.data() + data_size_field, section_size(b, F::sec_data) + extra);
  store_u64(b.data() + F::header::total_size, b.size());
  fix_checksum(b);
  REQUIRE(parse_error(b).empty());
  const container bad = container::parse(b.data(), b.size());
  std::string msg;
  try {
    bad.verify_frames();
  } catch (const error& e) {
    CHECK(e.code() == errc::bad_container);
    msg = e.what();
  }
  CHECK(msg.find("frames[" + std::to_string(z) + "]") != std::string::npos);
  CHECK(msg.find("zstd frame is " + std::to_string(c.frames()[z].stored_size) + " bytes, stored_size says " +
                 std::to_string(c.frames()[z].stored_size + extra)) != std::string::npos);
}

TEST_CASE("frames must follow each other: a frame starting inside the previous one is refused, naming its offset") {
  // Only a frame after the first can start too early; frames[0].offset = 1 (a gap) is covered by
  // the per-field sweep above. The final data-size check alone would not name the frame.
  auto b = sample_blob();
  const container c = container::parse(b.data(), b.size());
  REQUIRE(c.frames().size() >= 2);
  const std::uint64_t fr = rec(b, F::sec_frames, 1);
  store_u64(b.data() + fr + F::frame_rec::offset, load_u64(b.data() + fr + F::frame_rec::offset) - 1);
  fix_checksum(b);
  const std::string msg = parse_error(b);
  CHECK(msg.find("frames[1].offset") != std::string::npos);
  CHECK(msg.find("frames follow each other") != std::string::npos);
}

TEST_CASE("a zstd frame made with the dictionary but flagged as not using it is refused, naming the dictionary") {
  // A container with a trained dictionary (as in the round trip), then one dictionary frame's flag
  // cleared with the checksum fixed: the tables are consistent, only the frame's own header (its
  // dictionary ID) shows the damage. Without the check, zstd would fail with its own, vaguer error.
  const tp_test::dictionary_sample sample = tp_test::make_dictionary_sample("dict");
  const container_info& in = sample.info;
  const auto& bytes = sample.images;
  pack::write_options opt;
  opt.dictionary_size = 4096;
  auto b = pack::write_container(in, bytes, opt);
  const container good = container::parse(b.data(), b.size());
  std::uint32_t z = 0;
  while (z < good.frames().size() && !(good.frames()[z].uses_dictionary && good.frames()[z].codec == F::codec_zstd)) ++z;
  REQUIRE(z < good.frames().size());
  const std::uint64_t fr = rec(b, F::sec_frames, z);
  store_u32(b.data() + fr + F::frame_rec::flags, load_u32(b.data() + fr + F::frame_rec::flags) & ~F::frame_rec::flag_dictionary);
  fix_checksum(b);
  REQUIRE(parse_error(b).empty());
  const container bad = container::parse(b.data(), b.size());
  std::string msg;
  try {
    (void)bad.decode_image(bad.frames()[z].first_image);
  } catch (const error& e) {
    CHECK(e.code() == errc::bad_container);
    msg = e.what();
  }
  CHECK(msg.find("frames[" + std::to_string(z) + "]") != std::string::npos);
  CHECK(msg.find("the frame's dictionary flag is clear") != std::string::npos);
}

namespace {
// A container with a trained dictionary (frames per_target: each image alone in a frame that uses
// it), and the index of the first frame that does.
std::vector<std::uint8_t> dictionary_container(std::uint32_t& dict_frame) {
  const tp_test::dictionary_sample sample = tp_test::make_dictionary_sample("dict");
  pack::write_options opt;
  opt.dictionary_size = 4096;
  opt.grouping = pack::frame_grouping::per_target;
  auto b = pack::write_container(sample.info, sample.images, opt);
  const container good = container::parse(b.data(), b.size());
  dict_frame = 0;
  while (dict_frame < good.frames().size() && !good.frames()[dict_frame].uses_dictionary) ++dict_frame;
  REQUIRE(dict_frame < good.frames().size());
  REQUIRE(good.dictionary_size() > 8);
  return b;
}
}  // namespace

TEST_CASE("a dictionary zstd cannot load parses, and each image that needs it is reported damaged, naming the dictionary") {
  // The dictionary is digested on first use, not at parse time (a first launch that needs no
  // dictionary frame never pays for it): a dictionary whose entropy tables are garbage, with the
  // tables checksum made valid again, is found where a frame needs it, as damage of that image.
  std::uint32_t z = 0;
  auto b = dictionary_container(z);
  const std::uint64_t at = tp_test::section_offset(b, F::sec_dictionary);
  const std::uint64_t size = tp_test::section_size(b, F::sec_dictionary);
  for (std::uint64_t i = 8; i < size; ++i) b[at + i] = 0xFF;  // keep the magic and the id
  fix_checksum(b);
  REQUIRE(parse_error(b).empty());
  const container bad = container::parse(b.data(), b.size());
  const std::uint32_t image = bad.frames()[z].first_image;
  std::string msg;
  for (int attempt = 0; attempt < 2; ++attempt) {  // a failure is not cached as a success
    msg.clear();
    try {
      (void)bad.decode_image(image);
    } catch (const error& e) {
      CHECK(e.code() == errc::bad_container);
      msg = e.what();
    }
    CHECK(msg.find("container \"dict\" is damaged: " + bad.describe_image(image)) != std::string::npos);
    CHECK(msg.find("frames[" + std::to_string(z) + "]: the dictionary section (" + std::to_string(size) +
                   " bytes) is not a dictionary zstd can load") != std::string::npos);
  }
  // `tritonpack inspect`'s check finds every image of every frame that uses it.
  const std::vector<image_damage> damage = bad.find_damage();
  std::size_t dictionary_frames = 0;
  for (const frame_view& f : bad.frames()) dictionary_frames += f.uses_dictionary ? f.image_count : 0;
  CHECK(damage.size() == dictionary_frames);
  for (const image_damage& d : damage) CHECK(d.reason.find("not a dictionary zstd can load") != std::string::npos);
}

TEST_CASE("a dictionary section above 16 MiB is refused at parse, naming its size") {
  // 16 MiB of zeros appended to a real dictionary, the data section moved behind it, the header
  // and checksum made consistent: only the bound on the dictionary's size refuses it.
  std::uint32_t z = 0;
  auto b = dictionary_container(z);
  const std::uint64_t grow = F::max_dictionary_size;  // a multiple of 8: the data stays aligned
  const std::uint64_t dict_at = tp_test::section_offset(b, F::sec_dictionary);
  const std::uint64_t dict_size = tp_test::section_size(b, F::sec_dictionary);
  const std::uint64_t data_at = tp_test::section_offset(b, F::sec_data);
  REQUIRE(data_at >= dict_at + dict_size);
  b.insert(b.begin() + static_cast<std::ptrdiff_t>(dict_at + dict_size), static_cast<std::size_t>(grow), 0);
  std::uint8_t* entries = b.data() + F::header::sections;
  store_u64(entries + F::sec_dictionary * F::header::section_entry_size + 8, dict_size + grow);
  store_u64(entries + F::sec_data * F::header::section_entry_size, data_at + grow);
  store_u64(b.data() + F::header::total_size, b.size());
  fix_checksum(b);
  const std::string msg = parse_error(b);
  CHECK(msg.find("sections.dictionary.size") != std::string::npos);
  CHECK(msg.find("is " + std::to_string(dict_size + grow) + ", above the 16777216-byte limit on a dictionary") !=
        std::string::npos);
}

namespace {
// The sample container with image `big` replaced by 200 KiB that compress to about half, alone in its
// frame, whose zstd frame header, frame record and image record then all claim `claimed` bytes:
// consistent tables (parse accepts them), a frame header that lies about what its blocks hold.
struct bomb {
  std::vector<std::uint8_t> blob;
  std::uint32_t image = 0;
};
bomb frame_claiming(std::uint64_t claimed) {
  auto images = tp_test::sample_images();
  std::uint32_t big = 0;
  for (std::uint32_t i = 0; i < images.size(); ++i)
    if (images[i].size() > images[big].size()) big = i;
  images[big].assign(200 << 10, 0);  // half random, half zeros: compressed (zstd), to about 100 KiB
  std::uint32_t x = 12345;
  for (std::size_t i = 0; i < images[big].size() / 2; ++i)
    images[big][i] = static_cast<std::uint8_t>((x = x * 1103515245u + 12345u) >> 24);
  pack::write_options opt;
  opt.grouping = pack::frame_grouping::per_image;
  bomb out{pack::write_container(tp_test::sample_info(), images, opt), big};
  auto& b = out.blob;
  const container c = container::parse(b.data(), b.size());
  const std::uint32_t z = c.frame_of(big);
  REQUIRE(c.frames()[z].codec == F::codec_zstd);
  REQUIRE(c.frames()[z].image_count == 1);
  std::uint8_t* frame = b.data() + c.frames()[z].offset;
  const unsigned fhd = frame[4];
  REQUIRE((fhd >> 6) == 2);  // a 4-byte content size field
  const std::size_t fcs = 5 + (((fhd >> 5) & 1) ? 0 : 1) + std::size_t{fhd & 3 ? 1u << ((fhd & 3) - 1) : 0u};
  store_u32(frame + fcs, static_cast<std::uint32_t>(claimed));
  store_u64(b.data() + rec(b, F::sec_frames, z) + F::frame_rec::raw_size, claimed);
  store_u64(b.data() + rec(b, F::sec_images, big) + F::image_rec::raw_size, claimed);
  fix_checksum(b);
  REQUIRE(parse_error(b).empty());
  return out;
}

// AddressSanitizer replaces the allocator: it touches a shadow byte for every 8 allocated (256 MiB
// for a 2 GiB block) and aborts on a failed mmap instead of returning null. The two memory checks
// below measure glibc's allocator, so under ASan they say they are skipped (the ctest step runs
// them on the plain build).
#if defined(__SANITIZE_ADDRESS__)
constexpr bool under_asan = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool under_asan = true;
#else
constexpr bool under_asan = false;
#endif
#else
constexpr bool under_asan = false;
#endif

long max_rss_kib() {
  struct rusage u {};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}
}  // namespace

TEST_CASE("a frame header that claims gigabytes it does not hold costs no fill of that memory") {
  const bomb bm = frame_claiming(std::uint64_t{2} << 30);  // 2 GiB, ~100 KiB stored: within the limits
  const container c = container::parse(bm.blob.data(), bm.blob.size());
  const long before = max_rss_kib();
  std::string msg;
  try {
    (void)c.decode_image(bm.image);
  } catch (const error& e) {
    CHECK(e.code() == errc::bad_container);
    msg = e.what();
  }
  CHECK(msg.find(" is damaged: ") != std::string::npos);
  const auto damage = c.find_damage();
  REQUIRE(damage.size() == 1);
  CHECK(damage[0].image == bm.image);
  // Neither touched the 2 GiB (before: decode_image zero-filled them, then learnt the frame lied).
  // glibc's MALLOC_PERTURB_ (which `meson test` sets) fills every allocation on purpose: there the
  // pages are touched by the test harness's request, so the measure says nothing and is skipped.
  const char* perturb = std::getenv("MALLOC_PERTURB_");
  if (perturb && *perturb && std::string(perturb) != "0") {
    MESSAGE("MALLOC_PERTURB_=" << perturb << " fills every allocation: the untouched-pages check is skipped");
    return;
  }
  if (under_asan) {
    MESSAGE("AddressSanitizer's allocator touches shadow memory for every allocation: the untouched-pages check is skipped");
    return;
  }
  CHECK(max_rss_kib() - before < 256 * 1024);
}

TEST_CASE("memory that cannot be had for a decode is errc::out_of_memory, not std::bad_alloc (child process)") {
  if (under_asan) {
    MESSAGE("skipped under AddressSanitizer: its allocator aborts on a failed mmap instead of returning null");
    return;
  }
  const bomb bm = frame_claiming(std::uint64_t{2} << 30);
  const container c = container::parse(bm.blob.data(), bm.blob.size());
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    struct rlimit lim {};
    lim.rlim_cur = lim.rlim_max = rlim_t{1} << 30;  // an address space of 1 GiB: 2 GiB cannot be had
    if (setrlimit(RLIMIT_AS, &lim) != 0) _exit(4);
    int rc = 5;
    for (int which = 0; which < 2; ++which) {
      try {
        if (which == 0) (void)c.decode_image(bm.image);
        else (void)c.find_damage();
        rc = 6;  // no error at all
      } catch (const error& e) {
        rc = e.code() == errc::out_of_memory && std::string(e.what()).find("not enough host memory to decode image") != std::string::npos ? 0 : 1;
      } catch (const std::bad_alloc&) {
        rc = 2;
      } catch (...) {
        rc = 3;
      }
      if (rc != 0) break;
    }
    _exit(rc);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  REQUIRE(WIFEXITED(status));
  if (WEXITSTATUS(status) == 4) {
    MESSAGE("skipped: setrlimit(RLIMIT_AS) failed");
    return;
  }
  CHECK(WEXITSTATUS(status) == 0);
}

TEST_CASE("find_damage agrees with decode_image on a damaged frame of many images, decoding it once") {
  pack::write_options opt;
  opt.grouping = pack::frame_grouping::per_kernel;
  auto b = pack::write_container(tp_test::sample_info(), tp_test::sample_images(), opt);
  const container good = container::parse(b.data(), b.size());
  std::uint32_t z = 0;
  for (std::uint32_t f = 0; f < good.frames().size(); ++f)
    if (good.frames()[f].codec == F::codec_zstd && good.frames()[f].image_count > good.frames()[z].image_count) z = f;
  REQUIRE(good.frames()[z].image_count >= 3);
  for (std::uint64_t at = good.frames()[z].stored_size / 2; at < good.frames()[z].stored_size; at += 7) {
    auto d = b;
    d[good.frames()[z].offset + at] ^= 0x5a;
    const container c = container::parse(d.data(), d.size());
    std::set<std::uint32_t> found;
    for (const image_damage& x : c.find_damage()) found.insert(x.image);
    for (std::uint32_t i = 0; i < c.info().images.size(); ++i) {
      bool refused = false;
      try {
        (void)c.decode_image(i);
      } catch (const error&) {
        refused = true;
      }
      CHECK_MESSAGE(refused == (found.count(i) != 0), "byte " << at << " image " << i);
    }
  }
}

TEST_CASE(
    "zstd's frame checksum is left to each image's XXH64: a flipped trailer byte is no damage") {
  // The packer writes zstd's content checksum (the frame's last 4 bytes); the reader checks every
  // image it hands out against the XXH64 the container records for it instead (codec::fresh_dctx),
  // so the trailer changes nothing that is used: decode_image and find_damage both still give
  // the packed bytes. A flip in the bytes an image decodes from is still refused (the flip tests).
  const auto originals = tp_test::sample_images();
  for (const auto grouping : {pack::frame_grouping::per_image, pack::frame_grouping::per_kernel}) {
    pack::write_options opt;
    opt.grouping = grouping;
    const auto good = pack::write_container(tp_test::sample_info(), originals, opt);
    const container intact = container::parse(good.data(), good.size());
    int flipped = 0;
    for (const frame_view& f : intact.frames()) {
      if (f.codec != F::codec_zstd) continue;
      auto b = good;
      b[f.offset + f.stored_size - 1] ^= 0x5A;  // the checksum's last byte
      const container c = container::parse(b.data(), b.size());
      for (std::uint32_t k = f.first_image; k < f.first_image + f.image_count; ++k) {
        CAPTURE(k);
        CHECK(c.decode_image(k) == originals[k]);
      }
      CHECK(c.find_damage().empty());
      ++flipped;
    }
    CHECK(flipped > 0);
  }
}
