#!/usr/bin/env python3
"""The engine of scripts/mutation-test.sh: plants each mutant of tests/mutants.txt in a copy of the
source tree, builds only what the mutant's suite needs, runs that suite's tests and reports whether
they failed (the mutant is killed) or passed (it survived: the tests miss that bug).

The repository's own tree is never written: the mutants go into a copy (<work>/src, refreshed from
the repository's tracked and untracked-but-not-ignored files at each run), built in <work>/build.
Each mutant is undone in the copy right after its tests, also on Ctrl-C or an error (try/finally),
and the copy is checked against the repository before the next mutant. A restored file gets a new
modification time, so the next build recompiles what the mutant had touched.

Mutants file: one mutant a line, six fields separated by " @@ ":
  id @@ suite[:test filter] @@ file @@ pattern @@ replacement @@ what it breaks
Suite `ctest:REGEX` runs the ctest tests matching REGEX (`ctest -R`): the checks that exist only
as ctest tests (the C API's Fortran programs, the examples against the test-double drivers, the
HIP double's own tests, the no-driver runs). It builds what those tests run: every file of the
build tree their commands and environment name that ninja knows how to make (all, when none).
A Fortran program that no longer compiles against a mutated module interface (gfortran checks
each call against it) is a failed check, so in this suite only a failure to compile a Fortran
source kills the mutant ("build: <object>"); any other build failure is a mutant that did not
build.
`id` starting with "+" marks the fast subset (--fast, run in CI). `pattern` is literal text that
must occur exactly once in `file` (a mutant whose pattern is gone or ambiguous is an error, never
a silent skip); pattern and replacement are single lines, taken verbatim. Lines starting with '#'
are comments.
"""
import argparse
import filecmp
import os
import re
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # scripts/, also when loaded by path
from ctest_targets import ctest_targets  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# suite -> (build targets, test command relative to the build directory; {filter} is the mutant's
# test filter or empty). doctest runs without --minimal: its summary shows when a filter selected
# no test case (selected_nothing). The HIP backend, the fake HIP and the C API add their suites here.
SUITES = {
    "runtime": (["tritonpack_runtime_tests", "tritonpack_fake_cuda"],
                ["tests/runtime/tritonpack_runtime_tests", "--no-intro", "{doctest_filter}"]),
    "container": (["tritonpack_container_tests"],
                  ["tests/container/tritonpack_container_tests", "--no-intro", "{doctest_filter}"]),
    "capi": (["tritonpack_capi_tests"],
             ["tests/capi/tritonpack_capi_tests", "--no-intro", "{doctest_filter}"]),
    "cli": (["tritonpack_cli_tests", "tritonpack_cli"],
            ["tests/cli/tritonpack_cli_tests", "--no-intro", "{doctest_filter}"]),
    "lulesh": (["lulesh_decomposition_test"],
               ["apps/lulesh/lulesh_decomposition_test", "--no-intro", "{doctest_filter}"]),
    # Separate mode (tests/cli/separate): a program whose translation units see declarations only.
    "separate": (["tritonpack_separate_test", "tritonpack_fake_cuda"],
                 ["ctest", "--output-on-failure", "-R", "^generated_header_separate_mode$"]),
    # Python front end: the packer only (the container-reader cross-checks run it through
    # TRITONPACK_PACKER); {filter} is a pytest path (and -k expression). -rfEs: the summary names each
    # failure and error (the kill's "killed by"; -rs alone would replace pytest's default -rfE and
    # leave them unnamed) and says why each skip skipped.
    "python": (["tritonpack_cli"], ["{python}", "-m", "pytest", "-q", "-x", "-rfEs", "-p", "no:cacheprovider",
                                    "{pytest_filter}"]),
    # ctest-only checks; {filter} is ctest's -R regex; the targets come from the tests (ctest_targets).
    "ctest": (None, ["ctest", "--output-on-failure", "-R", "{ctest_filter}"]),
}


class Mutant:
    def __init__(self, line_no, fields):
        self.line_no = line_no
        mid, suite, self.file, pattern, replacement, self.breaks = fields
        self.fast = mid.startswith("+")
        self.id = mid.lstrip("+")
        self.suite, _, self.filter = suite.partition(":")
        self.pattern = pattern
        self.replacement = replacement
        self.killers = []  # test cases that failed with this mutant
        self.verdict = "not run"


