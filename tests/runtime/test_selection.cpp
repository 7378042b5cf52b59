// select/arch.hpp and select/image.hpp: parsing, the compatibility rules, the driver → PTX ISA table, and
// the whole selection table (exact, same-major-lower-minor, PTX by target and ISA, `a` rules,
// force_ir, AMD features, refusals with reasons), on synthetic images and on the real fixtures.
#include <doctest/doctest.h>

#include <string>

#include <tritonpack/select/image.hpp>

#include "test_util.hpp"

using namespace tritonpack;
using tptest::contains;

namespace runtime_selection_tests {  // this file's own names (the test binary is a unity build)
namespace {

struct table {
  container_info c;
  variant_info v;
  uint32_t add(image_kind k, const std::string& arch, unsigned isa = 0) {
    image_info im;
    im.kind = k;
    im.backend = (k == image_kind::hsaco || k == image_kind::llir) ? backend_kind::hip : backend_kind::cuda;
    im.arch = arch;
    im.ptx_version = isa;
    c.images.push_back(im);
    v.images.push_back(static_cast<uint32_t>(c.images.size() - 1));
    return static_cast<uint32_t>(c.images.size() - 1);
  }
  image_choice pick(const std::string& dev, unsigned driver = 13000, bool force_ir = false) const {
    device_target t = parse_device_target(dev);
    t.driver_version = driver;
    t.force_ir = force_ir;
    const image_choice full = select_image(c, v, t);
    // Every selection in this file is also made without an explanation (as the run time's first
    // launch makes it): the same choice, and no strings.
    const image_choice quick = select_image(c, v, t, /*explain=*/false);
    CHECK(quick.image == full.image);
    CHECK(quick.jit == full.jit);
    CHECK(quick.failure == full.failure);
    CHECK(quick.needed_ptx_isa == full.needed_ptx_isa);
    CHECK(quick.refused.empty());
    CHECK((full.image ? quick.reason.empty() : quick.reason == full.reason));
    // Explained: every image of the variant is either the choice or refused with a reason.
    CHECK(full.refused.size() + (full.image ? 1 : 0) == v.images.size());
    for (const auto& r : full.refused) CHECK(!r.reason.empty());
    return full;
  }
  std::string chosen(const std::string& dev, unsigned driver = 13000, bool force_ir = false) const {
    auto ch = pick(dev, driver, force_ir);
    if (!ch.image) return "none";
    const auto& im = c.images[*ch.image];
    return std::string(image_kind_name(im.kind)) + ":" + im.arch;
  }
};

}  // namespace

TEST_CASE("parse_cuda_arch accepts the usual spellings") {
  auto a = parse_cuda_arch("sm_90a");
  REQUIRE(a);
  CHECK(a->major == 9);
  CHECK(a->minor == 0);
  CHECK(a->suffix == 'a');
  CHECK(a->str() == "sm_90a");
  CHECK(parse_cuda_arch("sm90")->number() == 90);
  CHECK(parse_cuda_arch("compute_80")->number() == 80);
  CHECK(parse_cuda_arch("86")->number() == 86);
  CHECK(parse_cuda_arch("9.0")->number() == 90);
  CHECK(parse_cuda_arch("cuda:100")->number() == 100);
  CHECK(parse_cuda_arch("sm_100f")->suffix == 'f');
  CHECK(parse_cuda_arch("sm_120")->major == 12);
  CHECK_FALSE(parse_cuda_arch("gfx942"));
  CHECK_FALSE(parse_cuda_arch("sm_"));
  CHECK_FALSE(parse_cuda_arch("sm_9x"));
  CHECK_FALSE(parse_cuda_arch(""));
}

TEST_CASE("parse_amd_arch and parse_device_target") {
  auto a = parse_amd_arch("gfx90a:sramecc+:xnack-");
  REQUIRE(a);
  CHECK(a->processor == "gfx90a");
  REQUIRE(a->features.size() == 2);
  CHECK(a->feature("xnack")->second == false);
  CHECK(a->feature("sramecc")->second == true);
  CHECK(a->str() == "gfx90a:sramecc+:xnack-");
  CHECK_FALSE(parse_amd_arch("gfx90a:xnack"));
  CHECK_FALSE(parse_amd_arch("sm_90"));

  struct c {
    const char* in;
    backend_kind b;
    const char* arch;
  } cases[] = {{"sm_90", backend_kind::cuda, "sm_90"},        {"90", backend_kind::cuda, "sm_90"},
               {"cuda:90", backend_kind::cuda, "sm_90"},      {"sm_90a", backend_kind::cuda, "sm_90"},
               {"8.6", backend_kind::cuda, "sm_86"},          {"gfx942", backend_kind::hip, "gfx942"},
               {"hip:gfx90a:xnack-", backend_kind::hip, "gfx90a:xnack-"}};
  for (const auto& x : cases) {
    CAPTURE(x.in);
    auto t = parse_device_target(x.in);
    CHECK(t.backend == x.b);
    CHECK(t.arch == x.arch);
    CHECK(t.driver_version == 0);
    CHECK_FALSE(t.force_ir);
  }
  auto e = tptest::expect_error([] { parse_device_target("volta"); });
  CHECK(e.code() == errc::bad_argument);
  CHECK(contains(e.what(), "volta"));
  CHECK_THROWS_AS(parse_device_target("hip:sm_90"), error);
  CHECK_THROWS_AS(parse_device_target("cuda:gfx942"), error);
}

TEST_CASE("driver version → PTX ISA table") {
  CHECK(max_ptx_isa_for_driver(0) == 0);
  CHECK(max_ptx_isa_for_driver(11080) == 78);
  CHECK(max_ptx_isa_for_driver(12000) == 80);
  CHECK(max_ptx_isa_for_driver(12040) == 84);
  CHECK(max_ptx_isa_for_driver(12060) == 85);
  CHECK(max_ptx_isa_for_driver(12080) == 87);
  CHECK(max_ptx_isa_for_driver(12090) == 88);
  CHECK(max_ptx_isa_for_driver(13000) == 90);
  CHECK(max_ptx_isa_for_driver(13020) == 92);         // extrapolated within 13.x
  CHECK(max_ptx_isa_for_driver(14000) == 0xffffffffu);  // unknown future: let the driver decide
  CHECK(min_cuda_for_ptx_isa(87) == 12080);
  CHECK(min_cuda_for_ptx_isa(88) == 12090);
  CHECK(min_cuda_for_ptx_isa(90) == 13000);
  CHECK(contains(driver_needed_for_ptx_isa(87), "CUDA 12.8"));
  CHECK(contains(driver_needed_for_ptx_isa(87), "570.26"));
}

TEST_CASE("cubin rules: exact, same major lower minor, never an `a` one elsewhere") {
  std::string why;
  CHECK(cubin_runs_on(*parse_cuda_arch("sm_90a"), *parse_cuda_arch("sm_90"), &why));
  CHECK(cubin_runs_on(*parse_cuda_arch("sm_80"), *parse_cuda_arch("sm_86")));
  CHECK_FALSE(cubin_runs_on(*parse_cuda_arch("sm_86"), *parse_cuda_arch("sm_80"), &why));
  CHECK(contains(why, "newer GPU"));
  CHECK_FALSE(cubin_runs_on(*parse_cuda_arch("sm_80"), *parse_cuda_arch("sm_90"), &why));
  CHECK(contains(why, "major"));
  CHECK_FALSE(cubin_runs_on(*parse_cuda_arch("sm_100a"), *parse_cuda_arch("sm_103"), &why));
  CHECK(contains(why, "architecture-specific"));
  CHECK(cubin_runs_on(*parse_cuda_arch("sm_100f"), *parse_cuda_arch("sm_103")));
}

TEST_CASE("selection table (NVIDIA)") {
  table t;
  t.add(image_kind::cubin, "sm_80");
  t.add(image_kind::cubin, "sm_86");
  t.add(image_kind::cubin, "sm_90");
  t.add(image_kind::cubin, "sm_90a");
  t.add(image_kind::ptx, "sm_80", 87);
  t.add(image_kind::ptx, "sm_90", 87);
  t.add(image_kind::ptx, "sm_90a", 87);
  t.add(image_kind::ptx, "sm_100a", 88);

  CHECK(t.chosen("sm_90") == "cubin:sm_90a");   // exact; `a` preferred over plain
  CHECK(t.chosen("sm_80") == "cubin:sm_80");
  CHECK(t.chosen("sm_86") == "cubin:sm_86");
  CHECK(t.chosen("sm_89") == "cubin:sm_86");    // same major, highest lower minor
  CHECK(t.chosen("sm_87") == "cubin:sm_86");
  CHECK(t.chosen("sm_100") == "ptx:sm_100a");   // exact `a` PTX
  CHECK(t.chosen("sm_103") == "ptx:sm_90");     // sm_100a PTX is exact-only; best generic ≤ device
  CHECK(t.chosen("sm_120") == "ptx:sm_90");
  CHECK(t.chosen("sm_75") == "none");

  auto ch = t.pick("sm_103");
  CHECK(ch.jit);
  CHECK(ch.failure == selection_failure::none);
  CHECK(ch.refused.size() == t.c.images.size() - 1);  // every other image, with a reason
  for (const auto& r : ch.refused) CHECK_FALSE(r.reason.empty());

  // With only sm_90 (non-a) and a generic PTX, an `a`-less exact cubin is chosen.
  table u;
  u.add(image_kind::cubin, "sm_90");
  u.add(image_kind::ptx, "sm_80", 87);
  CHECK(u.chosen("sm_90") == "cubin:sm_90");
  CHECK(u.chosen("sm_86") == "ptx:sm_80");      // the sm_90 cubin never runs on 8.x
}

TEST_CASE("selection: PTX ISA against the driver, and force_ir") {
  table t;
  t.add(image_kind::cubin, "sm_90a");
  t.add(image_kind::ptx, "sm_80", 87);
  t.add(image_kind::ptx, "sm_90a", 87);

  // Driver 12.6 accepts ISA 8.5 at most: no PTX, and no cubin for sm_100.
  auto ch = t.pick("sm_100", 12060);
  CHECK_FALSE(ch.image);
  CHECK(ch.failure == selection_failure::ptx_too_new);
  CHECK(ch.needed_ptx_isa == 87);
  CHECK(contains(ch.reason, "8.7"));
  CHECK(contains(ch.reason, "CUDA 12.8"));
  // The same on a driver that knows 8.7.
  CHECK(t.chosen("sm_100", 12080) == "ptx:sm_80");
  // An unknown driver version (0) does not filter by ISA.
  CHECK(t.chosen("sm_100", 0) == "ptx:sm_80");
  // The cubin is still used on the exact arch even when the PTX is too new.
  CHECK(t.chosen("sm_90", 12060) == "cubin:sm_90a");

  // Triton 3.9 on a CUDA 13.0 driver: the exact target's PTX has ISA 9.4, the generic sm_80 one 8.8.
  // The generic one runs, and the choice says which PTX was passed over and what driver it needs.
  table newer;
  newer.add(image_kind::ptx, "sm_80", 88);
  newer.add(image_kind::ptx, "sm_90a", 94);
  const image_choice fell = newer.pick("sm_90", 13000, true);
  REQUIRE(fell.image);
  CHECK(newer.c.images[*fell.image].arch == "sm_80");
  CHECK(contains(fell.reason, "PTX sm_90a (ISA 9.4) passed over"));
  CHECK(contains(fell.reason, "at most ISA 9.0"));
  CHECK(contains(fell.reason, "CUDA 13.4"));
  // A driver that accepts 9.4 takes the exact target's PTX, with no such note.
  const image_choice exact = newer.pick("sm_90", 13040, true);
  REQUIRE(exact.image);
  CHECK(newer.c.images[*exact.image].arch == "sm_90a");
  CHECK_FALSE(contains(exact.reason, "passed over"));

  // force_ir skips every binary.
  CHECK(t.chosen("sm_90", 13000, true) == "ptx:sm_90a");
  auto f = t.pick("sm_90", 13000, true);
  bool saw_skip = false;
  for (const auto& r : f.refused) saw_skip = saw_skip || contains(r.reason, "TRITONPACK_FORCE_IR");
  CHECK(saw_skip);
  table b;
  b.add(image_kind::cubin, "sm_90a");
  auto g = b.pick("sm_90", 13000, true);
  CHECK_FALSE(g.image);
  CHECK(g.failure == selection_failure::no_image);
}

TEST_CASE("selection: a no-image report names the device, the driver and every image") {
  table t;
  t.add(image_kind::cubin, "sm_90a");
  t.add(image_kind::ptx, "sm_90a", 87);
  t.add(image_kind::hsaco, "gfx942");
  device_target d = parse_device_target("sm_80");
  d.driver_version = 12080;
  auto ch = select_image(t.c, t.v, d);
  CHECK_FALSE(ch.image);
  CHECK(ch.failure == selection_failure::no_image);
  CHECK(ch.refused.size() == 3);
  const std::string text = describe_choice(t.c, ch, d);
  CHECK(contains(text, "sm_80"));
  CHECK(contains(text, "CUDA 12.8"));
  CHECK(contains(text, "cubin sm_90a"));
  CHECK(contains(text, "ptx sm_90a"));
  CHECK(contains(text, "hsaco gfx942"));
  CHECK(contains(text, "not for an NVIDIA GPU"));
}

TEST_CASE("selection table (AMD): processor and target features") {
  table t;
  t.add(image_kind::hsaco, "gfx90a:xnack-");
  t.add(image_kind::hsaco, "gfx90a");
  t.add(image_kind::llir, "gfx90a");
  t.add(image_kind::hsaco, "gfx942");
  t.add(image_kind::cubin, "sm_90a");
  CHECK(t.chosen("gfx942") == "hsaco:gfx942");
  CHECK(t.chosen("gfx942:sramecc+:xnack-") == "hsaco:gfx942");         // unpinned image runs on any setting
  CHECK(t.chosen("gfx90a:sramecc+:xnack-") == "hsaco:gfx90a:xnack-");  // pinned and matching: preferred
  CHECK(t.chosen("gfx90a:sramecc+:xnack+") == "hsaco:gfx90a");         // pinned xnack- refused
  CHECK(t.chosen("gfx90a") == "hsaco:gfx90a");  // a GPU that reports no xnack setting: pinned xnack- refused
  // sramecc the same way: a code object pinned to sramecc+ only where the GPU reports sramecc+.
  table e;
  e.add(image_kind::hsaco, "gfx942:sramecc+");
  e.add(image_kind::hsaco, "gfx942");
  CHECK(e.chosen("gfx942:sramecc+:xnack-") == "hsaco:gfx942:sramecc+");
  CHECK(e.chosen("gfx942:sramecc-:xnack-") == "hsaco:gfx942");
  CHECK(e.chosen("gfx942:xnack-") == "hsaco:gfx942");
  CHECK(e.chosen("gfx942") == "hsaco:gfx942");
  CHECK(t.chosen("gfx1100") == "none");
  auto ch = t.pick("gfx90a:xnack+");
  bool saw_feature = false, saw_llir = false, saw_cuda = false;
  for (const auto& r : ch.refused) {
    saw_feature = saw_feature || contains(r.reason, "requires xnack-");
    saw_llir = saw_llir || contains(r.reason, "llir gfx90a: not a code object; compiled through comgr only when no code object runs");
    saw_cuda = saw_cuda || contains(r.reason, "not for an AMD GPU");
  }
  CHECK(saw_feature);
  CHECK(saw_llir);
  CHECK(saw_cuda);
  // No code object runs (here: the IR path forced): the LLVM IR of the device's exact processor is
  // the choice, JIT-compiled (through comgr, hip/ir_jit.hpp), reported as PTX is on NVIDIA.
  const image_choice ir = t.pick("gfx90a", 0, true);
  CHECK(t.chosen("gfx90a", 0, true) == "llir:gfx90a");
  CHECK(ir.jit);
  CHECK(ir.failure == selection_failure::none);
  CHECK(contains(ir.reason, "no code object of this variant runs on gfx90a with the IR path forced, so its LLVM IR for gfx90a"));
  for (const auto& r : ir.refused) CHECK(!contains(r.reason, "llir gfx90a"));  // the chosen image is not also refused
  CHECK(t.chosen("gfx942", 0, true) == "none");   // IR of another processor never runs: it names its target
  CHECK(t.chosen("gfx1100", 0, true) == "none");
  CHECK_FALSE(t.pick("gfx942").jit);               // a code object that runs is never passed over for IR
}

TEST_CASE("selection (AMD): gfx1250-strict is a processor of its own, chosen only where the device reports it") {
  auto a = parse_amd_arch("gfx1250-strict:sramecc+");
  REQUIRE(a);
  CHECK(a->processor == "gfx1250-strict");
  CHECK(a->strict());
  CHECK(a->base_processor() == "gfx1250");
  CHECK(parse_amd_arch("gfx1250")->base_processor() == "gfx1250");
  CHECK_FALSE(parse_amd_arch("gfx1250-lax"));
  CHECK_FALSE(parse_amd_arch("gfx-strict"));
  CHECK(parse_device_target("hip:gfx1250-strict").arch == "gfx1250-strict");

  table t;
  t.add(image_kind::hsaco, "gfx1250-strict");
  t.add(image_kind::hsaco, "gfx1250");
  CHECK(t.chosen("gfx1250-strict") == "hsaco:gfx1250-strict");
  CHECK(t.chosen("gfx1250") == "hsaco:gfx1250");
  // Only the strict image: a device reporting gfx1250 (a B0, or an A0 in the runtime's default
  // mode) loads only gfx1250 code objects; the refusal says when the runtime reports the strict name.
  table s;
  s.add(image_kind::hsaco, "gfx1250-strict");
  s.add(image_kind::llir, "gfx1250-strict");
  CHECK(s.chosen("gfx1250") == "none");
  CHECK(s.chosen("gfx1250", 0, true) == "none");  // nor its IR
  bool explained = false;
  for (const auto& r : s.pick("gfx1250").refused)
    explained = explained || contains(r.reason, "code object for gfx1250-strict cannot run on gfx1250 (different gfx processor); the HIP "
                                                "runtime reports gfx1250-strict only for gfx1250 A0 parts with HSA_DISABLE_GFX12_STRICT=0");
  CHECK(explained);
  // Only the gfx1250 image: it may use B0 instructions the A0 lacks.
  table b;
  b.add(image_kind::hsaco, "gfx1250");
  CHECK(b.chosen("gfx1250-strict") == "none");
  explained = false;
  for (const auto& r : b.pick("gfx1250-strict").refused)
    explained = explained || contains(r.reason, "(different gfx processor); the device runs only gfx1250-strict code objects");
  CHECK(explained);
}

TEST_CASE("selection on the real fixtures (tests/data/artifacts)") {
  const auto& bytes = tptest::fixture_container();
  const auto c = container::parse(bytes.data(), bytes.size());
  const auto& info = c.info();
  REQUIRE(info.kernels.size() >= 3);
  auto arch_of = [&](const image_choice& ch) {
    return ch.image ? std::string(image_kind_name(info.images[*ch.image].kind)) + ":" + info.images[*ch.image].arch : "none";
  };
  for (const auto& k : info.kernels) {
    for (const auto& v : k.variants) {
      CAPTURE(k.name);
      auto pick = [&](const char* dev, unsigned drv = 13000, bool ir = false) {
        auto t = parse_device_target(dev);
        t.driver_version = drv;
        t.force_ir = ir;
        return arch_of(select_image(info, v, t));
      };
      CHECK(pick("sm_80") == "cubin:sm_80");
      CHECK(pick("sm_86") == "cubin:sm_80");
      CHECK(pick("sm_90") == "cubin:sm_90a");
      CHECK(pick("sm_100") == "cubin:sm_100a");
      CHECK(pick("sm_120") == "ptx:sm_80");
      CHECK(pick("sm_90", 13000, true) == "ptx:sm_90a");
      CHECK(pick("sm_120", 12060) == "none");
      CHECK(pick("gfx942") == "hsaco:gfx942");
      CHECK(pick("gfx90a:sramecc+:xnack-") == "hsaco:gfx90a");
      CHECK(pick("sm_75") == "none");
    }
  }
}

TEST_CASE("block limits per architecture (select/arch_limits.hpp)") {
  auto cuda = [](const char* a) { return cuda_block_limits(*parse_cuda_arch(a)); };
  CHECK(cuda("sm_75")->shared_bytes == 65536);
  CHECK(cuda("sm_80")->shared_bytes == 166912);
  CHECK(cuda("sm_86")->shared_bytes == 101376);
  CHECK(cuda("sm_87")->shared_bytes == 166912);
  CHECK(cuda("sm_89")->shared_bytes == 101376);
  CHECK(cuda("sm_90a")->shared_bytes == 232448);  // the suffix does not change the hardware
  CHECK(cuda("sm_100")->shared_bytes == 232448);
  CHECK(cuda("sm_120")->shared_bytes == 101376);
  for (const auto& d : known_devices(backend_kind::cuda)) CHECK(cuda(d.c_str())->threads == 1024);
  CHECK_FALSE(cuda("sm_70"));   // not in the table: no limits known, nothing refused
  CHECK_FALSE(cuda("sm_130"));
  CHECK(block_limits_of(backend_kind::hip, "gfx942:sramecc+:xnack-")->shared_bytes == 65536);
  CHECK(block_limits_of(backend_kind::hip, "gfx950")->shared_bytes == 163840);
  CHECK(block_limits_of(backend_kind::hip, "gfx1100")->threads == 1024);
  CHECK_FALSE(block_limits_of(backend_kind::hip, "gfx9999"));
  CHECK_FALSE(block_limits_of(backend_kind::cuda, "gfx942"));

  launch_info L;
  L.shared = 160 * 1024;
  L.num_warps = 64;
  L.warp_size = 32;
  const auto ex = excesses(L, *cuda("sm_86"));
  REQUIRE(ex.size() == 2);
  CHECK(excess_reason(ex, backend_kind::cuda, L) ==
        "needs 160 KB of shared memory, the GPU allows 99 KB; needs 2048 threads per block (64 warps of 32), the GPU allows 1024");
  CHECK_FALSE(fits(L, *cuda("sm_90")));
  L.num_warps = 32;
  CHECK(fits(L, *cuda("sm_90")));
  // A need that is not whole kilobytes is compared in bytes.
  L.shared = 101400;
  CHECK(excess_reason(excesses(L, *cuda("sm_86")), backend_kind::cuda, L) ==
        "needs 101400 bytes of shared memory, the GPU allows 99 KB (101376 bytes)");
  L.shared = 96 * 1024;
  L.warp_size = 64;
  CHECK(excess_reason(excesses(L, *block_limits_of(backend_kind::hip, "gfx942")), backend_kind::hip, L) ==
        "needs 96 KB of shared memory (LDS), the GPU allows 64 KB; needs 2048 threads per workgroup (32 wavefronts of 64), the GPU "
        "allows 1024");
}

TEST_CASE("selection refuses an image beyond the GPU's limits and falls through to the next") {
  // An sm_80 cubin needing 160 KB (A100 allows 163 KB) and a Turing PTX of the same variant that
  // Triton pipelined into 64 KB: on sm_86 (99 KB) the cubin is refused and the PTX runs.
  table t;
  const auto cubin = t.add(image_kind::cubin, "sm_80");
  t.c.images[cubin].launch.shared = 160 * 1024;
  t.c.images[t.add(image_kind::ptx, "sm_75", 87)].launch.shared = 64 * 1024;
  CHECK(t.chosen("sm_80") == "cubin:sm_80");
  CHECK(t.chosen("sm_87") == "cubin:sm_80");  // Orin allows 163 KB too
  CHECK(t.chosen("sm_86") == "ptx:sm_75");
  CHECK(t.chosen("sm_89") == "ptx:sm_75");
  const auto ch = t.pick("sm_86");
  REQUIRE(ch.refused.size() == 1);
  CHECK(ch.refused[0].image == cubin);
  CHECK(ch.refused[0].reason == "cubin sm_80 cannot run on sm_86: needs 160 KB of shared memory, the GPU allows 99 KB");

  // Nothing fits: the failure says so (not "no image for this GPU": a target exists, the config
  // is too big), in both modes alike (pick() compares them).
  table big;
  big.c.images[big.add(image_kind::cubin, "sm_90a")].launch.shared = 320 * 1024;
  big.c.images[big.add(image_kind::ptx, "sm_90a", 87)].launch.shared = 320 * 1024;
  const auto none = big.pick("sm_90");
  CHECK_FALSE(none.image);
  CHECK(none.failure == selection_failure::exceeds_limits);
  CHECK(contains(none.reason, "no image of this variant fits sm_90: cubin sm_90a needs 320 KB of shared memory, the GPU allows 227 KB"));
  for (const auto& r : none.refused) CHECK(contains(r.reason, "cannot run on sm_90: needs 320 KB of shared memory, the GPU allows 227 KB"));
  const std::string text = describe_choice(big.c, none, parse_device_target("sm_90"));
  CHECK(contains(text, "refused: [0] cuda cubin sm_90a — cubin sm_90a cannot run on sm_90"));

  // num_warps = 64: 2048 threads, on every NVIDIA GPU.
  table warps;
  const auto w = warps.add(image_kind::cubin, "sm_90a");
  warps.c.images[w].launch.num_warps = 64;
  const auto wch = warps.pick("sm_90");
  CHECK(wch.failure == selection_failure::exceeds_limits);
  REQUIRE(wch.refused.size() == 1);
  CHECK(contains(wch.refused[0].reason, "needs 2048 threads per block (64 warps of 32), the GPU allows 1024"));
}

TEST_CASE("selection: limits against PTX ISA, unknown archs and limits the caller gives") {
  // The cubin is too big and the PTX that would fit needs a newer driver: the driver is what to
  // fix, so the failure is ptx_too_new.
  table t;
  t.c.images[t.add(image_kind::cubin, "sm_80")].launch.shared = 160 * 1024;
  t.c.images[t.add(image_kind::ptx, "sm_80", 88)].launch.shared = 32 * 1024;
  CHECK(t.pick("sm_86", 12060).failure == selection_failure::ptx_too_new);
  CHECK(t.chosen("sm_86", 12090) == "ptx:sm_80");

  // An arch the tables do not know has no limits here (the run time's load compares the
  // driver's own numbers).
  table u;
  u.c.images[u.add(image_kind::ptx, "sm_90", 87)].launch.shared = 300 * 1024;
  CHECK(u.chosen("sm_130") == "ptx:sm_90");
  // Limits given in the device_target replace the table's.
  device_target d = parse_device_target("sm_130");
  d.limits = block_limits{48 * 1024, 1024};
  const auto ch = select_image(u.c, u.v, d);
  CHECK(ch.failure == selection_failure::exceeds_limits);
  CHECK(contains(ch.refused.at(0).reason, "needs 300 KB of shared memory, the GPU allows 48 KB"));
  d.limits = block_limits{0xffffffffu, 0xffffffffu};
  CHECK(select_image(u.c, u.v, d, /*explain=*/false).image);
}

TEST_CASE("selection (AMD): LDS per workgroup") {
  table t;
  t.c.images[t.add(image_kind::hsaco, "gfx942")].launch.shared = 96 * 1024;
  t.c.images[t.add(image_kind::hsaco, "gfx950")].launch.shared = 96 * 1024;
  CHECK(t.chosen("gfx950") == "hsaco:gfx950");  // CDNA4: 160 KB
  const auto ch = t.pick("gfx942:sramecc+:xnack-");
  CHECK(ch.failure == selection_failure::exceeds_limits);
  bool saw = false;
  for (const auto& r : ch.refused)
    saw = saw || r.reason == "hsaco gfx942 cannot run on gfx942: needs 96 KB of shared memory (LDS), the GPU allows 64 KB";
  CHECK(saw);
  CHECK(contains(ch.reason, "no image of this variant fits gfx942"));
}

// Boundaries of the rules, each one step either side (issue 16: an off-by-one in "same major,
// lower minor" survived every test): minor above / equal / below, `a` exact only, PTX JIT forward
// compatibility up to the device, the highest generic PTX first.
TEST_CASE("selection boundaries: same major one minor either side, `a` only exact, PTX forward-compatible") {
  table t;
  t.add(image_kind::cubin, "sm_87");
  CHECK(t.chosen("sm_86") == "none");        // one minor above the device: never
  CHECK(t.chosen("sm_87") == "cubin:sm_87");
  CHECK(t.chosen("sm_89") == "cubin:sm_87");  // lower minor, same major: runs
  CHECK(t.chosen("sm_90") == "none");         // another major: never

  table u;
  u.add(image_kind::cubin, "sm_86");
  CHECK(u.chosen("sm_87") == "cubin:sm_86");
  CHECK(u.chosen("sm_86") == "cubin:sm_86");
  CHECK(u.chosen("sm_80") == "none");

  table a;
  a.add(image_kind::cubin, "sm_90a");
  a.add(image_kind::ptx, "sm_90a", 87);
  CHECK(a.chosen("sm_90") == "cubin:sm_90a");
  CHECK(a.chosen("sm_100") == "none");  // neither the `a` cubin nor the `a` PTX runs elsewhere
  CHECK(a.chosen("sm_89") == "none");
  // One minor above an `a` image is not "same major, lower minor": `a` is exact only.
  table a1;
  a1.add(image_kind::cubin, "sm_120a");
  CHECK(a1.chosen("sm_120") == "cubin:sm_120a");
  CHECK(a1.chosen("sm_121") == "none");
  CHECK_FALSE(cubin_runs_on(*parse_cuda_arch("sm_100a"), *parse_cuda_arch("sm_101")));

  table p;
  p.add(image_kind::ptx, "sm_80", 87);
  p.add(image_kind::ptx, "sm_86", 87);
  p.add(image_kind::ptx, "sm_90", 87);
  CHECK(p.chosen("sm_80") == "ptx:sm_80");
  CHECK(p.chosen("sm_86") == "ptx:sm_86");
  CHECK(p.chosen("sm_87") == "ptx:sm_86");   // highest target <= the device
  CHECK(p.chosen("sm_89") == "ptx:sm_86");
  CHECK(p.chosen("sm_90") == "ptx:sm_90");
  CHECK(p.chosen("sm_120") == "ptx:sm_90");  // forward compatible to any newer GPU
  CHECK(p.chosen("sm_75") == "none");
  auto jit = p.pick("sm_100");
  CHECK(jit.jit);
  // A cubin always beats PTX it could replace; PTX is the fallback when no cubin runs.
  p.add(image_kind::cubin, "sm_80");
  CHECK(p.chosen("sm_86") == "cubin:sm_80");
  CHECK_FALSE(p.pick("sm_86").jit);
  CHECK(p.chosen("sm_90") == "ptx:sm_90");
}

TEST_CASE("TRITONPACK_FORCE_IMAGE: only the named image is a candidate, and only if it runs") {
  table t;
  t.add(image_kind::cubin, "sm_90a");
  t.add(image_kind::cubin, "sm_80");
  t.add(image_kind::ptx, "sm_80", 87);
  t.add(image_kind::ptx, "sm_90a", 87);
  auto forced = [&](const std::string& dev, const std::string& image) {
    device_target d = parse_device_target(dev);
    d.driver_version = 13000;
    d.force_image = parse_forced_image(image);
    const image_choice full = select_image(t.c, t.v, d);
    const image_choice quick = select_image(t.c, t.v, d, /*explain=*/false);
    CHECK(quick.image == full.image);
    CHECK(full.refused.size() + (full.image ? 1 : 0) == t.v.images.size());
    return full;
  };
  auto ch = forced("sm_90", "ptx:sm_80");  // the generic PTX on an sm_90 GPU, JIT-compiled
  REQUIRE(ch.image);
  CHECK(*ch.image == 2);
  CHECK(ch.jit);
  bool named = false;
  for (const auto& r : ch.refused) named = named || contains(r.reason, "TRITONPACK_FORCE_IMAGE=ptx:sm_80 selects another image");
  CHECK(named);
  ch = forced("sm_90", "cubin:sm_90a");
  REQUIRE(ch.image);
  CHECK(*ch.image == 0);
  // An image the GPU cannot run is never forced onto it: no image, saying why.
  ch = forced("sm_90", "cubin:sm_80");
  CHECK_FALSE(ch.image);
  CHECK(ch.failure == selection_failure::no_image);
  CHECK(contains(ch.reason, "TRITONPACK_FORCE_IMAGE=cubin:sm_80 allows only that image"));
  CHECK_FALSE(forced("sm_90", "ptx:sm_86").image);  // no such image
  CHECK(parse_forced_image("").empty());
  for (const char* bad : {"sm_80", "ptx", "ptx:", "fatbin:sm_80"}) {
    CAPTURE(bad);
    const error e = tptest::expect_error([&] { parse_forced_image(bad); });
    CHECK(e.code() == errc::bad_argument);
    CHECK(contains(e.what(), "write KIND:ARCH"));
  }
}

}  // namespace runtime_selection_tests
