// The CLI on input made to hurt it: containers whose names try to leave `extract -o DIR` or
// rewrite the terminal, manifests that name files outside their directory or files that are not
// regular (a device that never ends, a FIFO that never opens), files crafted to make the container
// scan quadratic, and frames whose headers claim gigabytes. Each gets a clear error or a bounded
// answer, never a write outside DIR, a hang or a crash.
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <chrono>

#include "test_util.hpp"
#include "tritonpack/container/byte_io.hpp"
#include "tritonpack/container/format.hpp"
#include "tritonpack/pack/container_writer.hpp"
#include "tritonpack/pack/manifest.hpp"

using tp_test::fs::path;
using tp_test::run_cli;

namespace cli_hostile_tests {  // this file's own names (the test binary is a unity build)
namespace {
const path work = path(TP_WORK) / "hostile";

std::string q(const path& p) { return "\"" + p.string() + "\""; }
bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// The fixture artifacts packed with kernel 0 renamed to `name` (what a hand-made container may
// hold: the packer's own name rule would refuse it).
path container_with_kernel_name(const std::string& file, const std::string& name) {
  auto m = tritonpack::pack::load_manifest(path(TP_ARTIFACTS) / "manifest.json");
  m.info.kernels[0].name = name;
  const auto blob = tritonpack::pack::write_container(m.info, m.image_bytes, {});
  const path p = work / file;
  tp_test::spit(p, blob);
  return p;
}

// The fixture artifacts packed as they are.
path plain_container() {
  auto m = tritonpack::pack::load_manifest(path(TP_ARTIFACTS) / "manifest.json");
  const path p = work / "fixtures.tpk";
  tp_test::spit(p, tritonpack::pack::write_container(m.info, m.image_bytes, {}));
  return p;
}

std::size_t files_under(const path& dir) {
  std::size_t n = 0;
  std::error_code ec;
  for (auto it = tp_test::fs::recursive_directory_iterator(dir, ec); it != tp_test::fs::recursive_directory_iterator(); ++it)
    n += it->is_regular_file();
  return n;
}
}  // namespace

TEST_CASE("extract: a kernel named .. writes inside -o DIR, never beside it") {
  const path root = work / "dotdot";
  tp_test::fs::remove_all(root);
  const path tpk = container_with_kernel_name("dotdot.tpk", "..");
  const path out = root / "out";
  const auto r = run_cli("extract " + q(tpk) + " -o " + q(out));
  CAPTURE(r.out);
  CHECK(r.code == 0);
  CHECK_FALSE(tp_test::fs::exists(root / "v0"));  // what out/../v0/... would have been
  CHECK(tp_test::fs::exists(out / "_.." / "v0"));
  CHECK(files_under(root) == files_under(out));
}

TEST_CASE("inspect escapes control bytes in names: a container cannot rewrite the terminal") {
  const path tpk = container_with_kernel_name("escape.tpk", "evil\x1b]0;owned\x07\x1b[2J\rname");
  const auto r = run_cli("inspect " + q(tpk));
  CHECK(r.code == 0);
  CHECK(r.out.find('\x1b') == std::string::npos);
  CHECK(r.out.find('\x07') == std::string::npos);
  CHECK(r.out.find('\r') == std::string::npos);
  CHECK(has(r.out, "kernel evil\\x1b]0;owned\\x07\\x1b[2J\\x0dname ("));
  const auto j = run_cli("inspect --json " + q(tpk));
  CHECK(j.code == 0);
  CHECK(j.out.find('\x1b') == std::string::npos);
  CHECK(nlohmann::json::parse(j.out)["containers"][0]["kernels"][0]["name"] == "evil\x1b]0;owned\x07\x1b[2J\rname");
}

TEST_CASE("pack reads only regular files under the manifest's directory") {
  const path arts = tp_test::copy_artifacts("hostile_paths");
  const path manifest = arts / "manifest.json";
  auto m = tp_test::load_json(manifest);
  const std::string image = m["kernels"][0]["variants"][0]["images"][0]["file"].get<std::string>();
  const std::string where = "kernels[0].variants[0].images[0].file";
  auto pack_with = [&](const std::string& file, const std::string& extra = "") {
    auto edited = m;
    edited["kernels"][0]["variants"][0]["images"][0]["file"] = file;
    tp_test::spit(manifest, edited.dump());
    return run_cli("pack " + q(manifest) + " -o " + q(work / "packed") + extra);
  };
  SUBCASE("a path that climbs out, or an absolute one: refused naming it and what to do") {
    tp_test::spit(arts / ".." / "outside.cubin", tp_test::slurp(arts / image));
    for (const std::string& file : {std::string("../outside.cubin"), std::string("sub/../../outside.cubin"),
                                    (arts / image).string()}) {
      CAPTURE(file);
      const auto r = pack_with(file);
      CHECK(r.code == 1);
      CHECK(has(r.out, "manifest: " + where + " is \"" + file + "\", which is not inside the manifest's directory "));
      CHECK(has(r.out, "or pass --allow-outside-manifest-dir if you wrote this one and trust it"));
    }
    // The option lets a trusted manifest name them.
    CHECK(pack_with("../outside.cubin", " --allow-outside-manifest-dir").code == 0);
  }
  SUBCASE("a device that never ends: refused without reading it") {
    const auto r = pack_with("/dev/zero", " --allow-outside-manifest-dir");
    CHECK(r.code == 1);
    CHECK(r.out == "tritonpack: /dev/zero is not a regular file (a character device); expected an image file\n");
  }
  SUBCASE("a FIFO: refused at once, not waited on") {
    const path fifo = arts / "pipe.cubin";
    REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
    const auto t0 = std::chrono::steady_clock::now();
    const auto r = pack_with("pipe.cubin");
    CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(20));
    CHECK(r.code == 1);
    CHECK(r.out == "tritonpack: " + fifo.string() + " is not a regular file (a FIFO); expected an image file\n");
  }
}

