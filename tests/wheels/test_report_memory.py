"""A JSON report's entry lines are made and written a block at a time (issue 41, espeed67):
writing them adds to the run's peak memory a small part of the report's size, not twice it.

The entries of a wheel pair are most of its JSON report (a torch wheel's: 7 MB of 7). They were
made into one text, from columns encoded whole, and the file writer then encoded the text into a
second copy of the same size: the report's write added about 2.2 times its size to the run's
peak (measured below on the code before: 32-33 MB for a 15 MB report; a block at a time, its
columns encoded a block at a time too: nothing measurable). The text report of the same pair
holds no entry lines and is the yardstick.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import wheelkit
from peakrss import run_with_peak_rss

FILES = 20_000
"""Files in each wheel: a 15 MB JSON report, far above the run's memory noise."""
EXTRA_LIMIT = 0.5
"""Bound on what the JSON report adds to the text report's peak, in report sizes (measured:
0.0 made and written by blocks; 0.5 with its columns encoded whole; 2.15-2.22 made whole and
encoded whole)."""


def _peak_mb(base: Path, patch: Path, cwd: Path, *options: str) -> float:
    command = [sys.executable, "-m", "k3diff", "wheels", str(base), str(patch), *options]
    measured = run_with_peak_rss(command, cwd=cwd, stdout=subprocess.DEVNULL)
    assert measured.exit_code == 0
    return measured.peak_rss_mb


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ru_maxrss is in KB on Linux")
def test_the_json_reports_entries_are_not_held_whole(tmp_path: Path) -> None:
    deep = "engine/" + "/".join(f"layer_{n:02d}" for n in range(8))
    files = {f"{deep}/module_{n:05d}.py": b"VALUE = 1\n" for n in range(FILES)}
    base = wheelkit.make_wheel(tmp_path / "base", "engine", "1.0", files)
    changed = {**files, f"{deep}/module_00000.py": b"VALUE = 2\n"}
    patch = wheelkit.make_wheel(tmp_path / "patch", "engine", "1.0", changed)
    report = tmp_path / "report.json"

    text_peak = _peak_mb(base, patch, tmp_path)
    json_peak = _peak_mb(base, patch, tmp_path, "--format", "json", "--output", str(report))

    size = report.stat().st_size / 2**20
    extra = json_peak - text_peak
    assert extra < EXTRA_LIMIT * size, (
        f"{extra:.1f} MB more than the text run, {size:.1f} MB report"
    )
    document = json.loads(report.read_text(encoding="utf-8"))
    assert len(document["entries"]) == FILES + 3  # and METADATA, WHEEL, RECORD
    changed_paths = {e["path"] for e in document["entries"] if e["status"] != "identical"}
    assert changed_paths == {f"{deep}/module_00000.py", "engine-1.0.dist-info/RECORD"}
