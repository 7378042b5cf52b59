// The grid grammar, packer half: every case of tests/data/grid_grammar.json through the one parser
// (grid_expr.hpp) and both of its readers — the C++ translation of the generated header and tune's
// evaluator — so that the grid `tritonpack tune` times is the grid the generated code launches.
// tests/python/test_grid.py reads the same table for the front end's check; the CMake target
// tritonpack_grid_grammar_compiled compiles each "cpp" text and checks its value.
#include <doctest/doctest.h>

#include <functional>
#include <optional>

#include "test_util.hpp"
#include "tritonpack/core/error.hpp"
#include "tritonpack/pack/grid_eval.hpp"
#include "tritonpack/pack/grid_expr.hpp"
#include "tritonpack/pack/header_writer.hpp"

using namespace tritonpack;
using namespace tritonpack::pack;

namespace cli_grid_grammar_tests {  // this file's own names (the test binary is a unity build)
namespace {

const nlohmann::json& table() {
  static const nlohmann::json t = tp_test::load_json(tp_test::fs::path(TP_ARTIFACTS).parent_path() / "grid_grammar.json");
  return t;
}

std::vector<std::pair<std::string, std::string>> int_args() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [name, a] : table()["arguments"].items()) out.emplace_back(name, a["type"].get<std::string>());
  return out;
}
std::vector<std::pair<std::string, std::int64_t>> constexprs() {
  std::vector<std::pair<std::string, std::int64_t>> out;
  for (const auto& [name, v] : table()["constexprs"].items()) out.emplace_back(name, v.get<std::int64_t>());
  return out;
}
// Every name of the table with its value, as tune knows them for a problem.
std::optional<grid_int> lookup(const std::string& name) {
  const nlohmann::json& t = table();
  if (t["arguments"].contains(name)) return grid_int(t["arguments"][name]["value"].get<std::int64_t>());
  if (t["constexprs"].contains(name)) return grid_int(t["constexprs"][name].get<std::int64_t>());
  return std::nullopt;
}

using tp_test::error_of;
bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("every valid case of grid_grammar.json: evaluation's value and the translation's C++ (or its pack-time refusal)") {
  REQUIRE(table()["valid"].size() >= 40);
  for (const nlohmann::json& c : table()["valid"]) {
    const std::string expr = c["expr"].get<std::string>();
    CAPTURE(expr);
    const grid_int v = evaluate_grid_expr(expr, lookup);
    if (c.contains("value")) {
      CHECK(!v.failed());
      CHECK(v.value() == c["value"].get<std::int64_t>());
    } else {
      CHECK(v.failed());
      CHECK(v.failure_text() == c["fails"].get<std::string>());
    }
    if (c.contains("cpp")) {
      CHECK(translate_grid_expr(expr, int_args(), constexprs()) == c["cpp"].get<std::string>());
    } else {
      const std::string refusal = error_of([&] { translate_grid_expr(expr, int_args(), constexprs()); });
      CHECK_MESSAGE(contains(refusal, "grid expression \"" + expr + "\""), refusal);
      CHECK_MESSAGE(contains(refusal, c["refused"]["cpp"].get<std::string>()), refusal);
    }
  }
}

TEST_CASE("every invalid case of grid_grammar.json is refused by the parser, or by both readers for an unknown name, at its column") {
  REQUIRE(table()["invalid"].size() >= 30);
  for (const nlohmann::json& c : table()["invalid"]) {
    const std::string expr = c["expr"].get<std::string>();
    const std::string why = c["cpp"].get<std::string>();
    const std::string at = " at column " + std::to_string(c["column"].get<int>());
    CAPTURE(expr);
    const std::string parsing = error_of([&] { parse_grid_expr(expr); });
    if (parsing != "(no error)") {
      CHECK_MESSAGE(parsing.rfind("tritonpack: grid expression \"" + expr + "\": ", 0) == 0, parsing);
      CHECK_MESSAGE(contains(parsing, why), parsing);
      const bool ends_with_column = parsing.size() >= at.size() && parsing.compare(parsing.size() - at.size(), at.size(), at) == 0;
      CHECK_MESSAGE(ends_with_column, parsing);
      // Both readers refuse it with the parser's message.
      CHECK(error_of([&] { evaluate_grid_expr(expr, lookup); }) == parsing);
      CHECK(error_of([&] { translate_grid_expr(expr, int_args(), constexprs()); }) == parsing);
      continue;
    }
    // Syntactically fine: a name neither reader knows, refused by each at the name's column.
    for (const std::string& refusal : {error_of([&] { evaluate_grid_expr(expr, lookup); }),
                                       error_of([&] { translate_grid_expr(expr, int_args(), constexprs()); })}) {
      CHECK_MESSAGE(contains(refusal, "grid expression \"" + expr + "\": " + why), refusal);
      CHECK_MESSAGE(contains(refusal, at), refusal);
    }
  }
}

