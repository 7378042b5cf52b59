"""Errors the front end reports to the user as one clear message (never a traceback)."""


class TritonpackError(Exception):
    """A user-facing error; the CLI prints str(e) and exits non-zero."""


class SpecError(TritonpackError):
    """A mistake in the kernel spec. The message names the spec file, the kernel and the key."""

    def __init__(self, spec_path, message, kernel=None, key=None):
        self.spec_path = str(spec_path)
        self.kernel = kernel
        self.key = key
        self.detail = message
        where = [self.spec_path]
        if kernel is not None:
            where.append(f"kernel '{kernel}'")
        if key is not None:
            where.append(key)
        super().__init__(": ".join(where) + ": " + message)


class SyntaxProblem(ValueError):
    """Raised by the small parsers (targets, signatures, grid); the spec loader wraps it in a
    SpecError that says where the bad text came from."""
