#!/usr/bin/env bash
# bench/autotune/tune_cli.sh — `tritonpack tune` on a GPU node, in one call: builds the CLI and the
# bench's container (kernels for sm_90), tunes it over the bench's shapes (tune_sizes.json) — first
# stopped part-way, then resumed, then once more (nothing left to time) — packs the table (`pack
# --tuning`, shown by inspect) and compares each row's config with an exhaustive sweep: the one in
# bench/autotune/RESULTS.md (always), and with BENCH=1 (the default) a fresh autotune_bench run in
# the same call (its per-config medians: the regret of the CLI's choice by the bench's own timings).
# Needs an NVIDIA GPU, cmake, ninja and a python3 with Triton 3.6. Table, CSV and logs in $OUT
# (else <build>/logs).
#   BENCH=0            no autotune_bench build or run (less device time)
#   BUDGET_MS=200      tune --budget-ms;  STOP_AFTER_S=4  when run 1 is stopped;  REPS=9  bench rounds
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build-tune-cli}
LOGS=${OUT:-$BUILD/logs}
RUNS=$BUILD/runs
mkdir -p "$LOGS" "$RUNS"
PY=${TRITONPACK_PYTHON:-$(command -v python3)}
BENCH=${BENCH:-1}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
date -u
targets="tritonpack_cli autotune_bench_tritonpack_autotune_bench"
[ "$BENCH" = 1 ] && targets="$targets autotune_bench"
t0=$SECONDS
if ! { cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTRITONPACK_PYTHON="$PY" -DTRITONPACK_BUILD_TESTS=OFF \
         -DTRITONPACK_BUILD_EXAMPLES=OFF -DTRITONPACK_BENCH_AUTOTUNE=ON -DTRITONPACK_FUZZ=OFF \
       && cmake --build "$BUILD" -j "${JOBS:-16}" -t $targets; } >"$RUNS/build.log" 2>&1; then
  tail -40 "$RUNS/build.log"; cp "$RUNS/build.log" "$LOGS/"; echo "build FAILED after $((SECONDS - t0)) s"; exit 1
fi
echo "build ($targets): $((SECONDS - t0)) s"
CLI=$BUILD/generator/cli/tritonpack
BENCH_EXE=$BUILD/bench/autotune/autotune_bench
GEN=$BUILD/bench/autotune/tritonpack/autotune_bench
TPK=$GEN/include/autotune_bench.tpk
SIZES=$ROOT/bench/autotune/tune_sizes.json
TABLE=$LOGS/tune_table.json
rm -f "$TABLE"
tune() { "$CLI" tune "$TPK" --sizes "$SIZES" -o "$TABLE" --budget-ms "${BUDGET_MS:-200}" "$@"; }

# 1. Stopped part-way (SIGTERM), 2. resumed, 3. again: nothing left to time.
t0=$SECONDS
timeout -s TERM "${STOP_AFTER_S:-4}" "$CLI" tune "$TPK" --sizes "$SIZES" -o "$TABLE" --budget-ms "${BUDGET_MS:-200}" \
  >"$RUNS/tune_1_stopped.log" 2>&1
echo "tune run 1 (stopped after ${STOP_AFTER_S:-4} s): exit $?, $(grep -c '^\[.*: config' "$RUNS/tune_1_stopped.log") problems timed," \
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

# A fresh exhaustive sweep: every config of every shape, interleaved rounds, L2 flushed (bench.cpp).
if [ "$BENCH" = 1 ]; then
  export TRITONPACK_CACHE_DIR=$RUNS/tune-cache
  rm -rf "$TRITONPACK_CACHE_DIR"
  t0=$SECONDS
  TRITONPACK_TUNE_BUDGET_MS=${BENCH_TUNE_BUDGET_MS:-300} "$BENCH_EXE" --csv "$LOGS/bench.csv" --reps "${REPS:-9}" >"$RUNS/bench.log" 2>&1
  echo "autotune_bench: exit $?, $((SECONDS - t0)) s"
fi
# Against the committed sweep (bench/autotune/logs/autotune.csv, RESULTS.md's run) and, with
# BENCH=1, this call's.
sweeps=("$ROOT/bench/autotune/logs/autotune.csv")
[ "$BENCH" = 1 ] && sweeps+=("$LOGS/bench.csv")
"$PY" - "$TABLE" "$LOGS/tune_vs_best.csv" "${sweeps[@]}" <<'PYEOF'
# Each row of the CLI's table against exhaustive sweeps (autotune_bench's CSV: every config's median
# per shape): the sweep's best config and the regret of the CLI's config by the sweep's own times,
# time(CLI's config) / time(best) - 1.
import csv, json, os, sys
table, out, sweeps = sys.argv[1], sys.argv[2], sys.argv[3:]
def key_of(kernel, m, n, k):
    return f"{m}x{n}x{k}" if kernel == "matmul" else int(n)  # softmax: by row width (its key)
data = []  # per sweep: (kernel, key) -> {config: us}
for path in sweeps:
    d = {}
    if os.path.exists(path):
        for r in csv.DictReader(open(path)):
            if r["config"].isdigit():
                d.setdefault((r["kernel"], key_of(r["kernel"], r["m"], r["n"], r["k"])), {})[int(r["config"])] = float(r["us"])
    data.append(d)
names = ["committed", "this_call"][: len(sweeps)]
hdr = ["kernel", "shape", "cli_config", "cli_us", "cli_config0_us"] + [f"{n}_{x}" for n in names for x in ("best", "regret_pct")]
rows, worst, same = [], [0.0] * len(sweeps), [0] * len(sweeps)
for kernel, trs in json.load(open(table))["kernels"].items():
    for t in trs:
        if "tuned_on" in t:
            continue
        p, c, ns = t["problem"], t["config"], t["times_ns"]
        key = key_of(kernel, p.get("M"), p.get("N", p.get("n_cols")), p.get("K"))
        row = [kernel, key, c, f"{ns[c] / 1e3:.1f}", f"{ns[0] / 1e3:.1f}" if ns[0] is not None else "-"]
        for i, d in enumerate(data):
            s = d.get((kernel, key))
            if not s:
                row += ["-", "-"]
                continue
            b = min(s, key=s.get)
            regret = s[c] / s[b] - 1 if s[b] > 0 else float(s[c] > s[b])  # a zero time: only the fake driver
            worst[i] = max(worst[i], regret)
            same[i] += b == c
            row += [b, f"{100 * regret:.1f}"]
        rows.append(row)
with open(out, "w", newline="") as f:
    csv.writer(f).writerows([hdr] + rows)
fmt = "%-8s %-15s %10s %8s %14s" + " %14s %20s" * len(sweeps)
print(fmt % tuple(hdr))
for r in rows:
    print(fmt % tuple(str(x) for x in r))
for i, n in enumerate(names):
    print(f"vs the {n} sweep ({sweeps[i]}): the sweep's best config on {same[i]} of {len(rows)} shapes; worst regret "
          f"{100 * worst[i]:.1f}% ({'within' if worst[i] <= 0.03 else 'NOT within'} 3%)")
PYEOF
tar czf "$LOGS/tune_cli_logs.tgz" -C "$RUNS" $(cd "$RUNS" && ls *.log) 2>/dev/null
