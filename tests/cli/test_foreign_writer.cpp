// The C API and Fortran module writers (foreign_writer.hpp) and `tritonpack pack --languages`:
// what is written for which language, and the names C and Fortran refuse at pack time, each with a
// message naming the kernel and what to do. (The generated code compiled and run: tests/capi.)
#include <doctest/doctest.h>

#include "test_util.hpp"
#include "tritonpack/core/error.hpp"
#include "tritonpack/pack/foreign_writer.hpp"

using tp_test::fs::path;
using tp_test::run_cli;
using namespace tritonpack;

namespace cli_foreign_writer_tests {  // this file's own names (the test binary is a unity build)
namespace {

const path work = TP_WORK;

kernel_info kernel(const std::string& name, std::vector<kernel_arg> args = {{"x", "*fp32", false}, {"n", "i32", false}}) {
  kernel_info k;
  k.name = name;
  k.source = "k.py:" + name;
  k.args = std::move(args);
  k.grid = {"n", "1", "1"};
  return k;
}

container_info library(std::vector<kernel_info> kernels) {
  container_info info;
  info.kernels = std::move(kernels);
  return info;
}

// The message check_foreign_names refuses `info` with ("" if it accepts it).
std::string refusal(const std::string& name, const container_info& info, pack::languages langs) {
  try {
    pack::check_foreign_names(name, info, langs);
  } catch (const error& e) {
    CHECK(e.code() == errc::bad_argument);
    return e.what();
  }
  return "";
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

const pack::languages c_only{true, false}, fortran{true, true};

}  // namespace

TEST_CASE("--languages: c, fortran (which implies c), in any case; anything else is refused") {
  const pack::languages c = pack::parse_languages("c");
  CHECK((c.c && !c.fortran));
  const pack::languages f = pack::parse_languages("fortran");
  CHECK((f.c && f.fortran));
  const pack::languages both = pack::parse_languages("C,Fortran");
  CHECK((both.c && both.fortran));
  for (const char* bad : {"cxx", "", "c,", "rust"}) {
    INFO(bad);
    CHECK_THROWS_WITH_AS(pack::parse_languages(bad), doctest::Contains("give a comma-separated list of c and fortran"), error);
  }
}

TEST_CASE("pack --languages writes NAME.h and NAME_c.cpp for c, also NAME.f90 for fortran; usage errors exit 2") {
  const path c_dir = work / "lang_c", f_dir = work / "lang_fortran";
  tp_test::fs::remove_all(c_dir);
  tp_test::fs::remove_all(f_dir);
  const std::string manifest = "\"" + std::string(TP_ARTIFACTS) + "/manifest.json\"";
  const auto c = run_cli("pack " + manifest + " -o \"" + c_dir.string() + "\" --languages c");
  REQUIRE_MESSAGE(c.code == 0, c.out);
  CHECK(tp_test::fs::exists(c_dir / "fixtures.h"));
  CHECK(tp_test::fs::exists(c_dir / "fixtures_c.cpp"));
  CHECK(!tp_test::fs::exists(c_dir / "fixtures.f90"));
  CHECK(contains(c.out, "wrote " + (c_dir / "fixtures.h").string()));
  const auto f = run_cli("pack " + manifest + " -o \"" + f_dir.string() + "\" --languages=fortran");
  REQUIRE_MESSAGE(f.code == 0, f.out);
  for (const char* file : {"fixtures.hpp", "fixtures.h", "fixtures_c.cpp", "fixtures.f90"}) CHECK(tp_test::fs::exists(f_dir / file));
  const auto bad = run_cli("pack " + manifest + " -o \"" + (work / "never_lang").string() + "\" --languages c,python");
  CHECK(bad.code == 2);
  CHECK(contains(bad.out, "tritonpack: --languages: unknown language \"python\""));
  CHECK(!tp_test::fs::exists(work / "never_lang"));
}

TEST_CASE("C names: NAME_last_error and the run time's C API are refused at pack time, only when C is asked for") {
  const container_info last_error = library({kernel("last_error")});
  CHECK(refusal("lib", last_error, {}) == "");
  CHECK(contains(refusal("lib", last_error, c_only),
                 "kernel last_error: its C function would be lib_last_error, the library's error-message function; "
                 "rename the kernel (e.g. last_error_kernel)"));
  CHECK(contains(refusal("tritonpack_device", library({kernel("count")}), c_only),
                 "its C function would be tritonpack_device_count, which <tritonpack/c/tritonpack.h> declares"));
  CHECK(refusal("lib", library({kernel("a"), kernel("lib_a")}), c_only) == "");  // C: lib_a and lib_lib_a
}

TEST_CASE("Fortran names: case-blind clashes with an interface, imported names and the 63-character limit") {
  CHECK(contains(refusal("lib", library({kernel("a"), kernel("LIB_A")}), fortran),
                 "kernel LIB_A: in the Fortran module lib (which ignores case) it would clash with the interface lib_a"));
  CHECK(contains(refusal("lib", library({kernel("lib_last_error")}), fortran),
                 "clash with the library's error-message function lib_last_error"));
  CHECK(contains(refusal("lib", library({kernel("c_ptr")}), fortran), "kernel c_ptr: the Fortran module lib imports a name c_ptr"));
}

TEST_CASE("Fortran: a kernel named like an intrinsic (sum, MAX) is renamed NAME_kernel there, with a warning; a library so named is refused") {
  CHECK(contains(refusal("matmul", library({kernel("k")}), fortran),
                 "the library name 'matmul' is a Fortran intrinsic procedure (MATMUL)"));
  CHECK(refusal("matmul", library({kernel("k")}), c_only) == "");
  const container_info info = library({kernel("sum"), kernel("MAX"), kernel("softmax")});
  CHECK(pack::check_foreign_names("lib", info, c_only).empty());  // C has no intrinsics
  const std::vector<std::string> warnings = pack::check_foreign_names("lib", info, fortran);
  REQUIRE(warnings.size() == 2);
  CHECK(warnings[0] == "kernel sum: SUM is a Fortran intrinsic procedure, which a subroutine of that name would hide in every "
                       "program unit that uses module lib; its subroutine there is sum_kernel (the C function lib_sum and the "
                       "C++ function are unchanged; set `name` in the spec to choose another)");
  CHECK(contains(warnings[1], "its subroutine there is MAX_kernel"));
  pack::header_options o;
  o.namespace_name = "lib";
  const std::string f90 = pack::write_fortran_module(info, o);
  CHECK(contains(f90, "  ! Named sum_kernel here, not sum: a subroutine sum would hide the intrinsic SUM.\n"
                      "  subroutine sum_kernel(x, n, stream, stat)\n"));
  CHECK(contains(f90, "  end subroutine sum_kernel\n"));
  CHECK(contains(f90, "  subroutine softmax(x, n, stream, stat)\n"));
  CHECK(contains(f90, "public :: lib_last_error, sum_kernel, lib_sum, MAX_kernel, lib_MAX, softmax"));
  CHECK(!contains(f90, "subroutine sum("));
  CHECK(contains(refusal("lib", library({kernel("sum"), kernel("sum_kernel")}), fortran),
                 "kernel sum_kernel: in the Fortran module lib (which ignores case) it would clash with the subroutine sum_kernel"));

  const std::string long_kernel(50, 'k');
  CHECK(contains(refusal("a_library_name", library({kernel(long_kernel)}), fortran),
                 "is longer than Fortran's 63 characters; shorten the library or kernel name"));
  CHECK(refusal("a_library_name", library({kernel(long_kernel)}), c_only) == "");
  const std::string long_arg(64, 'a');
  CHECK(contains(refusal("lib", library({kernel("k", {{long_arg, "i32", false}})}), fortran),
                 "kernel k, argument " + long_arg + ": the Fortran name"));
}

TEST_CASE("a kernel taking a tensor descriptor is left out of C and Fortran, with a warning and a note; the others keep their C API") {
  const container_info desc = library({kernel("tma", {{"d", "tensordesc<fp16[64,64]>", false}}), kernel("k")});
  CHECK(refusal("lib", desc, fortran) == "");
  const std::vector<std::string> warnings = pack::check_foreign_names("lib", desc, c_only);
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0] == "kernel tma: argument d is a tensor descriptor (tensordesc<fp16[64,64]>), which has no C or Fortran form yet: "
                       "the C API leaves this kernel out (a note in lib.h says so); call it from C++ (lib.hpp)");
  pack::header_options o;
  o.namespace_name = "lib";
  const std::string h = pack::write_c_header(desc, o);
  CHECK(contains(h, "// Not here: kernel tma (argument d is a tensor descriptor, tensordesc<fp16[64,64]>, which has no C\n"
                    "// form yet); call it from C++: lib::tma in lib.hpp.\n"));
  CHECK(contains(h, "int lib_k(float* x, int32_t n, tritonpack_stream_t stream);"));
  CHECK(!contains(h, "int lib_tma("));
  const std::string cpp = pack::write_c_source(desc, o);
  CHECK(contains(cpp, "int lib_k("));
  CHECK(!contains(cpp, "lib_tma"));
  const std::string f90 = pack::write_fortran_module(desc, o);
  CHECK(contains(f90, "  subroutine k(x, n, stream, stat)\n"));
  CHECK(!contains(f90, "tma"));
}

