"""tritonpack's front end: ahead-of-time Triton compilation into a tritonpack artifact directory.

Importing this package does not import Triton: a no-op incremental run must stay well under a
second, and `import triton` alone costs about that much. Triton is imported only by the modules
that compile (worker.py) or introspect kernels (introspect.py), and only when there is work.
"""

__version__ = "0.1.0"
GENERATOR = f"tritonpack-compile {__version__}"
