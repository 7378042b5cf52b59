// Evaluating the grid grammar (grid_eval.hpp): a recursive-descent parser that computes as it
// parses, in grid_int arithmetic.
#include "tritonpack/pack/grid_eval.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cstdint>

#include "tritonpack/error.hpp"

namespace tritonpack::pack {
namespace {

class evaluator {
 public:
  evaluator(std::string_view s, const name_lookup& lookup) : s_(s), lookup_(lookup) {}

  grid_int run() {
    skip_ws();
    if (p_ == s_.size()) fail("it is empty; write an integer or an expression such as \"cdiv(M, 64)\"");
    const grid_int v = sum();
    skip_ws();
    if (p_ != s_.size()) fail(fmt::format("unexpected '{}'", s_[p_]));
    return v;
  }

 private:
  std::string_view s_;
  std::size_t p_ = 0;
  const name_lookup& lookup_;

  [[noreturn]] void fail(const std::string& why) const {
    throw error(errc::bad_argument, fmt::format("expression \"{}\": {} at column {}", s_, why, p_ + 1));
  }
  void skip_ws() {
    while (p_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[p_]))) ++p_;
  }
  bool eat(char c) {
    skip_ws();
    if (p_ < s_.size() && s_[p_] == c) {
      ++p_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!eat(c)) fail(p_ < s_.size() ? fmt::format("expected '{}', found '{}'", c, s_[p_]) : fmt::format("expected '{}' at the end", c));
  }

  grid_int sum() {
    grid_int v = product();
    for (;;) {
      if (eat('+')) v = v + product();
      else if (eat('-')) v = v - product();
      else return v;
    }
  }
  grid_int product() {
    grid_int v = factor();
    for (;;) {
      skip_ws();
      // `//` and `**` are Python, not the grid grammar: refused rather than read as `/ /`.
      if (s_.substr(p_, 2) == "//" || s_.substr(p_, 2) == "**") fail(fmt::format("'{}' is not in the grid grammar (use / or a product)", s_.substr(p_, 2)));
      if (eat('*')) v = v * factor();
      else if (eat('/')) v = v / factor();
      else if (eat('%')) v = v % factor();
      else return v;
    }
  }
  grid_int factor() {
    skip_ws();
    if (p_ == s_.size()) fail("expected a number, a name or '(' at the end");
    const char c = s_[p_];
    if (c == '(') {
      ++p_;
      const grid_int v = sum();
      expect(')');
      return v;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      std::int64_t v = 0;
      while (p_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[p_]))) {
        const int d = s_[p_] - '0';
        if (v > (INT64_MAX - d) / 10) fail("the number does not fit in 64-bit integers");
        v = v * 10 + d;
        ++p_;
      }
      if (p_ < s_.size() && (std::isalpha(static_cast<unsigned char>(s_[p_])) || s_[p_] == '_' || s_[p_] == '.'))
        fail(fmt::format("'{}' after a number", s_[p_]));
      return grid_int(v);
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      const std::size_t begin = p_;
      while (p_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[p_])) || s_[p_] == '_')) ++p_;
      const std::string name(s_.substr(begin, p_ - begin));
      if (name == "cdiv" || name == "min" || name == "max") {
        expect('(');
        const grid_int a = sum();
        expect(',');
        const grid_int b = sum();
        expect(')');
        return name == "cdiv" ? cdiv(a, b) : name == "min" ? min(a, b) : max(a, b);
      }
      const std::optional<grid_int> v = lookup_(name);
      if (!v) {
        p_ = begin;
        fail(fmt::format("unknown name '{}'", name));
      }
      return *v;
    }
    if (c == '-') fail("unary minus is not in the grid grammar");
    fail(fmt::format("expected a number, a name or '(', found '{}'", c));
  }
};

}  // namespace

grid_int evaluate_grid_expr(std::string_view expr, const name_lookup& lookup) { return evaluator(expr, lookup).run(); }

}  // namespace tritonpack::pack