TEST_CASE("the tree: precedence, left associativity, spans and parentheses") {
  const grid_expr e = parse_grid_expr("n - m - 1 * (k + 2)");
  using K = grid_node::kind;
  REQUIRE(e.root.op == K::sub);  // (n - m) - (1 * (k + 2))
  CHECK(e.root.operands[0].op == K::sub);
  CHECK(e.source(e.root.operands[0]) == "n - m");
  const grid_node& product = e.root.operands[1];
  CHECK(product.op == K::mul);
  CHECK(e.source(product) == "1 * (k + 2)");
  CHECK(product.operands[1].parenthesised);
  CHECK(e.source(product.operands[1]) == "(k + 2)");
  CHECK(e.source(e.root) == "n - m - 1 * (k + 2)");
  const grid_expr call = parse_grid_expr("  max(cdiv(n, 8), 1)  ");
  CHECK(call.root.op == K::max);
  CHECK(call.source(call.root) == "max(cdiv(n, 8), 1)");
  CHECK(call.root.operands[0].op == K::cdiv);
  CHECK(reads_name(call.root, "n"));
  CHECK(!reads_name(call.root, "max"));
  CHECK(!reads_name(call.root, "m"));
}

TEST_CASE("a long or deeply nested expression is refused before any reader recurses through it") {
  std::string sum = "n", nested = "n";
  for (int i = 0; i < 256; ++i) sum += " + 1", nested = "(" + nested + ")";
  CHECK(evaluate_grid_expr(sum, lookup).value() == 1256);
  CHECK(evaluate_grid_expr(nested, lookup).value() == 1000);
  const std::string too_long = error_of([&] { parse_grid_expr(sum + " + 1"); });
  CHECK_MESSAGE(contains(too_long, "more than 256 operations and parentheses"), too_long);
  CHECK_MESSAGE(contains(too_long, " + 1 + ...\": "), too_long);  // the text cut, the column exact
  CHECK_MESSAGE(contains(too_long, "at column " + std::to_string(sum.size() + 5)), too_long);
  const std::string too_deep = error_of([&] { parse_grid_expr(std::string(100000, '(') + "n"); });
  CHECK_MESSAGE(contains(too_deep, "more than 256 operations and parentheses"), too_deep);
  CHECK_MESSAGE(contains(too_deep, "at column 257"), too_deep);
  CHECK(too_deep.size() < 300);
}

TEST_CASE("a variant declares the constexprs its grid reads, found in the tree: not a name's prefix, not a bad axis's") {
  container_info info;
  info.name = "lib";
  kernel_info k;
  k.name = "k";
  k.args = {{"M", "i32", false}, {"M_BLOCKS", "i32", false}};
  variant_info v;
  v.specs = {{spec_kind::none, ""}, {spec_kind::none, ""}};
  // BLOCK is a prefix of BLOCK_M in the text but not read; M_BLOCK only inside an argument's name.
  v.config.constexprs = {{"BLOCK", "32"}, {"BLOCK_M", "64"}, {"M_BLOCK", "8"}};
  k.variants = {v};
  k.grid = {"cdiv(M, BLOCK_M) + M_BLOCKS", "1", "1"};
  info.kernels = {k};
  header_options o;
  o.namespace_name = "lib";
  const std::string h = write_header(info, {}, o);
  CHECK(contains(h, "constexpr std::int64_t BLOCK_M = 64;"));
  CHECK(!contains(h, "BLOCK = 32"));
  CHECK(!contains(h, "M_BLOCK = 8"));
  CHECK(contains(h, "::tritonpack::cdiv(::tritonpack::grid_int{M}, BLOCK_M) + M_BLOCKS"));
  // A syntax error in any axis is reported with the kernel, the variant and the axis first.
  info.kernels[0].grid[1] = "M // 2";
  CHECK(error_of([&] { write_header(info, {}, o); }) ==
        "tritonpack: kernel k, variant 0, grid[1]: grid expression \"M // 2\": '//' is not in the grid grammar (write /: it is "
        "integer division here) at column 3");
}

}  // namespace cli_grid_grammar_tests
