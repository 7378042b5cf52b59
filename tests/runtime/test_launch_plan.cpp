// launch/params.hpp / launch/tensor_descriptor.hpp without a driver: argument types, the parameter plan
// (folded arguments, descriptor expansion, scratch pointers), parameter assembly, scratch sizing,
// TMA encode arguments, and the dynamic API's type checks and variant predicates.
#include <doctest/doctest.h>

#include <cstring>
#include <limits>

#include <tritonpack/launch/params.hpp>

#include "test_util.hpp"

using namespace tritonpack;
using tptest::contains;

TEST_CASE("parse_arg_type") {
  auto p = parse_arg_type("*kfp16");
  CHECK(p.cls == arg_class::pointer);
  CHECK(p.size == 8);
  CHECK(p.elem == "fp16");
  CHECK(p.elem_size == 2);
  // Every scalar type Triton passes by value: its class, and the bytes the kernel parameter takes.
  const struct {
    const char* type;
    arg_class cls;
    std::uint32_t size;
  } scalars[] = {{"i1", arg_class::boolean, 1}, {"u1", arg_class::boolean, 1}, {"i8", arg_class::sint, 1},
                 {"i16", arg_class::sint, 2},   {"i32", arg_class::sint, 4},   {"i64", arg_class::sint, 8},
                 {"u8", arg_class::uint, 1},    {"u16", arg_class::uint, 2},   {"u32", arg_class::uint, 4},
                 {"u64", arg_class::uint, 8},   {"fp16", arg_class::fp16, 2},  {"bf16", arg_class::bf16, 2},
                 {"fp32", arg_class::fp32, 4},  {"fp64", arg_class::fp64, 8}};
  for (const auto& s : scalars) {
    CAPTURE(s.type);
    const arg_type a = parse_arg_type(s.type);
    CHECK(a.cls == s.cls);
    CHECK(a.size == s.size);
    CHECK(parse_arg_type(std::string("*") + s.type).elem_size == s.size);  // as a pointee
  }
  CHECK(parse_arg_type("*fp8e4nv").elem_size == 1);
  CHECK(parse_arg_type("*void").elem_size == 0);  // unknown pointee: no element size
  CHECK_THROWS_AS(parse_arg_type("i32 "), error);
  CHECK_THROWS_AS(parse_arg_type(""), error);
  auto d = parse_arg_type("tensordesc<fp16[64, 32]>");
  CHECK(d.cls == arg_class::tensordesc);
  CHECK(d.rank == 2);
  CHECK(d.elem == "fp16");
  CHECK(d.elem_size == 2);
  CHECK(parse_arg_type("tensordesc<fp32[128]>").rank == 1);
  CHECK_THROWS_AS(parse_arg_type("fp8e4nv"), error);
  CHECK_THROWS_AS(parse_arg_type("tensordesc<fp16>"), error);
}

