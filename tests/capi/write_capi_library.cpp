// Writes OUTDIR/capi_types.{hpp,h,_c.cpp,f90} at build time with the real writers: a library of
// synthetic sm_90 kernels that takes every scalar and pointer type the C API maps (i1 to u64,
// fp16, bf16, fp32, fp64, fp8), a caller-passed grid, a kernel only specialised variants accept,
// and arguments whose names C or Fortran cannot use as they are. test_capi.cpp, calls.c and
// fortran_calls.f90 call it against the test-double driver.
#include <fstream>
#include <iostream>

#include <tritonpack/pack/foreign_writer.hpp>
#include <tritonpack/pack/header_writer.hpp>

#include "test_util.hpp"

using tritonpack::arg_spec;
using tritonpack::image_kind;
using tritonpack::spec_kind;

namespace {

unsigned param_size(const std::string& type) {
  if (type[0] == '*') return 8;
  if (type == "i1" || type == "i8" || type == "u8") return 1;
  if (type == "i16" || type == "u16" || type == "fp16" || type == "bf16") return 2;
  return type == "i64" || type == "u64" || type == "fp64" ? 8 : 4;
}

struct kernel_def {
  std::string name;
  std::vector<std::tuple<std::string, std::string, bool>> args;  // name, type, const
  std::array<std::string, 3> grid;
  std::vector<std::vector<arg_spec>> variants;  // specs per variant (empty: none)
};

void add_kernel(tritonpack::container_info& info, std::vector<std::vector<std::uint8_t>>& images, const kernel_def& d) {
  tptest::synth s(d.name);
  for (const auto& [name, type, is_const] : d.args) s.arg(name, type, is_const);
  s.kernel().grid = d.grid;
  for (const auto& specs : d.variants) {
    const std::size_t vi = s.variant(specs);
    std::vector<unsigned> params;
    for (const auto& [name, type, is_const] : d.args) params.push_back(param_size(type));
    params.push_back(8);  // global_scratch
    params.push_back(8);  // profile_scratch
    s.image(vi, image_kind::cubin, "sm_90", tpfake::make_cubin(90, false, {{d.name, params, 128}}));
  }
  s.append_to(info, images);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: write_capi_library OUTDIR\n";
    return 2;
  }
  const arg_spec none{spec_kind::none, ""}, div16{spec_kind::divisible_16, ""};
  tritonpack::container_info info;
  info.name = "capi_types";
  info.triton_version = "3.6.0";
  std::vector<std::vector<std::uint8_t>> images;
  // Every scalar type, in an order that puts each size next to every other (the bytes must not
  // be padded or reordered on the way).
  add_kernel(info, images,
             {"scalars",
              {{"out", "*fp32", false}, {"flag", "i1", false}, {"s8", "i8", false}, {"s16", "i16", false},
               {"s32", "i32", false}, {"s64", "i64", false}, {"v8", "u8", false}, {"v16", "u16", false},
               {"v32", "u32", false}, {"v64", "u64", false}, {"h", "fp16", false}, {"bh", "bf16", false},
               {"f", "fp32", false}, {"d", "fp64", false}},
              {"1", "1", "1"},
              {{}}});
  // Every pointer type, const and not; the grid from an argument.
  add_kernel(info, images,
             {"pointers",
              {{"x", "*fp32", true}, {"h", "*fp16", true}, {"bh", "*bf16", false}, {"q", "*fp8e4nv", false},
               {"r", "*fp8e5", false}, {"flags", "*i1", false}, {"idx", "*i64", true}, {"count", "i32", false}},
              {"cdiv(count, 64)", "1", "1"},
              {{}}});
  // No grid expression: the caller passes it.
  add_kernel(info, images, {"explicit_grid", {{"x", "*fp32", false}, {"n", "i32", false}}, {}, {{}}});
  // Specialised only: a call can miss every variant.
  add_kernel(info, images, {"aligned_only", {{"x", "*fp32", false}, {"n", "i32", false}}, {"1", "1", "1"}, {{div16, div16}}});
  // Names C or Fortran cannot take as they are: a C keyword, the generated code's own names, a
  // leading underscore, names equal but for case, a C type name.
  add_kernel(info, images,
             {"renamed",
              {{"restrict", "i32", false}, {"stream", "i32", false}, {"_x", "i32", false}, {"N", "i32", false},
               {"n", "i32", false}, {"int32_t", "i32", false}, {"stat", "i32", false}},
              {"1", "1", "1"},
              {{}}});

  // Names as long as Fortran allows (capi_types_ + 52 = 63 characters): every generated line must
  // still be legal Fortran (132 columns) and C.
  add_kernel(info, images,
             {"a_kernel_name_long_enough_to_wrap_every_generated_ls",
              {{"an_argument_name_that_is_long_enough_to_wrap_lines_a", "*fp32", false},
               {"an_argument_name_that_is_long_enough_to_wrap_lines_b", "*fp32", false},
               {"an_argument_name_that_is_long_enough_to_wrap_lines_c", "i64", false}},
              {},
              {{}}});

  const std::vector<std::uint8_t> container = tritonpack::pack::write_container(info, images);
  tritonpack::pack::header_options o;
  o.namespace_name = info.name;
  o.generator = "tests/capi/write_capi_library";
  const tritonpack::pack::languages both{true, true};
  tritonpack::pack::check_foreign_names(info.name, info, both);
  const std::string dir = argv[1];
  std::ofstream(dir + "/capi_types.hpp") << tritonpack::pack::write_header(info, container, o);
  std::ofstream(dir + "/capi_types.h") << tritonpack::pack::write_c_header(info, o);
  std::ofstream(dir + "/capi_types_c.cpp") << tritonpack::pack::write_c_source(info, o);
  std::ofstream(dir + "/capi_types.f90") << tritonpack::pack::write_fortran_module(info, o);
  return 0;
}
