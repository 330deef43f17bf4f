"""A samples log's line holds at most `MAX_LINE_VALUES` JSON values, counted before it is decoded
(review80f): each line was decoded whole up to the 64 MiB record cap, so a line of `{},`
repeated made 22 million dicts (about 1.5 GB) before its reader refused it. Shrunk here
(`raising=False`: the test runs, and fails, where it is not read)."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_support import run_k3diff

from k3diff.sample import reader


@pytest.mark.parametrize("command", ["telemetry", "report"])
def test_a_line_past_the_cap_is_refused_undecoded(
    command: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(reader, "MAX_LINE_VALUES", 1_000, raising=False)
    log = tmp_path / "samples.jsonl"
    # 499 commas and 500 braces of the list, one comma, one brace and one bracket around it,
    # and one: 1,003 values, past 1,000
    items = ",".join(["{}"] * 500)
    log.write_text(f'{{"schema": "k3diff.samples/1", "x": [{items}]}}\n')
    args = (command, log) if command == "telemetry" else (command, log, "--out", tmp_path / "b")
    result = run_k3diff(*args)
    assert result.exit_code == 2, result.stderr
    assert result.stderr.strip() == (
        f"k3diff: error: {log}:1: more than 1,000 JSON values on one line (its commas and "
        "brackets counted), more than k3diff sample writes; refused"
    )


def test_a_line_at_the_cap_is_decoded(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """At the cap exactly the line is read as before: refused by its reader, not the cap."""
    monkeypatch.setattr(reader, "MAX_LINE_VALUES", 1_003, raising=False)
    log = tmp_path / "samples.jsonl"
    items = ",".join(["{}"] * 500)
    log.write_text(f'{{"schema": "k3diff.samples/1", "x": [{items}]}}\n')
    result = run_k3diff("telemetry", log)
    assert result.exit_code == 2, result.stderr
    assert "JSON values on one line" not in result.stderr
    assert result.stderr.startswith(f"k3diff: error: {log}:1: ")
