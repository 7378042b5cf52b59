"""Triton's AOT signature syntax, e.g. "*fp32:16, *fp32:16, i32, 1024".

Each comma-separated entry is one kernel parameter:

  TYPE        a run-time argument of that Triton type
  TYPE:16     ... that the caller promises is divisible by 16 (pointers: the address; integers:
              the value) -> tt.divisibility = 16
  TYPE:1      an integer the caller promises equals 1: folded into the kernel, not passed
  NUMBER      a constexpr: the value is compiled into the kernel (int or float, as written)

These are the rules of triton/tools/compile.py (hints 1 and 16 only), checked strictly: a hint on
a float, `:1` on a pointer, or an unknown type is an error here rather than a surprise in Triton.
Tensor descriptors contain commas (tensordesc<fp16[64, 64]>), so splitting tracks brackets.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import List, Optional

from .errors import SyntaxProblem

INT_TYPES = ("i1", "i8", "i16", "i32", "i64", "u1", "u8", "u16", "u32", "u64")
FLOAT_TYPES = ("fp16", "bf16", "fp32", "fp64")
SCALAR_TYPES = INT_TYPES + FLOAT_TYPES
# Element types a pointer may have (triton.language's dtype names as the signature spells them).
FP8_TYPES = ("fp8e4nv", "fp8e5", "fp8e4b15", "fp8e4b8", "fp8e5b16")
POINTEE_TYPES = SCALAR_TYPES + FP8_TYPES

_TENSORDESC_RE = re.compile(r"^tensordesc<\s*([a-z0-9]+)\s*\[\s*(\d+(?:\s*,\s*\d+)*)\s*\]\s*>$")
_INT_RE = re.compile(r"^[+-]?\d+$")
_FLOAT_RE = re.compile(r"^[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?$")


@dataclass(frozen=True)
class SigEntry:
    text: str                      # as written (stripped)
    type: Optional[str] = None     # canonical Triton type; None for a constexpr entry
    hint: Optional[int] = None     # 16 or 1
    constexpr: Optional[str] = None  # the literal, as written, for a bare number

    @property
    def is_constexpr(self) -> bool:
        return self.constexpr is not None

    @property
    def spec_kind(self) -> str:
        """The manifest `specs[].kind` this entry makes."""
        if self.constexpr is not None:
            return "constexpr"
        if self.hint == 1:
            return "equal1"
        if self.hint == 16:
            return "div16"
        return "none"

    @property
    def is_passed(self) -> bool:
        """Whether the compiled kernel takes this argument (constexpr and ==1 are folded)."""
        return self.constexpr is None and self.hint != 1

    def constexpr_value(self):
        """The Python value Triton gets for a bare number (int if it looks like one)."""
        if _INT_RE.match(self.constexpr):
            return int(self.constexpr)
        return float(self.constexpr)


def split_entries(sig: str) -> List[str]:
    """Split at top-level commas (not those inside <> or [])."""
    parts, depth, cur = [], 0, []
    for ch in sig:
        if ch in "<[(":
            depth += 1
        elif ch in ">])":
            depth -= 1
            if depth < 0:
                raise SyntaxProblem(f"unbalanced '{ch}' in signature")
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    if depth != 0:
        raise SyntaxProblem("unbalanced brackets in signature")
    parts.append("".join(cur))
    return [p.strip() for p in parts]


def is_pointer(ty: str) -> bool:
    return ty.startswith("*")


def is_int(ty: str) -> bool:
    return ty in INT_TYPES


def descriptor_block(ty: str) -> List[int]:
    """The block shape of a canonical tensordesc type: tensordesc<fp16[64,32]> -> [64, 32]."""
    return [int(d) for d in ty[ty.index("[") + 1:ty.index("]")].split(",")]


def with_block(ty: str, dims: List[int]) -> str:
    """A canonical tensordesc type with another block shape (a config's, set by its pre_hook)."""
    return f"{ty[:ty.index('[')]}[{','.join(map(str, dims))}]>"


def parse_type(ty: str) -> str:
    """Validate a Triton type string and return its canonical spelling."""
    t = ty.strip()
    if t.startswith("*"):
        pointee = t[1:]
        if pointee.startswith("k"):  # "*kfp32": Triton's const-pointer spelling
            pointee = pointee[1:]
        if pointee not in POINTEE_TYPES:
            raise SyntaxProblem(f"unknown pointer element type '{pointee}' in '{ty}' "
                                f"(valid: {', '.join(POINTEE_TYPES)})")
        return t
    if t in SCALAR_TYPES:
        return t
    m = _TENSORDESC_RE.match(t)
    if m:
        dtype = m.group(1)
        if dtype not in POINTEE_TYPES:
            raise SyntaxProblem(f"unknown tensor descriptor element type '{dtype}' in '{ty}'")
        dims = [int(d) for d in re.split(r"\s*,\s*", m.group(2))]
        return f"tensordesc<{dtype}[{','.join(map(str, dims))}]>"
    if t.startswith("tensordesc"):
        raise SyntaxProblem(f"bad tensor descriptor type '{ty}': write tensordesc<fp16[64,64]>")
    if t.startswith("(") or t.startswith("["):
        raise SyntaxProblem(f"tuple arguments ('{ty}') are not supported by tritonpack")
    if t == "constexpr":
        raise SyntaxProblem("write a constexpr as its value (a bare number such as 1024), or set it "
                            "in `constexprs`/`configs` and leave it out of the signature")
    raise SyntaxProblem(f"unknown type '{ty}' (valid: *T for T in {', '.join(POINTEE_TYPES)}; "
                        f"{', '.join(SCALAR_TYPES)}; tensordesc<T[dims]>; or a number for a constexpr)")


def parse_entry(text: str) -> SigEntry:
    e = text.strip()
    if not e:
        raise SyntaxProblem("empty signature entry")
    if _INT_RE.match(e) or _FLOAT_RE.match(e):
        return SigEntry(text=e, constexpr=e)
    ty, hint = e, None
    # A hint follows the last ':' outside brackets (tensordesc types contain no ':').
    if ":" in e:
        ty, _, h = e.rpartition(":")
        h = h.strip()
        if not _INT_RE.match(h):
            raise SyntaxProblem(f"bad hint ':{h}' in '{e}' (only :16 and :1 exist)")
        hint = int(h)
        if hint not in (1, 16):
            raise SyntaxProblem(f"hint ':{hint}' in '{e}': only :16 (divisible by 16) and :1 (equal to 1) exist")
    ty = parse_type(ty)
    if hint is not None:
        if hint == 16 and not (is_pointer(ty) or is_int(ty)):
            raise SyntaxProblem(f"':16' in '{e}': the divisibility hint applies to pointers and integers only")
        if hint == 1 and not is_int(ty):
            raise SyntaxProblem(f"':1' in '{e}': the equal-to-1 hint applies to integers only")
        if ty in ("i1", "u1"):
            raise SyntaxProblem(f"'{e}': hints do not apply to booleans")
    return SigEntry(text=e, type=ty, hint=hint)


def parse_signature(sig: str) -> List[SigEntry]:
    if not isinstance(sig, str):
        raise SyntaxProblem(f"a signature must be a string such as \"*fp32:16, i32, 1024\", not {sig!r}")
    if not sig.strip():
        return []
    out = []
    for i, part in enumerate(split_entries(sig)):
        try:
            out.append(parse_entry(part))
        except SyntaxProblem as e:
            raise SyntaxProblem(f"entry {i + 1} ('{part}'): {e}") from None
    return out
