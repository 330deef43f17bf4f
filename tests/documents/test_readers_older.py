"""Fields are only ever added within a version: each typed reader reads a document written
before a field was added, where the field's absence has a meaning that cannot pass a failing
document (forensics the verdict does not rest on; a side list that could not have been
non-empty then)."""

from __future__ import annotations

import json
from pathlib import Path

from k3diff.documents import sample, triage
from k3diff.documents.triagerules import unsampled_count
from k3diff.sample.model import RecordStats, SampleResult

OLD_TRIAGE = Path(__file__).parent.parent / "bundle" / "data" / "triage_3e8bbca"


def test_a_triage_mode_without_splits_reads_as_no_branches() -> None:
    """`splits` came into `k3diff.triage/1` after it began (8f0d7dd): a mode without it (the
    key removed from a document of 3e8bbca) has no branches, and its verdict is unchanged."""
    body = json.loads((OLD_TRIAGE / "base_flaky" / "triage.json").read_text())
    for record in body["records"]:
        for mode in record["modes"]:
            del mode["splits"]
    view = triage.read(body, "t.json")
    assert all(mode.splits == {} for r in view.records for mode in r.modes)
    assert (view.ok, view.exit_code) == (True, 0)


def test_a_triage_without_summary_unsampled_recounts_it_from_its_records() -> None:
    """Written by 3e8bbca, before `summary.unsampled`: k1 differs and was never sampled."""
    body = json.loads((OLD_TRIAGE / "unsampled" / "triage.json").read_text())
    assert "unsampled" not in body["summary"]
    assert unsampled_count(triage.read(body, "t.json")) == 1
    body = json.loads((OLD_TRIAGE / "base_flaky" / "triage.json").read_text())
    assert unsampled_count(triage.read(body, "t.json")) == 0


def test_a_sample_summary_from_before_the_control_has_no_vacuous_side() -> None:
    rows = (RecordStats("q1", "base", "serial", 3, 0, 1, 1.0),)
    result = SampleResult(
        Path("out"), rows, planned=3, taken=3, failed=0, taken_now=3,
        torn_line_dropped=False, perf_metrics=0, run_id="r1",
    )  # fmt: skip
    body = json.loads(sample.write(result))
    del body["vacuous"]
    view = sample.read(body, "sample.json")
    assert view.vacuous == ()
