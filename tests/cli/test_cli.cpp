// The `tritonpack` executable: commands, exit codes (0 ok, 1 bad input, 2 usage), and the
// pack → inspect → extract path on the committed fixtures.
#include <doctest/doctest.h>

#include <algorithm>
#include <random>

#include "test_util.hpp"
#include "tritonpack/container/reader.hpp"
#include "tritonpack/pack/header_writer.hpp"
#include "tritonpack/pack/manifest.hpp"

using tp_test::fs::path;
using tp_test::run_cli;

namespace cli_command_tests {  // this file's own names (the test binary is a unity build)
namespace {
const path work = TP_WORK;

path packed() {
  static const path dir = [] {
    const path d = work / "packed";
    tp_test::fs::remove_all(d);
    const auto r = run_cli("pack \"" + std::string(TP_ARTIFACTS) + "/manifest.json\" -o \"" + d.string() + "\" --name fixtures");
    REQUIRE_MESSAGE(r.code == 0, r.out);
    return d;
  }();
  return dir;
}
}  // namespace

TEST_CASE("usage errors exit 2 with the usage text") {
  for (const char* args : {"", "frobnicate", "pack", "pack a.json", "pack a.json -o", "pack a.json -o d --level 99",
                           "pack a.json -o d --level x", "pack a.json -o d --mode fast", "pack a.json -o d --frames all",
                           "inspect", "inspect a b", "inspect f --color", "extract f", "pack a.json -o d -o e",
                           "inspect f --device sm_xx"}) {
    CAPTURE(args);
    const auto r = run_cli(args);
    CHECK(r.code == 2);
    CHECK(r.out.find("usage:") != std::string::npos);
  }
  CHECK(run_cli("--help").code == 0);
  CHECK(run_cli("--version").out.find("container format v4") != std::string::npos);
}

TEST_CASE("bad input exits 1 with a message, never a crash") {
  const auto missing = run_cli("pack /nonexistent/manifest.json -o \"" + (work / "x").string() + "\"");
  CHECK(missing.code == 1);
  CHECK(missing.out.find("cannot open /nonexistent/manifest.json") != std::string::npos);

  tp_test::spit(work / "garbage.bin", std::string(1000, 'x'));
  const auto g = run_cli("inspect \"" + (work / "garbage.bin").string() + "\"");
  CHECK(g.code == 1);
  CHECK(g.out.find("no tritonpack container magic") != std::string::npos);

  tp_test::spit(work / "empty.bin", std::string());
  CHECK(run_cli("inspect \"" + (work / "empty.bin").string() + "\"").code == 1);
  CHECK(run_cli("extract \"" + (work / "empty.bin").string() + "\" -o \"" + (work / "ex0").string() + "\"").code == 1);

  // A truncated container and one with a damaged table.
  auto tpk = tp_test::slurp(packed() / "fixtures.tpk");
  auto cut = tpk;
  cut.resize(cut.size() / 2);
  tp_test::spit(work / "cut.tpk", cut);
  const auto c = run_cli("inspect \"" + (work / "cut.tpk").string() + "\"");
  CHECK(c.code == 1);
  CHECK(c.out.find("header.total_size") != std::string::npos);
  auto dmg = tpk;
  dmg[400] ^= 0xFF;
  tp_test::spit(work / "dmg.tpk", dmg);
  CHECK(run_cli("inspect \"" + (work / "dmg.tpk").string() + "\"").out.find("tables_checksum") != std::string::npos);

  // Random files, some starting with the magic: exit 1 every time.
  std::mt19937 rng(3);
  for (int i = 0; i < 20; ++i) {
    std::vector<std::uint8_t> junk(static_cast<std::size_t>(rng() % 4000));
    for (auto& b : junk) b = static_cast<std::uint8_t>(rng());
    if (i % 2 == 0) {
      junk.insert(junk.begin(), std::begin(tritonpack::format::magic), std::end(tritonpack::format::magic));
      junk.insert(junk.begin() + 8, tpk.begin() + 8, tpk.begin() + std::min<std::size_t>(tpk.size(), 300));
    }
    tp_test::spit(work / "junk.bin", junk);
    const auto r = run_cli("inspect \"" + (work / "junk.bin").string() + "\"");
    CAPTURE(i);
    CHECK(r.code == 1);
  }

  // A mislabelled artifact: pack refuses it, exit 1, the file named.
  const path dir = tp_test::copy_artifacts("cli_mislabel");
  auto m = tp_test::load_json(dir / "manifest.json");
  m["kernels"][0]["variants"][0]["images"][0]["arch"] = "sm_86";
  tp_test::spit(dir / "manifest.json", m.dump());
  const auto p = run_cli("pack \"" + (dir / "manifest.json").string() + "\" -o \"" + (work / "never").string() + "\"");
  CHECK(p.code == 1);
  CHECK(p.out.find("vector_add/v0/cuda_sm_80.cubin") != std::string::npos);
  CHECK(p.out.find("sm_86") != std::string::npos);
  CHECK(!tp_test::fs::exists(work / "never" / "fixtures.hpp"));
}

TEST_CASE("pack refuses a hand-written manifest whose grid divides by a constant zero (issue 9)") {
  const path dir = tp_test::copy_artifacts("cli_zero_divisor");
  auto m = tp_test::load_json(dir / "manifest.json");
  for (const char* grid : {"cdiv(n, 0)", "n / (BLOCK - 1024)", "n % 0"}) {
    CAPTURE(grid);
    m["kernels"][0]["grid"] = {grid, "1", "1"};
    tp_test::spit(dir / "manifest.json", m.dump());
    const auto r = run_cli("pack \"" + (dir / "manifest.json").string() + "\" -o \"" + (work / "never0").string() + "\"");
    CHECK(r.code == 1);
    CHECK(r.out.find(std::string("tritonpack: kernel vector_add, variant 0, grid[0]: grid expression \"") + grid +
                     "\" divides by zero") == 0);
    CHECK(!tp_test::fs::exists(work / "never0" / "fixtures.hpp"));
  }
  // BLOCK is 1024 in every variant: "BLOCK - 1024 is 0 with BLOCK = 1024".
  m["kernels"][0]["grid"] = {"n / (BLOCK - 1024)", "1", "1"};
  tp_test::spit(dir / "manifest.json", m.dump());
  CHECK(run_cli("pack \"" + (dir / "manifest.json").string() + "\" -o \"" + (work / "never0").string() + "\"").out.find(
            "divides by zero: (BLOCK - 1024) is 0 with BLOCK = 1024") != std::string::npos);
}

TEST_CASE("pack writes NAME.tpk and NAME.hpp; the .tpk is a valid container") {
  const auto tpk = tp_test::slurp(packed() / "fixtures.tpk");
  const auto c = tritonpack::container::parse(tpk.data(), tpk.size());
  CHECK(c.info().name == "fixtures");
  CHECK(c.info().kernels.size() == 3);
  CHECK(tp_test::fs::file_size(packed() / "fixtures.hpp") > tpk.size());
}

TEST_CASE("inspect reads a .tpk, a generated header and a binary that embeds a container") {
  const auto a = run_cli("inspect \"" + (packed() / "fixtures.tpk").string() + "\"");
  CHECK(a.code == 0);
  CHECK(a.out.find("kernel vector_add") != std::string::npos);
  CHECK(a.out.find("totals: 3 kernels, 70 images") != std::string::npos);
  const auto h = run_cli("inspect \"" + (packed() / "fixtures.hpp").string() + "\"");
  CHECK(h.code == 0);
  CHECK(h.out.find("(generated header)") != std::string::npos);
  CHECK(h.out.find("totals: 3 kernels, 70 images") != std::string::npos);

  // A "binary": the container between other bytes, preceded by a stray copy of the magic.
  auto tpk = tp_test::slurp(packed() / "fixtures.tpk");
  std::vector<std::uint8_t> bin(5000, 0x90);
  bin.insert(bin.begin() + 100, std::begin(tritonpack::format::magic), std::end(tritonpack::format::magic));
  bin.insert(bin.begin() + 3001, tpk.begin(), tpk.end());
  tp_test::spit(work / "fake.exe", bin);
  const auto b = run_cli("inspect \"" + (work / "fake.exe").string() + "\"");
  CHECK(b.code == 0);
  CHECK(b.out.find("(binary) at offset 3001") != std::string::npos);

  const auto j = run_cli("inspect --json \"" + (packed() / "fixtures.tpk").string() + "\"");
  CHECK(j.code == 0);
  const auto doc = nlohmann::json::parse(j.out);
  CHECK(doc["containers"][0]["kernels"].size() == 3);
  CHECK(doc["containers"][0]["images"].size() == 70);

  // Each PTX image says the oldest CUDA driver that JIT-compiles its ISA (8.7: CUDA 12.8; 8.8:
  // CUDA 12.9), in the JSON and in the table.
  std::size_t ptx = 0;
  for (const auto& im : doc["containers"][0]["images"]) {
    if (im["kind"] != "ptx") {
      CHECK_FALSE(im.contains("min_cuda_driver"));
      continue;
    }
    ++ptx;
    const std::string isa = im["ptx_version"];
    CAPTURE(isa);
    if (isa == "8.7") CHECK(im["min_cuda_driver"] == "12.8");
    if (isa == "8.8") CHECK(im["min_cuda_driver"] == "12.9");
  }
  CHECK(ptx > 0);
  CHECK(a.out.find("(8.7, CUDA 12.8+)") != std::string::npos);
}

TEST_CASE("inspect shows what built each library: Triton, its commit, ptxas per cubin, LLVM per code object") {
  // Without the manifest's provenance keys (a manifest written before them): "not recorded".
  const auto old_text = run_cli("inspect --quick \"" + (packed() / "fixtures.tpk").string() + "\"");
  CHECK(old_text.code == 0);
  CHECK(old_text.out.find("built by: Triton 3.6.0, git commit not recorded\n") != std::string::npos);
  CHECK(old_text.out.find("  sm_80 cubin: ptxas not recorded\n") != std::string::npos);
  CHECK(old_text.out.find("  gfx942 hsaco: LLVM not recorded\n") != std::string::npos);
  const auto old_doc = nlohmann::json::parse(run_cli("inspect --quick --json \"" + (packed() / "fixtures.tpk").string() + "\"").out);
  CHECK(old_doc["containers"][0]["triton_commit"].is_null());
  for (const auto& im : old_doc["containers"][0]["images"]) {
    CHECK(im.contains("ptxas_version") == (im["kind"] == "cubin"));
    CHECK(im.contains("llvm_version") == (im["kind"] == "hsaco"));
    if (im.contains("ptxas_version")) CHECK(im["ptxas_version"].is_null());
    if (im.contains("llvm_version")) CHECK(im["llvm_version"].is_null());
  }

  // With them, as the front end writes them.
  const path dir = tp_test::copy_artifacts("provenance");
  auto m = tp_test::load_json(dir / "manifest.json");
  m["triton_commit"] = "0123456789abcdef0123456789abcdef01234567";
  for (auto& k : m["kernels"])
    for (auto& v : k["variants"])
      for (auto& im : v["images"]) {
        if (im["kind"] == "cubin") im["ptxas_version"] = im["arch"] == "sm_100a" ? "12.9.86" : "12.8.93";
        if (im["kind"] == "hsaco" && im["arch"] == "gfx942") im["llvm_version"] = "22.0.0 (f6ded0be897e2878612dd903f7e8bb85448269e5)";
      }
  tp_test::spit(dir / "manifest.json", m.dump(1));
  const auto r = run_cli("pack \"" + (dir / "manifest.json").string() + "\" -o \"" + (dir / "out").string() + "\" --name prov");
  REQUIRE_MESSAGE(r.code == 0, r.out);
  const auto text = run_cli("inspect --quick \"" + (dir / "out" / "prov.tpk").string() + "\"");
  CHECK(text.code == 0);
  CHECK(text.out.find("built by: Triton 3.6.0, git commit 0123456789abcdef0123456789abcdef01234567\n") != std::string::npos);
  CHECK(text.out.find("  sm_80 cubin: ptxas 12.8.93\n") != std::string::npos);
  CHECK(text.out.find("  sm_100a cubin: ptxas 12.9.86\n") != std::string::npos);
  CHECK(text.out.find("  gfx942 hsaco: LLVM 22.0.0 (f6ded0be897e2878612dd903f7e8bb85448269e5)\n") != std::string::npos);
  CHECK(text.out.find("  gfx90a hsaco: LLVM not recorded\n") != std::string::npos);
  const auto doc = nlohmann::json::parse(run_cli("inspect --quick --json \"" + (dir / "out" / "prov.tpk").string() + "\"").out);
  CHECK(doc["containers"][0]["triton_commit"] == "0123456789abcdef0123456789abcdef01234567");
  std::size_t cubins = 0, hsacos = 0;
  for (const auto& im : doc["containers"][0]["images"]) {
    CAPTURE(im.dump());
    if (im["kind"] == "cubin") {
      ++cubins;
      CHECK(im["ptxas_version"] == (im["arch"] == "sm_100a" ? "12.9.86" : "12.8.93"));
    } else if (im["kind"] == "hsaco") {
      ++hsacos;
      if (im["arch"] == "gfx942") CHECK(im["llvm_version"] == "22.0.0 (f6ded0be897e2878612dd903f7e8bb85448269e5)");
      else CHECK(im["llvm_version"].is_null());
    } else {
      CHECK_FALSE(im.contains("ptxas_version"));
      CHECK_FALSE(im.contains("llvm_version"));
    }
  }
  CHECK(cubins > 0);
  CHECK(hsacos > 0);

  // A provenance key the packer cannot store: named with its JSON path.
  m["kernels"][0]["variants"][0]["images"][0]["ptxas_version"] = 12.8;
  tp_test::spit(dir / "manifest.json", m.dump(1));
  const auto bad = run_cli("pack \"" + (dir / "manifest.json").string() + "\" -o \"" + (dir / "out2").string() + "\"");
  CHECK(bad.code == 1);
  CHECK(bad.out.find("kernels[0].variants[0].images[0].ptxas_version must be a string") != std::string::npos);
}

TEST_CASE("inspect --device shows the image the run time would choose, and why") {
  const auto s90 = run_cli("inspect --device sm_90 \"" + (packed() / "fixtures.tpk").string() + "\"");
  CHECK(s90.code == 0);
  CHECK(s90.out.find("on sm_90: image 1 (cuda cubin sm_90a) — exact cubin sm_90a") != std::string::npos);
  const auto s86 = run_cli("inspect --device sm_86 \"" + (packed() / "fixtures.tpk").string() + "\"");
  CHECK(s86.out.find("on sm_86: image 2 (cuda cubin sm_80)") != std::string::npos);
  const auto g = run_cli("inspect --device gfx942 --json \"" + (packed() / "fixtures.hpp").string() + "\"");
  CHECK(g.code == 0);
  const auto doc = nlohmann::json::parse(g.out);
  const auto& sel = doc["containers"][0]["kernels"][0]["variants"][0]["selection"];
  const auto& img = doc["containers"][0]["images"][sel["image"].get<int>()];
  CHECK(img["arch"] == "gfx942");
  CHECK(img["kind"] == "hsaco");
  CHECK(!sel["refused"].empty());
}

TEST_CASE("pack lays each kernel's frame out for loading: binaries first, by variant, the newest target first") {
  // A load decodes its frame up to the image it needs: the first variant's cubin for the newest
  // target decodes alone. --image-order manifest keeps the manifest's order (sm_80 first here).
  auto layout = [](const path& tpk) {
    const auto bytes = tp_test::slurp(tpk);
    const auto c = tritonpack::container::parse(bytes.data(), bytes.size());
    std::vector<std::string> seq;  // vector_add's images in container order: "V kind arch"
    const auto& k = c.info().kernels[0];
    REQUIRE(k.name == "vector_add");
    for (std::uint32_t i = 0; i < c.info().images.size(); ++i)
      for (std::size_t v = 0; v < k.variants.size(); ++v)
        for (std::uint32_t im : k.variants[v].images)
          if (im == i)
            seq.push_back(std::to_string(v) + " " + tritonpack::image_kind_name(c.info().images[i].kind) + " " +
                          c.info().images[i].arch);
    return seq;
  };
  const std::vector<std::string> newest_first = {
      "0 cubin sm_100a", "0 cubin sm_90a", "0 cubin sm_80", "1 cubin sm_100a", "1 cubin sm_90a", "1 cubin sm_80",
      "0 ptx sm_100a",   "0 ptx sm_90a",   "0 ptx sm_80",   "1 ptx sm_100a",   "1 ptx sm_90a",   "1 ptx sm_80",
      "0 hsaco gfx942",  "0 hsaco gfx90a",  "1 hsaco gfx942", "1 hsaco gfx90a",  "0 llir gfx942",   "0 llir gfx90a",
      "1 llir gfx942",   "1 llir gfx90a"};
  CHECK(layout(packed() / "fixtures.tpk") == newest_first);
  const path d = work / "image_order";
  const std::string manifest = "\"" + std::string(TP_ARTIFACTS) + "/manifest.json\"";
  const auto kept = run_cli("pack " + manifest + " -o \"" + d.string() + "\" --image-order manifest");
  REQUIRE_MESSAGE(kept.code == 0, kept.out);
  const auto as_listed = layout(d / "fixtures.tpk");
  CHECK(as_listed != newest_first);
  REQUIRE(!as_listed.empty());
  CHECK(as_listed.front() == "0 cubin sm_80");
  // The same images either way, only in another order.
  CHECK(std::is_permutation(as_listed.begin(), as_listed.end(), newest_first.begin(), newest_first.end()));
  const auto bad = run_cli("pack " + manifest + " -o \"" + d.string() + "\" --image-order oldest-first");
  CHECK(bad.code == 2);
  CHECK(bad.out.find("--image-order must be newest-first or manifest, got \"oldest-first\"") != std::string::npos);
}

TEST_CASE("pack --mode binary / ir keeps only binaries / only IR") {
  const path d = work / "modes";
  REQUIRE(run_cli("pack \"" + std::string(TP_ARTIFACTS) + "/manifest.json\" -o \"" + d.string() + "\" --name bin --mode binary").code == 0);
  REQUIRE(run_cli("pack \"" + std::string(TP_ARTIFACTS) + "/manifest.json\" -o \"" + d.string() + "\" --name ir --mode ir --level 3").code == 0);
  for (const char* n : {"bin", "ir"}) {
    const auto b = tp_test::slurp(d / (std::string(n) + ".tpk"));
    const auto c = tritonpack::container::parse(b.data(), b.size());
    CHECK(c.info().name == n);
    for (const auto& im : c.info().images) CHECK(tritonpack::is_binary(im.kind) == (std::string(n) == "bin"));
  }
  // What an AMD GPU can run: inspect says so when the container has AMD IR (docs/runtime.md).
  const auto ir = run_cli("inspect \"" + (d / "ir.tpk").string() + "\"");
  CHECK(ir.out.find("note: AMD LLVM IR is JIT-compiled through comgr only where no code object runs and only by a comgr as "
                    "new as the LLVM 22 Triton 3.6 wrote it with (no released ROCm's is known to be; Debian's comgr 2.4 fails, "
                    "saying so): in practice an AMD GPU runs the code object built for its exact gfx; 7 variants here have AMD "
                    "IR only and run on AMD only with such a comgr") != std::string::npos);
  const auto both = run_cli("inspect \"" + (packed() / "fixtures.tpk").string() + "\"");
  CHECK(both.out.find("; 0 variants here have AMD IR only") != std::string::npos);
  CHECK(run_cli("inspect \"" + (d / "bin.tpk").string() + "\"").out.find("AMD LLVM IR") == std::string::npos);
}

TEST_CASE("extract writes every image back byte for byte (from the .tpk and from the .hpp)") {
  for (const char* src : {"fixtures.tpk", "fixtures.hpp"}) {
    CAPTURE(src);
    const path out = work / (std::string("extract_") + src);
    tp_test::fs::remove_all(out);
    const auto r = run_cli("extract \"" + (packed() / src).string() + "\" -o \"" + out.string() + "\"");
    REQUIRE(r.code == 0);
    int files = 0;
    for (const auto& e : tp_test::fs::recursive_directory_iterator(out)) {
      if (!e.is_regular_file()) continue;
      ++files;
      const path rel = tp_test::fs::relative(e.path(), out);
      CAPTURE(rel.string());
      CHECK(tp_test::slurp(e.path()) == tp_test::slurp(path(TP_ARTIFACTS) / rel));
    }
    CHECK(files == 70);
  }
}

TEST_CASE("a PTX is held as the lines its cubin's text lacks unless --ptx-as-is: the same files, a smaller container") {
  const path plain = work / "ptx_as_is";
  tp_test::fs::remove_all(plain);
  REQUIRE(run_cli("pack \"" + std::string(TP_ARTIFACTS) + "/manifest.json\" -o \"" + plain.string() +
                  "\" --name fixtures --ptx-as-is")
              .code == 0);
  const auto coded = tp_test::slurp(packed() / "fixtures.tpk");
  const auto as_is = tp_test::slurp(plain / "fixtures.tpk");
  const auto a = tritonpack::container::parse(coded.data(), coded.size());
  const auto b = tritonpack::container::parse(as_is.data(), as_is.size());
  REQUIRE(a.info().images.size() == b.info().images.size());
  std::size_t ptx = 0;
  for (std::uint32_t i = 0; i < a.info().images.size(); ++i) {
    CHECK(a.decode_image(i) == b.decode_image(i));
    if (a.info().images[i].kind != tritonpack::image_kind::ptx) continue;
    ++ptx;
    // Held as lines, a PTX takes a smaller share of its frame (shares go by bytes in the frame).
    CHECK(a.info().images[i].stored_size < b.info().images[i].stored_size);
  }
  CHECK(ptx == 21);
  CHECK(coded.size() < as_is.size());
}

namespace {
// The fixtures' .tpk with one byte of the data section flipped: `at` bytes into frame 0, which
// holds vector_add's CUDA images, cubins first.
std::vector<std::uint8_t> damaged_tpk(std::uint64_t at) {
  auto tpk = tp_test::slurp(packed() / "fixtures.tpk");
  const auto c = tritonpack::container::parse(tpk.data(), tpk.size());
  tpk[static_cast<std::size_t>(c.frames()[0].offset + at)] ^= 0x5A;
  return tpk;
}

// The JSON document `inspect --json` printed, without the one line it wrote to stderr after it.
nlohmann::json json_of(const std::string& out) { return nlohmann::json::parse(out.substr(0, out.rfind("}\n") + 2)); }
}  // namespace

TEST_CASE("inspect decodes every frame and checks every image: damage exits 1 naming the image and its kernel") {
  const auto intact = run_cli("inspect \"" + (packed() / "fixtures.tpk").string() + "\"");
  CHECK(intact.code == 0);
  CHECK(intact.out.find("integrity: ok: 6 frames decoded, 70 image checksums verified") != std::string::npos);

  // A flipped byte of compressed payload (inside the first cubin's blocks), and of the zstd frame
  // header; in a .tpk, in a generated header and in an executable that embeds the container.
  for (const std::uint64_t at : {100u, 4u}) {
    CAPTURE(at);
    const auto tpk = damaged_tpk(at);
    tp_test::spit(work / "damaged.tpk", tpk);
    const auto m = tritonpack::pack::load_manifest(path(TP_ARTIFACTS) / "manifest.json");
    tritonpack::pack::header_options ho;
    ho.namespace_name = "fixtures";
    tp_test::spit(work / "damaged.hpp", tritonpack::pack::write_header(m.info, tpk, ho));
    std::vector<std::uint8_t> exe(3000, 0x90);
    exe.insert(exe.begin() + 1000, tpk.begin(), tpk.end());
    tp_test::spit(work / "damaged.exe", exe);
    for (const char* file : {"damaged.tpk", "damaged.hpp", "damaged.exe"}) {
      CAPTURE(file);
      const std::string f = "\"" + (work / file).string() + "\"";
      const auto r = run_cli("inspect " + f);
      CHECK(r.code == 1);
      CHECK(r.out.find("DAMAGED: ") != std::string::npos);
      // The first cubin (the newest target's: pack's --image-order newest-first) is damaged
      // whichever byte was hit; the report names it and its kernel.
      CHECK_MESSAGE(r.out.find("\n  image 0 (cuda cubin sm_100a) of kernel vector_add ") != std::string::npos, r.out);
      CHECK(r.out.find("0  DAMAGED\n") != std::string::npos);  // its row in the variant's table
      CHECK(r.out.find(" is damaged: ") != std::string::npos);  // the one line on stderr
      if (at == 4) CHECK(r.out.find("does not decode (frames[0]: stored bytes do not start with a zstd frame header)") != std::string::npos);

      const auto j = run_cli("inspect --json " + f);
      CHECK(j.code == 1);
      const auto doc = json_of(j.out);
      const auto& integrity = doc["containers"][0]["integrity"];
      CHECK(integrity["verified"] == true);
      REQUIRE(!integrity["damaged"].empty());
      CHECK(integrity["damaged"][0]["image"] == 0);
      CHECK(integrity["damaged"][0]["kernel"] == "vector_add");
      CHECK(integrity["damaged"][0]["kind"] == "cubin");
      CHECK(integrity["damaged"][0]["arch"] == "sm_100a");

      const auto q = run_cli("inspect --quick " + f);
      CHECK(q.code == 0);
      CHECK(q.out.find("integrity: not checked (--quick") != std::string::npos);
      const auto qj = run_cli("inspect --quick --json " + f);
      CHECK(qj.code == 0);
      CHECK(nlohmann::json::parse(qj.out)["containers"][0]["integrity"]["verified"] == false);
    }
    // extract decodes every image: the damaged one stops it, named.
    const auto x = run_cli("extract \"" + (work / "damaged.tpk").string() + "\" -o \"" + (work / "ex_damaged").string() + "\"");
    CHECK(x.code == 1);
    CHECK(x.out.find("container \"fixtures\" is damaged: image 0 (cuda cubin sm_100a) of kernel vector_add") != std::string::npos);
  }
}

TEST_CASE("pack --tuning embeds a measured table; inspect shows it; a wrong table is refused naming the row") {
  const tp_test::fs::path d = tp_test::fs::path(TP_WORK) / "tuning";
  tp_test::fs::create_directories(d);
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(d / name) << text;
    return (d / name).string();
  };
  const std::string manifest = "\"" + std::string(TP_ARTIFACTS) + "/manifest.json\"";
  const std::string good = write("good.json", R"({"schema": "tritonpack-tuning", "version": 1, "kernels": {"matmul_f16": [
      {"device": "NVIDIA H200", "bucket": [64, 64, 1], "config": 1, "times_ns": [2000, 1500]},
      {"device": "sm_90", "bucket": [1024, 1024, 1024], "config": 0}]}})");
  const auto r = run_cli("pack " + manifest + " -o \"" + d.string() + "\" --name tuned --tuning \"" + good + "\"");
  REQUIRE_MESSAGE(r.code == 0, r.out);
  const auto tpk = tp_test::slurp(d / "tuned.tpk");
  const auto c = tritonpack::container::parse(tpk.data(), tpk.size());
  const tritonpack::kernel_tuning& t = c.info().kernels[2].tuning;
  REQUIRE(t.table.size() == 2);
  CHECK(t.table[0].device == "NVIDIA H200");
  CHECK(t.table[0].bucket == std::vector<std::int64_t>{64, 64, 1});
  CHECK(t.table[0].config == 1);
  CHECK(t.table[0].times_ns == std::vector<std::uint64_t>{2000, 1500});
  CHECK(t.table[1].times_ns == std::vector<std::uint64_t>{~std::uint64_t{0}, ~std::uint64_t{0}});
  const auto shown = run_cli("inspect \"" + (d / "tuned.tpk").string() + "\" --quick");
  CHECK(shown.out.find("tuning: 2 configs per specialisation, chosen per call by key M (pow2), N (pow2), K (pow2); 2 table rows") !=
        std::string::npos);
  CHECK(shown.out.find("NVIDIA H200 bucket 64x64x1: config 1") != std::string::npos);

  const std::pair<std::string, std::string> bad[] = {
      {R"({"schema": "tritonpack-tuning", "version": 1, "kernels": {"nope": []}})", "kernels.nope: the container has no kernel"},
      {R"({"schema": "tritonpack-tuning", "version": 1, "kernels": {"vector_add": []}})", "kernels.vector_add: the kernel has one config"},
      {R"({"schema": "tritonpack-tuning", "version": 1, "kernels": {"matmul_f16": [{"device": "x", "bucket": [1, 2], "config": 0}]}})",
       "kernels.matmul_f16[0].bucket: must be an array of 3 integers"},
      {R"({"schema": "tritonpack-tuning", "version": 1, "kernels": {"matmul_f16": [{"device": "x", "bucket": [1, 2, 3], "config": 2}]}})",
       "kernels.matmul_f16[0].config: must be a config index below 2"},
      {R"({"schema": "tritonpack-tuning", "version": 1, "kernels": {"matmul_f16": [{"device": "", "bucket": [1, 2, 3], "config": 0}]}})",
       "kernels.matmul_f16[0].device: missing or empty"},
      {R"({"schema": "tritonpack-tuning", "version": 1, "kernels": {"matmul_f16": [{"device": "x", "bucket": [1, 2, 3], "config": 0},
          {"device": "x", "bucket": [1, 2, 3], "config": 1}]}})", "kernels.matmul_f16[1]: a second row for this device and bucket"},
      {R"({"schema": "tritonpack-tuning", "version": 1, "kernels": {"matmul_f16": [{"device": "x", "bucket": [1, 2, 3], "config": 0,
          "times_ns": [1]}]}})", "kernels.matmul_f16[0].times_ns: must be an array of 2"},
      {R"({"kernels": {}})", "schema/version"},
      {"[", "top level: not valid JSON"},
      {"[1]", "top level: not a JSON object"},
  };
  int i = 0;
  for (const auto& [text, message] : bad) {
    CAPTURE(text);
    const std::string file = write("bad" + std::to_string(i++) + ".json", text);
    const auto e = run_cli("pack " + manifest + " -o \"" + d.string() + "\" --name bad --tuning \"" + file + "\"");
    CHECK(e.code == 1);
    CHECK_MESSAGE(e.out.find("tuning table " + file + ": " + message) != std::string::npos, e.out);
  }
}

