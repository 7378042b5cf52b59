"""Reads a tritonpack kernel spec (TOML) at CMake configure time and prints what the build needs.

Used by cmake/TritonpackKernels.cmake (and meson.build): the build must know, before anything is
compiled, which files a spec depends on (the spec itself and every kernel .py named by a
`source = "file.py:function"` key) and the library name the generated header will carry.

Usage: tritonpack_spec_info.py SPEC [NAME]

Output, one item per line:
    name=<the library name: NAME if given, else the spec's top-level `name`, else the default
          from the spec's file name>, checked by the front end's rule (tritonpack_compile/names.py,
          imported through PYTHONPATH): a bad name is an error here, at configure time
    source=<absolute path of a kernel source file>      (one line per distinct file)

A kernel file's local imports (`import helpers` / `from helpers import tile` resolving to
helpers.py or helpers/__init__.py next to it, recursively) are sources too: their @triton.jit
functions are compiled into the kernel. This is the rule the front end keys its own incremental
build on (tritonpack_compile/sources.py).

Besides tritonpack_compile.names, only the standard library is used (tomllib on Python >= 3.11,
tomli when installed, else a line-based fallback that understands `key = "value"` lines), so this
runs in any Python that can import triton.
"""

import os
import re
import sys


def _load(path):
    with open(path, "rb") as f:
        data = f.read()
    try:
        import tomllib  # Python >= 3.11
    except ImportError:  # pragma: no cover - older Pythons
        try:
            import tomli as tomllib
        except ImportError:
            tomllib = None
    if tomllib is not None:
        return tomllib.loads(data.decode("utf-8"))
    # Fallback: enough of TOML for `name = "..."` at top level and `source = "..."` anywhere.
    doc, sources, top = {}, [], True
    for line in data.decode("utf-8").splitlines():
        s = line.strip()
        if s.startswith("["):
            top = False
        m = re.match(r"""^(\w+)\s*=\s*["']([^"']*)["']""", s)
        if not m:
            continue
        if m.group(1) == "name" and top:
            doc["name"] = m.group(2)
        elif m.group(1) == "source":
            sources.append({"source": m.group(2)})
    doc["__sources"] = sources
    return doc


def _sources(node):
    """Every string value of a key named `source` anywhere in the document."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "source" and isinstance(value, str):
                yield value
            else:
                yield from _sources(value)
    elif isinstance(node, list):
        for item in node:
            yield from _sources(item)


def _local_imports(path):
    """Local modules `path` imports: X.py or X/__init__.py next to it (installed packages are not
    followed; the Triton version is not a file)."""
    import ast

    try:
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read(), filename=path)
    except (OSError, SyntaxError, UnicodeDecodeError):
        return []
    base = os.path.dirname(path)
    found = []
    for node in ast.walk(tree):
        mods = []
        if isinstance(node, ast.Import):
            mods = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            mods = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        for mod in mods:
            rel = os.path.join(*mod.split("."))
            for cand in (os.path.join(base, rel + ".py"), os.path.join(base, rel, "__init__.py")):
                if os.path.isfile(cand):
                    found.append(os.path.normpath(os.path.abspath(cand)))
    return found


def _library_name(spec, doc, given):
    """(name, None) or (None, why): the name tritonpack_add_kernels() packs under, checked."""
    try:
        from tritonpack_compile import names
    except ImportError as exc:
        return None, f"cannot import the front end's tritonpack_compile.names ({exc}); is PYTHONPATH set?"
    if given:
        why = names.problem(given)
        return (given, None) if not why else (
            None, f"NAME {given}: the library name {why}; pass e.g. NAME {names.suggestion(given, 'library')}")
    if "name" in doc:
        why = names.problem(doc["name"])
        return (doc["name"], None) if not why else (
            None, f"{spec}: name: the library name {why}; set e.g. name = \"{names.suggestion(doc['name'], 'library')}\" "
                  f"(or pass NAME)")
    name = names.default_library_name(spec)
    why = names.problem(name)
    fix = names.suggestion(name, "library")
    return (name, None) if not why else (
        None, f"{spec}: the library name {why}; it comes from the spec's file name {os.path.basename(spec)}: pass "
              f"NAME {fix} (or set `name = \"{fix}\"` in the spec)")


def main(argv):
    if len(argv) not in (2, 3):
        sys.stderr.write("usage: tritonpack_spec_info.py SPEC [NAME]\n")
        return 2
    spec = os.path.abspath(argv[1])
    try:
        doc = _load(spec)
    except IsADirectoryError:
        sys.stderr.write(f"{spec} is a directory; expected a kernel spec file (TOML)\n")
        return 1
    except OSError as exc:
        sys.stderr.write(f"{spec}: cannot read the kernel spec: {exc.strerror}\n")
        return 1
    except Exception as exc:  # report, do not trace back, at configure time
        sys.stderr.write(f"{spec}: cannot read the kernel spec: {exc}\n")
        return 1
    base = os.path.dirname(spec)
    name, why = _library_name(spec, doc, argv[2] if len(argv) == 3 else None)
    if why:
        sys.stderr.write(why + "\n")
        return 1
    print(f"name={name}")
    seen, todo = [], []
    for src in _sources(doc):
        file = src.rsplit(":", 1)[0] if re.search(r":[A-Za-z_]\w*$", src) else src
        todo.append(os.path.normpath(os.path.join(base, file)))
    while todo:
        path = todo.pop(0)
        if path in seen:
            continue
        seen.append(path)
        print(f"source={path}")
        if os.path.isfile(path):
            todo.extend(_local_imports(path))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
