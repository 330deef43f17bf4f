"""The bundle words each inconclusive record's real cause, read from its triage flags."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from k3diff.bundle.inconclusive import inconclusive_sentences


def _record(name: str, *flags: str) -> Any:
    return SimpleNamespace(name=name, key=name, flags=flags)


def test_unproven_records_are_not_said_to_lack_samples() -> None:
    """Records undecided because no gauge proved their batches: more samples would not help."""
    triage: Any = SimpleNamespace(vacuous=(), records=())
    found = inconclusive_sentences(
        triage, [_record("q1", "unproven"), _record("q2", "unproven"), _record("q3")]
    )
    assert found[0].startswith("2 records inconclusive (q1, q2): their batches are unproven")
    assert "more samples would not decide them" in found[0]
    assert "the unproven records' qualification says what would" in found[0]
    assert found[1] == "1 record inconclusive (q3): too few samples: more samples would decide them"
    other = inconclusive_sentences(triage, [_record("q4", "samples-of-another-condition")])
    assert "another request condition" in other[0]


def test_capture_unexplained_records_are_not_said_to_lack_samples() -> None:
    """The new-user trial: REPORT.md said 'too few samples: more samples would decide them' of
    records whose samples never reproduced the patch's capture (more_samples 0)."""
    triage: Any = SimpleNamespace(vacuous=(), records=())
    (found,) = inconclusive_sentences(triage, [_record("q2", "capture-unexplained")])
    assert found.startswith("1 record inconclusive (q2): the samples never reproduce the patch's")
    assert "too few samples" not in found


def test_unsampled_records_say_they_were_never_sampled() -> None:
    triage: Any = SimpleNamespace(vacuous=(), records=())
    (found,) = inconclusive_sentences(
        triage, [_record("q0", "unsampled"), _record("q1", "unsampled")]
    )
    assert found.startswith("2 records inconclusive (q0, q1): never sampled on one side or both")
    assert "their captures differ" in found


def test_not_comparable_records_say_their_prompts_differ() -> None:
    """Not 'too few samples' (failed on main): no sample clears captures of different prompts."""
    triage: Any = SimpleNamespace(vacuous=(), records=())
    (found,) = inconclusive_sentences(triage, [_record("q5", "not-comparable", "unproven")])
    assert found.startswith("1 record inconclusive (q5): their captured prompts differ")
    assert "captures of the same prompts would" in found