// Candidates that each pass every check of the container header up to the tables checksum, each
// claiming the rest of the file as its tables: before the scan's budget, validating them all
// hashed the file once per candidate.
TEST_CASE("the container scan stays linear on a file full of crafted candidates") {
  const auto real = tp_test::slurp(plain_container());
  namespace H = tritonpack::format::header;
  namespace F = tritonpack::format;
  REQUIRE(real.size() >= H::size);
  const std::size_t file_size = std::size_t{8} << 20, every = 1024;
  std::vector<std::uint8_t> file(file_size, 0);
  std::size_t candidates = 0;
  for (std::size_t at = every; at + H::size <= file_size; at += every, ++candidates) {
    std::uint8_t* h = file.data() + at;
    std::copy(real.begin(), real.begin() + H::size, h);
    const std::uint64_t rest = file_size - at;
    tritonpack::byte_io::store_u64(h + H::total_size, rest);
    tritonpack::byte_io::store_u64(h + H::tables_checksum, 0);
    for (std::uint32_t s = 0; s < F::section_count; ++s) {
      std::uint8_t* e = h + H::sections + s * H::section_entry_size;
      // Section 0 (bytes) runs to the end; every later one is empty there.
      tritonpack::byte_io::store_u64(e, s == 0 ? H::size : rest);
      tritonpack::byte_io::store_u64(e + 8, s == 0 ? rest - H::size : 0);
    }
  }
  const path crafted = work / "crafted.bin";
  tp_test::spit(crafted, file);
  const auto t0 = std::chrono::steady_clock::now();
  const auto r = run_cli("inspect " + q(crafted));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CAPTURE(r.out.substr(0, 2000));
  CHECK(r.code == 1);
  CHECK(has(r.out, "no valid container; candidates: "));
  CHECK(has(r.out, "tables_checksum"));  // the first candidates were validated as far as the checksum
  CHECK(has(r.out, " candidates not validated: invalid candidates before them already claimed 4 times the file's size"));
  CHECK(seconds < 10);
  CHECK(r.out.size() < 16384);  // the reasons are counted past the first few, not all printed
}

TEST_CASE("inspect and extract decode no frame above --max-image-size, and say so") {
  const path tpk = plain_container();
  const auto r = run_cli("inspect " + q(tpk) + " --max-image-size 1000");
  CHECK(r.code == 1);
  CHECK(has(r.out, "NOT CHECKED: "));
  CHECK(has(r.out, "pass a larger --max-image-size to check them"));
  CHECK_FALSE(has(r.out, "DAMAGED"));
  CHECK(run_cli("inspect " + q(tpk) + " --max-image-size 1073741824").code == 0);
  const auto x = run_cli("extract " + q(tpk) + " -o " + q(work / "ex_limited") + " --max-image-size 1000");
  CHECK(x.code == 1);
  CHECK(has(x.out, "more than --max-image-size (1000); pass a larger --max-image-size to extract it"));
  CHECK(run_cli("inspect " + q(tpk) + " --max-image-size 0").code == 2);
}

}  // namespace cli_hostile_tests
