"""What an @triton.autotune pre_hook does, found ahead of time (docs/spec.md "Autotune pre_hooks").

Triton runs a config's pre_hook (and the autotuner's own) on the launch's arguments just before
every launch of that config. Triton's persistent-matmul tutorial uses it to give each
TensorDescriptor the block shape of the config (`nargs["a_desc"].block_shape = [BLOCK_M, BLOCK_K]`),
so each config compiles with, and is launched with, descriptors of its own block shape. No Python
runs at a tritonpack launch, so the spec must say what the hook does (`pre_hook`):

- "block_shapes": the hook only sets descriptor block shapes from the config. The front end runs it
  here, once per config, on stand-ins: the config's constexprs and launch options and the Python
  defaults of constexpr parameters as values, and for every other parameter an object on which only
  `block_shape` may be set and read back. Each config is then compiled with the block shapes its
  hook set; the run time builds every descriptor from the launched image's own metadata. Any
  other use of an argument (reading a tensor, zeroing a buffer) fails on a stand-in, and that
  failure is reported: such work cannot be done ahead of time.
- "ignore": its work is not needed, or the caller does it before each call.
"""
from __future__ import annotations

from typing import Dict, List


class HookDoesMore(Exception):
    """The hook used an argument for something other than its block shape."""


class HookArg:
    """A run-time argument as a pre_hook sees it ahead of time: only block_shape may be set."""
    __slots__ = ("_name", "_block_shape")

    def __init__(self, name: str):
        object.__setattr__(self, "_name", name)
        object.__setattr__(self, "_block_shape", None)

    def __setattr__(self, attr, value):
        if attr != "block_shape":
            raise HookDoesMore(f"it sets {self._name}.{attr}")
        object.__setattr__(self, "_block_shape", value)

    def __getattr__(self, attr):  # only reached for names that are not slots
        if attr == "block_shape" and self._block_shape is not None:
            return self._block_shape
        raise HookDoesMore(f"it reads {self._name}.{attr}")


def _shape(name: str, value) -> List[int]:
    try:
        dims = list(value)
    except TypeError:
        dims = None
    if not dims or any(isinstance(d, bool) or not isinstance(d, int) or d <= 0 for d in dims):
        raise HookDoesMore(f"it sets {name}.block_shape to {value!r}, not a list of positive integers")
    return [int(d) for d in dims]


def run_hooks(hooks, params: List[dict], values: Dict[str, object]) -> dict:
    """Run `hooks` (callables taking Triton's nargs dict) as Triton would before a launch of one
    config whose constexprs and options are `values`. `params` are introspect's parameter records.
    Returns {"block_shapes": {arg: [dims]}} or {"error": "what the hook did that cannot be done
    ahead of time"}."""
    nargs: Dict[str, object] = {}
    for p in params:
        if not p["constexpr"]:
            nargs[p["name"]] = HookArg(p["name"])
        elif p.get("has_default"):
            nargs[p["name"]] = p.get("default")
    nargs.update(values)
    try:
        for hook in hooks:
            hook(nargs)
        shapes = {}
        for name, a in nargs.items():
            if isinstance(a, HookArg) and a._block_shape is not None:
                shapes[name] = _shape(name, a._block_shape)
    except HookDoesMore as e:
        return {"error": str(e)}
    except KeyError as e:
        return {"error": f"it reads {e.args[0]!r}, which is neither an argument nor a constexpr of the config "
                         f"(the hook is run with the config's constexprs and the Python defaults only)"}
    except Exception as e:  # the user's code: report what it raised, at its own words
        return {"error": f"it raised {type(e).__name__}: {e}"}
    return {"block_shapes": shapes}
