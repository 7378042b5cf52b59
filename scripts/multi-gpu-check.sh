#!/usr/bin/env bash
# scripts/multi-gpu-check.sh — issue 29 ("Runs on several GPUs") in one device call on a machine with
# several NVIDIA GPUs (the nvidia-h200-x2/-x4/-x8 kinds): every table the issue asks for, each step
# under `timeout` and a share of one time budget, then a short summary.
#
#   bash scripts/multi-gpu-check.sh [BUILD]          (default build-mgpu; configured and built here)
#
# Steps (each says what it ran, and what it skipped for lack of time):
#   a. the GPUs: nvidia-smi's list and count (G).
#   b. build lulesh-mpi, mpi_example and tritonpack_gpu_multi_device (cmake + ninja, a no-op when
#      BUILD is up to date).
#   c. per-device state in one process: tritonpack_gpu_multi_device (2 threads per GPU, set_device
#      per thread, results against the CPU, each kernel's image loaded once per device), with cubins
#      and with TRITONPACK_FORCE_IR=1 on a cold JIT cache.
#   d. the MPI example on all GPUs (examples/mpi/run_modes.sh with TP_MPI_GPUS=G): G and 4G ranks,
#      a cold JIT cache with TRITONPACK_FORCE_IR=1, the same cache warm, cubins; start-up per rank
#      (the .out logs, --per-rank), images per device, compiles vs cache hits, checksums.
#   e. LULESH across GPUs, to completion, where the reference MPI build has numbers
#      (apps/lulesh/README.md "Across MPI ranks": 8 x 10, 15, 20 and 27 x 10): iterations and final
#      origin energy against them (lulesh-mpi's own VERIFICATION line).
#   f. LULESH weak scaling: 1, 8, 27 ranks x s = 90, 150 per domain, MGPU_ITERS cycles each, ranks on
#      GPU (node-local rank % G); host-staged halo buffers, and device buffers where the MPI is
#      CUDA-aware. FOM of the whole problem, parallel efficiency against 1 rank on 1 GPU, share of
#      the run in the halo exchanges. No reference exists for these sizes: each row says "no
#      reference", unless step g compares it with one domain of the same global size.
#   g. (time permitting) one domain of each weak-scaling case's global size, -i the same: the
#      decomposition must not change the iteration count or the origin energy (7 digits).
# Every row of the table and the CSV says what was compared; nothing is marked checked that was not.
#
# Environment:
#   MGPU_BUDGET_S      the whole call, seconds (default 560)
#   MGPU_BUILD_S       most seconds for step b (default 240)
#   MGPU_SIZES         s per domain for step f (default "90 150")
#   MGPU_RANKS         rank counts for step f, cubes (default "1 8 27")
#   MGPU_ITERS         cycles per step-f run (default 200)
#   MGPU_VERIFY        ranks:s runs of step e (default "8:10 8:15 8:20 27:10")
#   MGPU_MPI_RANKS     rank counts of step d (default "G 4G", numbers)
#   MGPU_MPI_ARGS      options of the MPI example (default --per-rank: every rank's start-up in its log)
#   MGPU_ONE_DOMAIN_MAX  largest global size step g runs (default 300)
#   MGPU_RUN_CAP_S     most seconds for one weak-scaling run (default 150)
#   MGPU_VERIFY_CAP_S  most seconds for one run to completion of step e (default 90; on one H200,
#                      27 x 10 took 16 s with every rank on the one GPU)
#   (an empty MGPU_SIZES, MGPU_RANKS or MGPU_VERIFY skips those runs)
#   TRITONPACK_PYTHON  the python with triton for the build (default python3)
#   MPIEXEC            the mpirun to use (default mpirun)
#   MGPU_NO_BUILD=1    skip step b: BUILD already holds the three programs (the CPU dry run, ctest
#                      scripts.multi_gpu_check.dry_run: a stand-in nvidia-smi and the test-double driver)
# Output in $OUT (else BUILD/multi-gpu): summary.txt, lulesh_scaling.csv, mpi_example.csv,
# mpi_example_ranks.csv (every rank's start-up), multi_device.txt and logs.tar.gz (every run's log; the device tool returns at most 8 files).
# Plot: python3 apps/lulesh/bench/plot_scaling.py lulesh_scaling.csv -o scaling.png
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/lulesh-log.sh
source "$ROOT/scripts/lulesh-log.sh"
BUILD=${1:-$ROOT/build-mgpu}
RESULTS=${OUT:-$BUILD/multi-gpu}
LOGS=$BUILD/multi-gpu-logs
rm -rf "$LOGS"  # an earlier run's logs would be read as this one's
mkdir -p "$RESULTS" "$LOGS"
BUDGET=${MGPU_BUDGET_S:-560}
DEADLINE=$((SECONDS + BUDGET))
RESERVE=15  # for the summary, the CSV and the tarball
PY=${TRITONPACK_PYTHON:-$(command -v python3)}
SIZES=${MGPU_SIZES-"90 150"}
RANKS=${MGPU_RANKS-"1 8 27"}
ITERS=${MGPU_ITERS:-200}
VERIFY=${MGPU_VERIFY-"8:10 8:15 8:20 27:10"}
ONE_DOMAIN_MAX=${MGPU_ONE_DOMAIN_MAX:-300}
if [ "$(id -u)" = 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
MPIEXEC=${MPIEXEC:-mpirun}
MPIRUN=("$MPIEXEC")
"$MPIEXEC" --version 2>/dev/null | grep -qi "open mpi\|openrte" && MPIRUN+=(--oversubscribe)

SUMMARY=$RESULTS/summary.txt
FAILED=0  # a check that ran and failed (a timeout or a skip is reported, not counted)
: >"$SUMMARY"
say() { echo "$*" | tee -a "$SUMMARY"; }
left() { echo $((DEADLINE - SECONDS - RESERVE)); }
# limit MAX: seconds a step may take now — MAX, or what is left of the budget if less.
limit() { local l; l=$(left); [ "$l" -lt "$1" ] && echo "$l" || echo "$1"; }
# timed SECONDS LOG CMD...: CMD under timeout, output to LOG; returns its status (124/137: timed out).
timed() {
  local s=$1 log=$2
  shift 2
  timeout -k 5 "$s" "$@" >"$log" 2>&1
}
finish() {
  tar -czf "$RESULTS/logs.tar.gz" -C "$BUILD" multi-gpu-logs 2>/dev/null
  say "multi-gpu-check: $((BUDGET - DEADLINE + SECONDS)) s of $BUDGET; logs: logs.tar.gz (multi-gpu-logs/)"
  exit "${1:-0}"
}

# --- a. the GPUs --------------------------------------------------------------------------------
nvidia-smi -L >"$LOGS/gpus.txt" 2>&1
G=$(grep -c '^GPU [0-9]' "$LOGS/gpus.txt")
say "== GPUs: $G"
sed 's/^/   /' "$LOGS/gpus.txt" | tee -a "$SUMMARY"
GPU_NAME=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)
if [ "$G" -lt 2 ]; then
  say "NOTE: $G GPU(s): this is not the multi-GPU measurement of issue 29 (it needs 2 or more GPUs);"
  say "      the steps below still run, as a check of the script on this machine."
