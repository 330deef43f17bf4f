"""A batched mode's samples that carry no batch or timing (a log written before them, or
edited) show nothing of the server's batching: their mode is unproven and clears nothing, as
whole answers without a gauge are (review63: such a concurrent mode cleared a record as
base-nondeterminism, exit 0)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import run_k3diff

from .helpers import compare_texts, side, write_samples


@pytest.mark.parametrize("mode", ["concurrent", "loaded", "sweep"])
def test_an_untimed_batched_mode_is_unproven_and_clears_nothing(tmp_path: Path, mode: str) -> None:
    compare_texts(tmp_path, {"k0": ("A", "B")})
    write_samples(
        tmp_path / "run" / "samples.jsonl",
        side("k0", "base", ["A", "B"] * 3, mode) + side("k0", "patch", ["B"] * 6, mode),
        modes=(mode,),
    )
    result = run_k3diff(
        "triage", "cmp.json", "run/samples.jsonl", "--format", "json", cwd=tmp_path
    )  # fmt: skip
    (record,) = json.loads(result.stdout)["records"]
    assert record["category"] == "inconclusive", record["reason"]
    assert "unproven" in record["flags"]
    assert result.exit_code == 1


def test_untimed_serial_samples_are_unaffected(tmp_path: Path) -> None:
    compare_texts(tmp_path, {"k0": ("A", "B")})
    write_samples(
        tmp_path / "run" / "samples.jsonl",
        side("k0", "base", ["A", "B"] * 3) + side("k0", "patch", ["B"] * 6),
    )
    result = run_k3diff("triage", "cmp.json", "run/samples.jsonl", "--format", "json", cwd=tmp_path)
    (record,) = json.loads(result.stdout)["records"]
    assert record["category"] == "base-nondeterminism"
    assert result.exit_code == 0
