// arch.hpp and selection.hpp: parsing, the compatibility rules, the driver → PTX ISA table, and
// the whole selection table (exact, same-major-lower-minor, PTX by target and ISA, `a` rules,
// force_ir, AMD features, refusals with reasons), on synthetic images and on the real fixtures.
#include <doctest/doctest.h>

#include <string>

#include <tritonpack/selection.hpp>

#include "test_util.hpp"

using namespace tritonpack;
using tptest::contains;

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
  CHECK(t.chosen("gfx1100") == "none");
  auto ch = t.pick("gfx90a:xnack+");
  bool saw_feature = false, saw_llir = false, saw_cuda = false;
  for (const auto& r : ch.refused) {
    saw_feature = saw_feature || contains(r.reason, "requires xnack-");
    saw_llir = saw_llir || contains(r.reason, "LLVM IR");
    saw_cuda = saw_cuda || contains(r.reason, "not for an AMD GPU");
  }
  CHECK(saw_feature);
  CHECK(saw_llir);
  CHECK(saw_cuda);
  CHECK(t.chosen("gfx90a", 0, true) == "none");  // no HIP IR path yet
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