fi
[ "$G" -ge 1 ] || { say "no GPU: nothing to run"; finish 1; }
MPI_RANKS=${MGPU_MPI_RANKS:-"$G $((4 * G))"}
say "== MPI: $("$MPIEXEC" --version 2>&1 | head -n 1)"
CUDA_AWARE=$(ompi_info --parsable --all 2>/dev/null | grep -c 'mpi_built_with_cuda_support:value:true')
BUFFERS="host"
[ "$CUDA_AWARE" != 0 ] && BUFFERS="host device"
say "   CUDA-aware: $([ "$CUDA_AWARE" != 0 ] && echo "yes: host-staged and device halo buffers" || echo "no (ompi_info): host-staged halo buffers only")"

# --- b. build -------------------------------------------------------------------------------------
t0=$SECONDS
[ -n "${MGPU_NO_BUILD:-}" ] || {
timed "$(limit 60)" "$LOGS/configure.log" cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DTRITONPACK_PYTHON="$PY" -DTRITONPACK_FUZZ=OFF -DTRITONPACK_BUILD_BENCH=OFF ||
  { say "configure FAILED (configure.log):"; tail -n 30 "$LOGS/configure.log" | tee -a "$SUMMARY"; finish 1; }
timed "$(limit "${MGPU_BUILD_S:-240}")" "$LOGS/build.log" cmake --build "$BUILD" -j "$(nproc)" \
  --target lulesh-mpi mpi_example tritonpack_gpu_multi_device ||
  { say "build FAILED or out of time (build.log):"; tail -n 30 "$LOGS/build.log" | tee -a "$SUMMARY"; finish 1; }
}
LULESH_MPI=$BUILD/apps/lulesh/lulesh-mpi
MPI_EXAMPLE=$(find "$BUILD" -type f -name mpi_example -perm -u+x | head -n 1)
MULTI_DEVICE=$(find "$BUILD" -type f -name tritonpack_gpu_multi_device -perm -u+x | head -n 1)
for p in "$LULESH_MPI" "$MPI_EXAMPLE" "$MULTI_DEVICE"; do
  [ -x "$p" ] || { say "missing program ${p:-mpi_example or tritonpack_gpu_multi_device} in $BUILD"; finish 1; }
