"""Which pointer arguments does a kernel write through? A def-use walk over Triton's TTIR text.

A pointer argument is const when no memory-writing operation takes a value derived from it. The
walk is deliberately conservative (when unsure, non-const), because a wrong `const` in the C++ API
would let callers pass read-only memory to a kernel that writes it:

* every SSA value defined by an op inherits the argument set of all values the op uses, except
  the results of plain loads (data read through a pointer is not derived from its address; a load
  that yields pointers does propagate);
* values defined by a region-holding op (scf.for/if/while, tt.reduce...) and its block arguments
  also inherit what any terminator inside it (scf.yield, scf.condition...) uses;
* an op is a *sink* (its operands' arguments are marked written) unless it is in SAFE_OPS, a list
  of ops known not to write memory. Stores, atomics, descriptor stores/reductions/scatters,
  tensormap creation, calls of non-inlined functions and inline assembly are all sinks, and so is
  any op this list does not know.

Names can repeat across sibling regions in MLIR's printed form; merging them only over-approximates.
"""
from __future__ import annotations

import re
from typing import Dict, List, Optional, Set

SAFE_OPS = frozenset("""
tt.load tt.descriptor_load tt.descriptor_gather tt.splat tt.unsplat tt.broadcast tt.expand_dims
tt.reshape tt.trans tt.addptr tt.advance tt.make_range tt.get_program_id tt.get_num_programs
tt.reduce tt.reduce.return tt.scan tt.scan.return tt.dot tt.dot_scaled tt.make_tensor_ptr
tt.make_tensor_descriptor tt.bitcast tt.int_to_ptr tt.ptr_to_int tt.cat tt.join tt.split tt.gather
tt.histogram tt.fp_to_fp tt.clampf tt.precise_sqrt tt.precise_divf tt.mulhiui tt.extern_elementwise
tt.print tt.assert tt.return tt.map_elementwise tt.map_elementwise.return tt.func
scf.for scf.if scf.yield scf.while scf.condition scf.execute_region scf.index_switch
cf.br cf.cond_br cf.assert ub.poison gpu.barrier
""".split())
LOAD_OPS = frozenset(("tt.load", "tt.descriptor_load", "tt.descriptor_gather"))
SAFE_PREFIXES = ("arith.", "math.", "index.")
TERMINATORS = frozenset(("scf.yield", "scf.condition", "tt.reduce.return", "tt.scan.return",
                         "tt.map_elementwise.return", "cf.br", "cf.cond_br"))

_NAME = r"%[A-Za-z0-9_$.\-#]+"
_NAME_RE = re.compile(_NAME)
_OP_RE = re.compile(r'^\s*(?:(?P<res>%[^=]*?)\s=\s)?"?(?P<op>[A-Za-z_][\w.]*)"?')
_STRING_RE = re.compile(r'"(?:[^"\\]|\\.)*"')


def _strip(line: str) -> str:
    # Drop string literals and loc(...) annotations (both may contain text that looks like names
    # or braces). loc(...) nests parentheses, so it is removed by matching them.
    line = _STRING_RE.sub('""', line)
    out, i = [], 0
    while True:
        j = line.find("loc(", i)
        if j < 0 or (j > 0 and (line[j - 1].isalnum() or line[j - 1] == "_")):
            if j < 0:
                out.append(line[i:])
                break
            out.append(line[i:j + 4])
            i = j + 4
            continue
        out.append(line[i:j])
        depth, k = 0, j + 3
        while k < len(line):
            if line[k] == "(":
                depth += 1
            elif line[k] == ")":
                depth -= 1
                if depth == 0:
                    break
            k += 1
        i = k + 1
    return "".join(out)


def _kernel_region(ttir: str, kernel: Optional[str]):
    lines = ttir.splitlines()
    for i, line in enumerate(lines):
        if re.match(r"^\s*tt\.func\s+public\s+@", line) and (kernel is None or f"@{kernel}(" in line):
            depth, body = 0, []
            for j in range(i, len(lines)):
                s = _strip(lines[j])
                body.append(s)
                depth += s.count("{") - s.count("}")
                # attribute dicts open and close on one line, so depth returns to 0 only at the end
                if j > i and depth <= 0:
                    break
            return body
    return None


_RESULT_RE = re.compile(r"(%[A-Za-z0-9_$.\-]+)(?::(\d+))?")
_ITER_ARG_RE = re.compile(rf"({_NAME})\s*=\s*({_NAME})")


def _result_names(text: str) -> List[str]:
    """Result names in order; `%x:2` defines %x#0 and %x#1 (how later uses spell them)."""
    out = []
    for name, count in _RESULT_RE.findall(text):
        if count:
            out.extend(f"{name}#{i}" for i in range(int(count)))
        else:
            out.append(name)
    return out


