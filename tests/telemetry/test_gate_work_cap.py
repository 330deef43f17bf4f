"""The acceptance gate's work is bounded (alpha61): a document of 10,000 units a side at 16
draft positions (17 comparisons) made `report` permute for about 73 s of CPU. Units summed over
the gate's comparisons past `GATE_MAX_WORK` are refused by `report` (exit 2, before any
permutation); `telemetry` records (and gates) blocks of units past it (stop 62:
test_gate_blocks)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from k3diff.telemetry.gatemodel import GATE_MAX_WORK

from .test_gate_forged import _broken, _refused, _report, servers

__all__ = ["servers"]


def test_a_document_past_the_work_cap_is_refused_before_any_permutation(
    servers: Any, tmp_path: Path
) -> None:
    doc = _broken(servers, tmp_path)
    for side in doc["acceptance_units"]:
        side["tokens"] = [[3, 16]] * 10_000
        side["positions"] = [[1, [1] * 16]] * 10_000
    line = _refused(_report(tmp_path, doc, "--fail-on", "acceptance-drop"))
    assert (
        "field 'acceptance_units' holds 340,000 units over the gate's comparisons (pooled and "
        f"per draft position), more than the {GATE_MAX_WORK:,} telemetry records"
    ) in line, line
