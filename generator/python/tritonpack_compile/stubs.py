"""Stand-ins for modules a kernel file imports but its kernels do not need (spec `stub_modules`).

A kernel module written for PyTorch imports `torch` at the top and often computes settings from
the GPU at import (`NUM_SMS = torch.cuda.get_device_properties("cuda").multi_processor_count`).
Compiling its @triton.jit functions needs neither. With `stub_modules = ["torch"]` the front end
loads the file with a stub in place of each named module (and its submodules): attribute access,
calls and indexing on a stub give more stubs, and a value the spec gives in `stub_values` (keyed
by the path as written, calls as `()`: "torch.cuda.get_device_properties().multi_processor_count")
is returned as that value. Any other use of a stub as a value (a number, a truth value, an
iteration, arithmetic) raises StubUsed naming the path and what to do, at the user's line.
"""
from __future__ import annotations

import importlib.abc
import importlib.machinery
import re
import sys
import types
from typing import Dict, Iterable, Optional

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")
# Modules the front end itself needs: a stub for them would break compilation, not help it.
NEVER_STUBBED = ("triton", "tritonpack_compile")


class StubUsed(RuntimeError):
    """A stub module's value was needed: the kernel file uses the module for real."""


def stub_problem(name) -> Optional[str]:
    """Why `name` cannot be a stub module, or None."""
    if not isinstance(name, str) or not _NAME.match(name):
        return f"{name!r} is not a module name (dotted identifiers, e.g. \"torch\")"
    root = name.split(".")[0]
    if root in NEVER_STUBBED:
        return f"'{name}' cannot be a stub: the front end compiles with {root} itself"
    return None


def _refuse(path: str, root: str, use: str):
    raise StubUsed(
        f"{path} is used as {use}, but {root} is a stub (the spec's stub_modules): if the kernel file "
        f"computes a setting from it at import, give the value in the spec, e.g. stub_values = "
        f"{{ \"{path}\" = 132 }}; if a kernel itself uses {root}, remove it from stub_modules and "
        f"install {root}")


class _Stub:
    __slots__ = ("_tp_path", "_tp_root", "_tp_values")

    def __init__(self, path: str, root: str, values: Dict[str, object]):
        object.__setattr__(self, "_tp_path", path)
        object.__setattr__(self, "_tp_root", root)
        object.__setattr__(self, "_tp_values", values)

    def _tp_next(self, path: str):
        if path in self._tp_values:
            return self._tp_values[path]
        return _Stub(path, self._tp_root, self._tp_values)

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return self._tp_next(f"{self._tp_path}.{name}")

    def __call__(self, *args, **kwargs):
        return self._tp_next(f"{self._tp_path}()")

    def __getitem__(self, key):
        return self._tp_next(f"{self._tp_path}[{key!r}]")

    def __repr__(self):
        return f"<stub {self._tp_path}>"

    def __setattr__(self, name, value):
        pass  # `torch.backends.cuda.matmul.allow_tf32 = True`: a setting for PyTorch, ignored

    def __bool__(self):
        _refuse(self._tp_path, self._tp_root, "a truth value")

    def __index__(self):
        _refuse(self._tp_path, self._tp_root, "an integer")

    def __int__(self):
        _refuse(self._tp_path, self._tp_root, "an integer")

    def __float__(self):
        _refuse(self._tp_path, self._tp_root, "a number")

    def __iter__(self):
        _refuse(self._tp_path, self._tp_root, "a sequence")

    def __len__(self):
        _refuse(self._tp_path, self._tp_root, "a sequence")


def _arith(op):
    def f(self, *other):
        _refuse(self._tp_path, self._tp_root, f"an operand of {op}")
    return f


for _op in ("add", "radd", "sub", "rsub", "mul", "rmul", "truediv", "rtruediv", "floordiv", "rfloordiv",
            "mod", "rmod", "pow", "rpow", "lt", "le", "gt", "ge", "neg", "abs"):
    setattr(_Stub, f"__{_op}__", _arith(_op))


class _StubModule(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        values = self.__dict__["_tp_values"]
        path = f"{self.__name__}.{name}"
        return values[path] if path in values else _Stub(path, self.__dict__["_tp_root"], values)


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def __init__(self, roots: Iterable[str], values: Dict[str, object]):
        self.roots = tuple(roots)
        self.values = values

    def find_spec(self, fullname, path=None, target=None):
        for root in self.roots:
            if fullname == root or fullname.startswith(root + "."):
                return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec):
        mod = _StubModule(spec.name)
        mod.__dict__["_tp_values"] = self.values
        mod.__dict__["_tp_root"] = next(r for r in self.roots if spec.name == r or spec.name.startswith(r + "."))
        mod.__path__ = []
        return mod

    def exec_module(self, module):
        pass


class installed:
    """Context manager: the stub modules in place of the real ones while a kernel file loads (and
    its kernels are compiled); the real modules, if any were loaded, come back afterwards."""

    def __init__(self, stubs: Optional[dict]):
        stubs = stubs or {}
        self.roots = list(stubs.get("modules", ()))
        self.values = dict(stubs.get("values", {}))
        self.saved = {}
        self.finder = None

    def __enter__(self):
        if not self.roots:
            return self
        for name in list(sys.modules):
            if any(name == r or name.startswith(r + ".") for r in self.roots):
                self.saved[name] = sys.modules.pop(name)
        self.finder = _Finder(self.roots, self.values)
        sys.meta_path.insert(0, self.finder)
        return self

    def __exit__(self, *exc):
        if not self.roots:
            return False
        sys.meta_path.remove(self.finder)
        for name in list(sys.modules):
            if any(name == r or name.startswith(r + ".") for r in self.roots):
                del sys.modules[name]
        sys.modules.update(self.saved)
        return False
