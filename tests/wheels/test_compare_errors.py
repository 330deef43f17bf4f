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
