// A container damaged after packing, met at run time: the first launch of a kernel whose image
// bytes were altered (frame header, compressed payload, block headers, an uncompressed
// --store-binaries image) says the container is damaged, naming the kernel and the image, and what
// to do; it never launches other bytes and never crashes. (zstd's content checksum is not read:
// each image's own XXH64 is, tests/container/test_corruption.cpp.) A damaged frame of another
// kernel does not block a launch; each thread's reused zstd context survives a failed decode.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "test_util.hpp"

using namespace tritonpack;
using tptest::contains;

namespace runtime_damage_tests {  // this file's own names (the test binary is a unity build)
namespace {

// The fixtures with vector_add's sm_90a cubin (what an sm_90 device loads) in its usual zstd
// frame, or alone in a stored frame.
std::vector<std::uint8_t> fixtures(bool store_binaries) {
  auto m = pack::load_manifest(std::string(TP_ARTIFACTS_DIR) + "/manifest.json");
  pack::write_options o;
  o.store_binaries = store_binaries;
  return pack::write_container(m.info, m.image_bytes, o);
}

// Launches vector_add on an sm_90 from `bytes`; "" when it launched (`loaded`: the index of the
// image it loaded), else the error's message (which must be a bad_container one).
std::string first_launch(const std::vector<std::uint8_t>& bytes, std::uint32_t* loaded = nullptr) {
  auto& f = tptest::setup("sm_90");
  library lib(bytes.data(), bytes.size());
  alignas(16) static float a[4], b[4], c[4];
  try {
    lib.get("vector_add").launch(nullptr, {1, 1, 1}, static_cast<const float*>(a), static_cast<const float*>(b),
                                 static_cast<float*>(c), std::int32_t{4096}, 2.0f);
  } catch (const error& e) {
    CHECK(e.code() == errc::bad_container);
    CHECK(f.launches().empty());
    return e.what();
  }
  CHECK(f.launches().size() == 1);
  const image_info& im = lib.get("vector_add").loaded_image(0);
  CHECK(im.arch == "sm_90a");
  CHECK(im.kind == image_kind::cubin);
  if (loaded) *loaded = static_cast<std::uint32_t>(&im - lib.info().images.data());
  return {};
}

}  // namespace

TEST_CASE("a damaged image is refused at its first launch as damage, naming the kernel and the image") {
  for (bool stored : {false, true}) {
    CAPTURE(stored);
    const std::vector<std::uint8_t> good = fixtures(stored);
    std::uint32_t cubin = 0;
    REQUIRE(first_launch(good, &cubin).empty());
    const container c = container::parse(good.data(), good.size());
    const auto& images = c.info().images;
    const frame_view& f = c.frames()[c.frame_of(cubin)];
    CHECK(f.codec == (stored ? format::codec_stored : format::codec_zstd));
    // Where the cubin's bytes are stored: the stored image itself, or its frame up to the end of
    // the cubin's blocks (bytes after them belong to images behind it; a flip there is harmless
    // to this launch and is tested in tests/container). Every byte of the first 64 (the zstd
    // frame header and first block header) and of the last 8, then one in 7.
    const std::uint64_t begin = f.offset + (stored ? c.frame_offset(cubin) : 0);
    const std::uint64_t end = stored ? begin + images[cubin].raw_size : f.offset + f.stored_size;
    int refused = 0;
    for (std::uint64_t at = begin; at < end; ++at) {
      if (at >= begin + 64 && at + 8 < end && (at - begin) % 7 != 0) continue;
      CAPTURE(at - begin);
      auto bad = good;
      bad[static_cast<std::size_t>(at)] ^= 0x20;
      const std::string m = first_launch(bad);
      if (m.empty()) continue;  // a payload bit zstd does not need for this image: the same bytes loaded
      ++refused;
      CHECK_MESSAGE(contains(m, "container \"fixtures\" is damaged: " + c.describe_image(cubin)), m);
      CHECK_MESSAGE(contains(m, "of kernel vector_add"), m);
      CHECK_MESSAGE(contains(m, "rebuild the program"), m);
      CHECK_MESSAGE(contains(m, "tritonpack inspect"), m);
    }
    CHECK(refused > 50);
  }
}

TEST_CASE(
    "a damaged frame of another kernel does not block a launch; that kernel is refused at its "
    "own") {
  // Frames are checked where they are decoded (container/reader.hpp): a launch pays for the frame
  // its image is in, not for the container's other frames, and damage is still refused before the
  // damaged bytes are used.
  const std::vector<std::uint8_t> good = fixtures(false);
  std::uint32_t cubin = 0;
  REQUIRE(first_launch(good, &cubin).empty());
  const container c = container::parse(good.data(), good.size());
  // The other kernels that load on an sm_90 from the intact container.
  std::vector<std::string> others;
  {
    tptest::setup("sm_90");
    library lib(good.data(), good.size());
    for (const kernel_info& k : lib.info().kernels) {
      if (k.name == "vector_add") continue;
      try {
        (void)lib.get(k.name).loaded_image(0);
        others.push_back(k.name);
      } catch (const error&) {  // no image for an sm_90 here: not this test's business
      }
    }
  }
  REQUIRE(!others.empty());
  auto bad = good;
  int damaged = 0;
  for (std::uint32_t f = 0; f < c.frames().size(); ++f)
    if (f != c.frame_of(cubin) && c.frames()[f].codec == format::codec_zstd) {
      bad[static_cast<std::size_t>(c.frames()[f].offset)] ^= 0x20;  // its zstd magic
      ++damaged;
    }
  REQUIRE(damaged > 0);
  CHECK(first_launch(bad).empty());  // vector_add's frame is intact: it launches
  tptest::setup("sm_90");
  library lib(bad.data(), bad.size());
  for (const std::string& name : others) {
    CAPTURE(name);
    auto e = tptest::expect_error([&] { (void)lib.get(name).loaded_image(0); });
    CHECK(e.code() == errc::bad_container);
    CHECK(contains(e.what(), "is damaged"));
    CHECK(contains(e.what(), "of kernel " + name));
  }
}

TEST_CASE("a kernel whose records break the format's rules is refused at its own first use, naming the field; the others launch") {
  // Parse checks the tables' structure; each record's contents are checked when its kernel is first
  // built (container/validation.hpp, records.hpp), so opening a library does not read every
  // kernel's records, and one crafted kernel does not take the others down.
  const std::vector<std::uint8_t> bad = tptest::with_first_arg_type_emptied(fixtures(false), "row_softmax");
  CHECK(first_launch(bad).empty());  // vector_add's records are intact: it launches
  tptest::setup("sm_90");
  library lib(bad.data(), bad.size());
  for (int attempt = 0; attempt < 2; ++attempt) {
    auto e = tptest::expect_error([&] { (void)lib.get("row_softmax"); });
    CHECK(e.code() == errc::bad_container);
    CHECK(contains(e.what(), "kernel row_softmax of container \"fixtures\": args["));
    CHECK(contains(e.what(), "].type: is empty"));
  }
  CHECK(lib.get("vector_add").loaded_image(0).arch == "sm_90a");
  CHECK(tptest::expect_error([&] { (void)lib.info(); }).code() == errc::bad_container);
}

TEST_CASE(
    "each thread's zstd context is reused: across decodes, after a failed one, on many threads at "
    "once") {
  // codec::thread_dctx keeps one decompression context per thread (creating one costs more than
  // decoding a cubin); every decode starts it afresh, so a failed decode leaves nothing behind and
  // threads never share one (the tsan CI step runs this file).
  const std::vector<std::uint8_t> good = fixtures(false);
  const container c = container::parse(good.data(), good.size());
  std::vector<std::vector<std::uint8_t>> expected;
  for (std::uint32_t i = 0; i < c.info().images.size(); ++i) expected.push_back(c.decode_image(i));
  // The same container with every zstd frame's payload damaged in its middle.
  auto bad = good;
  for (const frame_view& f : c.frames())
    if (f.codec == format::codec_zstd)
      bad[static_cast<std::size_t>(f.offset + f.stored_size / 2)] ^= 0xFF;
  const container d = container::parse(bad.data(), bad.size());
  CHECK(tptest::run_threads(8, [&](int t) {
          for (int round = 0; round < 3; ++round)
            for (std::uint32_t k = 0; k < expected.size(); ++k) {
              const std::uint32_t i =
                  (k + static_cast<std::uint32_t>(t)) % static_cast<std::uint32_t>(expected.size());
              try {
                (void)d.decode_image(i);  // may fail part-way, leaving the context mid-frame
              } catch (const error&) {
              }
              if (c.decode_image(i) != expected[i])
                throw std::runtime_error("image " + std::to_string(i) + " decoded wrong");
            }
        }) == "");
}

}  // namespace runtime_damage_tests
