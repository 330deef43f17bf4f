"""Large captures stream: the CLI's peak memory does not grow with the number of records.

Each side is parked in a temporary file and only the pairing keys stay in memory, so going from
5,000 to 20,000 records per side adds a few megabytes. Holding every record (about 1 KB of text
and 128 token ids each, on both sides) would add about 90 MB and break these bounds.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import pytest
from peakrss import run_with_peak_rss

PEAK_LIMIT_MB = 100
"""Absolute bound at 20,000 records per side (measured: about 35 MB; holding records: 150)."""
GROWTH_LIMIT_MB = 30
"""Bound on the growth from 5,000 to 20,000 records (measured: about 8 MB; holding: 95)."""
TEXT = "lorem ipsum dolor sit amet " * 36


def write_capture(path: Path, records: int, patched: bool) -> Path:
    """Flat records with ids, prompts, ~1 KB texts and token ids; the patch changes 2% of texts."""
    with path.open("w", encoding="utf-8") as handle:
        for n in range(records):
            text = f"answer {n} {TEXT}"
            if patched and n % 50 == 3:
                text = text.replace("dolor", "DOLOR", 1)
            row = {
                "id": f"r{n}",
                "prompt": f"question {n}",
                "text": text,
                "token_ids": list(range(n, n + 128)),
                "finish_reason": "stop",
            }
            handle.write(json.dumps(row) + "\n")
    return path


def peak_rss_mb(directory: Path, records: int, fmt: str) -> float:
    """Run the CLI on `records` per side and return the child's peak resident set size."""
    base = write_capture(directory / f"base-{records}.jsonl", records, patched=False)
    patch = write_capture(directory / f"patch-{records}.jsonl", records, patched=True)
    command = [sys.executable, "-m", "k3diff", "responses", str(base), str(patch)]
    command += ["--format", fmt, "--output", str(directory / f"report-{records}.{fmt}")]
    with tempfile.TemporaryFile() as errors:
        measured = run_with_peak_rss(command, cwd=directory, stderr=errors)
        errors.seek(0)
        stderr = errors.read().decode()
    assert measured.exit_code == 1, stderr  # 2% of the texts differ
    return measured.peak_rss_mb


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ru_maxrss is in KB on Linux")
@pytest.mark.parametrize("fmt", ["text", "json"])
def test_peak_memory_stays_flat_as_records_grow(fmt: str, tmp_path: Path) -> None:
    small = peak_rss_mb(tmp_path, 5_000, fmt)
    large = peak_rss_mb(tmp_path, 20_000, fmt)
    assert large < PEAK_LIMIT_MB, f"{large:.0f} MB at 20,000 records per side"
    assert large - small < GROWTH_LIMIT_MB, f"{small:.0f} MB -> {large:.0f} MB"
    report = (tmp_path / f"report-20000.{fmt}").read_text(encoding="utf-8")
    if fmt == "json":
        document = json.loads(report)
        assert len(document["records"]) == 20_000
        assert document["summary"]["differing"] == 400
    else:
        assert "result: 400 of 20000 paired records differ" in report
