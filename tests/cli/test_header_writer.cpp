// The generated header's pieces: C++ types, grid translation, the string-literal encoding (and
// decoding it back, as inspect does), dispatch predicates.
#include <doctest/doctest.h>

#include <fmt/format.h>

#include <cstring>
#include <random>

#include "tritonpack/container/reader.hpp"
#include "tritonpack/core/error.hpp"
#include "tritonpack/pack/container_writer.hpp"
#include "tritonpack/pack/header_writer.hpp"
#include "tritonpack/pack/manifest.hpp"

using namespace tritonpack;
using namespace tritonpack::pack;

TEST_CASE("Triton types map to the C++ types of docs/runtime-api.md") {
  CHECK(cpp_type("*fp32", true) == "const float*");
  CHECK(cpp_type("*fp32", false) == "float*");
  CHECK(cpp_type("*kfp32", false) == "const float*");
  CHECK(cpp_type("*fp64", false) == "double*");
  CHECK(cpp_type("*fp16", false) == "::tritonpack::half*");
  CHECK(cpp_type("*bf16", true) == "const ::tritonpack::bfloat16*");
  CHECK(cpp_type("*fp8e4nv", false) == "::tritonpack::float8_e4m3*");
  CHECK(cpp_type("*fp8e5", false) == "::tritonpack::float8_e5m2*");
  CHECK(cpp_type("*fp8e4b15", false) == "std::uint8_t*");
  CHECK(cpp_type("*i8", false) == "std::int8_t*");
  CHECK(cpp_type("*u64", false) == "std::uint64_t*");
  CHECK(cpp_type("*i1", false) == "bool*");
  CHECK(cpp_type("i1", false) == "bool");
  CHECK(cpp_type("u1", false) == "bool");
  CHECK(cpp_type("i32", false) == "std::int32_t");
  CHECK(cpp_type("u16", false) == "std::uint16_t");
  CHECK(cpp_type("fp16", false) == "::tritonpack::half");
  CHECK(cpp_type("bf16", false) == "::tritonpack::bfloat16");
  CHECK(cpp_type("fp32", false) == "float");
  CHECK(cpp_type("fp64", false) == "double");
  CHECK(cpp_type("tensordesc<fp16[64,64]>", true) == "const ::tritonpack::tensor_descriptor<const ::tritonpack::half, 2>&");
  CHECK(cpp_type("tensordesc<fp32[128]>", false) == "const ::tritonpack::tensor_descriptor<float, 1>&");
  CHECK_THROWS_WITH_AS(cpp_type("*complex64", false), doctest::Contains("complex64"), error);
  CHECK_THROWS_AS(cpp_type("fp8e5", false), error);
  CHECK_THROWS_AS(cpp_type("tensordesc<fp16>", false), error);
}

// The grammar's cases, translated and evaluated alike, are in tests/data/grid_grammar.json
// (test_grid_grammar.cpp); here what only the translation does.
TEST_CASE("grid expressions become C++: names a C++ program cannot use are renamed, Python's operators refused") {
  const std::vector<std::pair<std::string, std::string>> args = {{"n", "i32"}, {"new", "i32"}, {"grid", "i64"}};
  const std::vector<std::pair<std::string, std::int64_t>> cx = {{"BLOCK", 128}, {"class", 4}};
  CHECK(translate_grid_expr("new * 2", args, cx) == "::tritonpack::grid_int{new_} * 2");  // C++ keyword renamed
  CHECK(translate_grid_expr("cdiv(grid, class)", args, cx) == "::tritonpack::cdiv(::tritonpack::grid_int{grid_}, class_)");
  // The translator once read `//` as `/` and accepted unary minus, which the spec, the front end
  // and tune's evaluator refuse: one parser now refuses them for all.
  CHECK_THROWS_WITH_AS(translate_grid_expr("(n + BLOCK - 1) // BLOCK", args, cx), doctest::Contains("'//' is not in the grid grammar"),
                       error);
  CHECK_THROWS_WITH_AS(translate_grid_expr("-n + 5", args, cx), doctest::Contains("unary minus is not in the grid grammar"), error);
}

