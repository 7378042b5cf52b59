"""The side-by-side scripts of the external baselines (apps/lulesh/bench/vs-public-port.sh,
apps/xsbench/bench/vs-anl.sh, both through scripts/ext-common.sh's ext_rounds), run on the fake
programs in their testdata folders: every program on every case in every round, the order rotating
from round to round, whole rounds dropped when the budget is spent, and a wrong result flagged."""
import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
LULESH_BENCH = REPO / "apps" / "lulesh" / "bench"
XSBENCH_BENCH = REPO / "apps" / "xsbench" / "bench"

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")


def run(script, args, cwd, **env):
    e = dict(os.environ)
    e.update({k: str(v) for k, v in env.items()})
    return subprocess.run(["bash", str(script), *map(str, args)], cwd=cwd, env=e, capture_output=True,
                          text=True, timeout=120)


def rows(tsv):
    lines = tsv.read_text().splitlines()
    assert lines[0].startswith("# ")
    return [line.split("\t") for line in lines[1:]]


def test_lulesh_every_program_every_size_every_round_rotating(tmp_path):
    r = run(LULESH_BENCH / "vs-public-port.sh",
            [LULESH_BENCH / "testdata" / "fake-lulesh", LULESH_BENCH / "testdata" / "fake-port"],
            tmp_path, SIZES="10 30", REPS=2, OUT=tmp_path)
    assert r.returncode in (0, 1), r.stderr
    logs = tmp_path / "lulesh-vs-port"
    got = rows(logs / "runs.tsv")
    # s, program, rep, exit, wall, log: 2 rounds x 2 sizes x 3 programs, each run once per round.
    assert len(got) == 12
    assert sorted((g[0], g[1], g[2]) for g in got) == sorted(
        (s, p, rep) for s in ("10", "30") for p in ("tritonpack", "tritonpack-no-fp-fusion", "port")
        for rep in ("1", "2"))
    assert all(g[3] == "0" for g in got)
    for g in got:
        assert (logs / g[5]).is_file() and g[5] == f"lulesh_s{g[0]}_{g[1]}_r{g[2]}.log"
    # The order rotates: round 1 starts each size with the first program, round 2 with the second.
    first = {(g[0], g[2]): g[1] for g in reversed(got)}
    assert first[("10", "1")] == "tritonpack" and first[("10", "2")] == "tritonpack-no-fp-fusion"
    # The fake port ends s = 30 after 922 cycles, as issue 32 saw the real one do.
    assert "FLAG: s = 30, port: 922 cycles, LLNL's reference 932" in r.stdout


def test_lulesh_spent_budget_skips_every_run_and_fails(tmp_path):
    r = run(LULESH_BENCH / "vs-public-port.sh",
            [LULESH_BENCH / "testdata" / "fake-lulesh", LULESH_BENCH / "testdata" / "fake-port"],
            tmp_path, SIZES="10", REPS=2, BUDGET_S=0, OUT=tmp_path)
    assert rows(tmp_path / "lulesh-vs-port" / "runs.tsv") == []
    assert r.stdout.count("skipped (budget 0s spent): s = 10 ") == 6
    assert "runs: " in r.stdout and ", 6 skipped" in r.stdout
    assert r.returncode != 0  # no run: no table, and no "ok"


def test_xsbench_cases_are_size_and_grid(tmp_path):
    r = run(XSBENCH_BENCH / "vs-anl.sh",
            [XSBENCH_BENCH / "testdata" / "fake-xsbench", XSBENCH_BENCH / "testdata" / "fake-anl"],
            tmp_path, XS_SIZES="small", XS_GRIDS="unionized", ANL_KERNELS="0 1", REPS=1,
            OUT=tmp_path)
    assert r.returncode in (0, 1), r.stderr
    got = rows(tmp_path / "xsbench-vs-anl" / "runs.tsv")
    assert [(g[0], g[1], g[2], g[3]) for g in got] == [
        ("small", "unionized", "tritonpack", "1"), ("small", "unionized", "anl-k0", "1"),
        ("small", "unionized", "anl-k1", "1")]
    assert all(g[6] == f"xsbench_small_unionized_{g[2]}_r1.log" for g in got)
    assert "small/unionized: tritonpack/fused / anl-k0 (counterpart) = " in r.stdout


def test_lulesh_extra_builds_run_beside_ours_and_a_bad_one_is_named(tmp_path):
    fake = LULESH_BENCH / "testdata" / "fake-lulesh"
    r = run(LULESH_BENCH / "vs-public-port.sh", [fake, "-"], tmp_path, SIZES="10", REPS=1,
            OURS_MODES="plain", EXTRA_OURS=f"r128={fake} r168={fake}", OUT=tmp_path)
    assert r.returncode in (0, 1), r.stderr
    got = rows(tmp_path / "lulesh-vs-port" / "runs.tsv")
    assert sorted(g[1] for g in got) == ["tritonpack", "tritonpack-r128", "tritonpack-r168"]
    assert "tritonpack-r128 (zc/s)" in r.stdout
    bad = run(LULESH_BENCH / "vs-public-port.sh", [fake, "-"], tmp_path, SIZES="10", REPS=1,
              EXTRA_OURS="r128", OUT=tmp_path)
    assert bad.returncode == 2 and "EXTRA_OURS: 'r128' is not LABEL=PROGRAM" in bad.stderr
