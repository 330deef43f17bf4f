"""A damaged archive's next step is a good copy of the wheel, not a renamed entry (newuser73).

A real click 8.1.8 wheel with one byte flipped in a deflate stream failed W604 in `audit` and
`wheels`, and the step said "rebuild it without it, renaming or dropping each entry named":
no entry is misnamed, and the one that fails is the file pip needs. The step for a stream that
fails its own CRC-32 (and the other codes that say the archive is not as its zip writer wrote
it) copies the wheel again, checks its hash, and rebuilds only where a fresh copy fails alike.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import wheelkit
from cli_support import run_k3diff

FILES = {
    "engine/__init__.py": b"VERSION = '1.0'\n",
    "engine/model.py": b"".join(b"def f%d(x):\n    return x * %d\n" % (i, i) for i in range(400)),
}


def _damaged(directory: Path) -> Path:
    """A copy of the wheel in `directory` with one byte of `engine/model.py`'s stream flipped
    (the directory and headers untouched)."""
    good = wheelkit.make_wheel(directory / "good", "engine", "1.0", FILES)
    with zipfile.ZipFile(good) as archive:
        info = archive.getinfo("engine/model.py")
    data = bytearray(good.read_bytes())
    name_len = int.from_bytes(data[info.header_offset + 26 : info.header_offset + 28], "little")
    extra_len = int.from_bytes(data[info.header_offset + 28 : info.header_offset + 30], "little")
    start = info.header_offset + 30 + name_len + extra_len
    data[start + info.compress_size // 2] ^= 0x10
    damaged = directory / "dist" / good.name
    damaged.parent.mkdir()
    damaged.write_bytes(bytes(data))
    return damaged


def _step(stdout: str) -> str:
    (step,) = [line for line in stdout.splitlines() if "no waiver accepts" in line]
    return step


def test_audit_of_a_damaged_wheel_says_copy_it_again(tmp_path: Path) -> None:
    damaged = _damaged(tmp_path)
    result = run_k3diff("audit", "dist/" + damaged.name, cwd=tmp_path)
    assert result.exit_code == 1
    step = _step(result.stdout)
    assert step.startswith("  1 × W604: no waiver accepts it (the archive is not as its zip")
    assert "renaming or dropping" not in step
    assert "copy the wheel again from where it was built" in step
    assert f"sha256sum dist/{damaged.name} gives the hash" in step
    assert "and audit it again; where a fresh copy fails alike, rebuild it" in step


def test_wheels_with_a_damaged_patch_says_copy_it_again(tmp_path: Path) -> None:
    damaged = _damaged(tmp_path)
    base = f"good/{damaged.name}"
    result = run_k3diff("wheels", base, f"dist/{damaged.name}", cwd=tmp_path)
    assert result.exit_code == 1
    step = _step(result.stdout)
    assert step.startswith("  1 × W604: no waiver accepts it (the archive is not as its zip")
    assert "renaming or dropping" not in step
    assert "the detail says which wheel): copy that wheel again" in step
    assert f"sha256sum {base} dist/{damaged.name} gives the hash" in step
    assert "and compare it again" in step