done
say "== build: $((SECONDS - t0)) s"

# --- c. per-device state in one process -----------------------------------------------------------
say ""
say "== per-device state in one process (tests/gpu/test_multi_device.cpp): cubins, then forced IR on a cold cache"
: >"$RESULTS/multi_device.txt"
MD=""
for mode in cubin ir; do
  log="$LOGS/multi_device-$mode.txt"
  rm -rf "$LOGS/md-cache"
  TRITONPACK_FORCE_IR=$([ $mode = ir ] && echo 1 || echo 0) TRITONPACK_CACHE_DIR="$LOGS/md-cache" \
    timed "$(limit 60)" "$log" "$MULTI_DEVICE"
  rc=$?
  { echo "== $mode"; cat "$log"; } >>"$RESULTS/multi_device.txt"
  grep -v '^---- load log\|^tritonpack: ' "$log" | sed "s/^/   [$mode] /" | head -n 12 | tee -a "$SUMMARY"
  case $rc in
    0) r="PASS" ;; 77) r="skipped (fewer than 2 GPUs)" ;; 124 | 137) r="timed out" ;; *) r="FAILED (exit $rc)" FAILED=1 ;;
  esac
  MD+="${MD:+; }$mode: $r"
done
say "   result: $MD"

# --- d. the MPI example on all GPUs --------------------------------------------------------------
say ""
say "== the MPI example on all $G GPUs: ranks $MPI_RANKS; cold (forced IR, empty shared cache), warm, cubin"
mpi_s=$(limit $(($(left) * 20 / 100)))
runs=$(($(wc -w <<<"$MPI_RANKS") * 3))
# shellcheck disable=SC2086
TP_MPI_GPUS=$G TP_MPI_ARGS="${MGPU_MPI_ARGS:---per-rank}" TP_MPI_TIMEOUT=$((mpi_s / runs > 20 ? mpi_s / runs : 20)) MPIEXEC=$MPIEXEC \
  OUT="$LOGS/mpi" timeout -k 5 "$mpi_s" bash "$ROOT/examples/mpi/run_modes.sh" "$MPI_EXAMPLE" $MPI_RANKS \
  >"$LOGS/mpi_example.txt" 2>&1