def read_mutants(path):
    mutants = []
    with open(path, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            fields = [x.strip() for x in line.split(" @@ ")]
            if len(fields) != 6:
                sys.exit(f"{path}:{n}: expected 6 fields separated by ' @@ ', found {len(fields)}")
            m = Mutant(n, fields)
            if m.suite not in SUITES:
                sys.exit(f"{path}:{n}: unknown suite '{m.suite}' (known: {', '.join(SUITES)})")
            mutants.append(m)
    ids = [m.id for m in mutants]
    dup = {i for i in ids if ids.count(i) > 1}
    if dup:
        sys.exit(f"{path}: duplicate mutant ids: {', '.join(sorted(dup))}")
    return mutants


def source_files():
    """The repository's tracked and untracked-but-not-ignored files (what a build sees)."""
    out = subprocess.run(["git", "-C", ROOT, "ls-files", "-co", "--exclude-standard", "-z"], check=True,
                         capture_output=True).stdout
    return [p for p in out.decode().split("\0") if p and os.path.isfile(os.path.join(ROOT, p))]


def sync_copy(src):
    """Makes `src` hold exactly the repository's files. Changed files are copied with a new
    modification time (never the original's), so that objects built from a mutated version are
    rebuilt."""
    files = source_files()
    for rel in files:
        a, b = os.path.join(ROOT, rel), os.path.join(src, rel)
        if os.path.isfile(b) and filecmp.cmp(a, b, shallow=False):
            continue
        os.makedirs(os.path.dirname(b), exist_ok=True)
        shutil.copyfile(a, b)
        shutil.copymode(a, b)
    return files


def check_pattern(m, text):
    count = text.count(m.pattern)
    if count != 1:
        return f"pattern occurs {count} times in {m.file} (must be exactly once): {m.pattern!r}"
    return None


def run(cmd, cwd, log, timeout):
    """Runs `cmd` in its own process group; on a timeout or an interruption the whole group (the
    build's compilers too) is ended."""
    log.write(f"$ {' '.join(cmd)}\n")
    log.flush()
    p = subprocess.Popen(cmd, cwd=cwd, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        return p.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        log.write(f"timed out after {timeout} s\n")
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        return 124
    except BaseException:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        raise


PYTEST_RESULT = re.compile(r"^(FAILED|ERROR) (\S+\.py(?:::\S+)?)")  # "FAILED tests/python/t.py::test_x - why"
CTEST_FAILED = re.compile(r"^\s*\d+ - (\S+) \([^)]*\)")  # "  27 - capi.fortran.streams (Failed)  cpu"


def failing_tests(output):
    """The test cases a failed run names: doctest's "TEST CASE:  name" blocks that report an
    ERROR (not those printing only a MESSAGE), pytest's "FAILED path::name" and "ERROR path::name"
    (a fixture or collection error: the test never ran its checks, but the mutant broke it), and
    ctest's "N - name (Failed)" lines after "The following tests FAILED:"."""
    names, current, ctest_list = [], None, False
    for line in output.splitlines():
        if line.startswith("The following tests FAILED:"):
            ctest_list = True
            continue
        if ctest_list:
            hit = CTEST_FAILED.match(line)
            if hit:
                if hit.group(1) not in names:
                    names.append(hit.group(1))
                continue
            ctest_list = False
        name = None
        if line.startswith("TEST CASE:"):
            current = line[len("TEST CASE:"):].strip()
        elif line.startswith("====="):
            current = None
        elif current and (": ERROR:" in line or ": FATAL ERROR:" in line or "TEST CASE FAILED" in line):
            name = current
        elif PYTEST_RESULT.match(line):  # not gfortran's "ERROR STOP ...": pytest names a .py file
            kind, name = PYTEST_RESULT.match(line).groups()
            if kind == "ERROR":
                name += " (error)"
        if name and name not in names:
            names.append(name)
    return names


def selected_nothing(output):
    """True when a run's output says it ran no test: doctest's "test cases: 0", pytest's "no tests
    ran", ctest's "No tests were found"."""
    return bool(re.search(r"\[doctest\] test cases:\s+0 \||^no tests ran|No tests were found", output, re.M))


def fortran_compile_failure(build_output):
    """The Fortran object whose compilation failed in a build's output, or None."""
    for line in build_output.splitlines():
        if line.startswith("FAILED: ") and re.search(r"\.[fF]90\.o\b", line):
            return line[len("FAILED: "):].split()[0]
    return None


def write_record(path, mutants, killed, survived, invalid):
    """tests/MUTATION.md: the run's date and commit, and per mutant the tests that killed it."""
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"], capture_output=True,
                           text=True).stdout.strip()
    lines = ["# Mutation testing: the last run", "",
             "Written by `scripts/mutation-test.sh --record tests/MUTATION.md` (see tests/mutants.txt for the",
             "mutants and the script for how they are applied). Run the whole list before closing an issue",
             "that touches these areas; CI runs the fast subset (ids marked `+` in tests/mutants.txt).", "",
             f"- date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}",
             f"- commit: {commit}{' (with uncommitted changes)' if dirty else ''}",
             f"- mutants run: {len(mutants)}; **{killed} killed, {len(survived)} survived**"
             + (f", {len(invalid)} did not build" if invalid else ""), "",
             "| mutant | file | what it breaks | result | killed by (test cases that failed) |", "|---|---|---|---|---|"]
    for m in mutants:
        killers = "; ".join(m.killers) if getattr(m, "verdict", "") == "killed" else ""
        lines.append(f"| `{m.id}` | {m.file} | {m.breaks} | {getattr(m, 'verdict', 'not run')} | {killers.replace('|', '/')} |")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


def interrupt(signum, frame):
    raise KeyboardInterrupt(signal.Signals(signum).name)


def main():
    # Ctrl-C, kill and a closed terminal all unwind through the `finally` that restores the copy
    # (a shell starts background jobs with SIGINT ignored: install the handler regardless).
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, interrupt)
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fast", action="store_true", help="only the fast subset (ids starting with '+'), as CI runs")
    ap.add_argument("--only", default="", help="comma-separated mutant ids, run in that order")
    ap.add_argument("--list", default=os.path.join(ROOT, "tests", "mutants.txt"), help="the mutants file")
    ap.add_argument("--check", action="store_true", help="only check that every pattern occurs exactly once")
    ap.add_argument("--work", default=os.environ.get("TP_MUTATION_DIR", os.path.join(ROOT, "build-mutation")))
    ap.add_argument("--jobs", default=os.environ.get("JOBS", str(os.cpu_count() or 2)))
    ap.add_argument("--timeout", type=int, default=1200, help="seconds per build or test command")
    ap.add_argument("--record", default="", help="write the results as a Markdown table to this file (tests/MUTATION.md)")
    args = ap.parse_args()

    mutants = read_mutants(args.list)
    if args.fast:
        mutants = [m for m in mutants if m.fast]
    if args.only:
        wanted = set(args.only.split(","))
        unknown = wanted - {m.id for m in mutants}
        if unknown:
            sys.exit(f"unknown mutant ids: {', '.join(sorted(unknown))}")
        order = args.only.split(",")  # in the order given
        mutants = sorted((m for m in mutants if m.id in wanted), key=lambda m: order.index(m.id))

    bad = []
    for m in mutants:
        path = os.path.join(ROOT, m.file)
        if not os.path.isfile(path):
            bad.append(f"{m.id}: {m.file} does not exist")
            continue
        why = check_pattern(m, open(path, encoding="utf-8").read())
        if why:
            bad.append(f"{m.id}: {why}")
    if bad:
        print("mutants that no longer apply (update tests/mutants.txt):\n  " + "\n  ".join(bad), file=sys.stderr)
        return 2
    if args.check:
        print(f"{len(mutants)} mutants apply")
        return 0

    work = os.path.abspath(args.work)
    src, build = os.path.join(work, "src"), os.path.join(work, "build")
    if os.path.commonpath([src, ROOT]) == ROOT and not os.path.relpath(src, ROOT).startswith("build"):
        sys.exit(f"the work directory {work} must be outside the source tree or under a build* directory")
    os.makedirs(src, exist_ok=True)
    sync_copy(src)
    log_path = os.path.join(work, "mutation.log")
    log = open(log_path, "w", encoding="utf-8")
    print(f"mutation testing: {len(mutants)} mutants; copy {src}, build {build}, log {log_path}", flush=True)

    env_python = os.environ.get("TRITONPACK_PYTHON", "/work/venv/bin/python" if os.path.exists("/work/venv/bin/python")
                                else sys.executable)
    # -O0: every header mutant recompiles each test translation unit that includes it; unoptimised
    # builds take about two thirds of the time, and what the tests check does not depend on it.
    configure = ["cmake", "-S", src, "-B", build, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=None", "-DCMAKE_CXX_FLAGS=-O0",
                 "-DCMAKE_C_FLAGS=-O0", f"-DTRITONPACK_PYTHON={env_python}"]
    if shutil.which("ccache"):
        configure += ["-DCMAKE_CXX_COMPILER_LAUNCHER=ccache", "-DCMAKE_C_COMPILER_LAUNCHER=ccache"]
    if run(configure, work, log, args.timeout) != 0:
        sys.exit(f"configuring the copy failed; see {log_path}")

    def build_and_test(m):
        targets, command = SUITES[m.suite]
        if targets is None:  # ctest: what the selected tests run, else everything
            targets = ctest_targets(build, m.filter) or ["all"]
        if targets:
            build_out = os.path.join(work, "last-build-output.txt")
            with open(build_out, "w", encoding="utf-8") as out:
                rc = run(["cmake", "--build", build, "-j", args.jobs, "-t", *targets], work, out, args.timeout)
            text = open(build_out, encoding="utf-8", errors="replace").read()
            log.write(text)
            if rc != 0:
                failed_object = fortran_compile_failure(text) if m.suite == "ctest" else None
                if failed_object and m.id != "baseline":
                    m.killers = [f"build: {failed_object} no longer compiles"]
                    return "tests failed"
                return "build failed"
        cmd = []
        for part in command:
            if part == "{ctest_filter}":
                cmd.append(m.filter or ".")
            elif part == "{doctest_filter}":
                if m.filter:
                    cmd.append(f"--test-case={m.filter}")
            elif part == "{pytest_filter}":
                cmd += m.filter.split() if m.filter else ["tests/python"]
            else:
                cmd.append(part.replace("{python}", env_python))
        cwd = src if m.suite == "python" else build
        env_path = os.path.join(src, "generator", "python")
        if not os.environ.get("PYTHONPATH", "").startswith(env_path):
            os.environ["PYTHONPATH"] = env_path + (":" + os.environ["PYTHONPATH"] if os.environ.get("PYTHONPATH") else "")
        # The copy's build lies outside the copy (<work>/build): name its packer, or the Python
        # checks that run it would not find it (tests/python/test_container_reader.py).
        os.environ["TRITONPACK_PACKER"] = os.path.join(build, "generator", "cli", "tritonpack")
        out_path = os.path.join(work, "last-test-output.txt")
        with open(out_path, "w", encoding="utf-8") as out:
            rc = run(cmd, cwd, out, args.timeout)
        output = open(out_path, encoding="utf-8", errors="replace").read()
        log.write(output)
        m.killers = failing_tests(output)
        if rc == 0 and selected_nothing(output):  # a filter that matches nothing proves nothing
            print(f"{m.id}: the suite's filter {m.filter!r} selects no test (doctest splits filters at commas)",
                  flush=True)
            return "no test selected"
        skipped = [line for line in output.splitlines() if line.startswith("SKIPPED")]
        if skipped and m.id == "baseline":  # a check that cannot run here kills nothing: say so
            print(f"warning: suite {m.suite}: {len(skipped)} skipped:\n  " + "\n  ".join(skipped), flush=True)
        return "tests passed" if rc == 0 else "tests failed"

    # The unmutated copy must build and pass each suite used, or a "killed" would mean nothing.
    # A ctest suite is as wide as its regex: each regex used gets its own baseline.
    for suite, test_filter in sorted({(m.suite, m.filter if m.suite == "ctest" else "") for m in mutants}):
        probe = Mutant(0, ["baseline", f"{suite}:{test_filter}" if test_filter else suite, "", "", "", ""])
        log.write(f"\n=== baseline: suite {suite} {test_filter}\n")
        if build_and_test(probe) != "tests passed":
            sys.exit(f"the unmutated tree fails suite '{suite}{':' + test_filter if test_filter else ''}'; fix that "
                     f"first (see {log_path})")

    killed, survived, invalid = 0, [], []
    for i, m in enumerate(mutants, 1):
        path = os.path.join(src, m.file)
        original = open(path, encoding="utf-8").read()
        why = check_pattern(m, original)
        if why:
            sys.exit(f"{m.id}: {why}")
        t0 = time.time()
        log.write(f"\n=== mutant {m.id} ({m.file}:{m.breaks})\n")
        try:
            with open(path, "w", encoding="utf-8") as f:
                f.write(original.replace(m.pattern, m.replacement))
            outcome = build_and_test(m)
        finally:
            with open(path, "w", encoding="utf-8") as f:  # a new mtime: the next build recompiles
                f.write(original)
            if open(path, encoding="utf-8").read() != original:
                sys.exit(f"{m.id}: restoring {path} failed; remove {work} before the next run")
        # A mutant that does not build, or whose filter selects no test, proves nothing about the
        # tests: it is reported, not counted.
        verdict = {"tests failed": "killed", "tests passed": "SURVIVED"}.get(outcome, "INVALID")
        if verdict == "killed":
            killed += 1
        elif verdict == "SURVIVED":
            survived.append(m)
        else:
            invalid.append(m)
        m.verdict = verdict
        if args.record:  # after every mutant: an interrupted run still leaves its results
            write_record(args.record, mutants, killed, survived, invalid)
        print(f"[{i}/{len(mutants)}] {m.id:26s} {verdict} ({outcome}, {time.time() - t0:.0f} s) — {m.breaks}"
              + (f"; killed by: {'; '.join(m.killers)}" if verdict == "killed" else ""), flush=True)
    print(f"{killed} killed, {len(survived)} survived")
    if args.record:
        write_record(args.record, mutants, killed, survived, invalid)
    for m in survived:
        print(f"  survived: {m.id} ({m.file}: {m.pattern!r} -> {m.replacement!r}): {m.breaks}")
    for m in invalid:
        print(f"  did not build or selected no test (fix the mutant): {m.id} ({m.file}); see {log_path}")
    return 0 if not survived and not invalid else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print("\ninterrupted; the repository was never modified, the copy is restored", file=sys.stderr)
        sys.exit(130)