def _for_frame(rest: str, results: List[str], edges) -> Optional[dict]:
    """scf.for with positional data flow: init_j -> iter_arg_j -> result_j (and yields, below).
    Without it, every loop-carried pointer would taint every other one. None if the line does
    not parse as expected (the caller then uses the all-to-all rule)."""
    m = re.match(rf"\s*({_NAME})\s*=\s*(.*?)\s+to\s+(.*?)\s+step\s+({_NAME}|\S+)", rest)
    if not m:
        return None
    iv = m.group(1)
    bounds = set(_NAME_RE.findall(m.group(2) + " " + m.group(3) + " " + m.group(4)))
    it = re.search(r"iter_args\((.*?)\)\s*->", rest)
    pairs = _ITER_ARG_RE.findall(it.group(1)) if it else []
    if len(pairs) != len(results):
        return None
    edges.append((bounds, {iv}))
    iters = []
    for (arg, init), res in zip(pairs, results):
        edges.append(({init}, {arg}))
        edges.append(({arg}, {res}))
        iters.append(arg)
    return {"defs": {iv}, "uses": set(bounds), "iter": iters, "results": results}


def stored_args(ttir: str, kernel: Optional[str] = None) -> Optional[List[bool]]:
    """Per TTIR function argument: True if the kernel may write through it (or cannot tell).
    None if the kernel function was not found (the caller then treats every pointer as written)."""
    body = _kernel_region(ttir, kernel)
    if not body:
        return None
    header = body[0]
    hdr = header[header.index("(") + 1:] if "(" in header else header
    args = re.findall(rf"({_NAME})\s*:", hdr)
    taint: Dict[str, Set[int]] = {a: {i} for i, a in enumerate(args)}
    defined: Set[str] = set(args)

    # edges: (sources, destinations); sinks: names whose args are written
    edges = []
    sinks: Set[str] = set()
    stack = []  # per open region-holding op (see module docstring)

    for raw in body[1:]:
        line = raw.strip()
        if not line:
            continue
        if line.startswith("}") or line.startswith(")"):
            # A region closes; "} else {" and "} do {" reopen one of the same op, while
            # "} {attrs}" or "}) : types" end the op.
            if not line.endswith("{") and stack:
                frame = stack.pop()
                edges.append((frame["uses"], frame["defs"]))
            continue
        if line.startswith("^"):
            names = set(_NAME_RE.findall(line))
            defined |= names
            if stack:
                stack[-1]["defs"] |= names
            continue
        m = _OP_RE.match(line)
        if not m:
            continue
        op = m.group("op")
        results = _result_names(m.group("res") or "")
        rest = line[m.end():]
        names = _NAME_RE.findall(rest)
        opens_region = line.endswith("{")
        if opens_region:
            # names seen for the first time on a region-opening line are its region arguments
            # (%iv = ..., iter_args(%acc = ...)); elsewhere every name is a use (a forward
            # reference still gets its taint through the fixed point below)
            new = [n for n in names if n not in defined]
            uses = {n for n in names if n in defined}
        else:
            new, uses = [], set(names)
        defs = set(results) | set(new)
        defined |= defs
        frame = None
        if op == "scf.for" and opens_region:
            frame = _for_frame(rest, results, edges)
        if frame is None:
            if op in LOAD_OPS and "!tt.ptr<!tt.ptr" not in line:
                pass  # loaded data is not derived from the address
            else:
                edges.append((uses, defs))
        if not (op in SAFE_OPS or op.startswith(SAFE_PREFIXES)):
            sinks |= uses
        if op in TERMINATORS and stack:
            top = stack[-1]
            ordered = _NAME_RE.findall(rest.split(":", 1)[0]) if op == "scf.yield" else []
            if top.get("iter") is not None and op == "scf.yield" and len(ordered) == len(top["iter"]):
                # scf.for: the j-th yielded value feeds the j-th iter_arg and the j-th result
                for j, v in enumerate(ordered):
                    edges.append(({v}, {top["iter"][j], top["results"][j]}))
            else:
                top["uses"] |= uses
        if opens_region:
            if frame is None:
                frame = {"defs": set(defs), "uses": set(uses)}
            stack.append(frame)

    # Propagate to a fixed point (graphs are small: a few hundred values).
    changed = True
    while changed:
        changed = False
        for srcs, dsts in edges:
            acc = set()
            for s in srcs:
                acc |= taint.get(s, set())
            if not acc:
                continue
            for d in dsts:
                cur = taint.setdefault(d, set())
                if not acc <= cur:
                    cur |= acc
                    changed = True
    written = set()
    for s in sinks:
        written |= taint.get(s, set())
    return [i in written for i in range(len(args))]
