#!/usr/bin/env bash
# scripts/test.sh — install what is needed and run tritonpack's whole CPU test suite.
#
#   bash scripts/test.sh
#
# Steps (each one's result is listed at the end; the script exits non-zero if any failed):
#   setup      Debian packages + a virtual environment with triton==3.9.0 (scripts/setup.sh)
#   cmake      configure + build everything (library, CLI, tests, benchmarks, examples) with g++
#   ctest      the CPU tests, GPU tests excluded by label (`-LE gpu`) and counted as such;
#              this includes the package tests (find_package on an installed tree, add_subdirectory)
#              and the quickstart run
#   pytest     the front end's tests (tests/python)
#   pytest-oldest  the same tests with the oldest supported Triton (TRITONPACK_TRITON_OLDEST, in
#              <repo>/.venv-oldest): the support window's two ends are both tested on every run
#   meson      configure + build + `meson test` with Meson, then a user's project that uses
#              tritonpack as a Meson subproject (tests/package/meson_subproject)
#   sanitize   the container / CLI / run-time tests again under ASan + UBSan (TRITONPACK_SANITIZE)
#   tsan       the run-time tests (64 threads racing first launches, on one and on four devices)
#              under ThreadSanitizer (TRITONPACK_SANITIZE=thread), the fake driver instrumented too
#   fuzz       the libFuzzer targets (clang, TRITONPACK_FUZZ) for a short while each
#   mutation   the fast subset of tests/mutants.txt (scripts/mutation-test.sh --fast): planted bugs
#              the tests must catch; the full list is run by hand (tests/MUTATION.md)
#
# Environment: BUILD_ROOT (default <repo>/build-ci), JOBS (default: nproc), FUZZ_SECONDS (default
# 60 per target), TP_STEPS (default: all, e.g. "cmake ctest pytest"), TP_PRUNE_BUILDS (1: remove each
# step's build tree once no later step needs it; .ci/run sets it, since the whole run otherwise holds
# about 5 GB at its end and a CI run once failed on a full disk), plus scripts/setup.sh's.
set -uo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/setup.sh" --lib
cd "$TP_ROOT"
: "${BUILD_ROOT:=$TP_ROOT/build-ci}"
: "${JOBS:=$(nproc)}"
: "${FUZZ_SECONDS:=60}"
: "${TP_STEPS:=cmake ctest pytest pytest-oldest meson sanitize tsan fuzz mutation}"
: "${TP_PRUNE_BUILDS:=0}"
export CMAKE_BUILD_PARALLEL_LEVEL="$JOBS"
export CTEST_PARALLEL_LEVEL="$JOBS"
export PYTHONDONTWRITEBYTECODE=1

declare -a RESULTS=()
FAILED=0
T_ALL=$SECONDS

# step NAME CMD... — runs one step, records pass/fail and its time.
step() {
  local name="$1"; shift
  local t0=$SECONDS rc
  tp_log "[$name] $*"
  "$@"; rc=$?
  local dt=$((SECONDS - t0))
  if [ $rc -eq 0 ]; then
    RESULTS+=("$(printf '%-13s ok      %4ss' "$name" "$dt")")
  else
    RESULTS+=("$(printf '%-13s FAILED  %4ss  (exit %s)' "$name" "$dt" "$rc")")
    FAILED=1
  fi
  return $rc
}
# prune PATH... — with TP_PRUNE_BUILDS=1, removes build trees (or a virtual environment) that no
# later step reads; a local run keeps them for the next, incremental one.
prune() {
  [ "$TP_PRUNE_BUILDS" = 1 ] || return 0
  local p
  for p in "$@"; do
    case "$p" in "$BUILD_ROOT"/*|"$TP_ROOT"/.venv-oldest) rm -rf -- "$p" ;; esac
  done
}
skip() { RESULTS+=("$(printf '%-13s skipped        %s' "$1" "$2")"); tp_log "[$1] skipped: $2"; }
want() { [[ " $TP_STEPS " == *" $1 "* ]]; }

do_setup() {
  tp_install_debian_packages "${TP_APT_PACKAGES[@]}" && tp_make_venv
}

do_cmake() {
  cmake -S . -B "$BUILD_ROOT/cmake" -G Ninja -DCMAKE_BUILD_TYPE=Release \
        -DTRITONPACK_PYTHON="$TRITONPACK_PYTHON" &&
  cmake --build "$BUILD_ROOT/cmake" -j "$JOBS"
}

do_ctest() {
  local rc
  (cd "$BUILD_ROOT/cmake" && ctest -LE gpu --output-on-failure --timeout 1500 -j "$JOBS")
  rc=$?
  # GPU tests are not run here (no GPU); say how many, so that nothing passes silently.
  local ngpu
  ngpu=$(cd "$BUILD_ROOT/cmake" && ctest -N -L gpu 2>/dev/null | sed -n 's/^Total Tests: *//p')
  tp_log "GPU tests (label gpu) excluded on this machine: ${ngpu:-0} — run \`ctest -L gpu\` on a GPU node"
  return $rc
}

