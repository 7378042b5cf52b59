// Triton's launch ABI as the test double records it: parameter bytes (folded arguments dropped,
// scalars by value, the two scratch pointers), block and shared memory, the shared-memory opt-in,
// clusters / cooperative / PDL attributes, global scratch sizing and reuse, graph capture, tensor
// descriptors (TMA and decomposed), zero grids, the dynamic API's checks, and launch errors.
#include <doctest/doctest.h>

#include <cstring>
#include <thread>

#include "test_util.hpp"

using namespace tritonpack;
using tptest::contains;
using tptest::param;

namespace runtime_launch_tests {  // this file's own names (the test binary is a unity build)
namespace {
using CUstream = void*;
struct stream_api {
  int (*create)(CUstream*, unsigned);
  int (*destroy)(CUstream);
  int (*begin)(CUstream, int);
  int (*end)(CUstream, void**);
  int (*instantiate)(void**, void*, unsigned long long);
  int (*launch)(void*, CUstream);
  int (*exec_destroy)(void*);
  int (*graph_destroy)(void*);
  static stream_api get() {
    void* h = dlopen(TP_FAKE_CUDA_PATH, RTLD_NOW | RTLD_LOCAL);
    stream_api a;
    a.create = reinterpret_cast<decltype(a.create)>(dlsym(h, "cuStreamCreate"));
    a.destroy = reinterpret_cast<decltype(a.destroy)>(dlsym(h, "cuStreamDestroy"));
    a.begin = reinterpret_cast<decltype(a.begin)>(dlsym(h, "cuStreamBeginCapture"));
    a.end = reinterpret_cast<decltype(a.end)>(dlsym(h, "cuStreamEndCapture"));
    a.instantiate = reinterpret_cast<decltype(a.instantiate)>(dlsym(h, "cuGraphInstantiateWithFlags"));
    a.launch = reinterpret_cast<decltype(a.launch)>(dlsym(h, "cuGraphLaunch"));
    a.exec_destroy = reinterpret_cast<decltype(a.exec_destroy)>(dlsym(h, "cuGraphExecDestroy"));
    a.graph_destroy = reinterpret_cast<decltype(a.graph_destroy)>(dlsym(h, "cuGraphDestroy"));
    return a;
  }
};

// The vector-add-like synthetic kernel k(x: *fp32, y: *fp32, n: i32, alpha: fp32) as a cubin.
tptest::synth simple_kernel(launch_info li = {}, const std::string& arch = "sm_90a", unsigned sm = 90) {
  tptest::synth s;
  s.arg("x", "*fp32", true);
  s.arg("y", "*fp32");
  s.arg("n", "i32");
  s.arg("alpha", "fp32");
  s.variant();
  li.warp_size = 32;
  const unsigned block = li.num_warps * 32;
  s.image(0, image_kind::cubin, arch, tpfake::make_cubin(sm, arch.back() == 'a', {{"k", {8, 8, 4, 4, 8, 8}, block}}), li);
  return s;
}

// A 100 × 120 descriptor over `base`, rows 128 elements apart.
template <class T>
tensor_descriptor<T, 2> desc_100x120(T* base) {
  tensor_descriptor<T, 2> d;
  d.base = base;
  d.shape = {100, 120};
  d.strides = {128, 1};
  return d;
}
}  // namespace

TEST_CASE("vector_add from the fixtures: parameters by value, scratch pointers, grid and block") {
  auto& f = tptest::setup("sm_90");
  const auto& bytes = tptest::fixture_container();
  library lib(bytes.data(), bytes.size());
  alignas(16) float a[8], b[8], c[8];
  const float* x = a;
  const float* y = b;
  float* out = c;
  lib.get("vector_add").launch(nullptr, {3, 1, 1}, x, y, out, std::int32_t{3000}, 0.5f);
  auto ls = f.launches();
  REQUIRE(ls.size() == 1);
  const auto& r = ls[0];
  CHECK(r.grid[0] == 3);
  CHECK(r.grid[1] == 1);
  CHECK(r.block[0] == 128);
  CHECK(r.shared == 0);
  CHECK(r.via_ex == 0);
  REQUIRE(r.num_params == 7);
  CHECK(param<const float*>(r, 0) == x);
  CHECK(param<const float*>(r, 1) == y);
  CHECK(param<float*>(r, 2) == out);
  CHECK(param<std::int32_t>(r, 3) == 3000);
  CHECK(param<float>(r, 4) == 0.5f);
  CHECK(param<void*>(r, 5) == nullptr);  // global_scratch: none needed
  CHECK(param<void*>(r, 6) == nullptr);  // profile_scratch
  // The typed call the generated header makes is the same launch.
  const void* args[] = {&x, &y, &out, &r.grid[0], nullptr};
  std::int32_t n = 3000;
  float alpha = 0.5f;
  args[3] = &n;
  args[4] = &alpha;
  lib.get("vector_add").launch_variant(0, {3, 1, 1}, nullptr, args);
  auto ls2 = f.launches();
  REQUIRE(ls2.size() == 2);
  CHECK(std::memcmp(ls2[0].params, ls2[1].params, 40) == 0);
}

TEST_CASE("folded arguments (`:1`) are not passed; the dynamic API picks the variant by value") {
  auto& f = tptest::setup("sm_90");
  const auto& bytes = tptest::fixture_container();
  library lib(bytes.data(), bytes.size());
  kernel& mm = lib.get("matmul_f16");
  alignas(16) half a[16], b[16], c[16];
  const half* pa = a;
  const half* pb = b;
  half* pc = c;
  // K == 1 and strides divisible by 16: variant 0 (K folded).
  mm.launch(nullptr, {1, 1, 1}, pa, pb, pc, std::int32_t{16}, std::int32_t{16}, std::int32_t{1}, std::int32_t{16},
            std::int32_t{16}, std::int32_t{16});
  // K == 5: the unspecialised variant (all nine passed).
  mm.launch(nullptr, {1, 1, 1}, pa, pb, pc, std::int32_t{16}, std::int32_t{16}, std::int32_t{5}, std::int32_t{16},
            std::int32_t{16}, std::int32_t{16});
  auto ls = f.launches();
  REQUIRE(ls.size() == 2);
  CHECK(ls[0].num_params == 8 + 2);  // 9 args, K dropped, + 2 scratch
  CHECK(param<std::int32_t>(ls[0], 5) == 16);  // stride_am follows N directly
  CHECK(ls[1].num_params == 9 + 2);
  CHECK(param<std::int32_t>(ls[1], 5) == 5);
  // Misaligned pointer: no div16 variant applies either.
  mm.launch(nullptr, {1, 1, 1}, pa + 1, pb, pc, std::int32_t{16}, std::int32_t{16}, std::int32_t{1}, std::int32_t{16},
            std::int32_t{16}, std::int32_t{16});
  CHECK(f.launches().back().num_params == 11);
  CHECK(mm.pick_variant(nullptr, 0) == 0);  // no args checked: the most specialised first
}

TEST_CASE("dynamic API: argument count and types are checked, mismatches named") {
  tptest::setup("sm_90");
  const auto& bytes = tptest::fixture_container();
  library lib(bytes.data(), bytes.size());
  kernel& k = lib.get("vector_add");
  float* p = nullptr;
  auto e = tptest::expect_error([&] { k.launch(nullptr, {1, 1, 1}, p, p, p, std::int32_t{4}); });
  CHECK(e.code() == errc::bad_argument);
  CHECK(contains(e.what(), "takes 5 arguments"));
  CHECK(contains(e.what(), "alpha: fp32"));
  CHECK(contains(e.what(), "4 were passed"));
  e = tptest::expect_error([&] { k.launch(nullptr, {1, 1, 1}, p, p, p, std::int32_t{4}, 1.0); });
  CHECK(contains(e.what(), "argument 4 'alpha'"));
  CHECK(contains(e.what(), "double"));
  e = tptest::expect_error([&] { k.launch(nullptr, {1, 1, 1}, p, p, p, std::int64_t{4}, 1.0f); });
  CHECK(contains(e.what(), "argument 3 'n'"));
  CHECK(contains(e.what(), "8 bytes"));
  double* dp = nullptr;
  e = tptest::expect_error([&] { k.launch(nullptr, {1, 1, 1}, dp, p, p, std::int32_t{4}, 1.0f); });
  CHECK(contains(e.what(), "argument 0 'x'"));
}

TEST_CASE("zero-size grids launch nothing and load nothing") {
  auto& f = tptest::setup("sm_90");
  const auto& bytes = tptest::fixture_container();
  library lib(bytes.data(), bytes.size());
  alignas(16) float a[4];
  float* p = a;
  lib.get("vector_add").launch(nullptr, {0, 1, 1}, p, p, p, std::int32_t{0}, 1.0f);
  lib.get("vector_add").launch(nullptr, {4, 0, 1}, p, p, p, std::int32_t{0}, 1.0f);
  CHECK(f.launches().empty());
  CHECK(f.calls("cuModuleLoadData") == 0);
}

TEST_CASE("shared memory above 48 KB uses the opt-in attribute") {
  auto& f = tptest::setup("sm_90");
  launch_info li;
  li.shared = 65536;
  auto s = simple_kernel(li);
  auto bytes = s.pack();
  library lib(bytes.data(), bytes.size());
  float* p = nullptr;
  lib.get("k").launch(nullptr, {2, 1, 1}, static_cast<const float*>(p), p, std::int32_t{1}, 1.0f);
  CHECK(f.func_attribute("k", 8) == 232448);  // MAX_DYNAMIC_SHARED_SIZE_BYTES = opt-in − static
  CHECK(f.func_cache_config("k") == 1);        // PREFER_SHARED
  REQUIRE(f.launches().size() == 1);
  CHECK(f.launches()[0].shared == 65536);
  // Below 48 KB nothing is set.
  auto& g = tptest::setup("sm_90");
  launch_info small;
  small.shared = 16384;
  auto s2 = simple_kernel(small);
  auto b2 = s2.pack();
  library lib2(b2.data(), b2.size());
  lib2.get("k").launch(nullptr, {1, 1, 1}, static_cast<const float*>(p), p, std::int32_t{1}, 1.0f);
  CHECK(g.func_attribute("k", 8) == -1);
  CHECK(g.launches()[0].shared == 16384);
}

TEST_CASE("num_ctas > 1 launches clusters through cuLaunchKernelEx; cooperative and PDL attributes") {
  auto& f = tptest::setup("sm_90");
  tptest::synth s;
  s.arg("x", "*fp32");
  s.variant();
  launch_info li;
  li.num_ctas = 2;
  li.launch_pdl = true;
  li.launch_cooperative_grid = true;
  s.image(0, image_kind::ptx, "sm_90a",
          tptest::bytes_of(tptest::make_ptx("sm_90a", 87, "k", {".u64", ".u64", ".u64"}, ".reqntid 128\n.explicitcluster\n.reqnctapercluster 2")),
          li, 87);
  auto bytes = s.pack();
  library lib(bytes.data(), bytes.size());
  float* x = nullptr;
  lib.get("k").launch(nullptr, {5, 3, 1}, x);
  auto ls = f.launches();
  REQUIRE(ls.size() == 1);
  CHECK(ls[0].via_ex == 1);
  CHECK(ls[0].grid[0] == 10);  // programs × num_ctas
  CHECK(ls[0].grid[1] == 3);
  CHECK(ls[0].cluster[0] == 2);
  CHECK(ls[0].cluster[1] == 1);
  CHECK(ls[0].cluster_policy == 1);  // SPREAD
  CHECK(ls[0].cooperative == 1);
  CHECK(ls[0].pdl == 1);
  // A device without cluster support refuses at load with a message.
  tptest::setup("sm_90/cluster=0");
  library lib2(bytes.data(), bytes.size());
  auto e = tptest::expect_error([&] { lib2.get("k").launch(nullptr, {1, 1, 1}, x); });
  CHECK(e.code() == errc::unsupported);
  CHECK(contains(e.what(), "cluster"));
  // A driver without cuLaunchKernelEx likewise.
  tptest::setup("sm_90", 13000, "", "cuLaunchKernelEx");
  library lib3(bytes.data(), bytes.size());
  e = tptest::expect_error([&] { lib3.get("k").launch(nullptr, {1, 1, 1}, x); });
  CHECK(contains(e.what(), "cuLaunchKernelEx"));
}

TEST_CASE("global scratch: sized grid × num_ctas × size, aligned, reused per stream, grown safely") {
  auto& f = tptest::setup("sm_90");
  launch_info li;
  li.global_scratch_size = 128;
  li.global_scratch_align = 128;
  auto s = simple_kernel(li);
  auto bytes = s.pack();
  {
    library lib(bytes.data(), bytes.size());
    kernel& k = lib.get("k");
    const float* x = nullptr;
    float* y = nullptr;
    k.launch(nullptr, {4, 1, 1}, x, y, std::int32_t{1}, 1.0f);
    CHECK(f.calls("cuMemAlloc") == 1);
    CHECK(f.last_alloc_size() >= 4 * 128);
    auto r = f.launches().back();
    void* scratch = param<void*>(r, 4);
    CHECK(scratch != nullptr);
    CHECK(reinterpret_cast<std::uintptr_t>(scratch) % 128 == 0);
    CHECK(param<void*>(r, 5) == nullptr);
    // Same stream, same or smaller size: the same buffer, no allocation.
    k.launch(nullptr, {2, 1, 1}, x, y, std::int32_t{1}, 1.0f);
    k.launch(nullptr, {4, 1, 1}, x, y, std::int32_t{1}, 1.0f);
    CHECK(f.calls("cuMemAlloc") == 1);
    CHECK(param<void*>(f.launches().back(), 4) == scratch);
    // Larger grid: a new buffer; the old one is retired behind an event, not freed under the GPU.
    k.launch(nullptr, {64, 2, 1}, x, y, std::int32_t{1}, 1.0f);
    CHECK(f.calls("cuMemAlloc") == 2);
    CHECK(f.last_alloc_size() >= 64 * 2 * 128);
    CHECK(f.calls("cuEventRecord") == 1);
    CHECK(f.live_allocations() == 2);
    // Another stream gets its own buffer.
    auto sa = stream_api::get();
    CUstream st = nullptr;
    REQUIRE(sa.create(&st, 0) == 0);
    k.launch(st, {4, 1, 1}, x, y, std::int32_t{1}, 1.0f);
    CHECK(f.calls("cuMemAlloc") == 3);
    CHECK(param<void*>(f.launches().back(), 4) != param<void*>(f.launches()[f.launches().size() - 2], 4));
    // The next growth frees the retired buffer whose event completed.
    k.launch(nullptr, {1024, 1, 1}, x, y, std::int32_t{1}, 1.0f);
    CHECK(f.live_allocations() == 3);  // retired one freed, new one in place, other stream's kept
    sa.destroy(st);
  }
  CHECK(f.live_allocations() == 0);  // unload frees every scratch buffer
  CHECK(f.live_modules() == 0);
}

TEST_CASE("graph capture: no allocation outside relaxed mode, captured launches replay") {
  auto& f = tptest::setup("sm_90");
  launch_info li;
  li.global_scratch_size = 256;
  li.global_scratch_align = 128;
  auto s = simple_kernel(li);
  auto bytes = s.pack();
  library lib(bytes.data(), bytes.size());
  kernel& k = lib.get("k");
  const float* x = nullptr;
  float* y = nullptr;
  k.preload();  // loading during capture would be fine too, but preloading is the usual pattern
  auto sa = stream_api::get();
  CUstream st = nullptr;
  REQUIRE(sa.create(&st, 0) == 0);
  REQUIRE(sa.begin(st, 0) == 0);  // CU_STREAM_CAPTURE_MODE_GLOBAL
  k.launch(st, {8, 1, 1}, x, y, std::int32_t{1}, 1.0f);
  void* graph = nullptr;
  REQUIRE(sa.end(st, &graph) == 0);
  auto ls = f.launches();
  REQUIRE(ls.size() == 1);
  CHECK(ls[0].captured == 1);
  void* scratch = param<void*>(ls[0], 4);
  CHECK(scratch != nullptr);
  CHECK(reinterpret_cast<std::uintptr_t>(scratch) % 128 == 0);
  void* exec = nullptr;
  REQUIRE(sa.instantiate(&exec, graph, 0) == 0);
  REQUIRE(sa.launch(exec, st) == 0);
  REQUIRE(sa.launch(exec, st) == 0);
  ls = f.launches();
  REQUIRE(ls.size() == 3);
  CHECK(ls[2].captured == 2);
  CHECK(param<void*>(ls[2], 4) == scratch);  // the graph's buffer stays valid for replays
  // A direct launch on the same stream after capture does not share the graph's buffer.
  k.launch(st, {8, 1, 1}, x, y, std::int32_t{1}, 1.0f);
  CHECK(param<void*>(f.launches().back(), 4) != scratch);
  CHECK(sa.exec_destroy(exec) == 0);
  CHECK(sa.graph_destroy(graph) == 0);
  sa.destroy(st);
  lib.unload();
  CHECK(f.live_allocations() == 0);
}

TEST_CASE("host-side tensor descriptors: TMA map on sm_90, decomposed on sm_80") {
  tptest::synth s;
  s.arg("desc", "tensordesc<fp16[64,64]>");
  s.arg("y", "*fp16");
  s.variant();
  launch_info tma;
  tma.warp_size = 32;
  tensordesc_meta m;
  m.swizzle = 3;
  m.elem_size = 2;
  m.elem_type = 6;
  m.block_size = {64, 64};
  tma.tensordesc = {m};
  s.image(0, image_kind::ptx, "sm_90a",
          tptest::bytes_of(tptest::make_ptx("sm_90a", 87, "k",
                                            {".align 64 .b8[128]", ".u32", ".u32", ".u64", ".u64", ".u64", ".u64", ".u64"},
                                            ".reqntid 128")),
          tma, 87);
  s.image(0, image_kind::ptx, "sm_80",
          tptest::bytes_of(tptest::make_ptx("sm_80", 87, "k",
                                            {".u64", ".u64", ".u64", ".u64", ".u64", ".u8", ".u32", ".u32", ".u64", ".u64",
                                             ".u64", ".u64", ".u64"},
                                            ".reqntid 128")),
          launch_info{}, 87);
  auto bytes = s.pack();
  alignas(128) static half data[256 * 128];
  tensor_descriptor<half, 2> d = desc_100x120(data);
  half* y = nullptr;

  SUBCASE("sm_90: CUtensorMap by value, shape i32, strides i64") {
    auto& f = tptest::setup("sm_90");
    library lib(bytes.data(), bytes.size());
    lib.get("k").launch(nullptr, {1, 1, 1}, d, y);
    auto ls = f.launches();
    REQUIRE(ls.size() == 1);
    const auto& r = ls[0];
    REQUIRE(r.num_params == 8);
    CHECK(r.param_size[0] == 128);
    tpfake_tensor_map map;
    std::memcpy(&map, r.params + r.param_offset[0], sizeof map);
    CHECK(map.magic == 0x50414d54u);
    CHECK(map.data_type == 6);
    CHECK(map.rank == 2);
    CHECK(map.global_address == reinterpret_cast<std::uintptr_t>(data));
    CHECK(map.global_dim[0] == 120);
    CHECK(map.global_dim[1] == 100);
    CHECK(map.global_strides[0] == 256);
    CHECK(map.box_dim[0] == 64);
    CHECK(map.box_dim[1] == 64);
    CHECK(map.swizzle == 3);
    CHECK(map.l2_promotion == 2);
    CHECK(map.oob_fill == 0);
    CHECK(param<std::int32_t>(r, 1) == 100);
    CHECK(param<std::int32_t>(r, 2) == 120);
    CHECK(param<std::int64_t>(r, 3) == 128);
    CHECK(param<std::int64_t>(r, 4) == 1);
    CHECK(param<half*>(r, 5) == y);
    // A descriptor TMA cannot express is refused by name before the launch.
    tensor_descriptor<half, 2> bad = d;
    bad.strides = {3, 1};
    auto e = tptest::expect_error([&] { lib.get("k").launch(nullptr, {1, 1, 1}, bad, y); });
    CHECK(e.code() == errc::bad_argument);
    CHECK(contains(e.what(), "kernel k: tensor descriptor argument 'desc': strides[0]"));
    CHECK(contains(e.what(), "not a multiple of 16"));
    bad.strides = {3, 2};
    e = tptest::expect_error([&] { lib.get("k").launch(nullptr, {1, 1, 1}, bad, y); });
    CHECK(contains(e.what(), "kernel k: tensor descriptor argument 'desc': the innermost stride is 2, it must be 1"));
    // So is a negative shape, with the same message as in the decomposed form.
    bad = d;
    bad.shape = {100, -5};
    e = tptest::expect_error([&] { lib.get("k").launch(nullptr, {1, 1, 1}, bad, y); });
    CHECK(e.code() == errc::bad_argument);
    CHECK(contains(e.what(), "kernel k: tensor descriptor argument 'desc': shape[1] = -5 is negative"));
    CHECK(f.launches().size() == 1);
  }
  SUBCASE("sm_80: decomposed") {
    auto& f = tptest::setup("sm_80");
    library lib(bytes.data(), bytes.size());
    d.padding_nan = true;
    lib.get("k").launch(nullptr, {1, 1, 1}, d, y);
    auto ls = f.launches();
    REQUIRE(ls.size() == 1);
    const auto& r = ls[0];
    REQUIRE(r.num_params == 13);
    CHECK(param<const half*>(r, 0) == data);
    CHECK(param<std::int64_t>(r, 1) == 100);
    CHECK(param<std::int64_t>(r, 2) == 120);
    CHECK(param<std::int64_t>(r, 3) == 128);
    CHECK(param<std::int64_t>(r, 4) == 1);
    CHECK(param<std::uint8_t>(r, 5) == 1);
    CHECK(param<std::int32_t>(r, 6) == 100);
    CHECK(param<std::int32_t>(r, 7) == 120);
    CHECK(param<std::int64_t>(r, 8) == 128);
    CHECK(param<std::int64_t>(r, 9) == 1);
    CHECK(param<half*>(r, 10) == y);
    // The decomposed form refuses what does not fit its i32 shape, and launches nothing.
    tensor_descriptor<half, 2> bad = d;
    bad.shape = {std::int64_t{1} << 31, 120};
    auto e = tptest::expect_error([&] { lib.get("k").launch(nullptr, {1, 1, 1}, bad, y); });
    CHECK(e.code() == errc::bad_argument);
    CHECK(contains(e.what(), "kernel k: tensor descriptor argument 'desc': shape[0] = 2147483648 does not fit"));
    bad.shape = {100, -5};
    e = tptest::expect_error([&] { lib.get("k").launch(nullptr, {1, 1, 1}, bad, y); });
    CHECK(contains(e.what(), "kernel k: tensor descriptor argument 'desc': shape[1] = -5 is negative"));
    // Like the TMA form (and Triton's TensorDescriptor), a non-contiguous innermost dimension.
    bad = d;
    bad.strides = {128, 2};
    e = tptest::expect_error([&] { lib.get("k").launch(nullptr, {1, 1, 1}, bad, y); });
    CHECK(e.code() == errc::bad_argument);
    CHECK(contains(e.what(), "kernel k: tensor descriptor argument 'desc': the innermost stride is 2, it must be 1"));
    CHECK(f.launches().size() == 1);
  }
}

namespace {
// desc_scale(src: tensordesc<fp32[64,64]>, out: *fp32, M, N: i32, alpha: fp32) as packed from
// a committed manifest under tests/: data/triton-3.7 (Triton 3.7.1 PTX for sm_80 and sm_90a) or
// gpu/artifacts (Triton 3.6.0, every GPU-test kernel).
std::vector<std::uint8_t> packed(const std::string& manifest) {
  auto m = pack::load_manifest(std::string(TP_ARTIFACTS_DIR) + "/../../" + manifest);
  return pack::write_container(m.info, m.image_bytes);
}
}  // namespace

TEST_CASE("desc_scale as Triton 3.7 compiled it: round_f32_to_tf32 after padding on sm_80, a TF32 map on sm_90") {
  const auto bytes = packed("data/triton-3.7/artifacts/manifest.json");
  alignas(128) static float data[128 * 128];
  tensor_descriptor<float, 2> d = desc_100x120(data);
  float* out = data;
  const std::int32_t M = 100, N = 120;
  const float alpha = 2.0f;

  SUBCASE("sm_80: decomposed, 3 + 4·rank parameters (17 with the scratch pointers)") {
    auto& f = tptest::setup("sm_80");
    library lib(bytes.data(), bytes.size());
    d.padding_nan = true;
    d.round_f32_to_tf32 = true;
    lib.get("desc_scale").launch(nullptr, {2, 2, 1}, d, out, M, N, alpha);
    CHECK(f.calls("cuFuncGetParamInfo") > 0);  // a Triton 3.7 image: the driver checked the plan
    REQUIRE(f.launches().size() == 1);
    const auto r = f.launches()[0];
    REQUIRE(r.num_params == 17);
    CHECK(param<const float*>(r, 0) == data);
    CHECK(param<std::int64_t>(r, 1) == 100);
    CHECK(param<std::int64_t>(r, 2) == 120);
    CHECK(param<std::int64_t>(r, 3) == 128);
    CHECK(param<std::int64_t>(r, 4) == 1);
    CHECK(param<std::uint8_t>(r, 5) == 1);  // padding "nan"
    CHECK(param<std::uint8_t>(r, 6) == 1);  // round_f32_to_tf32
    CHECK(param<std::int32_t>(r, 7) == 100);
    CHECK(param<std::int32_t>(r, 8) == 120);
    CHECK(param<std::int64_t>(r, 9) == 128);
    CHECK(param<std::int64_t>(r, 10) == 1);
    CHECK(param<float*>(r, 11) == out);
    CHECK(param<std::int32_t>(r, 12) == M);
    CHECK(param<std::int32_t>(r, 13) == N);
    CHECK(param<float>(r, 14) == alpha);
    d.padding_nan = false;
    lib.get("desc_scale").launch(nullptr, {2, 2, 1}, d, out, M, N, alpha);
    d.round_f32_to_tf32 = false;
    lib.get("desc_scale").launch(nullptr, {2, 2, 1}, d, out, M, N, alpha);
    const auto ls = f.launches();
    REQUIRE(ls.size() == 3);
    CHECK(param<std::uint8_t>(ls[1], 5) == 0);
    CHECK(param<std::uint8_t>(ls[1], 6) == 1);
    CHECK(param<std::uint8_t>(ls[2], 6) == 0);
  }
  SUBCASE("sm_90: the TMA form's parameters are unchanged; the flag makes the map TF32") {
    auto& f = tptest::setup("sm_90");
    library lib(bytes.data(), bytes.size());
    lib.get("desc_scale").launch(nullptr, {2, 2, 1}, d, out, M, N, alpha);
    d.round_f32_to_tf32 = true;
    lib.get("desc_scale").launch(nullptr, {2, 2, 1}, d, out, M, N, alpha);
    const auto ls = f.launches();
    REQUIRE(ls.size() == 2);
    for (const auto& r : ls) {
      REQUIRE(r.num_params == 11);  // map, 2 × i32, 2 × i64, out, M, N, alpha, 2 scratch pointers
      CHECK(r.param_size[0] == 128);
      CHECK(param<std::int32_t>(r, 1) == 100);
      CHECK(param<std::int64_t>(r, 3) == 128);
      CHECK(param<float*>(r, 5) == out);
    }
    tpfake_tensor_map map;
    std::memcpy(&map, ls[0].params + ls[0].param_offset[0], sizeof map);
    CHECK(map.data_type == 7);  // the metadata's elem_type: FLOAT32
    std::memcpy(&map, ls[1].params + ls[1].param_offset[0], sizeof map);
    CHECK(map.data_type == 11);  // CU_TENSOR_MAP_DATA_TYPE_TFLOAT32
  }
}

TEST_CASE("desc_scale as Triton 3.6 compiled it: 2 + 4·rank decomposed parameters, and no round_f32_to_tf32") {
  const auto bytes = packed("gpu/artifacts/manifest.json");
  auto& f = tptest::setup("sm_80");
  library lib(bytes.data(), bytes.size());
  alignas(128) static float data[128 * 128];
  tensor_descriptor<float, 2> d = desc_100x120(data);
  d.padding_nan = true;
  float* out = data;
  lib.get("desc_scale").launch(nullptr, {2, 2, 1}, d, out, std::int32_t{100}, std::int32_t{120}, 2.0f);
  REQUIRE(f.launches().size() == 1);
  const auto r = f.launches()[0];
  REQUIRE(r.num_params == 16);
  CHECK(param<std::uint8_t>(r, 5) == 1);  // padding
  CHECK(param<std::int32_t>(r, 6) == 100);
  CHECK(param<float*>(r, 10) == out);
  d.round_f32_to_tf32 = true;
  auto e = tptest::expect_error(
      [&] { lib.get("desc_scale").launch(nullptr, {2, 2, 1}, d, out, std::int32_t{100}, std::int32_t{120}, 2.0f); });
  CHECK(e.code() == errc::bad_argument);
  CHECK(contains(e.what(), "round_f32_to_tf32 needs an image built by Triton 3.7 or later; this one was built by Triton 3.6.0"));
  CHECK(f.launches().size() == 1);
}

TEST_CASE("two libraries built by Triton 3.6 and 3.7 in one process: each launched by its own release's rules") {
  // The same kernel, desc_scale, in two containers of one program: one built by Triton 3.6.0
  // (decomposed descriptor 2 + 4·rank parameters), one by 3.7.1 (3 + 4·rank: round_f32_to_tf32).
  // Interleaved launches must each follow their own library's release, never the first loaded.
  const auto bytes36 = packed("gpu/artifacts/manifest.json");
  const auto bytes37 = packed("data/triton-3.7/artifacts/manifest.json");
  auto& f = tptest::setup("sm_80");
  library lib36(bytes36.data(), bytes36.size());
  library lib37(bytes37.data(), bytes37.size());
  CHECK(lib36.info().triton_version == "3.6.0");
  CHECK(lib37.info().triton_version == "3.7.1");
  alignas(128) static float data[128 * 128];
  tensor_descriptor<float, 2> d = desc_100x120(data);
  float* out = data;
  const std::int32_t M = 100, N = 120;
  for (int round = 0; round < 2; ++round) {
    lib37.get("desc_scale").launch(nullptr, {2, 2, 1}, d, out, M, N, 2.0f);
    lib36.get("desc_scale").launch(nullptr, {2, 2, 1}, d, out, M, N, 2.0f);
  }
  const auto ls = f.launches();
  REQUIRE(ls.size() == 4);
  for (int i = 0; i < 4; ++i) {
    const bool from37 = i % 2 == 0;
    CHECK(ls[i].num_params == (from37 ? 17u : 16u));
    CHECK(param<std::int32_t>(ls[i], from37 ? 7 : 6) == M);  // the descriptor's shape, after its flags
    CHECK(param<float*>(ls[i], from37 ? 11 : 10) == out);
  }
  // A 3.7-only field on the 3.6 library is refused while the 3.7 one takes it, in the same process.
  d.round_f32_to_tf32 = true;
  lib37.get("desc_scale").launch(nullptr, {2, 2, 1}, d, out, M, N, 2.0f);
  CHECK(param<std::uint8_t>(f.launches().back(), 6) == 1);
  auto e = tptest::expect_error([&] { lib36.get("desc_scale").launch(nullptr, {2, 2, 1}, d, out, M, N, 2.0f); });
  CHECK(contains(e.what(), "built by Triton 3.6.0"));
}

TEST_CASE("scalar types are passed with Triton's sizes and bits (i64, fp16, bf16, fp64, i1)") {
  auto& f = tptest::setup("sm_90");
  tptest::synth s;
  for (auto t : {"i64", "fp16", "bf16", "fp64", "i1", "u8", "i16"}) s.arg(std::string("a_") + t, t);
  s.variant();
  s.image(0, image_kind::ptx, "sm_90",
          tptest::bytes_of(tptest::make_ptx("sm_90", 87, "k",
                                            {".u64", ".align 2 .b8[2]", ".align 2 .b8[2]", ".f64", ".u8", ".u8", ".u16", ".u64", ".u64"})),
          {}, 87);
  auto bytes = s.pack();
  library lib(bytes.data(), bytes.size());
  lib.get("k").launch(nullptr, {1, 1, 1}, std::int64_t{-5000000000LL}, half(1.5f), bfloat16(-2.25f), 3.25, true,
                      std::uint8_t{200}, std::int16_t{-7});
  auto r = f.launches().at(0);
  CHECK(param<std::int64_t>(r, 0) == -5000000000LL);
  CHECK(param<std::uint16_t>(r, 1) == 0x3e00);
  CHECK(param<std::uint16_t>(r, 2) == 0xc010);
  CHECK(param<double>(r, 3) == 3.25);
  CHECK(param<std::uint8_t>(r, 4) == 1);
  CHECK(param<std::uint8_t>(r, 5) == 200);
  CHECK(param<std::int16_t>(r, 6) == -7);
}

TEST_CASE("launch errors: failure with kernel name and grid; out of memory for scratch") {
  auto& f = tptest::setup("sm_90", 13000, "cuLaunchKernel=719");
  (void)f;
  const auto& bytes = tptest::fixture_container();
  library lib(bytes.data(), bytes.size());
  alignas(16) float a[4];
  float* p = a;
  auto e = tptest::expect_error([&] { lib.get("vector_add").launch(nullptr, {7, 1, 1}, p, p, p, std::int32_t{7000}, 1.0f); });
  CHECK(e.code() == errc::launch_failed);
  CHECK(e.driver_status() == 719);
  CHECK(contains(e.what(), "kernel vector_add"));
  CHECK(contains(e.what(), "grid 7x1x1"));
  CHECK(contains(e.what(), "CUDA_ERROR_LAUNCH_FAILED"));

  tptest::setup("sm_90", 13000, "cuMemAlloc=2");
  launch_info li;
  li.global_scratch_size = 128;
  auto s = simple_kernel(li);
  auto b2 = s.pack();
  library lib2(b2.data(), b2.size());
  const float* x = nullptr;
  float* y = nullptr;
  e = tptest::expect_error([&] { lib2.get("k").launch(nullptr, {4, 1, 1}, x, y, std::int32_t{1}, 1.0f); });
  CHECK(e.code() == errc::out_of_memory);
  CHECK(e.driver_status() == 2);
  CHECK(contains(e.what(), "global scratch"));

  // Grid beyond CUDA's limits is refused before the driver sees it.
  tptest::setup("sm_90");
  library lib3(bytes.data(), bytes.size());
  e = tptest::expect_error([&] { lib3.get("vector_add").launch(nullptr, {1, 70000, 1}, p, p, p, std::int32_t{16}, 1.0f); });
  CHECK(e.code() == errc::bad_argument);
  CHECK(std::string(e.what()) == "tritonpack: kernel vector_add: grid y = 70000 is above the CUDA limit of 65535");
}

TEST_CASE("kernel::grid names the kernel, axis and expression; without a driver, the 32-bit bound") {
  tptest::setup("none");  // no GPU: the driver's limit is unknown, the message says what is
  tptest::synth s;
  s.arg("n", "i64");
  s.kernel().grid = {"n * n", "1", "1"};
  s.variant();
  s.image(0, image_kind::cubin, "sm_90a", tpfake::make_cubin(90, true, {{"k", {8, 8, 8}, 128}}));
  auto bytes = s.pack();
  library lib(bytes.data(), bytes.size());
  const kernel& k = lib.get("k");
  const grid3 g = k.grid(grid_int{1000} * 1000, 1, 2);
  CHECK(g.x == 1000000);
  CHECK(g.z == 2);
  auto e = tptest::expect_error([&] { k.grid(grid_int{100000} * 100000, 1, 1); });
  CHECK(std::string(e.what()) == "tritonpack: kernel k: grid x = n * n = 10000000000 does not fit a 32-bit grid dimension");
  e = tptest::expect_error([&] { k.grid(1, 1, -grid_int{2}); });
  CHECK(std::string(e.what()) == "tritonpack: kernel k: grid z = 1 = -2 is negative");  // values as given
}

TEST_CASE("dynamic API: no variant matching the values is an error naming the predicate and the value") {
  tptest::setup("sm_90");
  tptest::synth s;
  s.arg("x", "*fp32");
  s.arg("n", "i32");
  s.variant({{spec_kind::divisible_16, ""}, {spec_kind::equal_1, ""}});
  s.image(0, image_kind::cubin, "sm_90a", tpfake::make_cubin(90, true, {{"k", {8, 8, 8}, 128}}));
  auto bytes = s.pack();
  library lib(bytes.data(), bytes.size());
  alignas(16) float buf[8];
  float* misaligned = buf + 1;
  auto e = tptest::expect_error([&] { lib.get("k").launch(nullptr, {1, 1, 1}, misaligned, std::int32_t{1}); });
  CHECK(e.code() == errc::bad_argument);
  CHECK(contains(e.what(), "kernel k: no variant accepts these arguments:\n  variant 0: x = 0x"));
  CHECK(contains(e.what(), " is not 16-byte aligned\n"));  // n = 1 holds: not listed
  float* aligned = buf;
  e = tptest::expect_error([&] { lib.get("k").launch(nullptr, {1, 1, 1}, aligned, std::int32_t{2}); });
  CHECK(contains(e.what(), "\n  variant 0: n = 2, this variant needs 1\n"));
  lib.get("k").launch(nullptr, {1, 1, 1}, aligned, std::int32_t{1});  // folded n: only x is passed
  auto& f = tptest::fake_driver::get();
  REQUIRE(f.launches().size() == 1);
  CHECK(f.launches()[0].num_params == 3);
}

}  // namespace runtime_launch_tests
