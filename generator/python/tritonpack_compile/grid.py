"""Grid expressions: validated here, stored as strings, evaluated by the generated C++ code.

The manifest contract allows names, non-negative integers, + - * / % ( ) and the calls cdiv(a, b),
min(a, b), max(a, b), with / meaning integer division. Python's parser does the tokenising; the
check then walks the tree and rejects anything else (//, **, unary minus, attribute access,
floats...), so whatever reaches the packer is something its parser understands. The packer's parser
(generator/cli/src/grid_expr.cpp) defines the grammar; tests/data/grid_grammar.json holds the cases
both are tested against. Where Python's parser is more lenient than that grammar (comments, line
breaks inside parentheses, 0x10 and 1_000, a trailing comma in a call), the check below refuses
what the packer would.

The values are computed by the generated C++ code in 64-bit integers with C++'s truncating division.
What is constant here (literals, and a config's constexprs) is evaluated the same way, so that a
zero divisor, an overflow or a negative grid that no run-time value can change is a spec error
rather than an error on every launch.
"""
from __future__ import annotations

import ast
import re
from typing import Callable, List, Mapping, Optional, Set

from .errors import SyntaxProblem

_BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Mod: "%"}
_CALLS = ("cdiv", "min", "max")
_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1
_DECIMAL = re.compile(r"0|[1-9][0-9]*")
_CALL_HEAD = re.compile(r"(cdiv|min|max)[ \t]*\(")


def names_in(expr: str) -> Set[str]:
    tree = ast.parse(expr, mode="eval")
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id not in _CALLS}


def check_expr(expr: str, name_ok: Callable[[str], str]) -> None:
    """Raise SyntaxProblem unless `expr` is in the grid language. `name_ok(name)` returns an empty
    string for a usable name or the reason it is not."""
    text = expr.strip()
    # What Python's tokenizer skips but the grammar does not have: a comment would silently drop the
    # rest of the expression ("n # BLOCK" is n); the grammar's only spaces are spaces and tabs.
    for c in text:
        if c == "#" or c == "\\" or (c.isspace() and c not in " \t"):
            what = "a line break" if c in "\r\n" else repr(c)
            raise SyntaxProblem(f"'{expr}': {what} is not in the grid grammar")
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as e:
        raise SyntaxProblem(f"'{expr}' is not an expression: {e.msg}") from None

    def walk(n):
        if isinstance(n, ast.Expression):
            return walk(n.body)
        if isinstance(n, ast.BinOp):
            if type(n.op) not in _BINOPS:
                op = {ast.FloorDiv: "//", ast.Pow: "**"}.get(type(n.op), type(n.op).__name__)
                hint = " (write / : it is integer division here)" if op == "//" else ""
                raise SyntaxProblem(f"'{expr}': operator {op} is not allowed{hint}; use + - * / % ( ) "
                                    f"and cdiv/min/max")
            walk(n.left)
            walk(n.right)
            return
        if isinstance(n, ast.Constant):
            if isinstance(n.value, bool) or not isinstance(n.value, int):
                raise SyntaxProblem(f"'{expr}': only integer constants are allowed, not {n.value!r}")
            written = ast.get_source_segment(text, n)
            if not _DECIMAL.fullmatch(written):
                raise SyntaxProblem(f"'{expr}': {written} is not a decimal integer (digits only, no leading zeros)")
            if n.value > _INT64_MAX:
                raise SyntaxProblem(f"'{expr}': {written} does not fit in 64-bit integers")
            return
        if isinstance(n, ast.Name):
            if n.id in _CALLS:
                raise SyntaxProblem(f"'{expr}': {n.id} is a function: write {n.id}(a, b)")
            why = name_ok(n.id)
            if why:
                raise SyntaxProblem(f"'{expr}': {why}")
            return
        if isinstance(n, ast.Call):
            fname = n.func.id if isinstance(n.func, ast.Name) else None
            if fname not in _CALLS:
                raise SyntaxProblem(f"'{expr}': only cdiv(a, b), min(a, b) and max(a, b) may be called")
            written = ast.get_source_segment(text, n)
            if not _CALL_HEAD.match(written):  # (cdiv)(a, b)
                raise SyntaxProblem(f"'{expr}': {fname} is a function: write {fname}(a, b)")
            if len(n.args) != 2 or n.keywords or re.search(r",\s*\)\Z", written):
                raise SyntaxProblem(f"'{expr}': {fname} takes exactly two arguments")
            for a in n.args:
                walk(a)
            return
        raise SyntaxProblem(f"'{expr}': {type(n).__name__} is not allowed in a grid expression "
                            f"(use names, integers, + - * / % ( ) and cdiv/min/max)")

    walk(tree)


