// Round trips through write_container and container::parse: every model field survives, every
// image decodes byte-exact, for each frame grouping and with a dictionary.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "sample_model.hpp"
#include "tritonpack/container/reader.hpp"
#include "tritonpack/pack/container_writer.hpp"

using namespace tritonpack;
namespace F = tritonpack::format;

namespace {

void check_same_model(const container_info& a, const container_info& b) {
  CHECK(a.format_version == b.format_version);
  CHECK(a.name == b.name);
  CHECK(a.triton_version == b.triton_version);
  CHECK(a.triton_commit == b.triton_commit);
  REQUIRE(a.kernels.size() == b.kernels.size());
  for (std::size_t k = 0; k < a.kernels.size(); ++k) {
    const kernel_info &x = a.kernels[k], &y = b.kernels[k];
    CHECK(x.name == y.name);
    CHECK(x.source == y.source);
    CHECK(x.grid == y.grid);
    REQUIRE(x.args.size() == y.args.size());
    for (std::size_t i = 0; i < x.args.size(); ++i) {
      CHECK(x.args[i].name == y.args[i].name);
      CHECK(x.args[i].type == y.args[i].type);
      CHECK(x.args[i].is_const == y.args[i].is_const);
    }
    REQUIRE(x.variants.size() == y.variants.size());
    for (std::size_t v = 0; v < x.variants.size(); ++v) {
      const variant_info &p = x.variants[v], &q = y.variants[v];
      REQUIRE(p.specs.size() == q.specs.size());
      for (std::size_t s = 0; s < p.specs.size(); ++s) {
        CHECK(p.specs[s].kind == q.specs[s].kind);
        CHECK(p.specs[s].value == q.specs[s].value);
      }
      CHECK(p.config.num_warps == q.config.num_warps);
      CHECK(p.config.num_stages == q.config.num_stages);
      CHECK(p.config.num_ctas == q.config.num_ctas);
      CHECK(p.config.constexprs == q.config.constexprs);
      CHECK(p.images == q.images);
    }
    const kernel_tuning &s = x.tuning, &t = y.tuning;
    CHECK(s.config_count == t.config_count);
    CHECK(s.on_first_use == t.on_first_use);
    REQUIRE(s.args.size() == t.args.size());
    for (std::size_t i = 0; i < s.args.size(); ++i) {
      CHECK(s.args[i].arg == t.args[i].arg);
      CHECK(s.args[i].role == t.args[i].role);
      CHECK(s.args[i].bytes == t.args[i].bytes);
      if (s.args[i].role == tune_role::key) CHECK(s.args[i].bucket == t.args[i].bucket);
    }
    REQUIRE(s.table.size() == t.table.size());
    for (std::size_t i = 0; i < s.table.size(); ++i) {
      CHECK(s.table[i].device == t.table[i].device);
      CHECK(s.table[i].bucket == t.table[i].bucket);
      CHECK(s.table[i].config == t.table[i].config);
      CHECK(s.table[i].times_ns == t.table[i].times_ns);
    }
  }
  REQUIRE(a.images.size() == b.images.size());
  for (std::size_t i = 0; i < a.images.size(); ++i) {
    const image_info &x = a.images[i], &y = b.images[i];
    CHECK(x.backend == y.backend);
    CHECK(x.kind == y.kind);
    CHECK(x.arch == y.arch);
    CHECK(x.ptx_version == y.ptx_version);
    CHECK(x.tool_version == y.tool_version);
    const launch_info &l = x.launch, &m = y.launch;
    CHECK(l.entry == m.entry);
    CHECK(l.num_warps == m.num_warps);
    CHECK(l.warp_size == m.warp_size);
    CHECK(l.shared == m.shared);
    CHECK(l.num_ctas == m.num_ctas);
    CHECK(l.tmem_size == m.tmem_size);
    CHECK(l.global_scratch_size == m.global_scratch_size);
    CHECK(l.global_scratch_align == m.global_scratch_align);
    CHECK(l.profile_scratch_size == m.profile_scratch_size);
    CHECK(l.profile_scratch_align == m.profile_scratch_align);
    CHECK(l.launch_cooperative_grid == m.launch_cooperative_grid);
    CHECK(l.launch_pdl == m.launch_pdl);
    CHECK(l.triton_version == m.triton_version);
    REQUIRE(l.tensordesc.size() == m.tensordesc.size());
    for (std::size_t t = 0; t < l.tensordesc.size(); ++t) {
      CHECK(l.tensordesc[t].swizzle == m.tensordesc[t].swizzle);
      CHECK(l.tensordesc[t].elem_size == m.tensordesc[t].elem_size);
      CHECK(l.tensordesc[t].elem_type == m.tensordesc[t].elem_type);
      CHECK(l.tensordesc[t].block_size == m.tensordesc[t].block_size);
      CHECK(l.tensordesc[t].fp4_padded == m.tensordesc[t].fp4_padded);
    }
  }
}

void round_trip(const pack::write_options& opt) {
  const container_info in = tp_test::sample_info();
  const auto bytes = tp_test::sample_images();
  const std::vector<std::uint8_t> blob = pack::write_container(in, bytes, opt);
  const container c = container::parse(blob.data(), blob.size());
  check_same_model(in, c.info());
  std::uint64_t stored_total = 0, frames_total = 0;
  for (std::uint32_t i = 0; i < c.info().images.size(); ++i) {
    CAPTURE(i);
    CHECK(c.info().images[i].raw_size == bytes[i].size());
    CHECK(c.info().images[i].checksum == xxh64(bytes[i].data(), bytes[i].size()));
    CHECK(c.decode_image(i) == bytes[i]);
    image_view v = c.decode_view(i);  // what a load hands the driver: the same bytes
    CHECK(std::vector<std::uint8_t>(v.data(), v.data() + v.size()) == bytes[i]);
    CHECK(reinterpret_cast<std::uintptr_t>(v.data()) % 8 == 0);
    CHECK(v.take() == bytes[i]);
    stored_total += c.info().images[i].stored_size;
  }
  for (const frame_view& f : c.frames()) frames_total += f.stored_size;
  CHECK(stored_total == frames_total);  // per-image shares add up to the frames' bytes
}

}  // namespace

