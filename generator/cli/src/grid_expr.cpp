// The grid grammar's parser (grid_expr.hpp): recursive descent over the text, one function per
// rule, building the tree that translation and evaluation both read.
#include "tritonpack/pack/grid_expr.hpp"

#include <fmt/format.h>

#include "tritonpack/core/error.hpp"

namespace tritonpack::pack {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_name_char(char c) { return is_name_start(c) || is_digit(c); }

[[noreturn]] void syntax_error(std::string_view text, std::size_t at, const std::string& why) {
  // A long text is cut: the column says where to look.
  const std::string shown_text =
      text.size() <= 120 ? std::string(text) : fmt::format("{}...", text.substr(0, 100));
  throw error(errc::bad_argument,
              fmt::format("grid expression \"{}\": {} at column {}", shown_text, why, at + 1));
}

// A character as a message shows it: '#', or its code when it would not print.
std::string shown(char c) {
  const auto u = static_cast<unsigned char>(c);
  if (u >= 0x20 && u < 0x7f) return fmt::format("'{}'", c);
  return fmt::format("the byte 0x{:02x}", u);
}

// Operations and parentheses an expression may have. Grids have a handful; the bound keeps the
// recursion of the parser and of the tree's readers shallow whatever a sizes file holds.
constexpr int max_steps = 256;

class parser {
 public:
  explicit parser(std::string_view s) : s_(s) {}

  grid_node run() {
    skip_ws();
    if (at_end()) fail("it is empty; write an integer or an expression such as \"cdiv(n, 64)\"");
    grid_node n = expr();
    skip_ws();
    if (!at_end()) {
      if (s_[p_] == ')') fail("')' without a matching '('");
      fail(fmt::format("expected an operator (+ - * / %) or the end, found {}", shown(s_[p_])));
    }
    return n;
  }

 private:
  std::string_view s_;
  std::size_t p_ = 0;
  int steps_ = 0;  // operations and '(' so far

  [[noreturn]] void fail(const std::string& why) const { syntax_error(s_, p_, why); }
  bool at_end() const { return p_ == s_.size(); }
  void skip_ws() {
    while (!at_end() && (s_[p_] == ' ' || s_[p_] == '\t')) ++p_;
  }
  bool eat(char c) {
    skip_ws();
    if (at_end() || s_[p_] != c) return false;
    ++p_;
    return true;
  }
  bool next_is(std::string_view two) const { return s_.substr(p_, two.size()) == two; }
  // `c` must come next; `context` says why ("after the arguments of cdiv").
  void expect(char c, const std::string& context) {
    if (eat(c)) return;
    fail(at_end() ? fmt::format("expected '{}' {}, found the end", c, context)
                  : fmt::format("expected '{}' {}, found {}", c, context, shown(s_[p_])));
  }

  // Counts an operation or a '(' at the current position.
  void step() {
    if (++steps_ > max_steps)
      fail(fmt::format(
          "more than {} operations and parentheses: a grid expression is meant to be short",
          max_steps));
  }

  grid_node operation(grid_node::kind op, grid_node a, grid_node b, std::size_t begin,
                      std::size_t end) {
    step();
    grid_node n;
    n.op = op;
    n.begin = begin;
    n.end = end;
    n.operands.push_back(std::move(a));
    n.operands.push_back(std::move(b));
    return n;
  }

  grid_node expr() {
    grid_node left = term();
    for (;;) {
      grid_node::kind op;
      if (eat('+')) op = grid_node::kind::add;
      else if (eat('-')) op = grid_node::kind::sub;
      else return left;
      grid_node right = term();
      const std::size_t begin = left.begin, end = right.end;
      left = operation(op, std::move(left), std::move(right), begin, end);
    }
  }

  grid_node term() {
    grid_node left = factor();
    for (;;) {
      skip_ws();
      // Python's operators, refused rather than read as `/ /` or `* *`.
      if (next_is("//"))
        fail("'//' is not in the grid grammar (write /: it is integer division here)");
      if (next_is("**")) fail("'**' is not in the grid grammar (write the product out)");
      grid_node::kind op;
      if (eat('*')) op = grid_node::kind::mul;
      else if (eat('/')) op = grid_node::kind::div;
      else if (eat('%')) op = grid_node::kind::mod;
      else return left;
      grid_node right = factor();
      const std::size_t begin = left.begin, end = right.end;
      left = operation(op, std::move(left), std::move(right), begin, end);
    }
  }

