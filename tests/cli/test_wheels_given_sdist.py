"""`wheels` given an sdist as BASE or PATCH: exit 2 with what to do instead (newuser78)."""

from __future__ import annotations

import io
import shutil
import tarfile
from pathlib import Path

from cli_support import run_k3diff
from wheel.rawwheel import write_wheel


def _sdist(path: Path) -> Path:
    """A small gzip'd tar as `python -m build --sdist` writes one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    body = b"Metadata-Version: 2.1\nName: demo\nVersion: 1.0\n"
    with tarfile.open(path, "w:gz") as archive:
        info = tarfile.TarInfo("demo-1.0/PKG-INFO")
        info.size = len(body)
        archive.addfile(info, io.BytesIO(body))
    return path


def test_two_sdists_are_refused_naming_the_file_and_the_next_step(tmp_path: Path) -> None:
    """Before: `... .tar.gz: not a zip archive (no end-of-central-directory record)`."""
    base = _sdist(tmp_path / "b" / "demo-1.0.tar.gz")
    patch = _sdist(tmp_path / "p" / "demo-1.1.tar.gz")
    result = run_k3diff("wheels", base, patch)
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1, result.stderr
    assert f"{base}: a source archive (sdist), not a wheel:" in result.stderr
    assert f"k3diff audit {base}" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_wheel_against_an_sdist_names_the_sdist(tmp_path: Path) -> None:
    base = write_wheel(tmp_path / "b", "demo", "1.0", {"demo/__init__.py": b""})
    patch = _sdist(tmp_path / "p" / "demo-1.1.tar.bz2")
    result = run_k3diff("wheels", base, patch)
    assert result.exit_code == 2
    assert f"{patch}: a source archive (sdist), not a wheel:" in result.stderr


def test_a_wheel_named_as_a_source_archive_is_still_compared(tmp_path: Path) -> None:
    """The name alone refuses nothing: a zip is read as the wheel it is (W616 names it)."""
    base = write_wheel(tmp_path / "b", "demo", "1.0", {"demo/__init__.py": b""})
    renamed = tmp_path / "demo-1.0.tar.gz"
    shutil.copy(base, renamed)
    patch = write_wheel(tmp_path / "p", "demo", "1.1", {"demo/__init__.py": b""})
    result = run_k3diff("wheels", renamed, patch)
    assert result.exit_code in (0, 1), result.stderr
    assert "a source archive (sdist)" not in result.stderr
