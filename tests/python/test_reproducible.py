"""Reproducible output: the same spec and kernels compiled in two folders (other absolute paths,
other compile caches) give byte-identical artifacts and manifests, none of which names a folder of
the build machine, and they pack into byte-identical containers and headers (docs/manifest.md,
"Reproducible output")."""
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import DATA, write_spec
from test_container_reader import packer
from tritonpack_compile.frontend import compile_spec
from tritonpack_compile.worker import portable_source_name

SPEC = """
    name = "repro"
    targets = ["sm_80"]
    mode = "both"
    [[kernel]]
    source = "kernels.py:row_softmax"
    signatures = ["*fp32, *fp32, i32, i32, i32, 128"]
"""


def test_portable_source_name():
    roots = [Path("/home/u/proj/src"), Path("/venv/lib/python3.11/site-packages")]
    assert portable_source_name("/home/u/proj/src/kernels.py", roots) == "kernels.py"
    assert portable_source_name("/home/u/proj/src/sub/helpers.py", roots) == "sub/helpers.py"
    assert portable_source_name("/venv/lib/python3.11/site-packages/triton/language/standard.py",
                                roots) == "triton/language/standard.py"
    assert portable_source_name("/elsewhere/k.py", roots) == "/elsewhere/k.py"  # no root holds it
    assert portable_source_name("kernels.py", roots) == "kernels.py"


def files_under(folder: Path) -> dict:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.slow
def test_the_same_spec_in_two_folders_gives_identical_artifacts_and_containers(tmp_path):
    import triton
    outs = []
    for where in ("a", "somewhere/much/deeper/b"):
        proj = tmp_path / where
        proj.mkdir(parents=True)
        shutil.copy(DATA / "kernels.py", proj / "kernels.py")
        spec = write_spec(proj, SPEC)
        compile_spec(spec, proj / "out", jobs=1, cache_dir=tmp_path / f"cache-{len(outs)}", quiet=True)
        outs.append(proj / "out")
    first, second = files_under(outs[0]), files_under(outs[1])
    assert sorted(first) == sorted(second)
    triton_dir = str(Path(triton.__file__).resolve().parent.parent).encode()
    for name, data in first.items():
        assert data == second[name], f"{name} differs between the two folders"
        # Triton writes source locations into the PTX (.file), the cubin's line table, the LLVM
        # IR (DIFile) and code objects: relative ones only.
        assert str(tmp_path).encode() not in data, f"{name} names the build folder"
        # Triton's own metadata (kept verbatim) names its libdevice by absolute path; the packer
        # reads launch facts from it only, so that path reaches no container (checked below).
        if not (name.endswith(".json") and name != "manifest.json"):
            assert triton_dir not in data, f"{name} names the folder Triton is installed in"
    ptx = next(data for name, data in first.items() if name.endswith(".ptx")).decode()
    assert '.file\t1 "kernels.py"' in ptx and '"triton/language/standard.py"' in ptx  # line info kept

    packed = []
    for out in outs:
        subprocess.run([packer(), "pack", str(out / "manifest.json"), "-o", str(out.parent / "inc")], check=True,
                       capture_output=True)
        packed.append(files_under(out.parent / "inc"))
    assert sorted(packed[0]) == ["repro.hpp", "repro.tpk"]
    assert packed[0] == packed[1]
    for name, data in packed[0].items():
        assert str(tmp_path).encode() not in data and triton_dir not in data, f"{name} names a build-machine folder"
