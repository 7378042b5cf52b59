// Grid expressions in C++ (translate_grid_expr, header_writer.hpp): the tree parse_grid_expr
// builds (grid_expr.hpp), printed as the generated header's code.
//
// The run-time values (integer arguments) are evaluated in ::tritonpack::grid_int, whose
// arithmetic reports a zero divisor or an overflow instead of trapping. What is constant here
// (literals, this variant's constexprs) is evaluated now, with the same rules, so that a zero
// divisor, an overflow or a negative dimension no argument can change is refused at pack time.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

#include "tritonpack/core/error.hpp"
#include "tritonpack/pack/grid_expr.hpp"
#include "tritonpack/pack/header_writer.hpp"

namespace tritonpack::pack {
namespace {

[[noreturn]] void bad(const std::string& msg) { throw error(errc::bad_argument, msg); }

class grid_translator {
 public:
  grid_translator(const grid_expr& e,
                  const std::vector<std::pair<std::string, std::string>>& int_args,
                  const std::vector<std::pair<std::string, std::int64_t>>& constexprs)
      : e_(e), args_(int_args), constexprs_(constexprs) {}

  std::string run() {
    const node n = translate(e_.root);
    if (n.kind == node::constant && n.value < 0)
      refuse(fmt::format("is {}: a grid dimension cannot be negative", n.value));
    if (n.kind == node::constant && n.value > 0xffffffffLL)
      refuse(fmt::format("is {}: a grid dimension holds at most 4294967295", n.value));
    return n.text;
  }

 private:
  // A translated subexpression: constant (value known now), a bare integer argument, or a
  // run-time value already in grid_int arithmetic.
  struct node {
    enum kind_t { constant, argument, checked } kind = constant;
    std::string text;
    std::int64_t value = 0;     // constant only
    bool literal_only = false;  // constant made of literals alone: emitted as its value
  };

  const grid_expr& e_;
  const std::vector<std::pair<std::string, std::string>>& args_;
  const std::vector<std::pair<std::string, std::int64_t>>& constexprs_;

  [[noreturn]] void refuse(const std::string& why) const {
    bad(fmt::format("grid expression \"{}\" {}", e_.text, why));
  }
  std::string source(const grid_node& g) const { return std::string(e_.source(g)); }
  // " with BLOCK = 64" for `BLOCK - 64`: the constexprs a constant subexpression reads, unless it
  // is one name alone.
  std::string constexprs_in(const grid_node& g) const {
    std::vector<std::string> used;
    for (const auto& [name, value] : constexprs_) {
      if (name == source(g)) return {};
      if (reads_name(g, name)) used.push_back(fmt::format("{} = {}", name, value));
    }
    return used.empty() ? std::string() : fmt::format(" with {}", fmt::join(used, ", "));
  }

  static std::string literal(std::int64_t v) {
    if (v == INT64_MIN) return "(-9223372036854775807 - 1)";
    return v < 0 ? fmt::format("({})", v) : std::to_string(v);
  }
  static std::string checked(const node& n) {
    return n.kind == node::argument ? fmt::format("::tritonpack::grid_int{{{}}}", n.text) : n.text;
  }

  node translate(const grid_node& g) {
    node n;
    switch (g.op) {
      case grid_node::kind::integer:
        n.value = g.value;
        n.literal_only = true;
        n.text = std::to_string(g.value);
        break;
      case grid_node::kind::name: n = named(g); break;
      default: n = combine(g, translate(g.operands[0]), translate(g.operands[1])); break;
    }
    if (g.parenthesised && !n.literal_only) n.text = "(" + n.text + ")";
    return n;
  }
  node named(const grid_node& g) const {
    node n;
    for (const auto& [cx, value] : constexprs_) {
      if (cx != g.name) continue;
      n.value = value;
      n.text = cpp_name(g.name);
      return n;
    }
    for (const auto& [arg, type] : args_) {
      if (arg != g.name) continue;
      n.kind = node::argument;
      n.text = cpp_name(g.name);
      return n;
    }
    e_.fail_at(g, fmt::format("unknown name '{}' (neither an integer argument nor an integer "
                              "constexpr of this variant)",
                              g.name));
  }