rc=$?
sed -n '/^tritonpack MPI example on/,$p' "$LOGS/mpi_example.txt" | sed 's/^/   /' | tee -a "$SUMMARY"
grep '^FAILED' "$LOGS/mpi_example.txt" | sed 's/^/   /' | tee -a "$SUMMARY"
[ $rc = 124 ] || [ $rc = 137 ] && say "   (stopped at its share of the budget, $mpi_s s)"
[ $rc = 0 ] || [ $rc = 124 ] || [ $rc = 137 ] || FAILED=1
say "   result: $([ $rc = 0 ] && echo "every run passed run_modes.sh's checks (counts, cache entries, spread over $G GPUs)" || echo "FAILED (exit $rc, mpi_example.txt)")"
# The cold runs: how often each of the 2 images was compiled on the node (the JIT cache has no lock:
# ranks that start before an image's entry is written compile it too; run_modes.sh checks that the
# cache ends with one entry per image).
for f in "$LOGS"/mpi/np*-cold.out; do
  [ -f "$f" ] || continue
  c=$(sed -n 's/^summary:.*\bcompiles=\([0-9]*\).*/\1/p' "$f")
  [ -n "$c" ] || continue
  n=$(basename "$f" -cold.out)
  say "   cold, ${n#np} ranks: $c compiles of the 2 images on this node$([ "$c" = 2 ] && echo ": each image compiled once per node" || echo " (ranks starting before an entry was written compiled it too)")"