  grid_node factor() {
    skip_ws();
    if (at_end()) fail("expected a number, a name or '(', found the end");
    const char c = s_[p_];
    const std::size_t begin = p_;
    if (c == '(') {
      step();
      ++p_;
      grid_node inner = expr();
      expect(')', fmt::format("to close the '(' at column {}", begin + 1));
      inner.begin = begin;
      inner.end = p_;
      inner.parenthesised = true;
      return inner;
    }
    if (is_digit(c)) return integer();
    if (is_name_start(c)) return name_or_call();
    if (c == '-') fail("unary minus is not in the grid grammar (write 0 - x)");
    if (c == '+') fail("unary plus is not in the grid grammar");
    fail(fmt::format("expected a number, a name or '(', found {}", shown(c)));
  }

  grid_node integer() {
    grid_node n;
    n.begin = p_;
    while (!at_end() && is_digit(s_[p_])) {
      const int d = s_[p_] - '0';
      if (n.value > (INT64_MAX - d) / 10) {
        p_ = n.begin;
        fail(fmt::format("{} does not fit in 64-bit integers", digits_from(n.begin)));
      }
      n.value = n.value * 10 + d;
      ++p_;
    }
    if (!at_end() && (is_name_char(s_[p_]) || s_[p_] == '.'))
      fail(fmt::format("{} after a number: integers are decimal digits only", shown(s_[p_])));
    if (s_[n.begin] == '0' && p_ - n.begin > 1) {
      p_ = n.begin;
      fail(fmt::format("{} starts with 0: write it without leading zeros", digits_from(n.begin)));
    }
    n.end = p_;
    return n;
  }
  std::string_view digits_from(std::size_t b) const {
    std::size_t e = b;
    while (e < s_.size() && is_digit(s_[e])) ++e;
    return s_.substr(b, e - b);
  }

  grid_node name_or_call() {
    const std::size_t begin = p_;
    while (!at_end() && is_name_char(s_[p_])) ++p_;
    const std::string name(s_.substr(begin, p_ - begin));
    const std::size_t name_end = p_;
    skip_ws();
    const bool called = !at_end() && s_[p_] == '(';
    grid_node::kind op;
    if (name == "cdiv") op = grid_node::kind::cdiv;
    else if (name == "min") op = grid_node::kind::min;
    else if (name == "max") op = grid_node::kind::max;
    else if (called) {
      p_ = begin;
      fail(fmt::format("unknown function {}() (the grammar has cdiv, min and max)", name));
    } else {
      grid_node n;
      n.op = grid_node::kind::name;
      n.name = name;
      n.begin = begin;
      n.end = name_end;
      p_ = name_end;
      return n;
    }
    if (!called) {
      p_ = begin;
      fail(fmt::format("{} is a function: write {}(a, b)", name, name));
    }
    ++p_;
    grid_node a = expr();
    expect(',', fmt::format("after the first argument of {}() (it takes two)", name));
    grid_node b = expr();
    expect(')', fmt::format("after the second argument of {}() (it takes two)", name));
    return operation(op, std::move(a), std::move(b), begin, p_);
  }
};

}  // namespace

void grid_expr::fail_at(const grid_node& n, const std::string& why) const {
  syntax_error(text, n.begin, why);
}

grid_expr parse_grid_expr(std::string_view text) {
  grid_expr e;
  e.text = std::string(text);
  e.root = parser(e.text).run();
  return e;
}

bool reads_name(const grid_node& n, std::string_view name) {
  if (n.op == grid_node::kind::name) return n.name == name;
  for (const grid_node& o : n.operands)
    if (reads_name(o, name)) return true;
  return false;
}

const char* grid_op_spelling(grid_node::kind op) {
  switch (op) {
    case grid_node::kind::add: return "+";
    case grid_node::kind::sub: return "-";
    case grid_node::kind::mul: return "*";
    case grid_node::kind::div: return "/";
    case grid_node::kind::mod: return "%";
    case grid_node::kind::cdiv: return "cdiv";
    case grid_node::kind::min: return "min";
    case grid_node::kind::max: return "max";
    default: return "";
  }
}

}  // namespace tritonpack::pack
