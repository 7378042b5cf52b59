"""meson_glob.py ROOT DIR PATTERN [--exclude NAME ...] [--recursive] — print matching files, one per
line, sorted (--recursive: in DIR's subfolders too).

Meson has no glob; meson.build uses this so that a source file added by the area that owns it is
built without editing meson.build. Paths are printed relative to ROOT (the project's source dir).
"""
import fnmatch
import os
import sys


def main(argv):
    root, sub, pattern, rest = argv[1], argv[2], argv[3], argv[4:]
    exclude = set()
    recursive = False
    while rest:
        if rest[0] == "--exclude" and len(rest) > 1:
            exclude.add(rest[1])
            rest = rest[2:]
        elif rest[0] == "--recursive":
            recursive = True
            rest = rest[1:]
        else:
            sys.stderr.write(f"meson_glob.py: unexpected argument {rest[0]!r}\n")
            return 2
    d = os.path.join(root, sub)
    if not os.path.isdir(d):
        return 0
    if recursive:
        folders = sorted(os.path.relpath(w, root) for w, _, _ in os.walk(d))
    else:
        folders = [sub]
    for folder in folders:
        for name in sorted(os.listdir(os.path.join(root, folder))):
            if (fnmatch.fnmatch(name, pattern) and name not in exclude
                    and os.path.isfile(os.path.join(root, folder, name))):
                print(os.path.join(folder, name))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
