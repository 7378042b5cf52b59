"""The rule for library and kernel names (docs/spec.md "Names"), checked before anything compiles.

A library name becomes a C++ namespace at global scope (NAME.hpp), the file names NAME.hpp and
NAME.tpk, the prefix of the C API's functions (NAME_KERNEL, NAME_last_error) and a Fortran module
NAME; a kernel name becomes a C++ function in that namespace, a C function NAME_KERNEL and a
Fortran procedure. A name must be valid, and collide with nothing, in all of them:

* a letter, then letters, digits and _; at most 63 characters (Fortran's limit). A leading _ is
  reserved in C and in C++'s global namespace, and Fortran names start with a letter;
* no __ anywhere (reserved by C++);
* not a keyword of C++, GNU C++ or C, nor a macro the compilers predefine or the standard
  libraries define (`linux`, `assert`, ...);
* not a name the generated code or the program already uses (`std`, `tritonpack`, `detail`,
  `library`, `main`, `last_error`, ...) nor, ignoring case, a Fortran module programs use
  (`iso_c_binding`, `mpi`, ...);
* within a library: kernel names differ ignoring case (Fortran ignores it), and none is the
  library's own name (a Fortran module cannot hold a procedure named like itself).

No name is ever changed silently: a bad one is an error with a suggested valid name.

The packer applies the same rule (generator/cli/src/names.cpp); tests/data/names.json is the one
table of cases both test suites check, so the two cannot drift apart.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Iterable, Optional, Tuple

MAX_LENGTH = 63

CPP_KEYWORDS = frozenset("""alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t
char16_t char32_t class compl concept const consteval constexpr constinit const_cast continue co_await
co_return co_yield decltype default delete do double dynamic_cast else enum explicit export extern false
float for friend goto if inline int long mutable namespace new noexcept not not_eq nullptr operator or
or_eq private protected public register reinterpret_cast requires return short signed sizeof static
static_assert static_cast struct switch template this thread_local throw true try typedef typeid
typename union unsigned using virtual void volatile wchar_t while xor xor_eq""".split())

_GNU_DEFAULT = "in the default -std=gnu++17 and gnu11 modes"
_STD_MACRO = "a macro of the C and C++ standard libraries"

# Reserved names other than the C++ keywords, each with why.
RESERVED = {
    "restrict": "a C keyword (the library's C header)",
    "typeof_unqual": "a C keyword (the library's C header)",
    "typeof": f"a keyword of GNU C and C++ {_GNU_DEFAULT}",
    "linux": f"a macro GCC and Clang predefine {_GNU_DEFAULT}",
    "unix": f"a macro GCC and Clang predefine {_GNU_DEFAULT}",
    "i386": f"a macro GCC and Clang predefine on 32-bit x86 {_GNU_DEFAULT}",
    "assert": _STD_MACRO, "errno": _STD_MACRO, "offsetof": _STD_MACRO, "setjmp": _STD_MACRO,
    "va_arg": _STD_MACRO, "va_copy": _STD_MACRO, "va_end": _STD_MACRO, "va_start": _STD_MACRO,
    "stdin": _STD_MACRO, "stdout": _STD_MACRO, "stderr": _STD_MACRO, "NULL": _STD_MACRO, "EOF": _STD_MACRO,
    "std": "the C++ standard library's namespace",
    "posix": "reserved by C++ for POSIX",
    "tritonpack": "the run time's namespace",
    "detail": "used by every generated header (NAME::detail)",
    "library": "used by every generated header (NAME::library())",
    "main": "the program's entry point, int main()",
    "last_error": "used by the generated C API (NAME_last_error())",
}

# Fortran modules a program may `use` next to the library's module NAME; compared ignoring case.
FORTRAN_MODULES = frozenset({"iso_c_binding", "iso_fortran_env", "ieee_arithmetic", "ieee_exceptions",
                             "ieee_features", "omp_lib", "omp_lib_kinds", "openacc", "mpi", "mpi_f08"})
_FORTRAN_WHY = "a Fortran module programs use (the library's Fortran module would clash; Fortran ignores case)"

_IDENT = re.compile(r"^[A-Za-z0-9_]+$")
_FUTURE_STD = re.compile(r"^std[0-9]+$")


def reserved_names() -> dict:
    """Every reserved name with why, C++ keywords included (tests compare it with names.json)."""
    out = {k: "a C++ keyword" for k in CPP_KEYWORDS}
    out.update(RESERVED)
    out.update({m: _FORTRAN_WHY for m in FORTRAN_MODULES})
    return out


def problem(name) -> Optional[str]:
    """Why `name` cannot name a library or a kernel, or None when it can."""
    if not isinstance(name, str) or not name:
        return f"{name!r} is not a name: use a letter, then letters, digits and _"
    if not _IDENT.match(name):
        return f"'{name}' is not a name: use a letter, then letters, digits and _ only"
    if not name[0].isalpha():
        return (f"'{name}' must start with a letter (a leading _ is reserved in C and C++, and Fortran names "
                f"start with a letter)")
    if len(name) > MAX_LENGTH:
        return f"'{name}' is {len(name)} characters long; the most is {MAX_LENGTH} (Fortran's limit)"
    if "__" in name:
        return f"'{name}' contains __, which C++ reserves"
    if name in CPP_KEYWORDS:
        return f"'{name}' is a C++ keyword"
    if name in RESERVED:
        return f"'{name}' is reserved: {RESERVED[name]}"
    if _FUTURE_STD.match(name):
        return f"'{name}' is reserved: C++ keeps std followed by digits for future standards"
    if name.lower() in FORTRAN_MODULES:
        return f"'{name}' is reserved: {_FORTRAN_WHY}"
    return None


def suggestion(name: str, kind: str) -> str:
    """A valid name close to `name` for an error message; `kind` is "library" or "kernel"."""
    s = re.sub(r"_{2,}", "_", re.sub(r"[^A-Za-z0-9_]", "_", str(name))).lstrip("_")
    if not s:
        return "kernels" if kind == "library" else "kernel"
    if s[0].isdigit():
        s = ("lib_" if kind == "library" else "kernel_") + s
    s = s[:MAX_LENGTH].rstrip("_")
    if problem(s):
        suffix = "_kernels" if kind == "library" else "_kernel"
        s = s[:MAX_LENGTH - len(suffix)].rstrip("_") + suffix
    return s


def kernels_problem(library: str, kernels: Iterable[str]) -> Optional[Tuple[int, str]]:
    """(index, why) for the first of these kernel names (each valid on its own) that cannot live
    next to the earlier ones in library `library`, or None."""
    seen = {}
    for i, k in enumerate(kernels):
        key = k.lower()
        if key in seen:
            j, other = seen[key]
            if other == k:
                return i, f"'{k}' is already used by kernel [{j}]"
            return i, f"'{k}' and '{other}' (kernel [{j}]) differ only in case, and Fortran ignores case"
        seen[key] = (i, k)
        if key == library.lower():
            return i, (f"'{k}' is also the library's name, and a Fortran module cannot hold a procedure named "
                       f"like itself")
    return None


def default_library_name(spec_path) -> str:
    """The library name when neither the spec's `name` nor --name / NAME gives one: the spec file's
    stem with every character that cannot be in a name replaced by _ (then checked like any name)."""
    return re.sub(r"[^A-Za-z0-9_]", "_", Path(spec_path).stem) or "kernels"