  // a op b, g the operation.
  node combine(const grid_node& g, const node& a, const node& b) const {
    using K = grid_node::kind;
    node r;
    const grid_node& divisor = g.operands[1];
    if ((g.op == K::div || g.op == K::mod || g.op == K::cdiv) && b.kind == node::constant &&
        b.value == 0) {
      if (b.literal_only && source(divisor) == "0") refuse("divides by zero");
      refuse(fmt::format("divides by zero: {} is 0{}", source(divisor), constexprs_in(divisor)));
    }
    const bool call = g.op == K::cdiv || g.op == K::min || g.op == K::max;
    const char* op = grid_op_spelling(g.op);
    if (a.kind == node::constant && b.kind == node::constant) {
      r.value = fold(g, a.value, b.value);
      r.literal_only = a.literal_only && b.literal_only;
      if (r.literal_only) r.text = literal(r.value);
      else if (g.op == K::cdiv) r.text = fmt::format("::tritonpack::cdiv({}, {})", a.text, b.text);
      else if (call) r.text = fmt::format("std::{}<std::int64_t>({}, {})", op, a.text, b.text);
      else r.text = fmt::format("{} {} {}", a.text, op, b.text);
      return r;
    }
    // A run-time value: one operand in grid_int makes the whole operation checked (the other
    // converts), so a bare argument is wrapped only when neither operand is checked yet.
    r.kind = node::checked;
    const bool any_checked = a.kind == node::checked || b.kind == node::checked;
    const bool wrap_a = !any_checked && a.kind == node::argument;
    const bool wrap_b = !any_checked && !wrap_a;  // then b is the argument
    const std::string ta = wrap_a ? checked(a) : a.text;
    const std::string tb = wrap_b ? checked(b) : b.text;
    if (call) r.text = fmt::format("::tritonpack::{}({}, {})", op, ta, tb);
    else r.text = fmt::format("{} {} {}", ta, op, tb);
    return r;
  }
  // The value of a constant operation g, as the generated code computes it in plain int64
  // (C++'s truncating / and %; ::tritonpack::cdiv as (a + b - 1) / b).
  std::int64_t fold(const grid_node& g, std::int64_t a, std::int64_t b) const {
    using K = grid_node::kind;
    std::int64_t r = 0;
    bool ok = true;
    switch (g.op) {
      case K::add: ok = !__builtin_add_overflow(a, b, &r); break;
      case K::sub: ok = !__builtin_sub_overflow(a, b, &r); break;
      case K::mul: ok = !__builtin_mul_overflow(a, b, &r); break;
      case K::div:
      case K::mod:
        ok = !(a == INT64_MIN && b == -1);
        if (ok) r = g.op == K::div ? a / b : a % b;
        break;
      case K::cdiv:
        ok = !__builtin_add_overflow(a, b, &r) && !__builtin_sub_overflow(r, 1, &r) &&
             !(r == INT64_MIN && b == -1);
        if (ok) r /= b;
        break;
      case K::min: r = std::min(a, b); break;
      default: r = std::max(a, b); break;
    }
    if (!ok) refuse(fmt::format("cannot be evaluated: {} overflows 64-bit integers", source(g)));
    return r;
  }
};

}  // namespace

std::string translate_grid_expr(
    const grid_expr& expr, const std::vector<std::pair<std::string, std::string>>& int_args,
    const std::vector<std::pair<std::string, std::int64_t>>& constexprs) {
  return grid_translator(expr, int_args, constexprs).run();
}

std::string translate_grid_expr(
    std::string_view expr, const std::vector<std::pair<std::string, std::string>>& int_args,
    const std::vector<std::pair<std::string, std::int64_t>>& constexprs) {
  return translate_grid_expr(parse_grid_expr(expr), int_args, constexprs);
}

}  // namespace tritonpack::pack
