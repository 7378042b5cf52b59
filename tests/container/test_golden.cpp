// Golden files of each container format version (tests/container/golden/v<N>/):
//   layout.tpk  every table in use, frames stored uncompressed, so the bytes depend on the layout
//               only (not on the zstd version): today's writer must reproduce it byte for byte
//               while format_version is unchanged. A layout change without a version bump fails
//               here; with a bump, add golden/v<N+1>/ (TP_UPDATE_GOLDEN=1 writes it).
//   sample.tpk  the sample with zstd frames: today's reader must read it back to the same model
//               and image bytes.
// Regenerate (only together with a version bump): TP_UPDATE_GOLDEN=1 tritonpack_container_tests
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "sample_model.hpp"
#include "tritonpack/container/format.hpp"
#include "tritonpack/container/reader.hpp"
#include "tritonpack/pack/container_writer.hpp"

using namespace tritonpack;
namespace fs = std::filesystem;

namespace {

const fs::path golden_dir = fs::path(TP_GOLDEN_DIR) / ("v" + std::to_string(format::format_version));

std::vector<std::vector<std::uint8_t>> tiny_images() {
  // 0, 1, 7, 8 and 9 bytes and two more small ones: each frame is too small for zstd to pay off,
  // so the writer stores it and the file is independent of the zstd version.
  const std::size_t sizes[] = {9, 0, 1, 7, 8, 9, 3};
  std::vector<std::vector<std::uint8_t>> v;
  for (std::size_t i = 0; i < 7; ++i) v.push_back(tp_test::pattern_bytes(sizes[i], static_cast<std::uint32_t>(100 + i)));
  return v;
}

std::vector<std::uint8_t> layout_blob() {
  pack::write_options opt;
  opt.grouping = pack::frame_grouping::per_image;
  return pack::write_container(tp_test::sample_info(), tiny_images(), opt);
}

std::vector<std::uint8_t> sample_blob() { return pack::write_container(tp_test::sample_info(), tp_test::sample_images()); }

std::vector<std::uint8_t> read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), "missing golden file " << p.string() << " (TP_UPDATE_GOLDEN=1 writes it)");
  return std::vector<std::uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void write(const fs::path& p, const std::vector<std::uint8_t>& b) {
  fs::create_directories(p.parent_path());
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

bool updating() {
  const char* e = std::getenv("TP_UPDATE_GOLDEN");
  return e && std::string(e) == "1";
}

}  // namespace

TEST_CASE("golden layout file: the writer reproduces it byte for byte (layout unchanged in this version)") {
  const auto now = layout_blob();
  const container c = container::parse(now.data(), now.size());
  for (const frame_view& f : c.frames()) REQUIRE_MESSAGE(f.codec == format::codec_stored, "layout golden must not depend on zstd");
  if (updating()) write(golden_dir / "layout.tpk", now);
  const auto golden = read(golden_dir / "layout.tpk");
  // A mismatch here means the byte layout changed: bump format::format_version, document the new
  // layout in docs/format.md and add golden/v<N+1>/.
  CHECK_MESSAGE(now.size() == golden.size(), "layout of format v" << format::format_version << " changed size");
  std::size_t first_diff = 0;
  while (first_diff < std::min(now.size(), golden.size()) && now[first_diff] == golden[first_diff]) ++first_diff;
  CHECK_MESSAGE(now == golden, "layout of format v" << format::format_version << " changed at byte " << first_diff);
}

TEST_CASE("golden files are readable: model and image bytes") {
  if (updating()) write(golden_dir / "sample.tpk", sample_blob());
  struct golden_case {
    const char* file;
    std::vector<std::vector<std::uint8_t>> images;
  };
  for (const golden_case& g : {golden_case{"layout.tpk", tiny_images()}, golden_case{"sample.tpk", tp_test::sample_images()}}) {
    CAPTURE(g.file);
    const auto bytes = read(golden_dir / g.file);
    const container c = container::parse(bytes.data(), bytes.size());
    const container_info want = tp_test::sample_info();
    CHECK(c.info().format_version == format::format_version);
    CHECK(c.info().name == want.name);
    REQUIRE(c.info().kernels.size() == want.kernels.size());
    for (std::size_t k = 0; k < want.kernels.size(); ++k) {
      CHECK(c.info().kernels[k].name == want.kernels[k].name);
      CHECK(c.info().kernels[k].grid == want.kernels[k].grid);
      CHECK(c.info().kernels[k].variants.size() == want.kernels[k].variants.size());
    }
    REQUIRE(c.info().images.size() == g.images.size());
    for (std::uint32_t i = 0; i < g.images.size(); ++i) {
      CHECK(c.info().images[i].arch == want.images[i].arch);
      CHECK(c.info().images[i].launch.entry == want.images[i].launch.entry);
      CHECK(c.decode_image(i) == g.images[i]);
    }
  }
}