done
{
  echo "gpus,ranks,mode,compiles,cache_hits,cubins,startup_median_ms,startup_max_ms,checksum,images_per_device,status"
  for f in "$LOGS"/mpi/np*-*.out; do
    [ -f "$f" ] || continue
    run=$(basename "$f" .out) np=${run%%-*} np=${np#np} mode=${run#*-}
    sum=$(grep '^summary:' "$f" | tail -n 1)
    v() { sed -n "s/.*\\b$1=\\([^ ]*\\).*/\\1/p" <<<"$sum"; }
    st=$(grep -q "FAILED: $run:" "$LOGS/mpi_example.txt" && echo FAILED || { [ -n "$sum" ] && echo ok || echo "no summary"; })
    echo "$G,$np,$mode,$(v compiles),$(v cache_hits),$(v cubins),$(v startup_median_ms),$(v startup_max_ms),$(v checksum),\"$(v images_per_device)\",$st"
  done
} >"$RESULTS/mpi_example.csv"
# Every rank's start-up and images (the example's --per-rank rows), one line per rank and run.
{
  echo "gpus,ranks,mode,rank,local_rank,device,startup_ms,cubins,compiles,cache_hits,result"
  for f in "$LOGS"/mpi/np*-*.out; do
    [ -f "$f" ] || continue
    run=$(basename "$f" .out) np=${run%%-*} np=${np#np} mode=${run#*-}
    awk -v pre="$G,$np,$mode" '/^ *rank +local +device/ {on = 1; next}
      on && NF >= 9 && $5 == "ms" {r = $9; for (i = 10; i <= NF; i++) r = r " " $i; gsub(/"/, "", r)
        printf "%s,%s,%s,%s,%s,%s,%s,%s,\"%s\"\n", pre, $1, $2, $3, $4, $6, $7, $8, r}
      on && NF == 0 {on = 0}' "$f"
  done
} >"$RESULTS/mpi_example_ranks.csv"

# --- LULESH runs ----------------------------------------------------------------------------------
CSV=$RESULTS/lulesh_scaling.csv
echo "kind,gpus,gpu_name,ranks,s,global,buffers,iterations,devices_used,fom_zps,speedup_vs_1,efficiency_vs_1gpu,comm_pct,elapsed_s,origin_energy,compared_with,check,status" >"$CSV"
declare -A FOM1 ENERGY
# lulesh_run KIND NP S BUFFERS ITERS(-: to completion) — runs one case, parses its log, appends the
# CSV row and a table row.
lulesh_run() {
  local kind=$1 np=$2 s=$3 b=$4 its=$5
  local side g log rc cap
  side=$(python3 -c "print(round($np ** (1/3)))")
  g=$((side * s))
  log="$LOGS/lulesh-$kind-np$np-s$s-$b.log"
  cap=$(limit "$([ "$kind" = verify ] && echo "${MGPU_VERIFY_CAP_S:-90}" || echo "${MGPU_RUN_CAP_S:-150}")")
  if [ "$cap" -lt 20 ]; then
    echo "$kind,$G,\"$GPU_NAME\",$np,$s,$g,$b,,,,,,,,,,,skipped (budget)" >>"$CSV"
    return
  fi
  local args=(-s "$s" --require-gpu --mpi-buffers "$b")
  [ "$its" != - ] && args+=(-i "$its")
  timed "$cap" "$log" "${MPIRUN[@]}" -np "$np" "$LULESH_MPI" "${args[@]}"
  rc=$?
  local iters energy fom comm elapsed devs verdict refit ref status compared check
  iters=$(lulesh_iters "$log")
  energy=$(lulesh_energy "$log")
  fom=$(awk '/^FOM/ {print $3}' "$log")
  comm=$(awk '/^Communication/ {print $8}' "$log" | tr -d '%')
  elapsed=$(awk '/^Elapsed time/ {print $4}' "$log")
  devs=$(grep -o 'device [0-9]*: ranks' "$log" | sort -u | wc -l)
  verdict=$(lulesh_verdict "$log")
  refit=$(awk '/iteration count  / {print $5}' "$log")
  ref=$(awk '/final origin energy/ {print $6}' "$log")
  status=ok
  [ $rc = 124 ] || [ $rc = 137 ] && status="timed out ($cap s)"
  [ $rc != 0 ] && [ "$status" = ok ] && status="exit $rc"
  # The ranks must have spread over min(ranks, G) GPUs (lulesh-mpi lists each rank's device).
  local want_devs=$((np < G ? np : G))
  [ "$status" = ok ] && [ "${devs:-0}" != "$want_devs" ] && status="ranks on ${devs:-0} GPU(s), expected $want_devs"
  if [ -n "$verdict" ]; then
    compared="reference MPI build: $refit / $ref"
    check=$verdict
    [ "$verdict" = PASS ] || FAILED=1
  elif [ "$kind" = verify ] && ! grep -q 'Verification: not applicable' "$log"; then
    compared="reference MPI build (the run did not get there)"
    check="NOT VERIFIED"
  else
    compared="no reference"
    check="-"
  fi
  [ "$status" = ok ] || [ "${status#timed out}" != "$status" ] || FAILED=1
  [ "$kind" = scaling ] && [ -n "$energy" ] && ENERGY[$np:$s:$b]="$iters $energy"
  local speedup="" eff=""
  if [ "$kind" = scaling ] && [ -n "$fom" ]; then
    [ "$np" = 1 ] && FOM1[$s]=$fom
    if [ -n "${FOM1[$s]:-}" ]; then
      local used=$want_devs
      speedup=$(python3 -c "print(f'{$fom / ${FOM1[$s]}:.3f}')")
      eff=$(python3 -c "print(f'{$fom / (${FOM1[$s]} * $used):.3f}')")
    fi
  fi
  echo "$kind,$G,\"$GPU_NAME\",$np,$s,$g,$b,${iters:-},${devs:-},${fom:-},$speedup,$eff,${comm:-},${elapsed:-},${energy:-},\"$compared\",${check},$status" >>"$CSV"
}

say ""
say "== LULESH across $G GPUs (lulesh-mpi; rank r on GPU r % $G)"
for c in $VERIFY; do
  for b in $BUFFERS; do lulesh_run verify "${c%%:*}" "${c##*:}" "$b" -; done
done
for s in $SIZES; do
  for np in $RANKS; do
    for b in $BUFFERS; do
      [ "$np" = 1 ] && [ "$b" = device ] && continue  # one rank: no halo exchange to stage
      lulesh_run scaling "$np" "$s" "$b" "$ITERS"
    done
  done
done

# --- g. one domain of the same global size (time permitting) --------------------------------------
for s in $SIZES; do
  for np in $RANKS; do
    [ "$np" = 1 ] && continue
    side=$(python3 -c "print(round($np ** (1/3)))")
    g=$((side * s))
    [ "$g" -le "$ONE_DOMAIN_MAX" ] || continue
    have=${ENERGY[$np:$s:host]:-}
    [ -n "$have" ] || continue
    log="$LOGS/lulesh-one-domain-s$g.log"
    cap=$(limit 180)
    if [ "$cap" -lt 30 ]; then
      say "   one domain s = $g (for $np x $s): skipped, out of budget"
      continue
    fi
    timed "$cap" "$log" "${MPIRUN[@]}" -np 1 "$LULESH_MPI" -s "$g" -i "$ITERS" --require-gpu
    one="$(lulesh_iters "$log") $(lulesh_energy "$log")"
    if [ "$one" = "$have" ]; then verdict="equal to one domain s = $g ($one)"
    else verdict="DIFFERS from one domain s = $g: $have vs $one" FAILED=1; fi
    say "   $np x $s (host buffers), -i $ITERS: $verdict"
    # The weak-scaling rows of this case (both buffer paths) name the comparison.
    for b in $BUFFERS; do
      got=${ENERGY[$np:$s:$b]:-}
      [ -n "$got" ] || continue
      v=$([ "$got" = "$one" ] && echo "equal to one domain" || echo "DIFFERS from one domain")
      sed -i "s|^scaling,\\(.*\\),$np,$s,$g,$b,\\(.*\\),\"no reference\",-,|scaling,\\1,$np,$s,$g,$b,\\2,\"one domain s = $g -i $ITERS: $one\",$v,|" "$CSV"
    done
  done
done

say ""
# The table, from the CSV (so that it shows step g's comparisons too).
python3 - "$CSV" <<'PY' | tee -a "$SUMMARY"
import csv, sys
cols = [("kind", "kind", 8), ("ranks", "ranks", 5), ("s", "s", 4), ("global", "global", 6), ("buffers", "bufs", 6),
        ("iterations", "iters", 6), ("devices_used", "GPUs", 4), ("fom_zps", "FOM (z/s)", 12),
        ("efficiency_vs_1gpu", "eff/GPU", 7), ("comm_pct", "comm%", 6), ("elapsed_s", "time s", 7),
        ("origin_energy", "origin energy", 13), ("check", "check", 20), ("status", "status", 0)]
print(" ".join(f"{h:<{w}}" for _, h, w in cols).rstrip())
for r in csv.DictReader(open(sys.argv[1])):
    if r["check"] in ("", "-"):  # nothing compared: say so in the check column
        r["check"] = r["compared_with"] or "-"
    print(" ".join(f"{(r[k] or '-'):<{w}}" for k, _, w in cols).rstrip())
    if r["compared_with"] and r["compared_with"] != r["check"]:
        print(f"{'':>10}compared with {r['compared_with']}")
PY
say "(eff/GPU: FOM / (GPUs used x FOM of 1 rank on 1 GPU), same s; GPUs used = min(ranks, $G), checked against the"
say " devices lulesh-mpi reports for its ranks (status says when they differ). Weak-scaling runs"
say " stop after -i $ITERS cycles: no reference exists for them, only step g's one-domain comparison.)"
incomplete=$(grep -c 'timed out\|skipped\|NOT VERIFIED' "$CSV")
say "multi-gpu-check: $([ $FAILED = 0 ] && echo "no check failed" || echo "SOME CHECK FAILED (above)")$([ "$incomplete" = 0 ] || echo "; $incomplete LULESH run(s) timed out, skipped or not verified (above)")"
finish $FAILED
