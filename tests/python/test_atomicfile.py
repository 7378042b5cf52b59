"""Files the front end writes whole (atomicfile.py): a symbolic link planted at a predictable
temporary name is never written through; nothing is left behind on failure."""
import os

import pytest

from tritonpack_compile.atomicfile import atomic_write


def test_a_link_planted_at_the_old_temporary_name_is_left_alone(tmp_path):
    victim = tmp_path / "victim_profile"
    victim.write_text("export PATH=/usr/bin\n")
    out = tmp_path / "out" / "manifest.json"
    out.parent.mkdir()
    # The names a fixed scheme would use: `.<name>.<pid>.tmp` (the earlier one), `<name>.tmp`.
    for name in (f".{out.name}.{os.getpid()}.tmp", f"{out.name}.tmp"):
        (out.parent / name).symlink_to(victim)
    atomic_write(out, b'{"kernels": []}')
    assert victim.read_text() == "export PATH=/usr/bin\n"
    assert out.read_bytes() == b'{"kernels": []}'
    assert not out.is_symlink()
    left = sorted(p.name for p in out.parent.iterdir())
    assert left == sorted([f".{out.name}.{os.getpid()}.tmp", f"{out.name}.tmp", out.name])


def test_temporaries_have_random_names_and_the_umask_mode(tmp_path, monkeypatch):
    seen = []
    real_replace = os.replace

    def spy(src, dst):
        seen.append(os.path.basename(src))
        return real_replace(src, dst)

    monkeypatch.setattr(os, "replace", spy)
    for _ in range(2):
        atomic_write(tmp_path / "a.json", b"{}")
    assert len(set(seen)) == 2
    assert all(n.startswith(".a.json.") and n.endswith(".tmp") and len(n) == len(".a.json..tmp") + 16 for n in seen)
    umask = os.umask(0)
    os.umask(umask)
    assert (tmp_path / "a.json").stat().st_mode & 0o777 == 0o666 & ~umask


def test_a_failed_write_leaves_no_temporary(tmp_path):
    (tmp_path / "out.json").mkdir()  # a directory stands where the file goes: the rename fails
    with pytest.raises(OSError):
        atomic_write(tmp_path / "out.json", b"{}")
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]
