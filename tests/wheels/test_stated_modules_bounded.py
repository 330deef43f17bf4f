"""`wheels` reads a bounded part of a wheel's version modules for the commit it states: at most
16 modules and 256 KiB of them in all, the first in name order (docs/wheels.md, "The commit a
wheel states").

Every `wheels` run reads them, `--source` or not, and a wheel may hold one per top-level
package: 100 packages each with a `_version.py` of 64 KiB of statements, which compress to
≈ 100 bytes each, made a 20 KB wheel take 26 s of parsing on every comparison (review68b).
"""

from __future__ import annotations

from pathlib import Path

import wheelkit
from cli_support import run_json

KIB = 1024
PER_MODULE_CAP = 64 * KIB
"""docs/wheels.md: a version module is read up to 64 KiB."""
MODULES_READ, MODULES_BYTES = 16, 256 * KIB
"""docs/wheels.md: the two bounds on version modules read, all together."""


def _module(size: int) -> bytes:
    """A version module of `size` bytes stating no commit (said, as torch's 'Unknown' is)."""
    head = b"git_version = 'Unknown'\n"
    return head + b"#" * (size - len(head) - 1) + b"\n"


def _said(tmp_path: Path, modules: int, size: int) -> list[str]:
    files = {"pkg/__init__.py": b"", "pkg/core.py": b"X = 1\n"}
    files |= {f"v{n:03d}/_version.py": _module(size) for n in range(modules)}
    base = wheelkit.make_wheel(tmp_path / "base", "pkg", "1.0", files)
    patch = wheelkit.make_wheel(tmp_path / "patch", "pkg", "1.0", files)
    code, report = run_json("wheels", base, patch)
    assert code == 0
    assert report["base"]["not_commits"] == report["patch"]["not_commits"]
    return [said["path"] for said in report["patch"]["not_commits"]]


def test_large_version_modules_are_read_up_to_the_total_bound(tmp_path: Path) -> None:
    size = PER_MODULE_CAP - KIB  # under the per-module cap: each one alone would be read
    read = _said(tmp_path, 40, size)

    assert read == [f"v{n:03d}/_version.py" for n in range(MODULES_BYTES // size)]


def test_small_version_modules_are_read_up_to_the_count_bound(tmp_path: Path) -> None:
    read = _said(tmp_path, 40, 200)

    assert read == [f"v{n:03d}/_version.py" for n in range(MODULES_READ)]


def test_a_wheel_with_a_few_version_modules_has_every_one_read(tmp_path: Path) -> None:
    read = _said(tmp_path, 3, 2 * KIB)

    assert read == ["v000/_version.py", "v001/_version.py", "v002/_version.py"]