TEST_CASE("round trip: every frame grouping") {
  for (auto g : {pack::frame_grouping::per_image, pack::frame_grouping::per_kernel_backend, pack::frame_grouping::per_kernel}) {
    CAPTURE(static_cast<int>(g));
    pack::write_options opt;
    opt.grouping = g;
    round_trip(opt);
  }
}

TEST_CASE("the model is built per kernel on first use; parse builds no kernel") {
  const container_info in = tp_test::sample_info();
  const auto bytes = tp_test::sample_images();
  const std::vector<std::uint8_t> blob = pack::write_container(in, bytes);
  const container c = container::parse(blob.data(), blob.size());
  REQUIRE(c.kernel_count() == in.kernels.size());
  REQUIRE(c.kernel_count() >= 2);
  for (const auto& k : c.partial_info().kernels) CHECK(k.name.empty());  // nothing built yet
  CHECK(c.find_kernel(in.kernels[1].name) == 1);                         // names are read in place
  CHECK(c.find_kernel("no_such_kernel") == -1);
  CHECK(c.partial_info().kernels[1].name.empty());
  const kernel_info& k1 = c.kernel(1);
  CHECK(k1.name == in.kernels[1].name);
  CHECK(c.partial_info().kernels[0].name.empty());  // only what was asked for
  for (const variant_info& v : k1.variants)
    for (std::uint32_t im : v.images) CHECK(c.partial_info().images[im].arch == in.images[im].arch);
  CHECK(&c.kernel(1) == &k1);  // built once, stable
  // Built kernel by kernel in reverse order, the model equals the one info() builds at once.
  for (std::size_t i = c.kernel_count(); i-- > 0;) c.kernel(i);
  check_same_model(in, c.info());
  CHECK_THROWS_AS(c.kernel(c.kernel_count()), error);
}

TEST_CASE("threads building kernels and the whole model at once agree") {
  const container_info in = tp_test::sample_info();
  const auto bytes = tp_test::sample_images();
  const std::vector<std::uint8_t> blob = pack::write_container(in, bytes);
  for (int round = 0; round < 20; ++round) {
    const container c = container::parse(blob.data(), blob.size());
    std::vector<std::thread> ts;
    std::atomic<int> wrong{0};
    for (int t = 0; t < 8; ++t)
      ts.emplace_back([&, t] {
        const std::size_t n = c.kernel_count();
        for (std::size_t j = 0; j < n; ++j) {
          const std::size_t i = (j + static_cast<std::size_t>(t)) % n;
          if (c.kernel(i).name != in.kernels[i].name) ++wrong;
        }
        if (t % 3 == 0 && c.info().kernels.size() != n) ++wrong;
      });
    for (auto& t : ts) t.join();
    CHECK(wrong == 0);
    check_same_model(in, c.info());
  }
}

