// tritonpack/pack/grid_expr.hpp — the one parser of the grid grammar (docs/spec.md, "Grid"): an
// expression's text becomes a small tree, which the header writer prints as C++
// (translate_grid_expr, header_writer.hpp) and `tritonpack tune` evaluates (grid_eval.hpp). Both
// read the same tree, so the grid the tuner times is the grid the generated code launches.
//
// The grammar (this parser is its definition; tests/data/grid_grammar.json holds its cases):
//
//   expr    := term (('+' | '-') term)*
//   term    := factor (('*' | '/' | '%') factor)*
//   factor  := integer | name | '(' expr ')' | call
//   call    := ('cdiv' | 'min' | 'max') '(' expr ',' expr ')'
//   integer := '0' | [1-9][0-9]*                   (decimal, at most 2^63-1)
//   name    := [A-Za-z_][A-Za-z0-9_]*               (not cdiv, min or max)
//
// Spaces and tabs may stand between any two tokens. Operators are left-associative; * / % bind
// tighter than + -. Nothing else is in it: no unary minus or plus, no `//` or `**`, no other
// function, no float, hexadecimal or digit-separated literal, no comment.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tritonpack::pack {

// One node of a parsed expression: a literal, a name, or an operation on two operands.
struct grid_node {
  enum class kind { integer, name, add, sub, mul, div, mod, cdiv, min, max };
  kind op = kind::integer;
  std::int64_t value = 0;           // integer
  std::string name;                 // name
  std::vector<grid_node> operands;  // the two operands of an operation (left, right)
  std::size_t begin = 0, end = 0;   // its source text, [begin, end): parentheses included
  bool parenthesised = false;       // written inside ( ): the C++ translation keeps them
};

// A parsed expression with its source text (the tree's offsets point into it).
struct grid_expr {
  std::string text;
  grid_node root;

  // The source text of `n` as written ("(BLOCK - 64)").
  std::string_view source(const grid_node& n) const {
    return std::string_view(text).substr(n.begin, n.end - n.begin);
  }
  // Throws error(bad_argument): `grid expression "TEXT": WHY at column C`, C the 1-based column
  // where `n` starts. For what a reader of the tree finds wrong (an unknown name).
  [[noreturn]] void fail_at(const grid_node& n, const std::string& why) const;
};

// Parses `text`. A syntax error throws error(bad_argument) as `grid expression "TEXT": WHY at
// column C`, WHY saying what was found and what was expected there.
grid_expr parse_grid_expr(std::string_view text);

// Whether `name` occurs in the tree under `n`.
bool reads_name(const grid_node& n, std::string_view name);

// The operator as the grammar spells it: "+", "-", "*", "/", "%", "cdiv", "min", "max".
const char* grid_op_spelling(grid_node::kind op);

}  // namespace tritonpack::pack
