// Artifact checks: what cubins, code objects, PTX and LLVM IR say about their target, and `pack`
// refusing every kind of mislabelled artifact with a message naming the file, what it says and
// what the manifest says.
#include <doctest/doctest.h>

#include "test_util.hpp"
#include "tritonpack/byte_io.hpp"
#include "tritonpack/error.hpp"
#include "tritonpack/pack/artifact_check.hpp"
#include "tritonpack/pack/manifest.hpp"

using namespace tritonpack;
using namespace tritonpack::pack;
using tp_test::fs::path;

namespace {

const path artifacts = TP_ARTIFACTS;
const path data_dir = path(TP_ARTIFACTS).parent_path().parent_path() / "cli" / "data";

elf_target elf(const path& p) { return read_elf_target(tp_test::slurp(p)); }

std::string load_error(const path& manifest, const load_options& o = {}) {
  try {
    (void)load_manifest(manifest, o);
  } catch (const error& e) {
    return e.what();
  }
  return {};
}

// Copies the fixtures, lets `edit` change the manifest JSON, and returns the load error.
template <class F>
std::string mislabel(const std::string& name, F edit) {
  const path dir = tp_test::copy_artifacts(name);
  nlohmann::json m = tp_test::load_json(dir / "manifest.json");
  edit(m, dir);
  tp_test::spit(dir / "manifest.json", m.dump(2));
  return load_error(dir / "manifest.json");
}

nlohmann::json& find_image(nlohmann::json& m, const std::string& file) {
  for (auto& k : m["kernels"])
    for (auto& v : k["variants"])
      for (auto& im : v["images"])
        if (im["file"] == file) return im;
  FAIL("fixture image " << file << " not in the manifest");
  throw;
}

}  // namespace

TEST_CASE("cubin targets from ptxas 12.8 (ELF ABI 7) and ptxas-blackwell 12.9 (ABI 8)") {
  CHECK(elf(artifacts / "vector_add/v0/cuda_sm_80.cubin").arch() == "sm_80");
  CHECK(elf(artifacts / "vector_add/v0/cuda_sm_90a.cubin").arch() == "sm_90a");
  CHECK(elf(artifacts / "vector_add/v0/cuda_sm_100a.cubin").arch() == "sm_100a");
  CHECK(elf(artifacts / "vector_add/v0/cuda_sm_100a.cubin").abi_version == 8);
  CHECK(elf(artifacts / "vector_add/v0/cuda_sm_80.cubin").machine == em_cuda);
}

TEST_CASE("cubin targets from ptxas 13.0: `a` recorded in .nv.compat") {
  CHECK(elf(data_dir / "ptxas13_sm_90.cubin").arch() == "sm_90");
  CHECK(elf(data_dir / "ptxas13_sm_90a.cubin").arch() == "sm_90a");
  CHECK(elf(data_dir / "ptxas13_sm_100.cubin").arch() == "sm_100");
  CHECK(elf(data_dir / "ptxas13_sm_100a.cubin").arch() == "sm_100a");
  CHECK(elf(data_dir / "ptxas13_sm_120a.cubin").arch() == "sm_120a");
  // A family build is indistinguishable from a plain one: an sm_100f label accepts sm_100.
  CHECK(elf_label_mismatch(elf(data_dir / "ptxas13_sm_100.cubin"), "sm_100f").empty());
  CHECK(!elf_label_mismatch(elf(data_dir / "ptxas13_sm_100a.cubin"), "sm_100").empty());
  CHECK(!elf_label_mismatch(elf(data_dir / "ptxas13_sm_90.cubin"), "sm_90a").empty());
}