do_pytest() {
  local rc
  PYTHONPATH="$TP_ROOT/generator/python${PYTHONPATH:+:$PYTHONPATH}" \
    "$TRITONPACK_PYTHON" -m pytest -q -p no:cacheprovider tests/python </dev/null
  rc=$?
  [ $rc -eq 5 ] && { echo "pytest collected no tests"; return 1; }
  return $rc
}

# The front end's tests with the oldest supported Triton, in its own virtual environment (a
# subshell: TRITONPACK_PYTHON stays the default, newest release's for every other step).
do_pytest_oldest() {
  (
    TRITONPACK_VENV="$TP_ROOT/.venv-oldest" TRITONPACK_TRITON="$TRITONPACK_TRITON_OLDEST"
    tp_make_venv || exit $?
    do_pytest
  )
}

do_meson() {
  local dir="$BUILD_ROOT/meson"
  if [ -d "$dir" ]; then
    meson setup --reconfigure "$dir" -Dtriton_python="$TRITONPACK_PYTHON" || return $?
  else
    # No optimisation: the CMake build already tests the optimised code; this one proves the Meson
    # build and runs the same CPU tests, and -O0 halves its compile time.
    meson setup "$dir" --buildtype=plain -Dtriton_python="$TRITONPACK_PYTHON" || return $?
  fi
  meson compile -C "$dir" -j "$JOBS" &&
  meson test -C "$dir" --no-suite gpu --print-errorlogs --num-processes "$JOBS" || return $?
  # tritonpack as a Meson subproject of a user's project (tests/package/meson_subproject).
  local sub="$BUILD_ROOT/meson-subproject"
  rm -rf "$sub" && mkdir -p "$sub/subprojects" &&
  cp tests/package/meson_subproject/meson.build tests/package/meson_subproject/meson_options.txt "$sub/" &&
  cp -r tests/package/common "$sub/common" && ln -s "$TP_ROOT" "$sub/subprojects/tritonpack" &&
  meson setup "$sub/build" "$sub" -Dtriton_python="$TRITONPACK_PYTHON" >/dev/null &&
  meson compile -C "$sub/build" -j "$JOBS" &&
  meson test -C "$sub/build" --print-errorlogs
}

do_sanitize() {
  # Only the C++ unit tests (container, CLI, run time): benches, examples and package tests add
  # nothing under ASan/UBSan and would double the build.
  local dir="$BUILD_ROOT/sanitize"
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DTRITONPACK_SANITIZE=ON \
        -DTRITONPACK_BUILD_BENCH=OFF -DTRITONPACK_BUILD_EXAMPLES=OFF -DTRITONPACK_PACKAGE_TESTS=OFF \
        -DTRITONPACK_BUILD_GPU_TESTS=OFF -DTRITONPACK_INSTALL=OFF -DTRITONPACK_PYTHON="$TRITONPACK_PYTHON" &&
  cmake --build "$dir" -j "$JOBS" &&
  # Leak checking is on (TP_DETECT_LEAKS=0 turns it off); ASan's memory errors and UBSan are fatal.
  # The run-time tests' binary sets intercept_tls_get_addr=0 itself (tests/runtime/test_main.cpp):
  # with GCC <= 13's sanitizer runtime, LeakSanitizer's tracer otherwise crashes ("Tracer caught
  # signal 11") whenever the fake driver's dynamic TLS block lands 16 bytes into a page.
  (cd "$dir" && ASAN_OPTIONS=detect_leaks=${TP_DETECT_LEAKS:-1} UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
     ctest -L cpu --output-on-failure --timeout 900 -j "$JOBS")
}

