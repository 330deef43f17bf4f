"""Fixtures shared by the wheel comparison tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from k3diff.wheels import headstart, proof, spans

from .provenance_support import linear_repo


@pytest.fixture
def small_proof_thresholds(monkeypatch: pytest.MonkeyPatch) -> None:
    """Entries of a few KiB take the huge entries' paths (split compare, early start, content
    streamed as a library's), as in real wheels where huge pairs are singles: the thresholds of
    `wheels.proof`, `wheels.early` and `wheels.spans` lowered for the test."""
    monkeypatch.setattr(proof, "RAW_CHUNK", 1024)
    monkeypatch.setattr(proof, "BIG_ENTRY", 4096)
    monkeypatch.setattr(proof, "SMALL_ENTRY", 3000)
    monkeypatch.setattr(headstart, "EARLY_BYTES", 2000)
    monkeypatch.setattr(spans, "SPAN_BYTES", 1500)


@pytest.fixture
def linear(tmp_path: Path) -> tuple[Path, list[str]]:
    """A repository of five commits (tests/wheels/provenance_support.py `linear_repo`)."""
    return linear_repo(tmp_path)