TEST_CASE("a prefix decodes the same in zstd's own buffers and in place (room for the whole frame)") {
  const auto in = tp_test::sample_info();
  const auto bytes = tp_test::sample_images();
  pack::write_options opt;
  opt.grouping = pack::frame_grouping::per_kernel;  // several images per frame
  const auto blob = pack::write_container(in, bytes, opt);
  const container c = container::parse(blob.data(), blob.size());
  int prefixes = 0;
  for (std::uint32_t i = 0; i < c.info().images.size(); ++i) {
    const frame_view& f = c.frames()[c.frame_of(i)];
    const std::uint64_t end = c.frame_offset(i) + c.info().images[i].raw_size;
    if (f.codec != F::codec_zstd || end == f.raw_size) continue;
    ++prefixes;
    CAPTURE(i);
    const std::uint8_t* p = c.data() + f.offset;
    std::vector<std::uint8_t> own(static_cast<std::size_t>(end)), in_place(static_cast<std::size_t>(f.raw_size), 0xEE);
    char why[256];
    CHECK(codec::decode_zstd_prefix(p, f.stored_size, f.raw_size, nullptr, own.data(), own.size(), own.size(), why) == nullptr);
    CHECK(codec::decode_zstd_prefix(p, f.stored_size, f.raw_size, nullptr, in_place.data(), own.size(), in_place.size(), why) ==
          nullptr);
    CHECK(std::equal(own.begin(), own.end(), in_place.begin()));
    const auto b = own.begin() + static_cast<std::ptrdiff_t>(c.frame_offset(i));
    CHECK(std::vector<std::uint8_t>(b, own.end()) == bytes[i]);
    CHECK(c.decode_image(i) == bytes[i]);
  }
  CHECK(prefixes > 0);
}

TEST_CASE("store_binaries: each binary alone in a stored frame, the IR still compressed, byte-exact") {
  const auto in = tp_test::sample_info();
  const auto bytes = tp_test::sample_images();
  pack::write_options opt;
  opt.store_binaries = true;
  round_trip(opt);
  const auto blob = pack::write_container(in, bytes, opt);
  const container c = container::parse(blob.data(), blob.size());
  std::size_t binaries = 0;
  for (std::uint32_t i = 0; i < c.info().images.size(); ++i) {
    const image_info& im = c.info().images[i];
    const frame_view& f = c.frames()[c.frame_of(i)];
    CAPTURE(i);
    if (im.kind == image_kind::cubin || im.kind == image_kind::hsaco) {
      ++binaries;
      CHECK(f.codec == F::codec_stored);
      CHECK(f.image_count == 1);
      CHECK(f.stored_size == im.raw_size);
    } else {
      // IR is grouped (and compressed) as before, never with a binary.
      for (std::uint32_t j = f.first_image; j < f.first_image + f.image_count; ++j)
        CHECK((c.info().images[j].kind == image_kind::ptx || c.info().images[j].kind == image_kind::llir));
    }
    CHECK(c.decode_image(i) == bytes[i]);
  }
  CHECK(binaries > 0);
}