do_tsan() {
  # Only the run-time tests and the test-double driver they dlopen (both instrumented: TSan sees
  # only instrumented accesses; the system libzstd is not, so races inside it would go unseen, and
  # none needs suppressing). RelWithDebInfo: TSan at -O0 is several times slower, for nothing.
  # No suppression file: the run is clean without one; add one only for a named, understood
  # false positive.
  local dir="$BUILD_ROOT/tsan"
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTRITONPACK_SANITIZE=thread \
        -DTRITONPACK_BUILD_BENCH=OFF -DTRITONPACK_BUILD_EXAMPLES=OFF -DTRITONPACK_PACKAGE_TESTS=OFF \
        -DTRITONPACK_BUILD_GPU_TESTS=OFF -DTRITONPACK_INSTALL=OFF -DTRITONPACK_PYTHON="$TRITONPACK_PYTHON" &&
  cmake --build "$dir" -j "$JOBS" --target tritonpack_runtime_tests tritonpack_fake_cuda &&
  # Any report fails the step (TSan's exit code 66); the first one stops the run. ASLR off for the
  # tests and the processes they start (setarch -R, where the machine allows it): with 28 random
  # mmap bits a child's mapping can land where TSan wants its shadow memory, and TSan then aborts
  # ("failed to allocate ... errno 12", exit 66) with no race involved — seen once on CI.
  local no_aslr=()
  setarch "$(uname -m)" -R true 2>/dev/null && no_aslr=(setarch "$(uname -m)" -R)
  TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 ${TSAN_OPTIONS:-}" \
    "${no_aslr[@]}" "$dir/tests/runtime/tritonpack_runtime_tests"
}

do_fuzz() {
  # fuzz/CMakeLists.txt registers each libFuzzer target as a ctest (label fuzz) that runs for
  # TRITONPACK_FUZZ_SECONDS from a seed corpus; libFuzzer's own statistics are printed here.
  local dir="$BUILD_ROOT/fuzz" rc log="$BUILD_ROOT/fuzz.log"
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
        -DTRITONPACK_FUZZ=ON -DTRITONPACK_FUZZ_SECONDS="$FUZZ_SECONDS" -DTRITONPACK_BUILD_TESTS=OFF \
        -DTRITONPACK_BUILD_BENCH=OFF -DTRITONPACK_BUILD_EXAMPLES=OFF -DTRITONPACK_INSTALL=OFF &&
  cmake --build "$dir" -j "$JOBS" --target fuzz/all || return $?
  (cd "$dir/fuzz" && ctest -L fuzz -V --timeout 900) >"$log" 2>&1
  rc=$?
  grep -E "^[0-9]+: (Done [0-9]+ runs|stat::number_of_executed_units|stat::new_units_added|stat::peak_rss_mb|INFO: seed corpus|==[0-9]+==ERROR|SUMMARY: )|tests passed|tests failed" "$log"
  [ $rc -eq 0 ] || { echo "fuzz FAILED (log: $log)"; tail -40 "$log"; }
  return $rc
}

do_mutation() {
  # A copy of the tree under $BUILD_ROOT/mutation, built at -O0; each mutant rebuilds only its
  # suite's target. Exit 1 names the survivors, 2 a mutant that no longer applies.
  TP_MUTATION_DIR="$BUILD_ROOT/mutation" JOBS="$JOBS" TRITONPACK_PYTHON="$TRITONPACK_PYTHON" \
    scripts/mutation-test.sh --fast
}

if ! step setup do_setup; then
  printf '%s\n' "${RESULTS[@]}"
  exit 1
fi

want cmake && step cmake do_cmake
cmake_ok=$?
if want ctest; then
  if [ $cmake_ok -eq 0 ]; then step ctest do_ctest; else skip ctest "the CMake build failed"; fi
fi
if want pytest; then
  if [ -d tests/python ]; then step pytest do_pytest; else skip pytest "no tests/python yet"; fi
fi
if want pytest-oldest; then
  if [ -d tests/python ]; then step pytest-oldest do_pytest_oldest; else skip pytest-oldest "no tests/python yet"; fi
fi
# pytest and pytest-oldest run the CMake build's packer (test_container_reader.py finds it there).
prune "$TP_ROOT/.venv-oldest" "$BUILD_ROOT/cmake"
if want meson; then
  if [ -f meson.build ]; then step meson do_meson; else skip meson "no meson.build yet"; fi
fi
prune "$BUILD_ROOT/meson" "$BUILD_ROOT/meson-subproject"
want sanitize && step sanitize do_sanitize
prune "$BUILD_ROOT/sanitize"
want tsan && step tsan do_tsan
prune "$BUILD_ROOT/tsan"
if want fuzz; then
  if [ -f fuzz/CMakeLists.txt ]; then step fuzz do_fuzz; else skip fuzz "no fuzz/ targets yet"; fi
fi
prune "$BUILD_ROOT/fuzz"
want mutation && step mutation do_mutation
prune "$BUILD_ROOT/mutation"

echo
tp_log "Summary ($((SECONDS - T_ALL))s in all)"
printf '  %s\n' "${RESULTS[@]}"
if [ $FAILED -ne 0 ]; then
  echo "FAILED"
  exit 1
fi
echo "all steps passed"
