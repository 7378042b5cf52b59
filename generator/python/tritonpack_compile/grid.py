"""Grid expressions: validated here, stored as strings, evaluated by the generated C++ code.

The manifest contract allows names, non-negative integers, + - * / % ( ) and the calls cdiv(a, b),
min(a, b), max(a, b), with / meaning integer division. Python's parser does the tokenising; the
check then walks the tree and rejects anything else (//, **, unary minus, attribute access,
floats...), so whatever reaches the packer is something its evaluator understands.
"""
from __future__ import annotations

import ast
from typing import Callable, List, Set

from .errors import SyntaxProblem

_BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Mod: "%"}
_CALLS = ("cdiv", "min", "max")


def names_in(expr: str) -> Set[str]:
    tree = ast.parse(expr, mode="eval")
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id not in _CALLS}


def check_expr(expr: str, name_ok: Callable[[str], str]) -> None:
    """Raise SyntaxProblem unless `expr` is in the grid language. `name_ok(name)` returns an empty
    string for a usable name or the reason it is not."""
    try:
        tree = ast.parse(expr.strip(), mode="eval")
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
            return
        if isinstance(n, ast.Name):
            why = name_ok(n.id)
            if why:
                raise SyntaxProblem(f"'{expr}': {why}")
            return
        if isinstance(n, ast.Call):
            fname = n.func.id if isinstance(n.func, ast.Name) else None
            if fname not in _CALLS:
                raise SyntaxProblem(f"'{expr}': only cdiv(a, b), min(a, b) and max(a, b) may be called")
            if len(n.args) != 2 or n.keywords:
                raise SyntaxProblem(f"'{expr}': {fname} takes exactly two arguments")
            for a in n.args:
                walk(a)
            return
        raise SyntaxProblem(f"'{expr}': {type(n).__name__} is not allowed in a grid expression "
                            f"(use names, integers, + - * / % ( ) and cdiv/min/max)")

    walk(tree)


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