TEST_CASE("decode_view: a binary is viewed where it lies when 8-aligned, copied when not, checked either way") {
  const auto in = tp_test::sample_info();
  const auto bytes = tp_test::sample_images();
  pack::write_options opt;
  opt.store_binaries = true;  // each binary alone in a stored frame: its bytes lie in the container
  const auto blob = pack::write_container(in, bytes, opt);
  const container c = container::parse(blob.data(), blob.size());
  int in_place = 0, copied = 0;
  std::uint32_t a_binary = 0;
  for (std::uint32_t i = 0; i < c.info().images.size(); ++i) {
    const frame_view& f = c.frames()[c.frame_of(i)];
    if (f.codec != F::codec_stored || bytes[i].empty()) continue;
    CAPTURE(i);
    a_binary = i;
    const std::uint8_t* held = blob.data() + f.offset;
    image_view v = c.decode_view(i);
    CHECK(std::vector<std::uint8_t>(v.data(), v.data() + v.size()) == bytes[i]);
    if (reinterpret_cast<std::uintptr_t>(held) % 8 == 0) {
      CHECK(v.data() == held);  // no copy: the driver reads the container's own bytes
      ++in_place;
    } else {
      CHECK(v.data() != held);  // realigned for the driver's ELF reader
      CHECK(reinterpret_cast<std::uintptr_t>(v.data()) % 8 == 0);
      ++copied;
    }
  }
  // The sample's binaries lie both ways (their sizes are not all multiples of 8).
  CHECK(in_place > 0);
  CHECK(copied > 0);
  // A view is checked like decode_image: a changed byte of a stored binary is damage, named.
  auto damaged = blob;
  damaged[static_cast<std::size_t>(c.frames()[c.frame_of(a_binary)].offset) + bytes[a_binary].size() / 2] ^= 0x40;
  const container d = container::parse(damaged.data(), damaged.size());
  try {
    d.decode_view(a_binary);
    FAIL("a damaged stored binary was handed out");
  } catch (const error& e) {
    CHECK(e.code() == errc::bad_container);
    CHECK(std::string(e.what()).find("is damaged: image " + std::to_string(a_binary)) != std::string::npos);
  }
}

TEST_CASE("decode_identity: what an image's decode is a function of; none with a dictionary or above the limit") {
  constexpr std::uint64_t limit = std::uint64_t{1} << 20;
  const auto blob = pack::write_container(tp_test::sample_info(), tp_test::sample_images());
  const container c = container::parse(blob.data(), blob.size());
  // Two images of one compressed frame: the same frame bytes, other places in it.
  std::uint32_t a = 0, b = 0;
  bool found = false;
  for (std::uint32_t i = 0; i + 1 < c.info().images.size() && !found; ++i)
    if (c.frame_of(i) == c.frame_of(i + 1) && c.frames()[c.frame_of(i)].codec == F::codec_zstd)
      a = i, b = i + 1, found = true;
  REQUIRE(found);
  const frame_view& f = c.frames()[c.frame_of(a)];
  const auto id = c.decode_identity(a, limit);
  REQUIRE(!id.empty());
  CHECK(id == c.decode_identity(a, limit));
  CHECK(id != c.decode_identity(b, limit));
  // One stored byte of the frame changed (parse does not read frames): another identity.
  auto changed = blob;
  changed[static_cast<std::size_t>(f.offset + f.stored_size / 2)] ^= 1;
  const container d = container::parse(changed.data(), changed.size());
  CHECK(d.decode_identity(a, limit).size() == id.size());
  CHECK(d.decode_identity(a, limit) != id);
  // Above the limit, or with the dictionary (its bytes are not in it): none.
  CHECK(c.decode_identity(a, f.stored_size - 1).empty());
  CHECK(!c.decode_identity(a, f.stored_size).empty());
  const tp_test::dictionary_sample sample = tp_test::make_dictionary_sample("many");
  pack::write_options opt;
  opt.dictionary_size = 4096;
  const auto with_dict = pack::write_container(sample.info, sample.images, opt);
  const container e = container::parse(with_dict.data(), with_dict.size());
  bool checked = false;
  for (std::uint32_t i = 0; i < e.info().images.size(); ++i)
    if (e.frames()[e.frame_of(i)].uses_dictionary) {
      CHECK(e.decode_identity(i, limit).empty());
      checked = true;
    }
  CHECK(checked);
}

TEST_CASE("round trip: levels 1 and 22") {
  for (int level : {1, 22}) {
    pack::write_options opt;
    opt.level = level;
    round_trip(opt);
  }
}

TEST_CASE("frame groupings produce the expected number of frames") {
  const auto in = tp_test::sample_info();
  const auto bytes = tp_test::sample_images();
  auto frames = [&](pack::frame_grouping g) {
    pack::write_options opt;
    opt.grouping = g;
    const auto blob = pack::write_container(in, bytes, opt);
    return container::parse(blob.data(), blob.size()).frames().size();
  };
  CHECK(frames(pack::frame_grouping::per_image) == 7);
  // vector_add: cuda(0,1,2) hip(3) cuda(4); matmul: cuda(5) hip(6) — consecutive runs only.
  CHECK(frames(pack::frame_grouping::per_kernel_backend) == 5);
  CHECK(frames(pack::frame_grouping::per_kernel) == 2);
}

