"""The bundle words each inconclusive record's real cause, read from its triage flags."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from k3diff.bundle.triagefacts import inconclusive_sentences


def _record(name: str, *flags: str) -> Any:
    return SimpleNamespace(name=name, flags=flags)


def test_unproven_records_are_not_said_to_lack_samples() -> None:
    """Records undecided because no gauge proved their batches: more samples would not help."""
    triage: Any = SimpleNamespace(vacuous=())
    found = inconclusive_sentences(
        triage, [_record("q1", "unproven"), _record("q2", "unproven"), _record("q3")]
    )
    assert found[0].startswith("2 records inconclusive (q1, q2): their batches are unproven")
    assert "more samples would not decide them" in found[0]
    assert "the unproven records' qualification says what would" in found[0]
    assert found[1] == "1 record inconclusive (q3): too few samples: more samples would decide them"
    other = inconclusive_sentences(triage, [_record("q4", "samples-of-another-condition")])
    assert "another request condition" in other[0]
