#!/usr/bin/env bash
# bench/autotune/tune_cli.sh — `tritonpack tune` on a GPU node, in one call: builds the CLI and
# autotune_bench (kernels for sm_90), tunes the bench's container over the bench's shapes
# (tune_sizes.json) — first stopped part-way, then resumed, then once more (nothing left to time) —
# packs the table (`pack --tuning`, shown by inspect), and compares each row's config with the
# exhaustive sweep of one autotune_bench run (its per-config medians: best config per shape, and
# the regret of the CLI's choice by the bench's own timings). Needs an NVIDIA GPU, cmake, ninja and
# a python3 with Triton 3.6. Logs, table and CSV in $OUT (else <build>/logs).
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build-tune-cli}
LOGS=${OUT:-$BUILD/logs}
mkdir -p "$LOGS" "$BUILD/runs"
RUNS=$BUILD/runs
PY=${TRITONPACK_PYTHON:-$(command -v python3)}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
date -u
t0=$SECONDS
if ! { cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTRITONPACK_PYTHON="$PY" -DTRITONPACK_BUILD_TESTS=OFF \
         -DTRITONPACK_BUILD_EXAMPLES=OFF -DTRITONPACK_BENCH_AUTOTUNE=ON -DTRITONPACK_FUZZ=OFF \
       && cmake --build "$BUILD" -j "${JOBS:-16}" -t tritonpack_cli autotune_bench; } >"$RUNS/build.log" 2>&1; then
  tail -40 "$RUNS/build.log"; cp "$RUNS/build.log" "$LOGS/"; echo "build FAILED after $((SECONDS - t0)) s"; exit 1
fi
echo "build: $((SECONDS - t0)) s"
CLI=$BUILD/generator/cli/tritonpack
BENCH=$BUILD/bench/autotune/autotune_bench
GEN=$BUILD/bench/autotune/tritonpack/autotune_bench
TPK=$GEN/include/autotune_bench.tpk
SIZES=$ROOT/bench/autotune/tune_sizes.json
TABLE=$LOGS/tune_table.json
rm -f "$TABLE"
tune() { "$CLI" tune "$TPK" --sizes "$SIZES" -o "$TABLE" --budget-ms "${BUDGET_MS:-200}" "$@"; }

# 1. Stopped part-way (SIGTERM after a few seconds), 2. resumed, 3. again: nothing left to time.
t0=$SECONDS
timeout -s TERM "${STOP_AFTER_S:-4}" "$CLI" tune "$TPK" --sizes "$SIZES" -o "$TABLE" --budget-ms "${BUDGET_MS:-200}" \
  >"$RUNS/tune_1_stopped.log" 2>&1
echo "tune run 1 (stopped after ${STOP_AFTER_S:-4} s): exit $?, $(grep -c '^\[' "$RUNS/tune_1_stopped.log") problems reported," \
     "table has $(grep -c '"device"' "$TABLE" 2>/dev/null || echo 0) rows"
t1=$SECONDS
tune >"$RUNS/tune_2_resumed.log" 2>&1; rc=$?
echo "tune run 2 (resumed): exit $rc, $((SECONDS - t1)) s"; cat "$RUNS/tune_2_resumed.log"
t1=$SECONDS
tune >"$RUNS/tune_3_again.log" 2>&1; rc=$?
echo "tune run 3 (again): exit $rc, $((SECONDS - t1)) s: $(tail -1 "$RUNS/tune_3_again.log")"
echo "tune: $((SECONDS - t0)) s in all"

# The table packed into the bench's container (pack --tuning), as inspect shows it.
"$CLI" pack "$GEN/artifacts/manifest.json" -o "$RUNS/packed" --tuning "$TABLE" >"$RUNS/pack.log" 2>&1; echo "pack --tuning: exit $?"
"$CLI" inspect "$RUNS/packed/autotune_bench.tpk" --quick | grep -E "^kernel|tuning:"

# The exhaustive sweep: every config of every shape, interleaved rounds, L2 flushed (bench.cpp).
export TRITONPACK_CACHE_DIR=$RUNS/tune-cache
rm -rf "$TRITONPACK_CACHE_DIR"
t0=$SECONDS
TRITONPACK_TUNE_BUDGET_MS=${BENCH_TUNE_BUDGET_MS:-300} "$BENCH" --csv "$LOGS/bench.csv" --reps "${REPS:-9}" >"$RUNS/bench.log" 2>&1
echo "autotune_bench: exit $?, $((SECONDS - t0)) s"
"$PY" - "$TABLE" "$LOGS/bench.csv" "$LOGS/tune_vs_best.csv" <<'PYEOF'
import csv, json, sys
table, bench, out = sys.argv[1:4]
us = {}  # (kernel, shape) -> [us per config]
for r in csv.DictReader(open(bench)):
    if r["config"].isdigit():
        us.setdefault((r["kernel"], (int(r["m"]), int(r["n"]), int(r["k"]))), {})[int(r["config"])] = float(r["us"])
rows, worst = [], 0.0
for kernel, trs in json.load(open(table))["kernels"].items():
    for t in trs:
        if "tuned_on" in t:
            continue
        p = t["problem"]
        match = [s for s in us if s[0] == kernel and (s[1] == (p["M"], p["N"], p["K"]) if kernel == "matmul" else s[1][1] == p["n_cols"])]
        if len(match) != 1:
            print(f"no bench shape for {kernel} {p}"); continue
        c = us[match[0]]
        best = min(c, key=c.get)
        regret = c[t["config"]] / c[best] - 1 if c[best] > 0 else (0.0 if c[t["config"]] == c[best] else float("inf"))
        worst = max(worst, regret)
        shape = "x".join(str(v) for v in (match[0][1] if kernel == "matmul" else match[0][1][:2]))
        cli_ms = t["times_ns"][t["config"]] / 1e6
        rows.append([kernel, shape, t["config"], best, f"{c[t['config']]:.1f}", f"{c[best]:.1f}", f"{100 * regret:.1f}", f"{cli_ms * 1e3:.1f}", f"{c[0]:.1f}"])
hdr = ["kernel", "shape", "cli_config", "bench_best", "bench_us_cli", "bench_us_best", "regret_pct", "cli_us", "bench_us_config0"]
with open(out, "w", newline="") as f:
    csv.writer(f).writerows([hdr] + rows)
print(("%-8s %-16s %10s %10s %12s %13s %10s %8s %16s") % tuple(hdr))
for r in rows:
    print(("%-8s %-16s %10s %10s %12s %13s %10s %8s %16s") % tuple(r))
print(f"worst regret of the CLI's choice vs the bench's exhaustive best: {100 * worst:.1f}% ({'within' if worst <= 0.03 else 'NOT within'} 3%)")
PYEOF
tar czf "$LOGS/tune_cli_logs.tgz" -C "$RUNS" build.log tune_1_stopped.log tune_2_resumed.log tune_3_again.log pack.log bench.log 2>/dev/null
