"""telem68b: newer SGLang sends its speculation counts as `spec_num_correct_drafts`,
`spec_num_proposed_drafts` and `spec_correct_drafts_histogram` (beside aliases it means to
remove), not the names k3diff read. Before, such a server's speculation was "not reported" and
failed `--expect speculation`; both generations are read now, under the same rules (a null or
non-count is lost, never zero), and a count sent under two names that disagree is lost.

Runs are real `k3diff sample` runs against loopback fault servers answering with `meta_info`
built from SGLang's source (`engine_schemas.py`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import engine_schemas
from cli_support import run_telemetry

from .support import read_samples, sample_fault_pair

REPEATS = 4
BASE = [3, 2, 4, 1]
PATCH = [5, 4, 1, 0]
"""Verify steps that accepted exactly n draft tokens, n = 0, 1, ...; 3 draft tokens a step."""


def _accepted(histogram: list[int]) -> int:
    return sum(n * count for n, count in enumerate(histogram))


def test_newer_sglang_names_are_read_as_the_first_ones(fault_server: Any, tmp_path: Path) -> None:
    base = engine_schemas.sglang_meta_info_current(BASE, draft_per_step=3)
    patch = engine_schemas.sglang_meta_info_current(PATCH, draft_per_step=3, aliases=False)
    patch["spec_accept_rate_by_position"] = [0.5, None, None]  # a rate: not read
    faults = ({"meta_info": base}, {"meta_info": patch})
    out = sample_fault_pair(fault_server, tmp_path, faults, REPEATS)
    _, lines = read_samples(out)
    assert all("spec_meta_invalid" not in line for line in lines)

    code, doc, text = run_telemetry(out / "samples.jsonl", "--expect", "speculation")
    assert code == 0, text
    spec = {s["side"]: (s["accepted"], s["drafted"], s["source"]) for s in doc["speculation"]}
    assert spec == {
        side: (_accepted(h) * REPEATS, sum(h) * 3 * REPEATS, "SGLang meta_info")
        for side, h in (("base", BASE), ("patch", PATCH))
    }
    rates = {(r["side"], r["position"]): (r["accepted"], r["drafts"]) for r in doc["positions"]}
    # Steps that accepted at least L tokens: sum of histogram[L:].
    for side, h in (("base", BASE), ("patch", PATCH)):
        for length in (1, 2, 3):
            assert rates[(side, length)] == (sum(h[length:]) * REPEATS, sum(h) * REPEATS)


def test_newer_sglang_counts_that_are_no_counts_are_lost(fault_server: Any, tmp_path: Path) -> None:
    """A null count is lost, as under the first names; and so is a count whose alias says
    another number (one of them is wrong, and nothing tells which)."""
    nulled = engine_schemas.sglang_meta_info_current(BASE, draft_per_step=3)
    nulled["spec_num_proposed_drafts"] = nulled["spec_proposed_drafts"] = None
    unlike = engine_schemas.sglang_meta_info_current(PATCH, draft_per_step=3)
    unlike["spec_accepted_drafts"] += 1
    faults = ({"meta_info": nulled}, {"meta_info": unlike})
    out = sample_fault_pair(fault_server, tmp_path, faults, REPEATS)
    _, lines = read_samples(out)
    why = {line["side"]: line["spec_meta_invalid"] for line in lines}
    assert why == {
        "base": "spec_num_proposed_drafts is null, not a count; spec_proposed_drafts is null, "
        "not a count",
        "patch": f"spec_num_correct_drafts is {_accepted(PATCH)} but spec_accepted_drafts is "
        f"{_accepted(PATCH) + 1}: one count sent under two names, unlike",
    }
    code, doc, text = run_telemetry(out / "samples.jsonl", "--expect", "speculation")
    assert code == 1, text
    lost = {(r["side"], r["reason"]) for r in doc["counter_resets"]}
    assert lost == set(why.items())
