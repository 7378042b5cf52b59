// The packer checks each image by the launch ABI of the Triton release that built it
// (launch/triton_abi.hpp, docs/triton-abi.md §7): the decomposed descriptor's parameter count
// (3 + 4·rank from 3.7, on tests/data/triton-3.7, desc_scale compiled by Triton 3.7.1), the AMD
// LLVM IR's target triple (per processor from 3.9), and the versions it cannot plan for.
#include <doctest/doctest.h>

#include <fstream>
#include <string>

#include "test_util.hpp"
#include "tritonpack/pack/manifest.hpp"

using tp_test::fs::path;

namespace cli_triton_versions_tests {  // this file's own names (the test binary is a unity build)
namespace {
const path work = TP_WORK;
const path triton37 = path(TP_ARTIFACTS).parent_path() / "triton-3.7" / "artifacts";

// A fresh copy of `from` under TP_WORK/<name>.
path copy_of(const path& from, const std::string& name) {
  const path dst = work / name;
  tp_test::fs::remove_all(dst);
  tp_test::fs::create_directories(dst);
  tp_test::fs::copy(from, dst, tp_test::fs::copy_options::recursive);
  return dst;
}

// Rewrites a JSON file in place.
template <class F>
void edit_json(const path& p, F&& f) {
  auto j = tp_test::load_json(p);
  f(j);
  tp_test::spit(p, j.dump());
}

std::string text_of(const path& p) {
  const auto b = tp_test::slurp(p);
  return std::string(b.begin(), b.end());
}

// The load_manifest error for `dir` without the "tritonpack: " every message starts with, or
// "(no error)".
std::string pack_error(const path& dir) {
  const std::string e = tp_test::error_of([&] { tritonpack::pack::load_manifest(dir / "manifest.json"); });
  const std::string prefix = "tritonpack: ";
  return e.compare(0, prefix.size(), prefix) == 0 ? e.substr(prefix.size()) : e;
}
}  // namespace

TEST_CASE("Triton 3.7 images: a decomposed descriptor is 3 + 4·rank parameters (the .entry has 17), TMA unchanged") {
  const auto m = tritonpack::pack::load_manifest(triton37 / "manifest.json");
  REQUIRE(m.info.images.size() == 2);
  for (const auto& im : m.info.images) {
    CAPTURE(im.arch);
    CHECK(im.launch.triton_version == "3.7.1");
  }
  CHECK(m.info.images[0].launch.tensordesc.empty());         // sm_80: decomposed
  CHECK(m.info.images[1].launch.tensordesc.size() == 1);     // sm_90a: TMA map

  // The same sm_80 PTX said to come from Triton 3.6: 16 parameters expected, refused.
  const path dir = copy_of(triton37, "triton37_as_36");
  edit_json(dir / "desc_scale/v0/cuda_sm_80.json", [](auto& j) { j["triton_version"] = "3.6.0"; });
  CHECK(pack_error(dir) ==
        "desc_scale/v0/cuda_sm_80.ptx (kernels[0].variants[0].images[0]): .entry desc_scale takes 17 parameters; the "
        "manifest's args and specs make 16 (with the 2 scratch pointers; a decomposed tensor descriptor is 2 + 4·rank "
        "parameters, as Triton 3.6.0 passes them)");

  // A Triton 3.6 .entry (no round_f32_to_tf32) said to come from 3.7: one parameter short.
  const path dir36 = copy_of(triton37, "triton37_entry_36");
  const path ptx = dir36 / "desc_scale/v0/cuda_sm_80.ptx";
  std::string t = text_of(ptx);
  const std::string flag = "\t.param .u8 desc_scale_param_6,\n";
  REQUIRE(t.find(flag) != std::string::npos);
  t.erase(t.find(flag), flag.size());
  tp_test::spit(ptx, t);
  CHECK(pack_error(dir36) ==
        "desc_scale/v0/cuda_sm_80.ptx (kernels[0].variants[0].images[0]): .entry desc_scale takes 16 parameters; the "
        "manifest's args and specs make 17 (with the 2 scratch pointers; a decomposed tensor descriptor is 3 + 4·rank "
        "parameters, as Triton 3.7.1 passes them)");
}

TEST_CASE("an image's Triton version: the metadata's, else the manifest's; versions the run time cannot plan for are refused") {
  {
    const path dir = copy_of(triton37, "triton37_no_meta_version");
    edit_json(dir / "desc_scale/v0/cuda_sm_80.json", [](auto& j) { j.erase("triton_version"); });
    const auto m = tritonpack::pack::load_manifest(dir / "manifest.json");
    CHECK(m.info.images[0].launch.triton_version == "3.7.1");  // from the manifest
  }
  struct bad_case {
    const char* version;
    const char* why;
  };
  for (const bad_case& c : {bad_case{"3.5.0",
                                     "Triton 3.5.0 is older than 3.6, the oldest release whose launch ABI tritonpack knows "
                                     "(docs/triton-abi.md §7)"},
                            bad_case{"three", "Triton version \"three\" is not MAJOR.MINOR[.PATCH]"}}) {
    CAPTURE(c.version);
    const path dir = copy_of(triton37, "triton37_bad_version");
    edit_json(dir / "desc_scale/v0/cuda_sm_90a.json", [&](auto& j) { j["triton_version"] = c.version; });
    CHECK(pack_error(dir) == std::string("desc_scale/v0/cuda_sm_90a.ptx (kernels[0].variants[0].images[1]): ") + c.why +
                                 "; its kernel parameters cannot be checked or planned");
  }
}

TEST_CASE("Triton 3.9 AMD IR: the processor's target triple (amdgpu9.0a-amd-amdhsa) is accepted, and required") {
  const path dir = tp_test::copy_artifacts("triton39_triple");
  const path llir = dir / "vector_add/v0/hip_gfx90a.llir";
  const std::string old_triple = "target triple = \"amdgcn-amd-amdhsa\"";
  const std::string text = text_of(llir);
  REQUIRE(text.find(old_triple) != std::string::npos);
  std::string t39 = text;
  t39.replace(t39.find(old_triple), old_triple.size(), "target triple = \"amdgpu9.0a-amd-amdhsa\"");
  const std::string where = "vector_add/v0/hip_gfx90a.llir (kernels[0].variants[0].images[7]): ";

  // Triton 3.6 wrote amdgcn-amd-amdhsa: the new triple is refused for a 3.6 image.
  tp_test::spit(llir, t39);
  CHECK(pack_error(dir) == where + "its target triple is \"amdgpu9.0a-amd-amdhsa\", expected amdgcn-* (Triton 3.6.0)");

  // Said to come from Triton 3.9: accepted, and the container records 3.9.0 for it.
  edit_json(dir / "vector_add/v0/hip_gfx90a.json", [](auto& j) { j["triton_version"] = "3.9.0"; });
  const auto m = tritonpack::pack::load_manifest(dir / "manifest.json");
  bool found = false;
  for (const auto& im : m.info.images)
    if (im.kind == tritonpack::image_kind::llir && im.arch == "gfx90a" && im.launch.triton_version == "3.9.0") found = true;
  CHECK(found);

  // ... and from 3.9 the triple must be that processor's.
  tp_test::spit(llir, text);
  CHECK(pack_error(dir) == where +
                               "its target triple is \"amdgcn-amd-amdhsa\", expected \"amdgpu9.0a-amd-amdhsa\" (Triton 3.9.0 "
                               "writes the processor's triple, amdgpu<major>.<minor><stepping>-amd-amdhsa, for gfx90a)");
  std::string t942 = text;
  t942.replace(t942.find(old_triple), old_triple.size(), "target triple = \"amdgpu9.42-amd-amdhsa\"");
  tp_test::spit(llir, t942);
  CHECK(pack_error(dir).find("its target triple is \"amdgpu9.42-amd-amdhsa\", expected \"amdgpu9.0a-amd-amdhsa\"") !=
        std::string::npos);
}

TEST_CASE("Triton 3.9 gfx1250-strict: packed (its own EF_AMDGPU_MACH 0xeb and IR triple), listed by inspect, chosen only for itself") {
  const path triton39 = path(TP_ARTIFACTS).parent_path() / "triton-3.9" / "artifacts";
  const auto m = tritonpack::pack::load_manifest(triton39 / "manifest.json");
  std::string archs;
  for (const auto& im : m.info.images) archs += std::string(tritonpack::image_kind_name(im.kind)) + ":" + im.arch + " ";
  CHECK(archs == "hsaco:gfx1250 hsaco:gfx1250-strict llir:gfx1250 llir:gfx1250-strict ");

  const path out = work / "triton39";
  tp_test::fs::remove_all(out);
  const auto p = tp_test::run_cli("pack \"" + (triton39 / "manifest.json").string() + "\" -o \"" + out.string() + "\" --name t39");
  REQUIRE_MESSAGE(p.code == 0, p.out);
  const std::string tpk = "\"" + (out / "t39.tpk").string() + "\"";
  const auto all = tp_test::run_cli("inspect " + tpk);
  CHECK(all.code == 0);
  CHECK(all.out.find("Triton 3.9.0") != std::string::npos);
  CHECK(all.out.find("  hip   hsaco  gfx1250-strict ") != std::string::npos);
  const auto a0 = tp_test::run_cli("inspect --device gfx1250-strict " + tpk);
  CHECK(a0.out.find("on gfx1250-strict: image 1 (hip hsaco gfx1250-strict)") != std::string::npos);
  const auto b0 = tp_test::run_cli("inspect --device gfx1250 " + tpk);
  CHECK(b0.out.find("on gfx1250: image 0 (hip hsaco gfx1250)") != std::string::npos);
}

}  // namespace cli_triton_versions_tests
