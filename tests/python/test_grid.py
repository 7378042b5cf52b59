"""The grid grammar, front end half: every case of tests/data/grid_grammar.json (the table the
packer's doctest reads too, for its parser, its C++ translation and tune's evaluator), then the
front end's own cases."""
import json

import pytest

from conftest import DATA
from tritonpack_compile.errors import SyntaxProblem
from tritonpack_compile.grid import check_expr, constant_problem, names_in, normalise_grid

OK_NAMES = {"n", "M", "BLOCK"}

GRAMMAR = json.loads((DATA / "grid_grammar.json").read_text())
CONSTEXPRS = GRAMMAR["constexprs"]
VALUES = {**{n: a["value"] for n, a in GRAMMAR["arguments"].items()}, **CONSTEXPRS}


def table_name_ok(name):
    return "" if name in VALUES else f"'{name}' unknown"


def _literal(v):
    return str(v) if v >= 0 else f"(0 - {-v})"


@pytest.mark.parametrize("case", GRAMMAR["valid"], ids=lambda c: c["expr"])
def test_table_valid(case):
    """Accepted; refused by the constant check exactly when the packer refuses to translate it; and,
    with every name known, the same value (or the same kind of failure) as the packer's evaluator."""
    expr = case["expr"]
    check_expr(expr, table_name_ok)
    refusal = constant_problem(expr, CONSTEXPRS)
    if "refused" in case:
        assert refusal is not None and case["refused"]["python"] in refusal, refusal
        return
    assert refusal is None, refusal
    if "fails" in case:
        why = constant_problem(expr, VALUES)
        kind = "divides by zero" if "divides by zero" in case["fails"] else "64-bit integers"
        assert why is not None and kind in why, why
        return
    # expr - value is 0 (neither a problem nor negative), and expr - value - 1 is -1: expr == value.
    v = case["value"]
    assert constant_problem(f"({expr}) - {_literal(v)}", VALUES) is None
    assert "is -1:" in constant_problem(f"({expr}) - {_literal(v)} - 1", VALUES)


@pytest.mark.parametrize("case", GRAMMAR["invalid"], ids=lambda c: c["expr"])
def test_table_invalid(case):
    with pytest.raises(SyntaxProblem) as e:
        check_expr(case["expr"], table_name_ok)
    assert case["python"] in str(e.value)


def ok(name):
    return "" if name in OK_NAMES else f"'{name}' unknown"


@pytest.mark.parametrize("expr", [
    "cdiv(n, BLOCK)", "1", "n / BLOCK + 1", "(n + BLOCK - 1) / BLOCK", "n % 7", "min(n, 64)",
    "max(cdiv(M, BLOCK), 1) * 2", " n ",
])
def test_valid(expr):
    check_expr(expr, ok)


@pytest.mark.parametrize("expr,fragment", [
    ("n // BLOCK", "operator // is not allowed (write / : it is integer division here)"),
    ("n ** 2", "operator ** is not allowed"),
    ("-n", "UnaryOp is not allowed"),
    ("n.size", "Attribute is not allowed"),
    ("1.5 * n", "only integer constants"),
    ("True", "only integer constants"),
    ("foo(n, 1)", "only cdiv(a, b), min(a, b) and max(a, b)"),
    ("cdiv(n)", "cdiv takes exactly two arguments"),
    ("min(n, 1, 2)", "min takes exactly two arguments"),
    ("cdiv(n, b=2)", "takes exactly two arguments"),
    ("x + 1", "'x' unknown"),
    ("n +", "is not an expression"),
    ("n if M else 1", "IfExp is not allowed"),
    ("n < M", "Compare is not allowed"),
    ("'n'", "only integer constants"),
])
def test_invalid(expr, fragment):
    with pytest.raises(SyntaxProblem) as e:
        check_expr(expr, ok)
    assert fragment in str(e.value)


def test_normalise_pads_and_stringifies():
    assert normalise_grid(["cdiv(n, BLOCK)", 1]) == ["cdiv(n, BLOCK)", "1", "1"]
    assert normalise_grid([4, 2, 1]) == ["4", "2", "1"]


@pytest.mark.parametrize("raw,fragment", [
    ([], "1 to 3"), ([1, 1, 1, 1], "1 to 3"), ("n", "1 to 3"), ([1.5], "string or an integer"),
    ([True], "string or an integer"), ([-1], "negative"), ([" "], "empty grid expression"),
])
def test_normalise_rejects(raw, fragment):
    with pytest.raises(SyntaxProblem, match=fragment):
        normalise_grid(raw)


def test_names_in():
    assert names_in("cdiv(n, BLOCK) + min(M, 2)") == {"n", "BLOCK", "M"}


# --- what constants decide (issue 9: a zero divisor used to reach the C++ code as SIGFPE) -------

@pytest.mark.parametrize("expr,values,problem", [
    ("n / 0", {}, "'n / 0' divides by zero"),
    ("n % 0", {}, "'n % 0' divides by zero"),
    ("cdiv(n, 0)", {}, "'cdiv(n, 0)' divides by zero"),
    ("cdiv(n, 2 - 2)", {}, "'cdiv(n, 2 - 2)' divides by zero: 2 - 2 is 0"),
    ("cdiv(n, BLOCK)", {"BLOCK": 0}, "'cdiv(n, BLOCK)' divides by zero: BLOCK is 0"),
    ("n / (BLOCK - 64)", {"BLOCK": 64}, "'n / (BLOCK - 64)' divides by zero: BLOCK - 64 is 0 with BLOCK = 64"),
    ("n / min(M, 0)", {}, None),  # M is a run-time argument: min(M, 0) is not known here
    ("n / (M * 0)", {}, None),    # not folded: a run-time operand keeps the divisor unknown
    ("0 - 1", {}, "'0 - 1' is -1: a grid dimension cannot be negative"),
    ("BLOCK - 65", {"BLOCK": 64}, "'BLOCK - 65' is -1: a grid dimension cannot be negative"),
    ("65536 * 65536", {}, "'65536 * 65536' is 4294967296: a grid dimension holds at most 4294967295"),
    ("4611686018427387904 * 2", {}, "4611686018427387904 * 2 = 9223372036854775808 does not fit in 64-bit integers"),
    ("cdiv(9223372036854775807, 2)", {}, "cdiv(9223372036854775807, 2) overflows 64-bit integers"),
    ("7 / 2 - 3", {}, None),      # C++ division truncates: 3 - 3 == 0, not negative
    ("(0 - 7) / 2 + 3", {}, None),  # truncates toward zero: -3 + 3, where Python's // would give -1
    ("(0 - 7) % 2 + 1", {}, None),  # C++'s remainder takes the dividend's sign: -1 + 1
    ("cdiv(n, BLOCK)", {"BLOCK": 128}, None),
])
def test_constant_problem(expr, values, problem):
    check_expr(expr, lambda n: "")
    got = constant_problem(expr, values)
    if problem is None:
        assert got is None
    else:
        assert got is not None and problem in got, got