TEST_CASE("code object targets and xnack / sramecc features") {
  const elf_target a = elf(artifacts / "vector_add/v0/hip_gfx90a.hsaco");
  CHECK(a.machine == em_amdgpu);
  CHECK(a.processor == "gfx90a");
  CHECK(a.xnack == 1);    // any
  CHECK(a.sramecc == 1);  // any
  CHECK(a.arch() == "gfx90a");
  CHECK(elf(artifacts / "vector_add/v0/hip_gfx942.hsaco").arch() == "gfx942");
  // "any" satisfies a label that pins a feature either way.
  CHECK(elf_label_mismatch(a, "gfx90a").empty());
  CHECK(elf_label_mismatch(a, "gfx90a:xnack-").empty());
  CHECK(elf_label_mismatch(a, "gfx90a:sramecc+:xnack+").empty());
  CHECK(elf_label_mismatch(a, "gfx942").find("gfx942") != std::string::npos);

  // A code object built with xnack on: its label must say so.
  auto bytes = tp_test::slurp(artifacts / "vector_add/v0/hip_gfx90a.hsaco");
  const std::uint32_t flags = byte_io::load_u32(bytes.data() + 48);
  byte_io::store_u32(bytes.data() + 48, (flags & ~0x300u) | 0x300u);
  const elf_target on = read_elf_target(bytes);
  CHECK(on.arch() == "gfx90a:xnack+");
  CHECK(elf_label_mismatch(on, "gfx90a:xnack+").empty());
  CHECK(elf_label_mismatch(on, "gfx90a:xnack-").find("xnack on") != std::string::npos);
  CHECK(elf_label_mismatch(on, "gfx90a").find("does not say xnack+") != std::string::npos);
  CHECK(elf_label_mismatch(on, "gfx90a:bogus+").find("unknown feature") != std::string::npos);
  // A target that does not support a feature cannot be labelled with it.
  byte_io::store_u32(bytes.data() + 48, flags & ~0xF00u);
  CHECK(elf_label_mismatch(read_elf_target(bytes), "gfx90a:xnack-").find("does not support xnack") != std::string::npos);
}

TEST_CASE("non-GPU and malformed ELF files are refused with a reason") {
  CHECK_THROWS_WITH_AS(read_elf_target({1, 2, 3}), doctest::Contains("not an ELF"), error);
  auto bytes = tp_test::slurp(artifacts / "vector_add/v0/cuda_sm_80.cubin");
  auto x86 = bytes;
  byte_io::store_u16(x86.data() + 18, 62);
  CHECK_THROWS_WITH_AS(read_elf_target(x86), doctest::Contains("e_machine is 62"), error);
  auto cut = bytes;
  cut.resize(200);  // section headers now point past the end
  CHECK_THROWS_WITH_AS(read_elf_target(cut), doctest::Contains("run past"), error);
  auto elf32 = bytes;
  elf32[4] = 1;
  CHECK_THROWS_WITH_AS(read_elf_target(elf32), doctest::Contains("ELFCLASS64"), error);
}

TEST_CASE("PTX directives and entries") {
  const auto text = tp_test::slurp(artifacts / "vector_add/v0/cuda_sm_90a.ptx");
  const ptx_module p = read_ptx(std::string_view(reinterpret_cast<const char*>(text.data()), text.size()));
  CHECK(p.version_major == 8);
  CHECK(p.version_minor == 7);
  CHECK(p.target == "sm_90a");
  REQUIRE(p.entries.size() == 1);
  CHECK(p.entries[0].name == "vector_add");
  CHECK(p.entries[0].params == 7);  // x, y, out, n, alpha + 2 scratch pointers
  CHECK_THROWS_WITH_AS(read_ptx(".target sm_80\n"), doctest::Contains(".version"), error);
  CHECK_THROWS_WITH_AS(read_ptx(".version 8.7\n"), doctest::Contains(".target"), error);
  CHECK(read_ptx("//\n.version 7.8\n.target sm_86, debug\n").target == "sm_86");
}

TEST_CASE("LLVM IR triple and kernels") {
  const auto text = tp_test::slurp(artifacts / "vector_add/v0/hip_gfx942.llir");
  const llir_module l = read_llir(std::string_view(reinterpret_cast<const char*>(text.data()), text.size()));
  CHECK(l.triple == "amdgcn-amd-amdhsa");
  REQUIRE(!l.kernels.empty());
  CHECK(l.kernels[0] == "vector_add");
}

