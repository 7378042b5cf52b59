#!/usr/bin/env python3
"""The build targets that a set of ctest tests runs, so that a partial build builds exactly them.

    python3 scripts/ctest_targets.py BUILD (--label LABEL | --regex REGEX)

prints one ninja target a line (paths relative to BUILD): every path under BUILD named in the
selected tests' commands or environment (-DPROGRAM=..., TRITONPACK_CUDA_LIBRARY=..., K=V@@K=V lists)
that ninja knows how to make. Used by scripts/mutation_test.py (a `ctest:REGEX` suite builds what
its tests run) and scripts/gpu-check.sh (GPU_CHECK_QUICK builds what `ctest -L gpu` runs, rather than
a hand-kept list that a new GPU test could be missing from). Exit 1 when ctest selects no test.
"""
import argparse
import json
import os
import re
import subprocess
import sys


def selected_tests(build, selection):
    """The tests `ctest <selection>` would run in `build`, as ctest's JSON describes them."""
    shown = subprocess.run(["ctest", "--show-only=json-v1", *selection], cwd=build, capture_output=True, text=True)
    try:
        return json.loads(shown.stdout).get("tests", [])
    except ValueError:
        return []


def parse_add_test(line):
    """(test name, the rest of the line) of an add_test() line of a CTestTestfile.cmake, else
    (None, None). CMake writes the name as a bracket argument ([=[name]=], CMake 3.x), quoted
    ("name", CMake 4) or bare."""
    m = re.match(r'add_test\((?:\[(=*)\[(.*?)\]\1\]|"((?:[^"\\]|\\.)*)"|(\S+))\s+(.*)\)\s*$', line)
    if not m:
        return None, None
    name = next(g for g in (m.group(2), m.group(3), m.group(4)) if g is not None)
    return name, m.group(5)


def declared_commands(build):
    """Test name -> the text of its add_test() line in the CTestTestfile.cmake files under `build`.
    ctest's JSON leaves a test's command out while its program is not built yet (a fresh build
    tree: exactly when one asks what to build); the files CMake wrote hold it with full paths."""
    commands = {}
    for folder, _, files in os.walk(build):
        if "CTestTestfile.cmake" not in files:
            continue
        with open(os.path.join(folder, "CTestTestfile.cmake"), encoding="utf-8", errors="replace") as f:
            for line in f:
                name, command = parse_add_test(line)
                if name is not None:
                    commands[name] = command
    return commands


def targets_of(build, tests):
    """Every path under `build` that `tests` name in a command or environment and ninja can make,
    relative to `build`, in first-seen order."""
    declared = None
    words = []
    for t in tests:
        if "command" in t:
            words += t["command"]
        else:
            if declared is None:
                declared = declared_commands(build)
            words += [declared.get(t.get("name", ""), "")]
        for prop in t.get("properties", []):
            if prop.get("name") == "ENVIRONMENT":
                words += prop.get("value", [])
    targets = []
    for w in words:
        for part in re.split(r"[=;@\s\"]", w):
            if not part.startswith(build + os.sep):
                continue
            rel = os.path.relpath(part, build)
            known = subprocess.run(["ninja", "-C", build, "-t", "query", rel], capture_output=True).returncode == 0
            if known and rel not in targets:
                targets.append(rel)
    return targets


def ctest_targets(build, regex):
    """What the ctest tests matching `regex` (`ctest -R`) run; empty when ctest lists none."""
    return targets_of(build, selected_tests(build, ["-R", regex]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build", help="a configured CMake build directory (Ninja)")
    which = ap.add_mutually_exclusive_group(required=True)
    which.add_argument("--label", help="the tests with this label (ctest -L)")
    which.add_argument("--regex", help="the tests whose name matches (ctest -R)")
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    tests = selected_tests(build, ["-L", a.label] if a.label else ["-R", a.regex])
    if not tests:
        print(f"ctest_targets.py: ctest selects no test in {build} "
              f"({'label ' + a.label if a.label else 'regex ' + a.regex}); is it configured?", file=sys.stderr)
        return 1
    for t in targets_of(build, tests):
        print(t)
    return 0


if __name__ == "__main__":
    sys.exit(main())