def _trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def constant_problem(expr: str, values: Mapping[str, int]) -> Optional[str]:
    """Why `expr` (already accepted by check_expr) cannot be a grid whatever the run-time
    arguments are, or None. `values` gives the constexprs' values; other names are run-time
    arguments, unknown here. Finds a constant zero divisor (of /, % or cdiv), constant arithmetic
    that leaves 64-bit integers, and a constant result that is negative or above 32 bits (the
    packer refuses the same)."""
    tree = ast.parse(expr.strip(), mode="eval").body

    class Problem(Exception):
        pass

    def why_zero(node) -> str:
        if isinstance(node, ast.Constant):
            return ""
        names = sorted({n.id for n in ast.walk(node) if isinstance(n, ast.Name)})
        text = ast.unparse(node)
        if names == [text]:
            return f": {text} is 0"
        return f": {text} is 0 with " + ", ".join(f"{n} = {values[n]}" for n in names)

    def value(node) -> Optional[int]:
        """The node's value when it is constant, else None (after checking its parts)."""
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            return values.get(node.id)
        if isinstance(node, ast.BinOp):
            op, left, right = type(node.op), node.left, node.right
        else:  # ast.Call: cdiv, min, max
            op, (left, right) = node.func.id, node.args
        a, b = value(left), value(right)
        if op in (ast.Div, ast.Mod, "cdiv") and b == 0:
            raise Problem(f"'{expr}' divides by zero{why_zero(right)}")
        if a is None or b is None:
            return None
        if op is ast.Add:
            r = a + b
        elif op is ast.Sub:
            r = a - b
        elif op is ast.Mult:
            r = a * b
        elif op is ast.Div:
            r = _trunc_div(a, b)
        elif op is ast.Mod:
            r = a - _trunc_div(a, b) * b
        elif op == "cdiv":  # (a + b - 1) / b, as the C++ side computes it
            if not _INT64_MIN <= a + b - 1 <= _INT64_MAX:
                raise Problem(f"'{expr}': {ast.unparse(node)} overflows 64-bit integers")
            r = _trunc_div(a + b - 1, b)
        else:
            r = min(a, b) if op == "min" else max(a, b)
        if not _INT64_MIN <= r <= _INT64_MAX:
            raise Problem(f"'{expr}': {ast.unparse(node)} = {r} does not fit in 64-bit integers")
        return r

    try:
        v = value(tree)
    except Problem as p:
        return str(p)
    if v is not None and v < 0:
        return f"'{expr}' is {v}: a grid dimension cannot be negative"
    if v is not None and v > 0xFFFFFFFF:
        return f"'{expr}' is {v}: a grid dimension holds at most 4294967295"
    return None


def normalise_grid(raw) -> List[str]:
    """The spec's grid (1 to 3 items, strings or integers) as 3 strings, missing dims "1"."""
    if not isinstance(raw, list) or not 1 <= len(raw) <= 3:
        raise SyntaxProblem("grid must be a list of 1 to 3 expressions, e.g. [\"cdiv(n, BLOCK)\", 1, 1]")
    out = []
    for item in raw:
        if isinstance(item, bool) or not isinstance(item, (str, int)):
            raise SyntaxProblem(f"grid item {item!r} must be a string or an integer")
        if isinstance(item, int) and item < 0:
            raise SyntaxProblem(f"grid item {item} is negative")
        s = str(item).strip()
        if not s:
            raise SyntaxProblem("empty grid expression")
        out.append(s)
    return out + ["1"] * (3 - len(out))
