"""Overlap proof: every sample records when it was sent, answered and ended, and a concurrent
batch whose requests the server handled one at a time is `not-exercised`, in the sample summary
and in triage, where it never clears a record."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

from cli_support import run_k3diff
from triage.helpers import compare_texts

from .support import read_samples, sample, write_prompts

FAULT = {"delay": 0.05, "chunk_delay": 0.15}


def _concurrent_run(
    fault_server: Any,
    tmp_path: Path,
    *flags: str,
    stream: bool = True,
    fault: dict[str, float] = FAULT,
) -> tuple[Path, Any]:
    base, patch = fault_server(*flags), fault_server(*flags)
    tmp_path.mkdir(parents=True, exist_ok=True)
    prompts = write_prompts(tmp_path / "p.jsonl", [{"key": "k0", "prompt": "p0", "fault": fault}])
    out = tmp_path / "out"
    result = sample(
        "--base", base.url, "--patch", patch.url, "--prompts", prompts, "--repeats", "4",
        "--mode", "concurrent", "--concurrency", "4", "--out", out, "--format", "json",
        *(["--stream"] if stream else []),
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    return out, json.loads(result.stdout)


def _triage(tmp_path: Path, out: Path, *args: str) -> Any:
    comparison = compare_texts(tmp_path, {"k0": ("echo:p0", "echo:p0")})
    result = run_k3diff(
        "triage", str(comparison), str(out / "samples.jsonl"), "--format", "json", *args
    )
    assert result.exit_code in (0, 1), result.stderr
    return json.loads(result.stdout)


def test_each_sample_records_its_send_first_byte_and_end_times_and_its_batch(
    fault_server: Any, tmp_path: Path
) -> None:
    out, summary = _concurrent_run(fault_server, tmp_path)
    _, lines = read_samples(out)
    assert len(lines) == 8
    for line in lines:
        assert line["sent"] <= line["first_byte"] <= line["ended"]
        assert line["ended"] - line["first_byte"] >= FAULT["chunk_delay"] * 0.9
    assert {line["batch"] for line in lines} == {
        "concurrent:base:k0:0",
        "concurrent:patch:k0:0",
    }
    # A server that answers them together: all four of a batch were being received at once.
    assert {line["in_flight"] for line in lines} == {4}
    assert {r["in_flight"] for r in summary["records"]} == {4}
    assert {r["batches_one_at_a_time"] for r in summary["records"]} == {0}
    verdict = _triage(tmp_path, out)["records"][0]
    assert verdict["category"] == "match"
    assert "not-exercised" not in verdict["flags"]
    assert verdict["modes"][0]["base"]["in_flight"] == 4


def test_a_server_that_serialises_behind_a_lock_is_not_exercised_and_clears_nothing(
    fault_server: Any, tmp_path: Path
) -> None:
    out, summary = _concurrent_run(fault_server, tmp_path, "--serialise")
    _, lines = read_samples(out)
    assert {line["in_flight"] for line in lines} == {1}
    windows = sorted(
        (line["first_byte"], line["ended"]) for line in lines if line["side"] == "base"
    )
    assert all(a[1] <= b[0] for a, b in itertools.pairwise(windows))
    assert {r["batches_one_at_a_time"] for r in summary["records"]} == {1}
    document = _triage(tmp_path, out)
    verdict = document["records"][0]
    # Both sides agree on one output, but the batch never overlapped: no match by concurrency.
    assert verdict["category"] == "inconclusive"
    assert "not-exercised" in verdict["flags"]
    assert "not-exercised: the server handled them one at a time" in verdict["reason"]
    assert verdict["modes"][0]["base"]["batches_one_at_a_time"] == 1
    assert verdict["modes"][0]["patch"]["in_flight"] == 1
    failing = _triage(tmp_path, out, "--fail-inconclusive")
    assert failing["verdict"]["exit_code"] == 1


def test_non_streamed_answers_count_as_together_when_they_end_together(
    fault_server: Any, tmp_path: Path
) -> None:
    # Non-streamed answers arrive whole: four ending within half the shortest latency of each
    # other were finished together; a serialising server spaces them a service time apart.
    slow = {"delay": 0.4}
    _, summary = _concurrent_run(fault_server, tmp_path / "batching", stream=False, fault=slow)
    assert {r["in_flight"] for r in summary["records"]} == {4}
    assert {r["batches_one_at_a_time"] for r in summary["records"]} == {0}
    lock = tmp_path / "lock"
    _, summary = _concurrent_run(fault_server, lock, "--serialise", stream=False, fault=slow)
    assert {r["in_flight"] for r in summary["records"]} == {1}
    assert {r["batches_one_at_a_time"] for r in summary["records"]} == {1}


def test_triage_judges_streamed_answers_by_their_windows_alone() -> None:
    """Two answers of one batch that ended together but whose windows (first token to end)
    never overlapped: whole answers count as together, streamed ones as one at a time, in
    triage's reading of the log as in `sample`'s."""
    from k3diff.documents.samples import batch_overlap
    from k3diff.triage.inputs import Sample

    def one(order: int, first_token: float | None) -> Sample:
        return Sample(
            side="base", key="k", mode="concurrent", repeat=order, text_xxh3="t", error=None,
            request_sha256="r", order=(0, order), batch="0:b", in_flight=1, sent=0.0,
            ended=1.0 + order * 0.01, first_token=first_token,
        )  # fmt: skip

    whole = batch_overlap([one(0, None), one(1, None)])
    streamed = batch_overlap([one(0, 0.99), one(1, 1.005)])
    assert (whole.largest, whole.one_at_a_time) == (2, 0)
    assert (streamed.largest, streamed.one_at_a_time) == (1, 1)