TEST_CASE("pack --frames per-target --dict-size: every image checks out, inspect shows the dictionary's size") {
  // Each binary in a frame of its own with its target's PTX, compressed with a trained dictionary
  // (issue 28's first-load layout); the default container has no dictionary and says nothing of one.
  const path d = work / "per_target_dict";
  const auto p = run_cli("pack \"" + std::string(TP_ARTIFACTS) + "/manifest.json\" -o \"" + d.string() +
                         "\" --name fixtures --frames per-target --dict-size 16384");
  REQUIRE_MESSAGE(p.code == 0, p.out);
  const auto a = run_cli("inspect \"" + (d / "fixtures.tpk").string() + "\"");
  CHECK_MESSAGE(a.code == 0, a.out);  // every frame decoded, every image's checksum matches
  const auto j = run_cli("inspect --json \"" + (d / "fixtures.tpk").string() + "\"");
  REQUIRE(j.code == 0);
  const std::uint64_t dict = nlohmann::json::parse(j.out)["containers"][0]["dictionary_bytes"];
  CHECK(dict > 0);
  CHECK(dict <= 16384);
  CHECK(a.out.find(", zstd dictionary " + std::to_string(dict) + " bytes") != std::string::npos);
  const auto plain = run_cli("inspect --json \"" + (packed() / "fixtures.tpk").string() + "\"");
  CHECK(nlohmann::json::parse(plain.out)["containers"][0]["dictionary_bytes"] == 0);
  CHECK(run_cli("inspect \"" + (packed() / "fixtures.tpk").string() + "\"").out.find("zstd dictionary") ==
        std::string::npos);
  const auto big = run_cli("pack \"" + std::string(TP_ARTIFACTS) + "/manifest.json\" -o \"" + d.string() +
                           "\" --dict-size 16777217");
  CHECK(big.code != 0);
}

}  // namespace cli_command_tests
