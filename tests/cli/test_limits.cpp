// Block limits at pack time (limits_check.hpp): an image needing more shared memory or threads
// per block than its own target allows is refused naming the kernel, variant, target, need and
// limit; one that is the fallback of a GPU that cannot run it is packed with a warning; and
// `inspect --device` shows selection refusing it.
#include <doctest/doctest.h>

#include "test_util.hpp"
#include "tritonpack/core/error.hpp"
#include "tritonpack/pack/manifest.hpp"

using namespace tritonpack;
using tp_test::fs::path;

namespace cli_limits_tests {  // this file's own names (the test binary is a unity build)
namespace {

// A copy of the fixtures in which `edit` changes Triton's metadata JSON of one image (shared by
// its cubin and its PTX, as the front end writes them).
template <class F>
path with_metadata(const std::string& name, const std::string& metadata, F edit) {
  const path dir = tp_test::copy_artifacts(name);
  nlohmann::json m = tp_test::load_json(dir / metadata);
  edit(m);
  tp_test::spit(dir / metadata, m.dump());
  return dir;
}

std::string load_error(const path& manifest) {
  try {
    (void)pack::load_manifest(manifest);
  } catch (const error& e) {
    CHECK(e.code() == errc::bad_argument);
    return e.what();
  }
  return {};
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("the fixtures fit every GPU they may run on: no error, no warning") {
  const auto m = pack::load_manifest(path(TP_ARTIFACTS) / "manifest.json");
  CHECK(m.warnings.empty());
}

TEST_CASE("an image needing more shared memory than its own target allows is refused") {
  const path dir = with_metadata("limits_smem", "matmul_f16/v2/cuda_sm_90a.json", [](auto& m) { m["shared"] = 320 * 1024; });
  const std::string e = load_error(dir / "manifest.json");
  CAPTURE(e);
  CHECK(has(e, "matmul_f16 variant 2, sm_90a: needs 320 KB of shared memory per block; sm_90a allows 227 KB "
               "(matmul_f16/v2/cuda_sm_90a.cubin, matmul_f16/v2/cuda_sm_90a.ptx): it cannot run there."));
  CHECK(has(e, "Lower num_stages"));

  const auto r = tp_test::run_cli("pack \"" + (dir / "manifest.json").string() + "\" -o \"" + (dir / "out").string() + "\"");
  CHECK(r.code == 1);
  CHECK(has(r.out, "needs 320 KB of shared memory per block; sm_90a allows 227 KB"));
  CHECK_FALSE(tp_test::fs::exists(dir / "out" / "fixtures.tpk"));
}

TEST_CASE("num_warps = 64 (2048 threads) is refused on every target it was compiled for") {
  const path dir = tp_test::copy_artifacts("limits_warps");
  for (const char* meta : {"row_softmax/v0/cuda_sm_80.json", "row_softmax/v0/hip_gfx942.json"}) {
    nlohmann::json m = tp_test::load_json(dir / meta);
    m["num_warps"] = 64;
    tp_test::spit(dir / meta, m.dump());
  }
  const std::string e = load_error(dir / "manifest.json");
  CAPTURE(e);
  CHECK(has(e, "2 images cannot run on the GPU they were compiled for:"));
  CHECK(has(e, "row_softmax variant 0, sm_80: needs 2048 threads per block (64 warps of 32); sm_80 allows 1024 threads"));
  CHECK(has(e, "row_softmax variant 0, gfx942: needs 4096 threads per workgroup (64 wavefronts of 64); gfx942 allows 1024 threads "
               "(row_softmax/v0/hip_gfx942.hsaco, row_softmax/v0/hip_gfx942.llir)"));
}

TEST_CASE("an image that fits its target but not a GPU that would pick it: packed, with a warning") {
  // 160 KB fits sm_80 (163 KB); the sm_80 cubin is also what sm_86 and sm_89 run (99 KB), and its
  // PTX what sm_120 / sm_121 JIT-compile (99 KB).
  const path dir = with_metadata("limits_fallback", "vector_add/v0/cuda_sm_80.json", [](auto& m) { m["shared"] = 160 * 1024; });
  const auto m = pack::load_manifest(dir / "manifest.json");
  REQUIRE(m.warnings.size() == 2);
  CHECK(m.warnings[0] ==
        "vector_add variant 0, cubin sm_80: needs 160 KB of shared memory per block; it is also the image for sm_86 and sm_89, "
        "which allow 99 KB: the variant has no image that fits them");
  CHECK(m.warnings[1] ==
        "vector_add variant 0, ptx sm_80: needs 160 KB of shared memory per block; it is also the image for sm_120 and sm_121, "
        "which allow 99 KB: the variant has no image that fits them");

  const path out = dir / "out";
  const auto r = tp_test::run_cli("pack \"" + (dir / "manifest.json").string() + "\" -o \"" + out.string() + "\"");
  CHECK(r.code == 0);
  CHECK(has(r.out, "tritonpack: warning: vector_add variant 0, cubin sm_80: needs 160 KB"));

  // inspect --device says what the run time's selection does with it.
  const std::string tpk = "\"" + (out / "fixtures.tpk").string() + "\"";
  const auto s86 = tp_test::run_cli("inspect --device sm_86 " + tpk);
  CHECK(s86.code == 0);
  CHECK(has(s86.out, "on sm_86: no image — no image of this variant fits sm_86: cubin sm_80 needs 160 KB of shared memory, "
                     "the GPU allows 99 KB"));
  CHECK(has(s86.out, "cubin sm_80 cannot run on sm_86: needs 160 KB of shared memory, the GPU allows 99 KB"));
  CHECK(has(s86.out, "ptx sm_80 cannot run on sm_86: needs 160 KB of shared memory, the GPU allows 99 KB"));
  const auto s80 = tp_test::run_cli("inspect --device sm_80 " + tpk);
  CHECK(has(s80.out, "on sm_80: image "));
  CHECK(has(s80.out, " (cuda cubin sm_80) — exact cubin sm_80"));
}

TEST_CASE("a fallback that another image replaces: the warning names what runs instead") {
  // vector_add variant 1's sm_80 image needs 120 KB: on sm_86 / sm_89 nothing else fits either, but
  // with a 64 KB PTX for sm_75 added, those GPUs JIT-compile it instead.
  const path dir = with_metadata("limits_instead", "vector_add/v1/cuda_sm_80.json", [](auto& m) { m["shared"] = 120 * 1024; });
  nlohmann::json man = tp_test::load_json(dir / "manifest.json");
  nlohmann::json& images = man["kernels"][0]["variants"][1]["images"];
  const auto ptx_bytes = tp_test::slurp(dir / "vector_add/v1/cuda_sm_80.ptx");
  std::string ptx(ptx_bytes.begin(), ptx_bytes.end());
  ptx.replace(ptx.find(".target sm_80"), 13, ".target sm_75");
  tp_test::spit(dir / "vector_add/v1/cuda_sm_75.ptx", ptx);
  nlohmann::json meta = tp_test::load_json(dir / "vector_add/v1/cuda_sm_80.json");
  meta["shared"] = 64 * 1024;
  tp_test::spit(dir / "vector_add/v1/cuda_sm_75.json", meta.dump());
  nlohmann::json im = images[1];  // the sm_80 PTX entry
  REQUIRE(im["kind"] == "ptx");
  im["arch"] = "sm_75";
  im["file"] = "vector_add/v1/cuda_sm_75.ptx";
  im["metadata"] = "vector_add/v1/cuda_sm_75.json";
  images.push_back(im);
  tp_test::spit(dir / "manifest.json", man.dump(2));

  const auto m = pack::load_manifest(dir / "manifest.json");
  bool saw = false;
  for (const auto& w : m.warnings) {
    CAPTURE(w);
    saw = saw || w == "vector_add variant 1, cubin sm_80: needs 120 KB of shared memory per block; it is also the image for sm_86 and "
                      "sm_89, which allow 99 KB: they run ptx sm_75 (JIT-compiled) instead";
  }
  CHECK(saw);
}

}  // namespace cli_limits_tests