TEST_CASE("round trip: with a trained dictionary") {
  const tp_test::dictionary_sample sample = tp_test::make_dictionary_sample("many");
  const container_info& in = sample.info;
  const auto& bytes = sample.images;
  pack::write_options opt;
  opt.dictionary_size = 4096;
  const auto blob = pack::write_container(in, bytes, opt);
  const container c = container::parse(blob.data(), blob.size());
  bool any_dict = false;
  for (const auto& f : c.frames()) any_dict |= f.uses_dictionary;
  CHECK(any_dict);
  for (std::uint32_t i = 0; i < bytes.size(); ++i) CHECK(c.decode_image(i) == bytes[i]);
}

TEST_CASE("with a dictionary and per_target frames: threads decoding at once share one digested dictionary") {
  // The dictionary is digested on the first decode of a frame that uses it (codec::lazy_ddict),
  // whichever thread gets there first; every thread must get every image back byte for byte.
  const tp_test::dictionary_sample sample = tp_test::make_dictionary_sample("many");
  pack::write_options opt;
  opt.dictionary_size = 4096;
  opt.grouping = pack::frame_grouping::per_target;
  const auto blob = pack::write_container(sample.info, sample.images, opt);
  for (int round = 0; round < 10; ++round) {
    const container c = container::parse(blob.data(), blob.size());
    CHECK(c.dictionary_size() > 0);
    CHECK(c.dictionary_size() <= 4096);
    CHECK(c.frames().size() == sample.images.size());  // one image per variant: a frame each
    std::vector<std::thread> ts;
    std::atomic<int> wrong{0};
    for (int t = 0; t < 8; ++t)
      ts.emplace_back([&, t] {
        for (std::size_t j = 0; j < sample.images.size(); ++j) {
          const std::size_t i = (j * 7 + static_cast<std::size_t>(t)) % sample.images.size();
          if (c.decode_image(static_cast<std::uint32_t>(i)) != sample.images[i]) ++wrong;
        }
      });
    for (auto& t : ts) t.join();
    CHECK(wrong == 0);
  }
}

TEST_CASE("write_container refuses a dictionary above the reader's limit") {
  const tp_test::dictionary_sample sample = tp_test::make_dictionary_sample("many");
  pack::write_options opt;
  opt.dictionary_size = static_cast<std::uint32_t>(F::max_dictionary_size) + 1;
  CHECK_THROWS_WITH_AS(pack::write_container(sample.info, sample.images, opt),
                       doctest::Contains("above the reader's 16777216-byte limit"), error);
}

TEST_CASE("empty container") {
  container_info in;
  const auto blob = pack::write_container(in, {});
  const container c = container::parse(blob.data(), blob.size());
  CHECK(c.info().kernels.empty());
  CHECK(c.info().images.empty());
  CHECK(c.frames().empty());
  CHECK(c.info().name.empty());
  CHECK_THROWS_AS(c.decode_image(0), error);
}

TEST_CASE("images of 0, 1, 7, 8, 9 bytes, each alone in a frame") {
  for (std::size_t n : {0u, 1u, 7u, 8u, 9u}) {
    CAPTURE(n);
    container_info in;
    kernel_info k;
    k.name = "k";
    variant_info v;
    image_info im;
    im.arch = "sm_80";
    im.launch = tp_test::launch("k", 32);
    in.images = {im};
    v.images = {0};
    k.variants = {v};
    in.kernels = {k};
    const auto bytes = tp_test::pattern_bytes(n, 7);
    const auto blob = pack::write_container(in, {bytes});
    const container c = container::parse(blob.data(), blob.size());
    CHECK(c.info().images[0].raw_size == n);
    CHECK(c.decode_image(0) == bytes);
    REQUIRE(c.frames().size() == 1);
    CHECK(c.frames()[0].codec == format::codec_stored);  // too small for zstd to pay off
  }
}

