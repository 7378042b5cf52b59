"""tritonpack's front end: ahead-of-time Triton compilation into a tritonpack artifact directory.

Importing this package does not import Triton: a no-op incremental run must stay well under a
second, and `import triton` alone costs about that much. Triton is imported only by the modules
that compile (worker.py) or introspect kernels (introspect.py), and only when there is work.
"""

from ._version import find_header as _find_header, read_version as _read_version

__version__ = _read_version(_find_header())
GENERATOR = f"tritonpack-compile {__version__}"
