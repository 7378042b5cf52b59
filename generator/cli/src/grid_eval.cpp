// Evaluating the grid grammar (grid_eval.hpp): the tree parse_grid_expr builds, walked in
// grid_int arithmetic, left operand first.
#include "tritonpack/pack/grid_eval.hpp"

#include <fmt/format.h>

namespace tritonpack::pack {
namespace {

grid_int evaluate(const grid_expr& e, const grid_node& n, const name_lookup& lookup) {
  using K = grid_node::kind;
  switch (n.op) {
    case K::integer: return grid_int(n.value);
    case K::name: {
      const std::optional<grid_int> v = lookup(n.name);
      if (!v) e.fail_at(n, fmt::format("unknown name '{}'", n.name));
      return *v;
    }
    default: break;
  }
  const grid_int a = evaluate(e, n.operands[0], lookup);
  const grid_int b = evaluate(e, n.operands[1], lookup);
  switch (n.op) {
    case K::add: return a + b;
    case K::sub: return a - b;
    case K::mul: return a * b;
    case K::div: return a / b;
    case K::mod: return a % b;
    case K::cdiv: return cdiv(a, b);
    case K::min: return min(a, b);
    default: return max(a, b);
  }
}

}  // namespace

grid_int evaluate_grid_expr(const grid_expr& expr, const name_lookup& lookup) {
  return evaluate(expr, expr.root, lookup);
}

grid_int evaluate_grid_expr(std::string_view expr, const name_lookup& lookup) {
  return evaluate_grid_expr(parse_grid_expr(expr), lookup);
}

}  // namespace tritonpack::pack
