#!/usr/bin/env bash
# scripts/mutation-test.sh — mutation testing: plants each bug listed in tests/mutants.txt, one at a
# time, in a copy of the source tree (<repo>/build-mutation/src; the repository itself is never
# written), builds only what that mutant's suite needs, runs the suite and prints
# `N killed, M survived` with the survivors. Every mutant must be killed.
#
#   scripts/mutation-test.sh            all mutants (tests/MUTATION.md records the last full run)
#   scripts/mutation-test.sh --fast     the fast subset (ids marked '+'), as scripts/test.sh runs it
#   scripts/mutation-test.sh --only ID[,ID...]   --check (patterns only, no build)
#
# Environment: TP_MUTATION_DIR (work directory, default <repo>/build-mutation), JOBS, TRITONPACK_PYTHON.
# Exit status: 0 when every mutant was killed, 1 when one survived or did not build, 2 when a
# mutant no longer applies (its pattern is gone or ambiguous: update tests/mutants.txt).
set -euo pipefail
exec python3 "$(dirname "${BASH_SOURCE[0]}")/mutation_test.py" "$@"
