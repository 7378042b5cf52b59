#!/usr/bin/env bash
# run_modes.sh EXAMPLE RANKS... — runs the MPI example (mpi_example) with each number of ranks on
# this node in three modes and checks what the ranks report:
#   cold   TRITONPACK_FORCE_IR=1, an empty JIT cache: every image is JIT-compiled by at least one
#          rank, the others read the entry (or compiled it too); no rank refuses a cache entry
#          (a partial or damaged file would be refused and logged), and the cache ends with one
#          entry per image and no temporary file
#   warm   the same cache again: no compile, every image a cache hit
#   cubin  TRITONPACK_FORCE_IR=0: every image a packed cubin
# and prints one table (ranks, mode, compiles, cache hits, cubins, start-up median / max, checksum,
# images loaded per device).
# Exit status 0 when every run passed; on a failure the run's output and the ends of its rank logs
# are printed. Every mpirun runs under a timeout, so nothing hangs.
#
# Environment:
#   MPIEXEC          mpirun / mpiexec to use (default: mpirun)
#   TP_MPI_TIMEOUT   seconds per mpirun (default 300)
#   TP_MPI_ARGS      extra options of the example (e.g. "--no-verify --n 4096" for a test-double driver)
#   TP_MPI_MODES     modes to run (default "cold warm cubin")
#   OUT              directory for the logs (default: a temporary one, removed on success)
#   TP_MPI_GPUS      the node's GPU count: when set, the ranks must spread over them by node-local
#                    rank (rank r on device r % GPUs), each device loading 2 images per rank on it
# The ranks inherit the environment (TRITONPACK_CUDA_LIBRARY, ...). As root, OpenMPI needs
# OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1: set here when running as root.
set -u
if [ $# -lt 2 ]; then
  echo "usage: $0 EXAMPLE RANKS..." >&2
  exit 2
fi
example=$1
shift
: "${MPIEXEC:=mpirun}"
: "${TP_MPI_TIMEOUT:=300}"
: "${TP_MPI_ARGS:=}"
: "${TP_MPI_MODES:=cold warm cubin}"
images_per_rank=2  # the example's kernels: time_step and sum_squares, one variant each

if [ ! -x "$example" ]; then
  echo "run_modes.sh: $example is not an executable (build the mpi_example target)" >&2
  exit 2
fi
if ! command -v "$MPIEXEC" >/dev/null 2>&1; then
  echo "run_modes.sh: $MPIEXEC not found (Debian: apt-get install openmpi-bin; or set MPIEXEC)" >&2
  exit 2
fi
if [ "$(id -u)" = 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
keep_logs=1
if [ -z "${OUT:-}" ]; then
  OUT=$(mktemp -d "${TMPDIR:-/tmp}/tp-mpi.XXXXXX")
  keep_logs=0
fi
mkdir -p "$OUT"
# --oversubscribe: more ranks than cores is the point (OpenMPI; other MPIs ignore or lack it).
mpi_flags=()
if "$MPIEXEC" --version 2>&1 | grep -qi "open mpi\|openrte\|open-mpi"; then
  mpi_flags=(--oversubscribe)
fi

# value KEY LINE — the value of KEY=... in a summary line ("" when absent).
value() { sed -n "s/.*\\b$1=\\([^ ]*\\).*/\\1/p" <<<"$2"; }

rows=()
failures=0
fail() {  # fail RUN WHY
  local run=$1 why=$2
  failures=$((failures + 1))
  echo "FAILED: $run: $why" >&2
  echo "---- output of $run ($OUT/$run.out) ----" >&2
  tail -n 40 "$OUT/$run.out" >&2
  for f in "$OUT/$run".rank.*.log; do
    [ -s "$f" ] || continue
    echo "---- $f (last lines) ----" >&2
    tail -n 8 "$f" >&2
  done
}

for ranks in "$@"; do
  cache="$OUT/cache-$ranks"
  rm -rf "$cache"
  for mode in $TP_MPI_MODES; do
    run="np$ranks-$mode"
    case $mode in
      cold) rm -rf "$cache"; force_ir=1 ;;
      warm) force_ir=1 ;;
      cubin) force_ir=0 ;;
      *) echo "run_modes.sh: unknown mode $mode (cold, warm, cubin)" >&2; exit 2 ;;
    esac
    # Each rank's stderr (TRITONPACK_LOG=1: one line per decision) goes to its own file.
    # shellcheck disable=SC2016,SC2086  # $0/$@ belong to sh -c; TP_MPI_ARGS is a list of options
    TRITONPACK_FORCE_IR=$force_ir TRITONPACK_CACHE_DIR=$cache TRITONPACK_LOG=1 TP_MPI_LOG="$OUT/$run" \
      timeout -k 10 "$TP_MPI_TIMEOUT" "$MPIEXEC" "${mpi_flags[@]}" -np "$ranks" \
      sh -c 'exec "$0" "$@" 2>"$TP_MPI_LOG.rank.${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-${PMIX_RANK:-x}}}.log"' \
      "$example" $TP_MPI_ARGS >"$OUT/$run.out" 2>&1
    rc=$?
    summary=$(grep '^summary:' "$OUT/$run.out" | tail -n 1)
    if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
      fail "$run" "timed out after ${TP_MPI_TIMEOUT}s (TP_MPI_TIMEOUT)"
      rows+=("$ranks $mode timeout")
      continue
    fi
    if [ -z "$summary" ]; then
      fail "$run" "exit status $rc and no summary line (the example did not get to its report)"
      rows+=("$ranks $mode failed")
      continue
    fi
    compiles=$(value compiles "$summary") hits=$(value cache_hits "$summary") cubins=$(value cubins "$summary")
    med=$(value startup_median_ms "$summary") max=$(value startup_max_ms "$summary")
    checksum=$(value checksum "$summary") failed=$(value failed "$summary")
    per_device=$(value images_per_device "$summary")
    rows+=("$ranks $mode $compiles $hits $cubins $med $max $checksum ${per_device:--}")
    want=$((ranks * images_per_rank))
    problems=()
    [ $rc -eq 0 ] || problems+=("exit status $rc")
    [ "$failed" = 0 ] || problems+=("$failed rank(s) failed")
    [ "$(value ranks "$summary")" = "$ranks" ] || problems+=("$(value ranks "$summary") ranks reported, $ranks started")
    [ "$checksum" != WRONG ] || problems+=("checksum wrong")
    case $mode in
      cold)
        [ "$cubins" = 0 ] || problems+=("$cubins cubins loaded with TRITONPACK_FORCE_IR=1")
        [ "$compiles" -ge "$images_per_rank" ] 2>/dev/null || problems+=("$compiles compiles: each of the $images_per_rank images must be compiled at least once")
        [ $((compiles + hits)) -eq "$want" ] 2>/dev/null || problems+=("$compiles compiles + $hits cache hits, expected $want images")
        entries=$(find "$cache" -maxdepth 1 -name 'v4-*.bin' 2>/dev/null | wc -l)
        [ "$entries" -eq "$images_per_rank" ] || problems+=("$entries cache entries in $cache, expected $images_per_rank")
        temps=$(find "$cache" -maxdepth 1 -name '*.tmp.*' 2>/dev/null | wc -l)
        [ "$temps" -eq 0 ] || problems+=("$temps temporary files left in $cache")
        ;;
      warm)
        [ "$compiles" = 0 ] && [ "$hits" = "$want" ] || problems+=("$compiles compiles, $hits cache hits on a warm cache, expected 0 and $want")
        ;;
      cubin)
        [ "$cubins" = "$want" ] && [ "$compiles" = 0 ] && [ "$hits" = 0 ] || problems+=("$cubins cubins, $compiles compiles, $hits cache hits, expected $want, 0, 0")
        ;;
    esac
    if [ -n "${TP_MPI_GPUS:-}" ]; then  # one node: local rank = rank, device = rank % GPUs
      want_ranks="" want_images=""
      for ((d = 0; d < TP_MPI_GPUS && d < ranks; d++)); do
        on=$((ranks / TP_MPI_GPUS + (d < ranks % TP_MPI_GPUS ? 1 : 0)))
        want_ranks+="${want_ranks:+,}$on" want_images+="${want_images:+,}$((on * images_per_rank))"
      done
      got_ranks=$(value ranks_per_device "$summary")
      [ "$got_ranks" = "$want_ranks" ] && [ "$per_device" = "$want_images" ] ||
        problems+=("ranks per device $got_ranks, images per device $per_device; expected $want_ranks and $want_images (rank % $TP_MPI_GPUS GPUs)")
    fi
    # A partial or damaged cache file is refused and logged: none may be.
    cache_trouble='JIT cache entry .* refused\|JIT cache entry .* did not load\|JIT cache not written'
    refused=$(cat "$OUT/$run".rank.*.log 2>/dev/null | grep -c "$cache_trouble")
    [ "$refused" -eq 0 ] || problems+=("$refused cache refusals or write failures in the rank logs: $(cat "$OUT/$run".rank.*.log | grep -m1 "$cache_trouble")")
    if [ ${#problems[@]} -gt 0 ]; then
      fail "$run" "$(IFS=';'; echo "${problems[*]}")"
      rows[${#rows[@]}-1]="${rows[${#rows[@]}-1]} FAILED"
    fi
  done
done

echo
echo "tritonpack MPI example on ${HOSTNAME:-$(uname -n)}: $(head -n 2 "$OUT"/np*-cold.out 2>/dev/null | sed -n 's/^  GPU of rank 0 *//p' | head -n 1)"
printf '%6s %-6s %9s %11s %7s %18s %18s %-10s %s\n' ranks mode compiles "cache hits" cubins "start-up median" "start-up max" checksum "images per device"
for r in "${rows[@]}"; do
  # shellcheck disable=SC2086
  set -- $r
  if [ $# -lt 9 ]; then
    printf '%6s %-6s %s\n' "$1" "$2" "${3:-?}"
  else
    printf '%6s %-6s %9s %11s %7s %15s ms %15s ms %-10s %s%s\n' "$1" "$2" "$3" "$4" "$5" "$6" "$7" "$8" "$9" "${10:+ ${10}}"
  fi
done
if [ $failures -gt 0 ] || [ $keep_logs = 1 ]; then echo "logs: $OUT"; fi
if [ $failures -gt 0 ]; then
  echo "run_modes.sh: $failures run(s) failed (details above)" >&2
  exit 1
fi
[ $keep_logs = 1 ] || rm -rf "$OUT"
exit 0