TEST_CASE("arguments the C API cannot pass are refused naming the kernel and the argument") {
  const container_info fp8 = library({kernel("k", {{"s", "fp8e5", false}})});
  CHECK(contains(refusal("lib", fp8, c_only), "kernel k, argument s: argument type \"fp8e5\" has no C++ type"));
}

TEST_CASE("the C header, its definitions and the Fortran module: types, names and guards") {
  container_info info = library({kernel("k", {{"x", "*kfp16", false},
                                              {"y", "*bf16", false},
                                              {"flag", "i1", false},
                                              {"big", "u64", false},
                                              {"h", "fp16", false},
                                              {"restrict", "i32", false},
                                              {"_tail", "fp64", false}})});
  info.kernels[0].grid = {};  // the caller passes the grid
  pack::header_options o;
  o.namespace_name = "lib";
  const std::string h = pack::write_c_header(info, o);
  CHECK(contains(h, "#ifndef TRITONPACK_GENERATED_LIB_H"));
  CHECK(contains(h, "extern \"C\" {"));
  CHECK(contains(h, "const char* lib_last_error(void);"));
  CHECK(contains(h, "int lib_k(tritonpack_grid3 grid, const tritonpack_half* x, tritonpack_bfloat16* y, bool flag,\n"
                    "          uint64_t big, tritonpack_half h, int32_t restrict_, double _tail,\n"
                    "          tritonpack_stream_t stream);"));
  const std::string cpp = pack::write_c_source(info, o);
  CHECK(contains(cpp, "reinterpret_cast<const ::tritonpack::half*>(x)"));
  CHECK(contains(cpp, "::tritonpack::half::from_bits(h)"));
  CHECK(contains(cpp, "::tritonpack::c_bridge::grid_from_c(grid, \"k\")"));
  CHECK(contains(cpp, "return ::tritonpack::c_bridge::guard(\"lib_k\", [&] {"));
  CHECK(contains(cpp, "const char* lib_last_error(void) { return tritonpack_last_error(); }"));
  const std::string f90 = pack::write_fortran_module(info, o);
  CHECK(contains(f90, "module lib\n"));
  CHECK(contains(f90, "use tritonpack, only: tritonpack_grid3, tritonpack_stop\n"));
  CHECK(contains(f90, "      logical(c_bool), value :: flag\n"));
  CHECK(contains(f90, "      integer(c_int64_t), value :: big\n"));
  CHECK(contains(f90, "      integer(c_int16_t), value :: h\n"));
  CHECK(contains(f90, "      real(c_double), value :: arg_tail\n"));
  CHECK(contains(f90, "  subroutine k(grid, x, y, flag, big, h, restrict, arg_tail, stream, stat)\n"));
  CHECK(contains(f90, "      call tritonpack_stop(\"lib_k\", tp_status, lib_last_error())\n"));
  CHECK(contains(f90, "end module lib\n"));
}

TEST_CASE("the C header's variant list: a tuned kernel's configs are chosen per call, an untuned one's are not dispatched to") {
  kernel_info k = kernel("k");
  variant_info v;
  v.specs = {{spec_kind::none, ""}, {spec_kind::none, ""}};
  k.variants = {v, v};
  pack::header_options o;
  o.namespace_name = "lib";
  CHECK(contains(pack::write_c_header(library({k}), o), "variant 1: *fp32, i32 (num_warps 4), same specialisation as 0: not dispatched to"));
  k.tuning.config_count = 2;
  const std::string h = pack::write_c_header(library({k}), o);
  CHECK(contains(h, "variant 0: *fp32, i32 (num_warps 4), config 0 of 2, chosen per call"));
  CHECK(contains(h, "variant 1: *fp32, i32 (num_warps 4), config 1 of 2, chosen per call"));
}

}  // namespace cli_foreign_writer_tests