TEST_CASE("write_container refuses models the reader would refuse") {
  container_info in = tp_test::sample_info();
  auto bytes = tp_test::sample_images();
  SUBCASE("bytes count mismatch") {
    bytes.pop_back();
    CHECK_THROWS_WITH_AS(pack::write_container(in, bytes), doctest::Contains("7 images described but 6"), error);
  }
  SUBCASE("dangling image index") {
    in.kernels[0].variants[0].images.push_back(99);
    CHECK_THROWS_WITH_AS(pack::write_container(in, bytes), doctest::Contains("image_refs"), error);
  }
  SUBCASE("spec count differs from arg count") {
    in.kernels[0].variants[1].specs.pop_back();
    CHECK_THROWS_WITH_AS(pack::write_container(in, bytes), doctest::Contains("spec_count"), error);
  }
  SUBCASE("duplicate kernel names") {
    in.kernels[1].name = "vector_add";
    CHECK_THROWS_WITH_AS(pack::write_container(in, bytes), doctest::Contains("kernels[1].name"), error);
  }
  SUBCASE("bad level") {
    pack::write_options opt;
    opt.level = 0;
    CHECK_THROWS_AS(pack::write_container(in, bytes, opt), error);
  }
}

TEST_CASE("decode_image stops at the image inside a multi-image frame") {
  const auto in = tp_test::sample_info();
  const auto bytes = tp_test::sample_images();
  pack::write_options opt;
  opt.grouping = pack::frame_grouping::per_kernel;
  const auto blob = pack::write_container(in, bytes, opt);
  const container c = container::parse(blob.data(), blob.size());
  REQUIRE(c.frames()[0].image_count == 5);
  CHECK(c.frame_of(3) == 0);
  CHECK(c.frame_offset(3) == 4096 + 0 + 1);
  CHECK(c.decode_image(3) == bytes[3]);
}

TEST_CASE("an image decodes without touching the blocks of the images after it in its frame") {
  // The writer ends a zstd block at every image boundary, so decoding the first image of a frame
  // reads only its own blocks: damage in the last image's bytes does not affect it.
  const auto in = tp_test::sample_info();
  auto bytes = tp_test::sample_images();
  bytes[2] = tp_test::pattern_bytes(30000, 77);  // make the frame's last image big enough to have its own blocks
  auto blob = pack::write_container(in, bytes);
  const container good = container::parse(blob.data(), blob.size());
  const frame_view f = good.frames()[0];
  REQUIRE(f.codec == format::codec_zstd);
  REQUIRE(f.image_count == 3);
  // Flip a byte near the end of the frame's stored bytes (inside the last image's block, before
  // the 4-byte content checksum).
  blob[static_cast<std::size_t>(f.offset + f.stored_size - 40)] ^= 0x55;
  const container c = container::parse(blob.data(), blob.size());  // the data is not in the tables checksum
  CHECK(c.decode_image(0) == bytes[0]);
  CHECK(c.decode_image(1) == bytes[1]);
  CHECK_THROWS_AS(c.decode_image(2), error);
}

TEST_CASE("the decoder's warm-up frame decodes to the text scripts/make-warm-up-frame.py made it from") {
  // The same generator as the script: 32 PTX-like lines.
  static const char* const ops[] = {"ld.global.nc.f32", "fma.rn.f32", "add.s32", "mul.wide.s32",
                                    "setp.lt.s32", "st.global.f32", "mov.u32", "shl.b32"};
  std::string text;
  std::uint32_t x = 12345;
  for (int i = 0; i < 32; ++i) {
    x = (x * 1103515245u + 12345u) & 0x7FFFFFFFu;
    text += std::string("\t") + ops[x % 8] + " \t%r" + std::to_string((x >> 8) % 97) + ", %r" +
            std::to_string((x >> 13) % 89) + ", " + std::to_string((x >> 17) % 4096) + ";\n";
  }
  REQUIRE(text.size() == codec::warm_up_frame_raw_size);
  char why[256];
  CHECK(codec::check_zstd_frame(codec::warm_up_frame, sizeof codec::warm_up_frame, text.size(), 0, false, why) == nullptr);
  std::vector<std::uint8_t> out(text.size(), 0xEE);
  REQUIRE(codec::decode_zstd_prefix(codec::warm_up_frame, sizeof codec::warm_up_frame, text.size(), nullptr,
                                    out.data(), out.size(), out.size(), why) == nullptr);
  CHECK(std::string(out.begin(), out.end()) == text);
}

TEST_CASE("warm_up makes the calling thread's decompression context, and only that thread's") {
  bool before = true, after = false, other = true;
  std::thread([&] {
    before = codec::thread_decoder_ready();
    codec::warm_up();
    after = codec::thread_decoder_ready();
    std::thread([&] { other = codec::thread_decoder_ready(); }).join();
  }).join();
  CHECK_FALSE(before);
  CHECK(after);
  CHECK_FALSE(other);
}
