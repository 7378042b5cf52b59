"""apps/lulesh/bench/kernel_profile.py, the per-kernel table of kernel-profile.sh, on Nsight Compute
raw pages written here (ncu's format: a header row, a units row, one row per launch): time per cycle
summed over launches, occupancy weighted by time, the DRAM rate from bytes and time, template
arguments kept and parameter lists dropped from names; and a page without kernels or without the
duration column refused, so that a profile that did not run is never tabulated."""
import csv
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "apps" / "lulesh" / "bench" / "kernel_profile.py"
HEADER = ["ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream", "Block Size",
          "Grid Size", "Device", "CC", "dram__bytes_read.sum", "dram__bytes_write.sum", "gpu__time_duration.sum",
          "launch__registers_per_thread", "sm__warps_active.avg.pct_of_peak_sustained_active"]
UNITS = ["", "", "", "", "", "", "", "", "", "", "", "byte", "byte", "nsecond", "register/thread", "%"]


def page(path, launches):
    """launches: (kernel name, read bytes, written bytes, ns, registers, occupancy %)."""
    with open(path, "w", newline="") as f:
        f.write("==PROF== Connected to process 1\n")  # ncu's own lines are not CSV rows
        w = csv.writer(f, quoting=csv.QUOTE_ALL)
        w.writerow(HEADER)
        w.writerow(UNITS)
        for i, (name, rd, wr, ns, regs, occ) in enumerate(launches):
            w.writerow([i, 1, "lulesh", "h", name, 1, 7, "(64, 1, 1)", "(10, 1, 1)", 0, "9.0",
                        f"{rd:,}", wr, ns, regs, occ])
    return path


def run(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True,
                          timeout=60)


def test_per_cycle_sums_weighted_occupancy_and_names(tmp_path):
    ours = page(tmp_path / "ours.csv", [
        ("volume_force", 1_000_000, 2_200_000, 500_000, 254, 12.0),
        ("advance_nodes", 0, 1_000_000, 100_000, 32, 90.0),
        ("volume_force", 1_000_000, 2_200_000, 300_000, 254, 20.0),
    ])
    port = page(tmp_path / "port.csv", [
        ("void CalcVolumeForceForElems_kernel<true>(const double *, int)", 3_000_000, 0, 400_000, 252, 11.9),
    ])
    out = tmp_path / "table.csv"
    r = run("--cycles", 2, f"ours={ours}", f"port={port}", "--csv", out)
    assert r.returncode == 0, r.stderr
    # GPU time per cycle: (500 + 100 + 300) µs over 2 cycles.
    assert "### ours: 450.0 µs of GPU time per cycle (3 launches over 2 cycles)" in r.stdout
    rows = {(x["program"], x["kernel"]): x for x in csv.DictReader(out.open())}
    vf = rows[("ours", "volume_force")]
    assert float(vf["launches_per_cycle"]) == 1.0
    assert float(vf["us_per_cycle"]) == 400.0                       # 800 µs over 2 cycles
    assert float(vf["achieved_occupancy_pct"]) == 15.0              # (12 * 500 + 20 * 300) / 800
    assert float(vf["dram_mb_per_cycle"]) == 3.2                    # 6.4 MB over 2 cycles
    assert float(vf["dram_gb_s"]) == 8.0                            # 6.4e6 bytes / 800e3 ns
    assert vf["registers"] == "254"
    # The port's kernel: "void" and the parameter list dropped, the template argument kept.
    assert ("port", "CalcVolumeForceForElems_kernel<true>") in rows
    # Sorted by time within a program: volume_force's row before advance_nodes'.
    assert r.stdout.index("| volume_force |") < r.stdout.index("| advance_nodes |")


def test_a_profile_that_did_not_run_is_refused(tmp_path):
    empty = tmp_path / "empty.csv"
    empty.write_text("==PROF== Target process terminated before first instrumented API call.\n")
    r = run("--cycles", 6, f"ours={empty}")
    assert r.returncode != 0
    assert "no kernel rows" in r.stderr and "did ncu run?" in r.stderr
    no_duration = tmp_path / "no_duration.csv"
    no_duration.write_text('"ID","Kernel Name","launch__registers_per_thread"\n"","","register/thread"\n'
                           '"0","volume_force","254"\n')
    r = run("--cycles", 6, f"ours={no_duration}")
    assert r.returncode != 0 and "gpu__time_duration.sum" in r.stderr
    no_names = tmp_path / "no_names.csv"  # another page of ncu's, not the raw one: a message, no traceback
    no_names.write_text('"ID","gpu__time_duration.sum"\n"","nsecond"\n"0","1000"\n')
    r = run("--cycles", 6, f"ours={no_names}")
    assert r.returncode != 0 and "no kernel rows" in r.stderr and "Traceback" not in r.stderr


def test_label_without_file_is_a_usage_error(tmp_path):
    r = run("--cycles", 6, "ours")
    assert r.returncode != 0 and "is not LABEL=FILE.csv" in r.stderr
