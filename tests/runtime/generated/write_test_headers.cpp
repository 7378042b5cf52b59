// Writes OUTDIR/gridcheck.hpp at build time with the real header writer: synthetic sm_90 cubins
// for kernels whose grid expressions and specialisations test_generated.cpp drives into every
// error the generated code can raise (zero divisors, overflow, negative and too large grids, calls
// no variant accepts), against the test-double driver.
#include <fstream>
#include <iostream>

#include <tritonpack/pack/header_writer.hpp>

#include "test_util.hpp"

using tritonpack::arg_spec;
using tritonpack::image_kind;
using tritonpack::spec_kind;

namespace {

// One kernel: its arguments (name, type), grid (empty: the caller passes one) and variants (specs,
// constexprs, num_ctas); each variant gets a cubin taking what it passes plus the scratch pointers.
struct kernel_def {
  std::string name;
  std::vector<std::pair<std::string, std::string>> args;
  std::array<std::string, 3> grid;
  struct variant {
    std::vector<arg_spec> specs;  // empty: none for every argument
    std::vector<std::pair<std::string, std::string>> constexprs;
    unsigned num_ctas = 1;
    std::uint64_t global_scratch = 0;  // bytes per program (global_scratch_size)
    std::uint32_t num_warps = 4;       // block = 32 x num_warps: tells a test which variant ran
  };
  std::vector<variant> variants;
};

unsigned param_size(const std::string& type) {
  if (type[0] == '*') return 8;
  if (type == "i1") return 1;
  return type == "i64" || type == "u64" || type == "fp64" ? 8 : 4;
}

void add_kernel(tritonpack::container_info& info, std::vector<std::vector<std::uint8_t>>& images, const kernel_def& d) {
  tptest::synth s(d.name);
  for (const auto& [name, type] : d.args) s.arg(name, type);
  s.kernel().grid = d.grid;
  for (const auto& v : d.variants) {
    const std::size_t vi = s.variant(v.specs);
    s.kernel().variants[vi].config.constexprs = v.constexprs;
    std::vector<unsigned> params;
    for (std::size_t a = 0; a < d.args.size(); ++a) {
      const spec_kind k = v.specs.empty() ? spec_kind::none : v.specs[a].kind;
      if (k != spec_kind::equal_1 && k != spec_kind::constexpr_value) params.push_back(param_size(d.args[a].second));
    }
    params.push_back(8);  // global_scratch
    params.push_back(8);  // profile_scratch
    tritonpack::launch_info li;
    li.num_ctas = v.num_ctas;
    li.num_warps = v.num_warps;
    li.global_scratch_size = v.global_scratch;
    li.global_scratch_align = v.global_scratch ? 16 : 1;
    // The cubin requires its block (.maxntid): 32 threads per warp.
    s.image(vi, image_kind::cubin, "sm_90", tpfake::make_cubin(90, false, {{d.name, params, 32 * v.num_warps}}), li);
  }
  s.append_to(info, images);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: write_test_headers OUTDIR\n";
    return 2;
  }
  const arg_spec none{spec_kind::none, ""}, div16{spec_kind::divisible_16, ""}, one{spec_kind::equal_1, ""};
  auto value = [](const char* v) { return arg_spec{spec_kind::constexpr_value, v}; };

  tritonpack::container_info info;
  info.name = "gridcheck";
  info.triton_version = "3.6.0";
  std::vector<std::vector<std::uint8_t>> images;
  // Grids from expressions: a run-time divisor, a 64-bit product, an unsigned dimension.
  add_kernel(info, images, {"chunked", {{"x", "*fp32"}, {"n", "i32"}, {"chunk", "i32"}}, {"cdiv(n, chunk)", "1", "1"}, {{}}});
  add_kernel(info, images, {"rows", {{"x", "*fp32"}, {"n", "i64"}, {"per_row", "i64"}}, {"1", "n / per_row", "1"}, {{}}});
  add_kernel(info, images,
             {"area", {{"x", "*fp32"}, {"w", "i64"}, {"h", "i64"}, {"depth", "u64"}}, {"w * h", "h", "depth"}, {{}}});
  add_kernel(info, images,
             {"blocked_grid", {{"x", "*fp32"}, {"n", "i32"}}, {"cdiv(n, BLOCK)", "1", "1"}, {{{}, {{"BLOCK", "256"}}}}});
  // Grids the caller passes: one program per CTA, and clusters of two CTAs per program.
  add_kernel(info, images, {"explicit_grid", {{"x", "*fp32"}, {"n", "i32"}}, {}, {{}}});
  add_kernel(info, images, {"clustered", {{"x", "*fp32"}}, {}, {{{}, {}, 2}}});
  // Specialised only: a call can miss every variant.
  add_kernel(info, images, {"aligned_only", {{"x", "*fp32"}, {"n", "i32"}, {"K", "i32"}}, {}, {{{div16, div16, one}}}});
  // Every scalar type between two pointers, for checking each argument's bytes in order; variant 0
  // folds m == 1 (`:1`), variant 1 passes it; both ask for global scratch.
  add_kernel(info, images,
             {"ordered",
              {{"x", "*fp32"}, {"y", "*fp16"}, {"n", "i32"}, {"m", "i64"}, {"flag", "i1"}, {"alpha", "fp32"}, {"beta", "fp64"},
               {"u", "u32"}, {"z", "*i64"}},
              {"cdiv(n, 4)", "1", "1"},
              {{{none, none, none, one, none, none, none, none, none}, {}, 1, 64}, {{}, {}, 1, 64}}});
  add_kernel(info, images,
             {"blocked",
              {{"x", "*fp32"}, {"BLOCK_N", "i32"}, {"flag", "i1"}, {"alpha", "fp32"}},
              {},
              {{{div16, value("4"), value("True"), none}},
               {{none, value("8"), none, value("0.5")}},
               {{div16, value("4"), value("True"), none}, {}, 1}}});  // another config of variant 0
  // One predicate per variant, in dispatch order, each variant its own block size (32 x num_warps):
  // test_generated.cpp sweeps each predicate across its boundary and reads which variant ran.
  add_kernel(info, images,
             {"boundary",
              {{"x", "*fp32"}, {"n", "i32"}, {"k", "i64"}},
              {"1", "1", "1"},
              {{{none, div16, none}, {}, 1, 0, 1},     // n % 16 == 0: block 32
               {{none, none, one}, {}, 1, 0, 2},       // k == 1: block 64
               {{div16, none, none}, {}, 1, 0, 4},     // x 16-byte aligned: block 128
               {{}, {}, 1, 0, 8}}});                   // anything else: block 256

  const std::vector<std::uint8_t> container = tritonpack::pack::write_container(info, images);
  tritonpack::pack::header_options o;
  o.namespace_name = info.name;
  o.generator = "tests/runtime/generated/write_test_headers";
  const std::string path = std::string(argv[1]) + "/gridcheck.hpp";
  std::ofstream(path) << tritonpack::pack::write_header(info, container, o);
  return 0;
}
