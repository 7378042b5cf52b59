"""tritonpack's version, read from include/tritonpack/version.hpp (the one place it is written).

The header is found next to this file (a wheel and an installed tree carry a copy there) or, in a
source checkout, at <repo>/include/tritonpack/version.hpp. Standard library only: Meson's
project() runs this file as a script (`python3 _version.py` prints the version), and so does the
wheel's build (generator/python/setup.py).
"""
import re
from pathlib import Path

HEADER = "version.hpp"
_HERE = Path(__file__).resolve().parent
# The copy beside the package first, then a source checkout's header.
CANDIDATES = (_HERE / HEADER, _HERE.parents[2] / "include" / "tritonpack" / HEADER)


def find_header():
    for path in CANDIDATES:
        if path.is_file():
            return path
    raise ImportError("tritonpack_compile: cannot find tritonpack's version.hpp (looked at "
                      + ", ".join(str(p) for p in CANDIDATES) + ")")


def read_version(path):
    text = Path(path).read_text(encoding="utf-8")
    parts = []
    for part in ("MAJOR", "MINOR", "PATCH"):
        m = re.search(rf"^#define TRITONPACK_VERSION_{part} +([0-9]+)$", text, re.MULTILINE)
        if not m:
            raise ImportError(f"tritonpack_compile: {path} has no `#define TRITONPACK_VERSION_{part} <number>` line")
        parts.append(m.group(1))
    return ".".join(parts)


if __name__ == "__main__":
    print(read_version(find_header()))
