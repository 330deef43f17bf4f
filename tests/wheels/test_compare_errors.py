"""Errors during a comparison surface at once, without waiting for the queued work."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
import wheelkit

from k3diff.errors import ArchiveError
from k3diff.wheels import compare, schedule
from k3diff.zip.archive import ZipArchive


def test_an_error_cancels_queued_comparisons(tmp_path: Path, monkeypatch: Any) -> None:
    """A failure on the main thread is reported at once: comparisons still queued are cancelled
    rather than run to the end of a large wheel first."""
    files = {f"pkg/m{i}.py": f"x = {i}\n".encode() * 50 for i in range(3000)}
    base = wheelkit.make_wheel(tmp_path / "b", "pkg", "1.0", files)
    # Another level: no identical runs of records, so every pair goes to a batch task.
    patch = wheelkit.make_wheel(tmp_path / "p", "pkg", "1.0", files, compresslevel=1)
    release = threading.Event()
    started: list[int] = []
    submitted: list[int] = []
    real_batch, real_submit = schedule.compare_batch, schedule.submit_pairs

    def held_batch(*args: Any) -> Any:
        started.append(1)
        release.wait(timeout=30)
        return real_batch(*args)

    def counted_submit(*args: Any) -> Any:
        futures = real_submit(*args)
        submitted.append(len(futures))
        return futures

    def failing_check(archive: ZipArchive, side: str, *screened: Any) -> Any:
        release.set()
        raise ArchiveError(f"{archive.path}: METADATA unreadable")

    monkeypatch.setattr(schedule, "compare_batch", held_batch)
    monkeypatch.setattr(schedule, "submit_pairs", counted_submit)
    monkeypatch.setattr(compare, "soundness_findings", failing_check)
    with pytest.raises(ArchiveError, match="METADATA unreadable"):
        compare.compare_wheels(base, patch, compare.WheelOptions(jobs=2, file_hash=False))
    assert submitted[0] >= 10
    # Two were running when the error came (jobs=2); the others never start.
    assert len(started) <= submitted[0] // 2


@pytest.mark.parametrize("sides", ["patch", "base", "both"])
def test_an_empty_archive_is_a_wheel_pip_refuses_not_a_crash(tmp_path: Path, sides: str) -> None:
    """A zip holding only its end record (22 bytes) on either side: W616 and exit 1, in one
    report; before, a ValueError from the record-end table and a traceback."""
    import zipfile

    from cli_support import run_k3diff

    real = wheelkit.make_wheel(tmp_path / "real", "pkg", "1.0", {"pkg/__init__.py": b""})
    for side in ("base", "patch"):
        (tmp_path / side).mkdir()
        target = tmp_path / side / "pkg-1.0-py3-none-any.whl"
        if sides in (side, "both"):
            zipfile.ZipFile(target, "w").close()
        else:
            target.write_bytes(Path(real).read_bytes())
    wheel = "pkg-1.0-py3-none-any.whl"
    result = run_k3diff("wheels", f"base/{wheel}", f"patch/{wheel}", cwd=tmp_path)
    assert result.exit_code == 1, result.stderr
    assert "Traceback" not in result.stderr and "W616" in result.stdout
    assert result.stdout.rstrip().endswith("W616"), result.stdout
