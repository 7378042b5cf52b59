"""Statements in the docs that once were stale: each checked against what is true now."""
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def text(rel):
    return (ROOT / rel).read_text(encoding="utf-8")


def test_quickstart_does_not_say_amd_launching_needs_a_missing_backend():
    main = text("examples/quickstart/main.cpp")
    assert "launching it needs the run time's HIP" not in main
    assert (ROOT / "include/tritonpack/hip/backend.hpp").is_file()  # the HIP backend exists
    assert "the run time's HIP backend launches it" in main


def test_readme_layout_names_the_tune_and_strip_commands():
    layout = text("README.md").split("## Layout", 1)[1]
    assert "`tritonpack pack | inspect | extract | strip | tune`" in layout


def test_c_fortran_by_hand_link_line_is_complete():
    doc = text("docs/c-fortran.md")
    assert "-lzstd -ldl -lm -pthread" in doc
    assert "libtritonpack_runtime.a" in doc and "-DTRITONPACK_SEPARATE" in doc


def test_readme_compile_cost_quotes_bench_compile_cost_latest_run():
    # README's figures are bench/compile_cost's last run (results.csv), not an older one: the
    # g++ 12 -O2 rows of the calling translation unit in both modes and of src/runtime.cpp, and the
    # day they were measured.
    import csv
    rows = {r["mode"]: r for r in csv.DictReader(open(ROOT / "bench/compile_cost/results.csv"))
            if r["compiler"].startswith("g++") and r["opt"] == "-O2"}
    readme = " ".join(text("README.md").split("### Compiling the run time once", 1)[1].split("```", 1)[0].split())
    sep, whole, once = rows["separate"], rows["header-only"], rows["separate, once"]
    assert "%.2f s of CPU and %.0f MB peak" % (float(sep["cpu_s_median"]), float(sep["peak_rss_mb_median"])) in readme
    assert "measured %s" % sep["measured_utc"].split()[0] in readme
    assert "costs %.1f s and %.0f MB" % (float(whole["cpu_s_median"]), float(whole["peak_rss_mb_median"])) in readme
    assert "(%.0f s, %.0f MB)" % (float(once["cpu_s_median"]), float(once["peak_rss_mb_median"])) in readme


def test_readme_app_paragraphs_lead_with_the_external_baselines():
    readme = text("README.md")
    lulesh = readme.split("## LULESH 2.0", 1)[1].split("## MPI", 1)[0]
    assert lulesh.index("public CUDA port") < lulesh.index("our own CUDA C++ twin")
    xs = readme.split("### XSBench", 1)[1].split("## Autotuning", 1)[0]
    assert xs.index("ANL's own CUDA version") < xs.index("our own CUDA twin")
    # Both external baselines were run beside ours (session 13): the paragraphs say so, and no
    # longer quote figures "not run here".
    for para in (" ".join(lulesh.split()), " ".join(xs.split())):
        assert "side by side in one device call" in para
        assert "not run side by side here" not in para and "not run here" not in para