TEST_CASE("the fixture manifest loads; every image is checked and ordered binaries first") {
  const loaded_manifest m = load_manifest(artifacts / "manifest.json");
  CHECK(m.info.name == "fixtures");
  CHECK(m.info.kernels.size() == 3);
  CHECK(m.info.images.size() == m.image_bytes.size());
  CHECK(m.info.images.size() == 70);
  for (std::size_t i = 0; i < m.info.images.size(); ++i) {
    CAPTURE(m.image_files[i]);
    CHECK(m.image_bytes[i] == tp_test::slurp(artifacts / m.image_files[i]));
    if (m.info.images[i].kind == image_kind::ptx) CHECK(m.info.images[i].ptx_version >= 87);
  }
  // Within a kernel: cuda binaries, cuda IR, hip binaries, hip IR.
  const auto& first = m.info.images;
  CHECK(first[0].kind == image_kind::cubin);
  const variant_info& v0 = m.info.kernels[0].variants[0];
  CHECK(is_binary(m.info.images[v0.images.front()].kind));
  CHECK(!is_binary(m.info.images[v0.images.back()].kind));
  // Launch facts from the metadata JSON.
  CHECK(m.info.images[0].launch.entry == "vector_add");
  CHECK(m.info.images[0].launch.num_warps == 4);
  CHECK(m.info.images[0].launch.warp_size == 32);
}

TEST_CASE("--mode narrows to binaries or IR and never widens") {
  load_options bin;
  bin.mode_given = true;
  bin.mode = pack_mode::binary;
  const loaded_manifest b = load_manifest(artifacts / "manifest.json", bin);
  CHECK(!b.info.images.empty());
  for (const image_info& im : b.info.images) CHECK(is_binary(im.kind));
  load_options ir = bin;
  ir.mode = pack_mode::ir;
  const loaded_manifest i = load_manifest(artifacts / "manifest.json", ir);
  CHECK(!i.info.images.empty());
  for (const image_info& im : i.info.images) CHECK(!is_binary(im.kind));
  CHECK(b.info.images.size() + i.info.images.size() == 70);

  const std::string err = mislabel("widen", [](nlohmann::json& m, const path&) { m["mode"] = "binary"; });
  CHECK(err.empty());
  const path dir = path(TP_WORK) / "widen";
  load_options both;
  both.mode_given = true;
  both.mode = pack_mode::both;
  CHECK(load_error(dir / "manifest.json", both).find("would widen") != std::string::npos);
}