TEST_CASE("format v1 golden files are still read: same kernels and images, no tuning") {
  const fs::path v1 = fs::path(TP_GOLDEN_DIR) / "v1";
  for (const auto& g : {std::make_pair("layout.tpk", tiny_images()), std::make_pair("sample.tpk", tp_test::sample_images())}) {
    CAPTURE(g.first);
    const auto bytes = read(v1 / g.first);
    const container c = container::parse(bytes.data(), bytes.size());
    const container_info want = tp_test::sample_info();
    CHECK(c.info().format_version == 1);
    REQUIRE(c.info().kernels.size() == want.kernels.size());
    for (std::size_t k = 0; k < want.kernels.size(); ++k) {
      CHECK(c.info().kernels[k].name == want.kernels[k].name);
      // v1 had no tuning: one config per specialisation, as if the section said so.
      CHECK(c.info().kernels[k].tuning.config_count == 1);
      CHECK(c.info().kernels[k].tuning.args.empty());
      CHECK(c.info().kernels[k].tuning.table.empty());
    }
    REQUIRE(c.info().images.size() == g.second.size());
    for (std::uint32_t i = 0; i < g.second.size(); ++i) CHECK(c.decode_image(i) == g.second[i]);
  }
}

TEST_CASE("format v2 golden files are still read: provenance not recorded") {
  const fs::path v2 = fs::path(TP_GOLDEN_DIR) / "v2";
  for (const auto& g : {std::make_pair("layout.tpk", tiny_images()), std::make_pair("sample.tpk", tp_test::sample_images())}) {
    CAPTURE(g.first);
    const auto bytes = read(v2 / g.first);
    const container c = container::parse(bytes.data(), bytes.size());
    const container_info want = tp_test::sample_info();
    CHECK(c.info().format_version == 2);
    CHECK(c.info().triton_version == "3.6.0");
    CHECK(c.info().triton_commit.empty());
    REQUIRE(c.info().kernels.size() == want.kernels.size());
    CHECK(c.info().kernels[1].tuning.config_count == 2);  // v2's tuning still read
    REQUIRE(c.info().images.size() == g.second.size());
    for (std::uint32_t i = 0; i < g.second.size(); ++i) {
      CHECK(c.info().images[i].tool_version.empty());
      CHECK(c.decode_image(i) == g.second[i]);
    }
  }
}

TEST_CASE("format v3 golden files are still read: every image held as is, provenance kept") {
  const fs::path v3 = fs::path(TP_GOLDEN_DIR) / "v3";
  for (const auto& g : {std::make_pair("layout.tpk", tiny_images()), std::make_pair("sample.tpk", tp_test::sample_images())}) {
    CAPTURE(g.first);
    const auto bytes = read(v3 / g.first);
    const container c = container::parse(bytes.data(), bytes.size());
    const container_info want = tp_test::sample_info();
    CHECK(c.info().format_version == 3);
    CHECK(c.info().triton_commit == want.triton_commit);
    REQUIRE(c.info().images.size() == g.second.size());
    for (std::uint32_t i = 0; i < g.second.size(); ++i) {
      CHECK(c.info().images[i].tool_version == want.images[i].tool_version);
      CHECK(c.decode_image(i) == g.second[i]);
    }
  }
}

TEST_CASE("format v3 records the Triton commit and what built each binary") {
  const auto bytes = read(golden_dir / "sample.tpk");
  const container c = container::parse(bytes.data(), bytes.size());
  const container_info want = tp_test::sample_info();
  CHECK(c.info().triton_commit == want.triton_commit);
  REQUIRE(c.info().images.size() == want.images.size());
  for (std::size_t i = 0; i < want.images.size(); ++i) CHECK(c.info().images[i].tool_version == want.images[i].tool_version);
  CHECK(c.info().images[0].tool_version == "12.8.93");
  CHECK(c.info().images[1].tool_version.empty());
}

TEST_CASE("a container of another format version is refused naming both versions") {
  auto b = read(golden_dir / "layout.tpk");
  b[format::header::version] = static_cast<std::uint8_t>(format::format_version + 1);
  try {
    (void)container::parse(b.data(), b.size());
    FAIL("a future version was accepted");
  } catch (const error& e) {
    const std::string m = e.what();
    CHECK(m.find("format version " + std::to_string(format::format_version + 1)) != std::string::npos);
    CHECK(m.find("reads versions 1 to " + std::to_string(format::format_version)) != std::string::npos);
    CHECK(m.find("packed by a newer tritonpack") != std::string::npos);
  }
}
