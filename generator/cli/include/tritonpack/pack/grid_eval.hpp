// tritonpack/pack/grid_eval.hpp — evaluating an expression of the grid grammar (docs/spec.md,
// "Grid") over known integer values, for `tritonpack tune`: a config's grid, a buffer's byte
// size, an argument given as an expression of a problem's other values.
//
// The generated header prints the same parsed tree as C++ (parse_grid_expr, grid_expr.hpp, is the
// grammar's one parser); here it is evaluated directly, in the run time's checked arithmetic
// (grid_int: a zero divisor or an overflow is a failed value, never undefined behaviour), so both
// agree on every value. tests/data/grid_grammar.json pins the two to the same cases.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "tritonpack/launch/grid.hpp"
#include "tritonpack/pack/grid_expr.hpp"

namespace tritonpack::pack {

// The value of a name, or nullopt when the name is unknown. May itself evaluate expressions
// (an argument defined as "K" reads K).
using name_lookup = std::function<std::optional<grid_int>(const std::string& name)>;

// `/` and `%` truncate as in C++. A syntax error or an unknown name throws error(bad_argument)
// naming the expression, the column and what was expected; arithmetic failures come back as a
// failed grid_int (its failure_text() says which operation), so the caller can name what it was
// evaluating.
grid_int evaluate_grid_expr(const grid_expr& expr, const name_lookup& lookup);
grid_int evaluate_grid_expr(std::string_view expr,
                            const name_lookup& lookup);  // parses, then evaluates

}  // namespace tritonpack::pack