TEST_CASE("mislabelled artifacts are refused naming the file, what it says and what the manifest says") {
  SUBCASE("cubin sm_80 labelled sm_90a") {
    const std::string e = mislabel("m1", [](nlohmann::json& m, const path&) { find_image(m, "vector_add/v0/cuda_sm_80.cubin")["arch"] = "sm_90a"; });
    CHECK(e.find("vector_add/v0/cuda_sm_80.cubin") != std::string::npos);
    CHECK(e.find("sm_80") != std::string::npos);
    CHECK(e.find("sm_90a") != std::string::npos);
  }
  SUBCASE("arch-specific cubin labelled without the a") {
    const std::string e = mislabel("m2", [](nlohmann::json& m, const path&) { find_image(m, "vector_add/v0/cuda_sm_90a.cubin")["arch"] = "sm_90"; });
    CHECK(e.find("says sm_90a") != std::string::npos);
    CHECK(e.find("label says sm_90") != std::string::npos);
  }
  SUBCASE("code object gfx90a labelled gfx942") {
    const std::string e = mislabel("m3", [](nlohmann::json& m, const path&) { find_image(m, "vector_add/v0/hip_gfx90a.hsaco")["arch"] = "gfx942"; });
    CHECK(e.find("hip_gfx90a.hsaco") != std::string::npos);
    CHECK(e.find("gfx90a") != std::string::npos);
    CHECK(e.find("gfx942") != std::string::npos);
  }
  SUBCASE("a cubin declared as a HIP code object") {
    const std::string e = mislabel("m4", [](nlohmann::json&, const path& dir) {
      tp_test::fs::copy_file(dir / "vector_add/v0/cuda_sm_80.cubin", dir / "vector_add/v0/hip_gfx942.hsaco",
                             tp_test::fs::copy_options::overwrite_existing);
    });
    CHECK(e.find("hip_gfx942.hsaco") != std::string::npos);
    CHECK(e.find("e_machine is 190 (EM_CUDA)") != std::string::npos);
    CHECK(e.find("224 (hsaco)") != std::string::npos);
  }
  SUBCASE("PTX with another .target") {
    const std::string e = mislabel("m5", [](nlohmann::json& m, const path&) { find_image(m, "vector_add/v0/cuda_sm_80.ptx")["arch"] = "sm_86"; });
    CHECK(e.find(".target is sm_80") != std::string::npos);
    CHECK(e.find("arch is sm_86") != std::string::npos);
  }
  SUBCASE("PTX with another .version") {
    const std::string e = mislabel("m6", [](nlohmann::json& m, const path&) { find_image(m, "vector_add/v0/cuda_sm_80.ptx")["ptx_version"] = "8.6"; });
    CHECK(e.find(".version is 8.7") != std::string::npos);
    CHECK(e.find("8.6") != std::string::npos);
  }
  SUBCASE("metadata naming a kernel the binary does not have") {
    const std::string e = mislabel("m7", [](nlohmann::json&, const path& dir) {
      nlohmann::json md = tp_test::load_json(dir / "vector_add/v0/cuda_sm_80.json");
      md["name"] = "not_there";
      tp_test::spit(dir / "vector_add/v0/cuda_sm_80.json", md.dump());
    });
    CHECK(e.find("no symbol not_there") != std::string::npos);
  }
  SUBCASE("a file that is not ELF at all") {
    const std::string e = mislabel("m8", [](nlohmann::json&, const path& dir) { tp_test::spit(dir / "vector_add/v0/cuda_sm_90a.cubin", std::string("hello")); });
    CHECK(e.find("cuda_sm_90a.cubin") != std::string::npos);
    CHECK(e.find("not an ELF") != std::string::npos);
  }
  SUBCASE("kernel_params that disagree with the specs") {
    const std::string e = mislabel("m9", [](nlohmann::json& m, const path&) { m["kernels"][0]["variants"][0]["kernel_params"] = {"x", "y"}; });
    CHECK(e.find("kernels[0].variants[0].kernel_params") != std::string::npos);
  }
  SUBCASE("an xnack-on code object labelled without xnack") {
    const std::string e = mislabel("m10", [](nlohmann::json&, const path& dir) {
      auto b = tp_test::slurp(dir / "vector_add/v0/hip_gfx90a.hsaco");
      byte_io::store_u32(b.data() + 48, (byte_io::load_u32(b.data() + 48) & ~0x300u) | 0x300u);
      tp_test::spit(dir / "vector_add/v0/hip_gfx90a.hsaco", b);
    });
    CHECK(e.find("xnack on") != std::string::npos);
  }
  SUBCASE("PTX whose parameter count differs from the args") {
    const std::string e = mislabel("m11", [](nlohmann::json& m, const path&) {
      auto& k = m["kernels"][0];
      k["args"].push_back({{"name", "extra"}, {"type", "i32"}});
      for (auto& v : k["variants"]) {
        v["specs"].push_back({{"kind", "none"}});
        v["kernel_params"].push_back("extra");
      }
    });
    CHECK(e.find("takes 7 parameters") != std::string::npos);
  }
}

TEST_CASE("manifest shape errors name the JSON path") {
  CHECK(mislabel("s1", [](nlohmann::json& m, const path&) { m["schema"] = "other"; }).find("schema is \"other\"") != std::string::npos);
  CHECK(mislabel("s2", [](nlohmann::json& m, const path&) { m["version"] = 2; }).find("version 2 is not supported") != std::string::npos);
  CHECK(mislabel("s3", [](nlohmann::json& m, const path&) { m["kernels"][0]["variants"][1]["images"][0].erase("arch"); })
            .find("kernels[0].variants[1].images[0].arch") != std::string::npos);
  CHECK(mislabel("s4", [](nlohmann::json& m, const path&) { m["kernels"][1]["args"][0]["type"] = 5; })
            .find("kernels[1].args[0].type must be a string") != std::string::npos);
  CHECK(mislabel("s5", [](nlohmann::json& m, const path&) { m["kernels"][0]["variants"][0]["specs"][0]["kind"] = "div8"; })
            .find("kernels[0].variants[0].specs[0].kind") != std::string::npos);
  CHECK(mislabel("s6", [](nlohmann::json& m, const path&) { m["kernels"][0]["variants"][0]["images"][0]["file"] = "missing.cubin"; })
            .find("missing.cubin") != std::string::npos);
  const path dir = tp_test::copy_artifacts("s7");
  tp_test::spit(dir / "manifest.json", std::string("{ not json"));
  CHECK(load_error(dir / "manifest.json").find("not valid JSON") != std::string::npos);
}