namespace runtime_launch_plan_tests {  // this file's own names (the test binary is a unity build)
namespace {
kernel_info make_kernel() {
  kernel_info k;
  k.name = "k";
  k.args = {{"x", "*fp32", true}, {"n", "i32", false}, {"one", "i32", false}, {"B", "i32", false}, {"alpha", "fp32", false}};
  return k;
}
}  // namespace

TEST_CASE("param plan: folded arguments are dropped, two scratch pointers appended") {
  kernel_info k = make_kernel();
  variant_info v;
  v.specs = {{spec_kind::divisible_16, ""}, {spec_kind::none, ""}, {spec_kind::equal_1, ""}, {spec_kind::constexpr_value, "64"},
             {spec_kind::none, ""}};
  launch_info li;
  param_plan p = build_param_plan(k, v, li);
  CHECK(p.simple);
  CHECK(p.param_count == 5);
  CHECK(p.param_sizes == std::vector<std::uint32_t>{8, 4, 4, 8, 8});
  CHECK(p.pass_args == std::vector<std::uint32_t>{0, 1, 4});

  float* x = reinterpret_cast<float*>(std::uintptr_t{0x1000});
  std::int32_t n = 77, one = 1, B = 64;
  float alpha = 2.5f;
  const void* args[] = {&x, &n, &one, &B, &alpha};
  void* params[5];
  void* scratch[2] = {reinterpret_cast<void*>(std::uintptr_t{0xabc0}), nullptr};
  assemble_params(p, k, li, args, params, nullptr, scratch, nullptr, nullptr);
  CHECK(params[0] == &x);
  CHECK(params[1] == &n);
  CHECK(params[2] == &alpha);
  CHECK(*static_cast<void**>(params[3]) == scratch[0]);
  CHECK(*static_cast<void**>(params[4]) == nullptr);

  variant_info bad;
  bad.specs.resize(2);
  CHECK_THROWS_AS(build_param_plan(k, bad, li), error);
}

namespace {
struct recorded_tma {
  int calls = 0;
  tma_encode_args last;
  std::vector<int> data_types;  // of every call
};
void fake_encode(void* self, const tma_encode_args& a, void* map, const std::string&) {
  auto* r = static_cast<recorded_tma*>(self);
  ++r->calls;
  r->last = a;
  r->data_types.push_back(a.data_type);
  std::memset(map, 0xAB, 128);
}
// The assembled parameter `i` read as T.
template <class T>
T value_at(void* const* params, int i) {
  T x;
  std::memcpy(&x, params[i], sizeof x);
  return x;
}
// Triton's tensordesc_meta for an fp16 descriptor with a 64×32 block.
tensordesc_meta fp16_64x32_meta() {
  tensordesc_meta m;
  m.swizzle = 3;
  m.elem_size = 2;
  m.elem_type = 6;
  m.block_size = {64, 32};
  return m;
}
}  // namespace

TEST_CASE("tensor descriptor expansion: TMA form and decomposed form") {
  kernel_info k;
  k.name = "td";
  k.args = {{"desc", "tensordesc<fp16[64,32]>", false}, {"y", "*fp32", false}};
  variant_info v;
  v.specs.resize(2);
  const tensordesc_meta m = fp16_64x32_meta();
  launch_info tma_li;
  tma_li.tensordesc = {m};
  launch_info dec_li;

  alignas(16) static half storage_buf[16];
  tensor_descriptor<half, 2> d;
  d.base = storage_buf;
  d.shape = {100, 200};
  d.strides = {256, 1};
  float* y = nullptr;
  const void* args[] = {&d, &y};
  void* scratch[2] = {nullptr, nullptr};

  SUBCASE("TMA") {
    param_plan p = build_param_plan(k, v, tma_li);
    CHECK_FALSE(p.simple);
    CHECK(p.uses_tma);
    CHECK(p.param_sizes == std::vector<std::uint32_t>{128, 4, 4, 8, 8, 8, 8, 8});
    alignas(128) unsigned char st[1024];
    REQUIRE(p.storage_bytes <= sizeof st);
    void* params[16];
    recorded_tma rec;
    assemble_params(p, k, tma_li, args, params, st, scratch, &fake_encode, &rec);
    CHECK(rec.calls == 1);
    CHECK(reinterpret_cast<std::uintptr_t>(params[0]) % 64 == 0);
    CHECK(static_cast<unsigned char*>(params[0])[0] == 0xAB);
    std::int32_t s0, s1;
    std::int64_t t0, t1;
    std::memcpy(&s0, params[1], 4);
    std::memcpy(&s1, params[2], 4);
    std::memcpy(&t0, params[3], 8);
    std::memcpy(&t1, params[4], 8);
    CHECK(s0 == 100);
    CHECK(s1 == 200);
    CHECK(t0 == 256);
    CHECK(t1 == 1);
    CHECK(params[5] == &y);
    // The encode arguments, as Triton's fillTMADescriptor computes them.
    CHECK(rec.last.rank == 2);
    CHECK(rec.last.data_type == 6);
    CHECK(rec.last.global_dim[0] == 200);  // innermost first
    CHECK(rec.last.global_dim[1] == 100);
    CHECK(rec.last.global_strides[0] == 512);  // 256 elements × 2 bytes
    CHECK(rec.last.box_dim[0] == 32);
    CHECK(rec.last.box_dim[1] == 64);
    CHECK(rec.last.swizzle == 3);
    CHECK(rec.last.oob_fill == 0);
    CHECK(rec.last.l2_promotion == 2);
  }
  SUBCASE("decomposed") {
    param_plan p = build_param_plan(k, v, dec_li);
    CHECK_FALSE(p.uses_tma);
    CHECK(p.param_sizes == std::vector<std::uint32_t>{8, 8, 8, 8, 8, 1, 4, 4, 8, 8, 8, 8, 8});
    alignas(128) unsigned char st[1024];
    void* params[16];
    d.padding_nan = true;
    assemble_params(p, k, dec_li, args, params, st, scratch, nullptr, nullptr);
    std::uint64_t base;
    std::memcpy(&base, params[0], 8);
    CHECK(base == reinterpret_cast<std::uintptr_t>(storage_buf));
    std::int64_t v64;
    std::memcpy(&v64, params[1], 8);
    CHECK(v64 == 100);
    std::memcpy(&v64, params[2], 8);
    CHECK(v64 == 200);
    std::memcpy(&v64, params[3], 8);
    CHECK(v64 == 256);
    CHECK(*static_cast<unsigned char*>(params[5]) == 1);
    std::int32_t v32;
    std::memcpy(&v32, params[7], 4);
    CHECK(v32 == 200);
    std::memcpy(&v64, params[9], 8);
    CHECK(v64 == 1);
    CHECK(params[10] == &y);
  }
  SUBCASE("meta count must match the descriptor arguments") {
    launch_info two = tma_li;
    two.tensordesc.push_back(m);
    CHECK_THROWS_AS(build_param_plan(k, v, two), error);
  }
}

TEST_CASE("triton_abi: the launch-ABI facts of each Triton release (docs/triton-abi.md §7)") {
  struct row {
    const char* version;
    bool tf32, hip_scratch, amd_triple, verified;
  };
  const row rows[] = {
      {"", false, false, false, false},  // unrecorded: planned as 3.6, checked by the driver
      {"3.6.0", false, false, false, true},       {"3.6", false, false, false, true},
      {"3.7.0", true, false, false, true},        {"3.7.1", true, false, false, true},
      {"3.7.1+git1a2b3c", true, false, false, true}, {"3.8.0", true, true, false, true},
      {"3.9.0", true, true, true, true},          {"3.9.0rc1", true, true, true, true},
      {"3.10.2", true, true, true, false},        {"4.0.0", true, true, true, false},
  };
  for (const row& r : rows) {
    CAPTURE(r.version);
    triton_abi a;
    std::string why;
    REQUIRE(parse_triton_abi(r.version, a, why));
    CHECK(a.descriptor_tf32_flag == r.tf32);
    CHECK(a.hip_global_scratch == r.hip_scratch);
    CHECK(a.amd_ir_processor_triple == r.amd_triple);
    CHECK(a.gpu_verified == r.verified);
    CHECK(a.descriptor_params(2, true) == 5);  // TMA: map, 2 × i32, 2 × i64 in every release
    CHECK(a.descriptor_params(2, false) == (r.tf32 ? 11u : 10u));
    CHECK(a.descriptor_params(1, false) == (r.tf32 ? 7u : 6u));
  }
  for (const char* v : {"3.5.1", "2.3.0", "3.5"}) {
    CAPTURE(v);
    triton_abi a;
    std::string why;
    CHECK_FALSE(parse_triton_abi(v, a, why));
    CHECK(contains(why, std::string("Triton ") + v + " is older than 3.6"));
  }
  for (const char* v : {"3", "3.", "banana", ".7.1", "3.x", "3.1234567"}) {
    CAPTURE(v);
    triton_abi a;
    std::string why;
    CHECK_FALSE(parse_triton_abi(v, a, why));
    CHECK(contains(why, std::string("Triton version \"") + v + "\" is not MAJOR.MINOR[.PATCH]"));
  }

  // The AMD LLVM IR's target triple: one for every processor before 3.9, the processor's from 3.9
  // (the values are Triton 3.9's amd.get_target_triple).
  triton_abi a36, a39;
  std::string why;
  REQUIRE(parse_triton_abi("3.6.0", a36, why));
  REQUIRE(parse_triton_abi("3.9.0", a39, why));
  CHECK(a36.amd_ir_triple("gfx942") == "amdgcn-amd-amdhsa");
  CHECK(a39.amd_ir_triple("gfx942") == "amdgpu9.42-amd-amdhsa");
  CHECK(a39.amd_ir_triple("gfx90a") == "amdgpu9.0a-amd-amdhsa");
  CHECK(a39.amd_ir_triple("gfx908") == "amdgpu9.08-amd-amdhsa");
  CHECK(a39.amd_ir_triple("gfx1100") == "amdgpu11.00-amd-amdhsa");
  CHECK(a39.amd_ir_triple("gfx1201") == "amdgpu12.01-amd-amdhsa");
  CHECK(a39.amd_ir_triple("gfx1250-strict") == "amdgpu12.50s-amd-amdhsa");
  CHECK(a39.amd_ir_triple("sm_90a") == "");
  CHECK(a39.amd_ir_triple("gfx9") == "");
  CHECK(a39.amd_ir_triple("gfx9x2") == "");
}

TEST_CASE("tensor descriptors by Triton release: 3.7 adds round_f32_to_tf32 after padding (decomposed), TF32 maps (TMA)") {
  kernel_info k;
  k.name = "td";
  k.args = {{"desc", "tensordesc<fp32[64,32]>", false}, {"h", "tensordesc<fp16[64,32]>", false}, {"y", "*fp32", false}};
  variant_info v;
  v.specs.resize(3);
  alignas(16) static float fbuf[16];
  alignas(16) static half hbuf[16];
  tensor_descriptor<float, 2> d;
  d.base = fbuf;
  d.shape = {100, 200};
  d.strides = {256, 1};
  tensor_descriptor<half, 2> h;
  h.base = hbuf;
  h.shape = {7, 9};
  h.strides = {64, 1};
  float* y = nullptr;
  const void* args[] = {&d, &h, &y};
  void* scratch[2] = {nullptr, nullptr};
  alignas(128) unsigned char st[2048];
  void* params[40];
  auto u8_at = [&](int i) { return *static_cast<unsigned char*>(params[i]); };
  auto i32_at = [&](int i) { return value_at<std::int32_t>(params, i); };
  auto i64_at = [&](int i) { return value_at<std::int64_t>(params, i); };

  SUBCASE("decomposed, Triton 3.7: pointer, shape i64, strides i64, padding, round_f32_to_tf32, shape i32, strides i64") {
    launch_info li;
    li.triton_version = "3.7.1";
    const param_plan p = build_param_plan(k, v, li);
    CHECK(p.abi.descriptor_tf32_flag);
    CHECK(p.param_sizes == std::vector<std::uint32_t>{8, 8, 8, 8, 8, 1, 1, 4, 4, 8, 8,  //
                                                      8, 8, 8, 8, 8, 1, 1, 4, 4, 8, 8,  //
                                                      8, 8, 8});
    REQUIRE(p.storage_bytes <= sizeof st);
    d.padding_nan = true;
    d.round_f32_to_tf32 = true;
    assemble_params(p, k, li, args, params, st, scratch, nullptr, nullptr);
    CHECK(i64_at(1) == 100);
    CHECK(i64_at(4) == 1);
    CHECK(u8_at(5) == 1);  // padding
    CHECK(u8_at(6) == 1);  // round_f32_to_tf32
    CHECK(i32_at(7) == 100);
    CHECK(i32_at(8) == 200);
    CHECK(i64_at(9) == 256);
    CHECK(i64_at(10) == 1);
    CHECK(u8_at(16) == 0);  // the fp16 descriptor: no padding, no rounding
    CHECK(u8_at(17) == 0);
    CHECK(i32_at(18) == 7);
    CHECK(params[22] == &y);
    d.padding_nan = false;
    assemble_params(p, k, li, args, params, st, scratch, nullptr, nullptr);
    CHECK(u8_at(5) == 0);
    CHECK(u8_at(6) == 1);
    d.round_f32_to_tf32 = false;
    d.padding_nan = true;
    assemble_params(p, k, li, args, params, st, scratch, nullptr, nullptr);
    CHECK(u8_at(5) == 1);
    CHECK(u8_at(6) == 0);
    // Triton's TensorDescriptor allows the flag on fp32 tensors only.
    h.round_f32_to_tf32 = true;
    auto e = tptest::expect_error([&] { assemble_params(p, k, li, args, params, st, scratch, nullptr, nullptr); });
    CHECK(e.code() == errc::bad_argument);
    CHECK(contains(e.what(), "kernel td: tensor descriptor argument 'h': round_f32_to_tf32 is for fp32 tensors only; this one is fp16"));
  }
  SUBCASE("decomposed, Triton 3.6: no flag parameter, and the flag is refused") {
    launch_info li;
    li.triton_version = "3.6.0";
    const param_plan p = build_param_plan(k, v, li);
    CHECK_FALSE(p.abi.descriptor_tf32_flag);
    CHECK(p.param_sizes == std::vector<std::uint32_t>{8, 8, 8, 8, 8, 1, 4, 4, 8, 8,  //
                                                      8, 8, 8, 8, 8, 1, 4, 4, 8, 8,  //
                                                      8, 8, 8});
    d.padding_nan = true;
    assemble_params(p, k, li, args, params, st, scratch, nullptr, nullptr);
    CHECK(u8_at(5) == 1);
    CHECK(i32_at(6) == 100);
    CHECK(params[20] == &y);
    d.round_f32_to_tf32 = true;
    auto e = tptest::expect_error([&] { assemble_params(p, k, li, args, params, st, scratch, nullptr, nullptr); });
    CHECK(e.code() == errc::bad_argument);
    CHECK(contains(e.what(), "kernel td: tensor descriptor argument 'desc': round_f32_to_tf32 needs an image built by Triton 3.7 or "
                             "later; this one was built by Triton 3.6.0"));
  }
  SUBCASE("TMA, Triton 3.7: the same parameters; the flag makes the map TF32") {
    launch_info li;
    li.triton_version = "3.7.1";
    tensordesc_meta mf;
    mf.swizzle = 3;
    mf.elem_size = 4;
    mf.elem_type = 7;
    mf.block_size = {64, 32};
    li.tensordesc = {mf, fp16_64x32_meta()};
    const param_plan p = build_param_plan(k, v, li);
    CHECK(p.param_sizes == std::vector<std::uint32_t>{128, 4, 4, 8, 8, 128, 4, 4, 8, 8, 8, 8, 8});
    recorded_tma rec;
    assemble_params(p, k, li, args, params, st, scratch, &fake_encode, &rec);
    CHECK(rec.data_types == std::vector<int>{7, 6});  // the fp32 map, then the fp16 one
    d.round_f32_to_tf32 = true;
    descriptor_view view = read_descriptor(&d, 2);
    CHECK(view.round_f32_to_tf32);
    CHECK(make_tma_encode_args(view, mf, "desc").data_type == tma_data_type_tf32);
    view.round_f32_to_tf32 = false;
    CHECK(make_tma_encode_args(view, mf, "desc").data_type == 7);
    assemble_params(p, k, li, args, params, st, scratch, &fake_encode, &rec);
    CHECK(rec.data_types == std::vector<int>{7, 6, 11, 6});  // CU_TENSOR_MAP_DATA_TYPE_TFLOAT32
    CHECK(i32_at(1) == 100);
    CHECK(i64_at(3) == 256);
    CHECK(params[10] == &y);
  }
  SUBCASE("an image's Triton version the run time cannot plan for is refused at plan time") {
    launch_info li;
    li.triton_version = "3.5.0";
    auto e = tptest::expect_error([&] { build_param_plan(k, v, li); });
    CHECK(e.code() == errc::bad_container);
    CHECK(contains(e.what(), "kernel td: Triton 3.5.0 is older than 3.6"));
  }
}

TEST_CASE("tensor descriptor shapes: one i32 range (0..INT32_MAX) for the TMA and decomposed forms") {
  constexpr std::int64_t i32_max = 2147483647;
  kernel_info k;
  k.name = "td";
  k.args = {{"desc", "tensordesc<fp16[64,32]>", false}};
  variant_info v;
  v.specs.resize(1);
  const tensordesc_meta m = fp16_64x32_meta();
  launch_info tma_li;
  tma_li.tensordesc = {m};
  const launch_info dec_li;

  alignas(16) static half storage_buf[16];
  tensor_descriptor<half, 2> d;
  d.base = storage_buf;
  d.strides = {256, 1};
  const void* args[] = {&d};
  void* scratch[2] = {nullptr, nullptr};
  alignas(128) unsigned char st[1024];
  void* params[16];
  recorded_tma rec;
  auto i32_at = [&](int i) { return value_at<std::int32_t>(params, i); };
  auto i64_at = [&](int i) { return value_at<std::int64_t>(params, i); };
  // Where each form puts its i32 shape parameters (the TMA map first; decomposed: base, shape
  // i64 × 2, strides i64 × 2, padding, then the i32 shape).
  struct form {
    const char* name;
    const launch_info* li;
    int shape32;
  };
  const form forms[] = {{"TMA", &tma_li, 1}, {"decomposed", &dec_li, 6}};

  for (const form& fm : forms) {
    CAPTURE(fm.name);
    const param_plan p = build_param_plan(k, v, *fm.li);
    REQUIRE(p.storage_bytes <= sizeof st);
    auto assemble = [&] { assemble_params(p, k, *fm.li, args, params, st, scratch, &fake_encode, &rec); };
    rec = recorded_tma{};

    // Negative: refused, with the kernel, the argument, the dimension, the value and the range.
    for (const std::int64_t neg : {std::int64_t{-1}, -i32_max - 1, std::numeric_limits<std::int64_t>::min()}) {
      CAPTURE(neg);
      d.shape = {100, neg};
      auto e = tptest::expect_error(assemble);
      CHECK(e.code() == errc::bad_argument);
      CHECK(contains(e.what(), "kernel td: tensor descriptor argument 'desc': shape[1] = " + std::to_string(neg) +
                                   " is negative; each dimension must be in 0..2147483647"));
    }
    // Above INT32_MAX: refused alike (the i32 copy would wrap).
    for (const std::int64_t big : {i32_max + 1, std::numeric_limits<std::int64_t>::max()}) {
      CAPTURE(big);
      d.shape = {big, 8};
      auto e = tptest::expect_error(assemble);
      CHECK(e.code() == errc::bad_argument);
      CHECK(contains(e.what(), "kernel td: tensor descriptor argument 'desc': shape[0] = " + std::to_string(big) +
                                   " does not fit the kernel's i32 shape parameter; each dimension must be in "
                                   "0..2147483647"));
    }
    CHECK(rec.calls == 0);  // TMA: refused before the map is encoded

    // INT32_MAX itself passes, unchanged, in both forms.
    d.shape = {1, i32_max};
    assemble();
    CHECK(i32_at(fm.shape32) == 1);
    CHECK(i32_at(fm.shape32 + 1) == i32_max);
    if (fm.li == &tma_li) {
      CHECK(rec.calls == 1);
      CHECK(rec.last.global_dim[0] == static_cast<std::uint64_t>(i32_max));  // innermost first
    }
  }

  SUBCASE("0 is an empty dimension for the decomposed form; TMA needs every dimension >= 1") {
    d.shape = {0, 8};
    const param_plan dp = build_param_plan(k, v, dec_li);
    assemble_params(dp, k, dec_li, args, params, st, scratch, nullptr, nullptr);
    CHECK(i64_at(1) == 0);
    CHECK(i32_at(6) == 0);
    CHECK(i32_at(7) == 8);
    const param_plan tp = build_param_plan(k, v, tma_li);
    auto e = tptest::expect_error([&] { assemble_params(tp, k, tma_li, args, params, st, scratch, &fake_encode, &rec); });
    CHECK(e.code() == errc::bad_argument);
    CHECK(contains(e.what(), "'desc': shape[0] is 0"));
  }
  SUBCASE("negative outer strides: passed as is in the decomposed form, refused by TMA") {
    d.shape = {100, 200};
    d.strides = {-256, 1};
    const param_plan dp = build_param_plan(k, v, dec_li);
    assemble_params(dp, k, dec_li, args, params, st, scratch, nullptr, nullptr);
    CHECK(i64_at(3) == -256);  // strides i64, first copy
    CHECK(i64_at(8) == -256);  // strides i64, second copy
    const param_plan tp = build_param_plan(k, v, tma_li);
    auto e = tptest::expect_error([&] { assemble_params(tp, k, tma_li, args, params, st, scratch, &fake_encode, &rec); });
    CHECK(e.code() == errc::bad_argument);
    CHECK(contains(e.what(), "'desc': strides[0] is -256"));
  }
}

TEST_CASE("TMA encode arguments: checks name the argument") {
  tensordesc_meta m;
  m.elem_size = 2;
  m.elem_type = 9;  // Triton 9 → CUtensorMapDataType 8
  m.block_size = {16, 16};
  m.fp4_padded = true;
  descriptor_view d;
  d.rank = 2;
  d.base = 0x10000;
  d.shape[0] = 8;
  d.shape[1] = 64;
  d.strides[0] = 64;
  d.strides[1] = 1;
  auto a = make_tma_encode_args(d, m, "A");
  CHECK(a.data_type == 8);
  CHECK(a.global_dim[0] == 128);  // fp4 padded doubles the innermost dimension
  CHECK(tma_data_type(8) == 10);
  CHECK(tma_data_type(10) == 9);
  CHECK(tma_data_type(6) == 6);
  d.strides[1] = 2;
  auto e = tptest::expect_error([&] { make_tma_encode_args(d, m, "A"); });
  CHECK(contains(e.what(), "'A'"));
  CHECK(contains(e.what(), "innermost stride"));
  d.strides[1] = 1;
  d.strides[0] = 3;  // 6 bytes: not a multiple of 16
  CHECK_THROWS_AS(make_tma_encode_args(d, m, "A"), error);
  d.strides[0] = 64;
  d.base = 0x10008;
  CHECK_THROWS_AS(make_tma_encode_args(d, m, "A"), error);
}

TEST_CASE("scratch sizing: grid × num_ctas × size, aligned") {
  launch_info li;
  CHECK(compute_scratch(li, {4, 1, 1}).total == 0);
  li.global_scratch_size = 128;
  li.global_scratch_align = 128;
  li.num_ctas = 2;
  auto s = compute_scratch(li, {4, 3, 2});
  CHECK(s.global_bytes == 4u * 3 * 2 * 2 * 128);
  CHECK(s.total == s.global_bytes);
  CHECK(s.align == 128);
  li.profile_scratch_size = 24;
  li.profile_scratch_align = 64;
  li.num_ctas = 1;
  s = compute_scratch(li, {3, 1, 1});
  CHECK(s.global_bytes == 384);
  CHECK(s.profile_bytes == 72);
  CHECK(s.profile_offset == 384);
  CHECK(s.total == 456);
  li.global_scratch_size = std::uint64_t{1} << 40;
  CHECK_THROWS_AS(compute_scratch(li, {1u << 30, 65535, 65535}), error);
}

TEST_CASE("scratch sizing on AMD (Triton 3.8+): grid × size, no num_ctas factor") {
  launch_info li;
  li.global_scratch_size = 128;
  li.global_scratch_align = 64;
  li.num_ctas = 2;
  const auto s = compute_scratch(li, {4, 3, 2}, scratch_per::program);
  CHECK(s.global_bytes == 4u * 3 * 2 * 128);
  CHECK(s.total == s.global_bytes);
  CHECK(s.align == 64);
  CHECK(compute_scratch(li, {4, 3, 2}, scratch_per::cta).global_bytes == 2 * s.global_bytes);
  li.global_scratch_size = std::uint64_t{1} << 40;
  auto e = tptest::expect_error([&] { compute_scratch(li, {1u << 23, 1, 1}, scratch_per::program); });
  CHECK(e.code() == errc::out_of_memory);
  CHECK(std::string(e.what()).find("scratch memory for grid 8388608x1x1 (1099511627776 bytes of global and 0 bytes of "
                                   "profile scratch per program) exceeds 2^62 bytes; launch a smaller grid") != std::string::npos);
}

TEST_CASE("dynamic API checks: types and sizes, and the variant predicates") {
  float f = 1;
  double dd = 1;
  std::int32_t i32 = 16;
  std::int64_t i64 = 16;
  std::uint64_t devptr = 0x1000;
  half h(1.0f);
  CHECK(check_host_arg(parse_arg_type("*fp32"), describe_host_arg(&f)).empty());
  CHECK(check_host_arg(parse_arg_type("*fp32"), describe_host_arg(devptr)).empty());  // CUdeviceptr
  CHECK(contains(check_host_arg(parse_arg_type("*fp16"), describe_host_arg(&f)), "2-byte"));
  CHECK(check_host_arg(parse_arg_type("fp32"), describe_host_arg(f)).empty());
  CHECK(contains(check_host_arg(parse_arg_type("fp32"), describe_host_arg(dd)), "double"));
  CHECK(check_host_arg(parse_arg_type("i32"), describe_host_arg(i32)).empty());
  CHECK(contains(check_host_arg(parse_arg_type("i32"), describe_host_arg(i64)), "8 bytes"));
  CHECK(check_host_arg(parse_arg_type("fp16"), describe_host_arg(h)).empty());
  CHECK_FALSE(check_host_arg(parse_arg_type("fp16"), describe_host_arg(f)).empty());
  CHECK(check_host_arg(parse_arg_type("i1"), describe_host_arg(true)).empty());
  tensor_descriptor<half, 2> d2;
  tensor_descriptor<float, 2> f2;
  tensor_descriptor<half, 3> d3;
  CHECK(check_host_arg(parse_arg_type("tensordesc<fp16[64,64]>"), describe_host_arg(d2)).empty());
  CHECK(contains(check_host_arg(parse_arg_type("tensordesc<fp16[64,64]>"), describe_host_arg(d3)), "rank-2"));
  CHECK_FALSE(check_host_arg(parse_arg_type("tensordesc<fp16[64,64]>"), describe_host_arg(f2)).empty());

  const arg_type ptr = parse_arg_type("*fp32"), i = parse_arg_type("i32");
  alignas(16) float buf[8];
  CHECK(spec_matches({spec_kind::divisible_16, ""}, ptr, describe_host_arg(&buf[0])));
  CHECK_FALSE(spec_matches({spec_kind::divisible_16, ""}, ptr, describe_host_arg(&buf[1])));
  CHECK(spec_matches({spec_kind::divisible_16, ""}, i, describe_host_arg(std::int32_t{32})));
  CHECK_FALSE(spec_matches({spec_kind::divisible_16, ""}, i, describe_host_arg(std::int32_t{33})));
  CHECK(spec_matches({spec_kind::equal_1, ""}, i, describe_host_arg(std::int32_t{1})));
  CHECK_FALSE(spec_matches({spec_kind::equal_1, ""}, i, describe_host_arg(std::int32_t{2})));
  CHECK(spec_matches({spec_kind::constexpr_value, "1024"}, i, describe_host_arg(std::int32_t{1024})));
  CHECK_FALSE(spec_matches({spec_kind::constexpr_value, "1024"}, i, describe_host_arg(std::int32_t{1023})));
  CHECK(spec_matches({spec_kind::none, ""}, i, describe_host_arg(std::int32_t{5})));
}

}  // namespace runtime_launch_plan_tests
