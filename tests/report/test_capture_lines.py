"""Triage's capture lines say nothing of modes without a successful sample."""

from __future__ import annotations

from k3diff.report.triage_lines import capture_text
from k3diff.triage.model import CaptureEvidence, Reproduced


def test_modes_without_successful_samples_are_left_out() -> None:
    """'0 of 0 concurrent' (every sample failed) says nothing: it is left out."""
    nothing = CaptureEvidence("base", (Reproduced("concurrent", 0, 0),))
    assert capture_text(nothing) == "captured base output: no samples"
    some = CaptureEvidence("base", (Reproduced("serial", 3, 4), Reproduced("concurrent", 0, 0)))
    assert capture_text(some) == "captured base output reproduced by 3 of 4 serial samples"