TEST_CASE("grid expressions whose constants make no grid are refused at pack time (issue 9)") {
  const std::vector<std::pair<std::string, std::string>> args = {{"n", "i32"}};
  const std::vector<std::pair<std::string, std::int64_t>> cx = {{"BLOCK", 128}, {"ZERO", 0}};
  auto refusal = [&](const char* expr) {
    try {
      translate_grid_expr(expr, args, cx);
    } catch (const error& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  CHECK(refusal("n / 0") == "tritonpack: grid expression \"n / 0\" divides by zero");
  CHECK(refusal("n % 0") == "tritonpack: grid expression \"n % 0\" divides by zero");
  CHECK(refusal("cdiv(n, 0)") == "tritonpack: grid expression \"cdiv(n, 0)\" divides by zero");
  CHECK(refusal("cdiv(n, ZERO)") == "tritonpack: grid expression \"cdiv(n, ZERO)\" divides by zero: ZERO is 0");
  CHECK(refusal("n % (2 - 2)") == "tritonpack: grid expression \"n % (2 - 2)\" divides by zero: (2 - 2) is 0");
  CHECK(refusal("cdiv(n, BLOCK - 128)") ==
        "tritonpack: grid expression \"cdiv(n, BLOCK - 128)\" divides by zero: BLOCK - 128 is 0 with BLOCK = 128");
  CHECK(refusal("0 - 1") == "tritonpack: grid expression \"0 - 1\" is -1: a grid dimension cannot be negative");
  CHECK(refusal("65536 * 65536") ==
        "tritonpack: grid expression \"65536 * 65536\" is 4294967296: a grid dimension holds at most 4294967295");
  CHECK(refusal("4611686018427387904 * 2 + n") == "tritonpack: grid expression \"4611686018427387904 * 2 + n\" "
                                                  "cannot be evaluated: 4611686018427387904 * 2 overflows 64-bit integers");
  CHECK(refusal("99999999999999999999 + n") == "tritonpack: grid expression \"99999999999999999999 + n\": "
                                               "99999999999999999999 does not fit in 64-bit integers at column 1");
  CHECK(refusal("n / (0 - 1) / 2") == "(accepted)");  // a negative divisor is fine; the result is checked at run time
}

TEST_CASE("string-literal encoding round-trips every byte value, and escapes never run together") {
  std::vector<std::uint8_t> all;
  for (int i = 0; i < 256; ++i) all.push_back(static_cast<std::uint8_t>(i));
  // Octal-escape followed by digits, quote, backslash, question marks (trigraphs).
  for (const char* s : {"\0011", "\0071\0078", "\"\\?\?=?\?/", "\x7f" "0"}) all.insert(all.end(), s, s + std::strlen(s) + 1);
  std::mt19937 rng(7);
  for (int i = 0; i < 5000; ++i) all.push_back(static_cast<std::uint8_t>(rng()));
  for (std::size_t per_line : {1u, 3u, 64u, 4096u}) {
    CAPTURE(per_line);
    const std::string lit = encode_string_literals(all.data(), all.size(), per_line, "    ");
    CHECK(lit.find("??") == std::string::npos);
    CHECK(decode_string_literals(lit) == all);
  }
  CHECK_THROWS_AS(decode_string_literals("\"abc"), error);
  CHECK_THROWS_AS(decode_string_literals("\"\\q\""), error);
  CHECK_THROWS_AS(decode_string_literals("\"\\777\""), error);
}

namespace cli_header_writer_tests {  // this file's own names (the test binary is a unity build)
namespace {
// The fixtures' manifest, packed, and its header as library "fixtures".
struct fixtures_header {
  static header_options options() {
    header_options o;
    o.namespace_name = "fixtures";
    return o;
  }
  const loaded_manifest m = load_manifest(std::string(TP_ARTIFACTS) + "/manifest.json");
  const std::vector<std::uint8_t> blob = write_container(m.info, m.image_bytes);
  const std::string h = write_header(m.info, blob, options());
};
}  // namespace

TEST_CASE("a kernel packed without tuning (v1, or no tuning in the manifest) launches its first config, as before") {
  loaded_manifest m = load_manifest(std::string(TP_ARTIFACTS) + "/manifest.json");
  REQUIRE(m.info.kernels[2].name == "matmul_f16");
  m.info.kernels[2].tuning = kernel_tuning{};
  const std::vector<std::uint8_t> blob = write_container(m.info, m.image_bytes);
  const std::string h = write_header(m.info, blob, fixtures_header::options());
  CHECK(h.find("(same specialisation as 0: another config, not dispatched to)") != std::string::npos);
  CHECK(h.find("launch_tuned") == std::string::npos);
}

TEST_CASE("a tuned kernel whose caller passes the grid: one launch line serves every config") {
  loaded_manifest m = load_manifest(std::string(TP_ARTIFACTS) + "/manifest.json");
  REQUIRE(m.info.kernels[2].tuning.config_count == 2);
  m.info.kernels[2].grid = {"", "", ""};
  const std::vector<std::uint8_t> blob = write_container(m.info, m.image_bytes);
  const std::string h = write_header(m.info, blob, fixtures_header::options());
  CHECK(h.find("inline void matmul_f16(::tritonpack::grid3 grid,") != std::string::npos);
  CHECK(h.find("    auto run = [&](std::size_t config, ::tritonpack::stream_t on_stream) {\n"
               "      ::tritonpack::typed::launch(kernel, 0 + config, grid, on_stream, args);\n"
               "    };\n") != std::string::npos);
  CHECK(h.find("  ::tritonpack::typed::launch(kernel, 2 + config, grid, on_stream, args);\n") != std::string::npos);
  CHECK(h.find("switch (config)") == std::string::npos);
}

TEST_CASE("generated dispatch: predicates most specialised first, configs of one spec chosen per call") {
  const fixtures_header f;
  const std::string& h = f.h;
  const auto& blob = f.blob;
  CHECK(h.find("inline char container_data[] =") != std::string::npos);  // not const: no copy in debug info
  CHECK(h.find("inline constexpr std::size_t container_size = " + std::to_string(blob.size()) + ";") != std::string::npos);
  CHECK(h.find("inline void vector_add(const float* x, const float* y, float* out, ::tritonpack::arg_i32 n,") != std::string::npos);
  CHECK(h.find("::tritonpack::aligned_16(x) &&") != std::string::npos);
  CHECK(h.find("n % 16 == 0) {") != std::string::npos);
  CHECK(h.find("K == 1 &&") != std::string::npos);
  CHECK(h.find("::tritonpack::typed::launch(kernel, 1, grid, stream, args);") != std::string::npos);
  // matmul_f16's two autotune configs per signature: chosen per call (docs/runtime.md, "Choosing
  // a config"), each config launched with its own grid by the callback the run time calls.
  CHECK(h.find("  // 0..1: *fp16:16, *fp16:16, *fp16:16, i32, i32, i32:1, i32:16, i32:16, i32:16\n"
               "  //   2 configs, chosen per call") != std::string::npos);
  CHECK(h.find("        default: {  // config 1\n") != std::string::npos);
  CHECK(h.find("          ::tritonpack::typed::launch(kernel, 1, grid, on_stream, args);\n") != std::string::npos);
  // Its literal arguments carry their parameters' names.
  CHECK(h.find("    ::tritonpack::typed::launch_tuned(kernel, /*group_first=*/0, key, /*key_count=*/3,\n"
               "                                      /*buffers=*/nullptr, /*buffer_bytes=*/nullptr,\n"
               "                                      /*buffer_count=*/0, stream,\n"
               "                                      ::tritonpack::config_launcher::of(run));\n") != std::string::npos);
  CHECK(h.find("  ::tritonpack::typed::launch_tuned(kernel, /*group_first=*/2, key, /*key_count=*/3,") != std::string::npos);
  // The run time's calls go through tritonpack/typed_api.hpp: the whole run time, or its
  // declarations in separate mode (docs/runtime-api.md, "Separate compilation").
  CHECK(h.find("#include <tritonpack/typed_api.hpp>\n") != std::string::npos);
  CHECK(h.find("tritonpack.hpp") == std::string::npos);
  // Each function checks, once, that the kernel at its index is the one it was written for, in
  // the container it was packed into (docs/spec.md, "One library per name in a program").
  CHECK(h.find("static ::tritonpack::kernel& kernel =\n"
               "      ::tritonpack::typed::kernel_at(library(), 0, \"vector_add(*fp32, *fp32, *fp32, i32, fp32)\",\n"
               "                                     detail::container_checksum);") != std::string::npos);
  CHECK(h.find("      ::tritonpack::typed::kernel_at(\n"
               "          library(), 2, \"matmul_f16(*fp16, *fp16, *fp16, i32, i32, i32, i32, i32, i32)\",\n"
               "          detail::container_checksum);") != std::string::npos);
  CHECK(h.find("  static ::tritonpack::library& lib = ::tritonpack::typed::open_library(\n"
               "      reinterpret_cast<const std::uint8_t*>(detail::container_data), detail::container_size,\n"
               "      detail::container_checksum);") != std::string::npos);
  // row_softmax has no grid expression: the caller passes one, first.
  CHECK(h.find("inline void row_softmax(::tritonpack::grid3 grid, float* out, const float* inp,") != std::string::npos);
  // Grids through kernel::grid (checked), and a call no variant accepts explained by the run time.
  CHECK(h.find("    const ::tritonpack::grid3 grid = ::tritonpack::typed::grid(\n"
               "        kernel, ::tritonpack::cdiv(::tritonpack::grid_int{n}, BLOCK), 1, 1);\n") != std::string::npos);
  CHECK(h.find("  ::tritonpack::typed::no_variant(kernel, args);\n}\n\n// matmul_f16") != std::string::npos);
  // The container decodes back out of the header.
  const std::size_t b = h.find("container_data[] ="), e = h.find("\n    ;\n", b);
  CHECK(decode_string_literals(std::string_view(h).substr(b + 18, e - b - 18)) == blob);
  // Lines stay within 100 columns outside the data literal.
  std::size_t pos = h.find("container_size = ");
  for (std::size_t nl; (nl = h.find('\n', pos)) != std::string::npos; pos = nl + 1) CHECK(nl - pos <= 100);
}

TEST_CASE("the header includes <algorithm> only where a grid calls std::min or std::max") {
  const fixtures_header f;
  CHECK(f.h.find("#pragma once\n\n#include <cstddef>\n#include <cstdint>\n\n") != std::string::npos);
  CHECK(f.h.find("<algorithm>") == std::string::npos);
  loaded_manifest m = load_manifest(std::string(TP_ARTIFACTS) + "/manifest.json");
  REQUIRE(m.info.kernels[0].name == "vector_add");
  m.info.kernels[0].grid[0] = "cdiv(n, min(BLOCK, 2048))";  // constants folded as std::min<std::int64_t>(BLOCK, 2048)
  const std::vector<std::uint8_t> blob = write_container(m.info, m.image_bytes);
  const std::string h = write_header(m.info, blob, fixtures_header::options());
  CHECK(h.find("std::min<std::int64_t>(BLOCK, 2048)") != std::string::npos);
  CHECK(h.find("#pragma once\n\n#include <algorithm>\n#include <cstddef>\n#include <cstdint>\n\n") != std::string::npos);
}

TEST_CASE("the header records its container's identity and asks the linker for one library per name") {
  const fixtures_header f;
  const std::string& h = f.h;
  const std::string hash = fmt::format("{:016x}", container::parse(f.blob.data(), f.blob.size()).tables_checksum());
  CHECK(h.find("inline constexpr std::uint64_t container_checksum = 0x" + hash + ";") != std::string::npos);
  // The symbol the linker names when two libraries are called fixtures, in a COMDAT group that
  // every copy of this container shares; hidden, so shared libraries do not export it.
  const std::string symbol = "tritonpack_two_different_libraries_named_fixtures__give_each_its_own_NAME";
  CHECK(h.find("[[gnu::used]] inline void link_check_" + hash + "() {") != std::string::npos);
  CHECK(h.find("\"tritonpack_library_fixtures_" + hash + ",comdat\\n\"") != std::string::npos);
  CHECK(h.find("\".globl " + symbol + "\\n\"") != std::string::npos);
  CHECK(h.find("\".hidden " + symbol + "\\n\"") != std::string::npos);
  CHECK(h.find("\"" + symbol + ":\\n\"") != std::string::npos);
  CHECK(h.find("!defined(TRITONPACK_NO_LINK_CHECK)") != std::string::npos);
  // Another container under the same name: another group, the same symbol.
  write_options stored;
  stored.store_binaries = true;
  const std::string h2 = write_header(f.m.info, write_container(f.m.info, f.m.image_bytes, stored), fixtures_header::options());
  CHECK(h2.find("tritonpack_library_fixtures_" + hash) == std::string::npos);
  CHECK(h2.find("\".globl " + symbol + "\\n\"") != std::string::npos);
}

TEST_CASE("a kernel whose type or grid cannot become C++ is refused naming it") {
  container_info info;
  info.name = "lib";
  kernel_info k;
  k.name = "k";
  k.args = {{"x", "*complex", false}};
  variant_info v;
  v.specs = {{spec_kind::none, ""}};
  k.variants = {v};
  info.kernels = {k};
  header_options o;
  o.namespace_name = "lib";
  CHECK_THROWS_WITH_AS(write_header(info, {}, o), doctest::Contains("kernel k, argument x"), error);
  info.kernels[0].args[0].type = "i32";
  info.kernels[0].grid = {"cdiv(x, BLOCK)", "1", "1"};
  CHECK_THROWS_WITH_AS(write_header(info, {}, o), doctest::Contains("kernel k, variant 0, grid[0]"), error);
  info.kernels[0].variants[0].config.constexprs = {{"BLOCK", "128"}};
  CHECK_NOTHROW(write_header(info, {}, o));
  // A hand-written manifest bypasses the front end: a config whose constexpr makes a zero divisor
  // is refused here, even in a variant never dispatched to (the same specs as variant 0).
  info.kernels[0].variants.push_back(info.kernels[0].variants[0]);
  info.kernels[0].variants[1].config.constexprs = {{"BLOCK", "0"}};
  CHECK_THROWS_WITH_AS(write_header(info, {}, o),
                       "tritonpack: kernel k, variant 1, grid[0]: grid expression \"cdiv(x, BLOCK)\" divides by zero: "
                       "BLOCK is 0",
                       error);
  info.kernels[0].variants.pop_back();
  o.namespace_name = "class";
  CHECK_THROWS_AS(write_header(info, {}, o), error);
}

}  // namespace cli_header_writer_tests
