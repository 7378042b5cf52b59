import sys

from .cli import compile_main

if __name__ == "__main__":  # guard: spawned compile workers re-import the main module
    sys.exit(compile_main(prog="python -m tritonpack_compile"))
