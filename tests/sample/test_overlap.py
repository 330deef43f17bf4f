"""Overlap proof: a concurrent batch is exercised only on the server's own evidence, its
running-requests gauge. Streams that each received at least two token chunks while the other was
open (interleaved at the client) prove nothing: a server that really generates them together
shows them, but so does a serial one behind a pacing front end (test_serial_gateways.py), so
without a gauge such a batch is `unproven`. Servers that serialise (a lock, a queue, a stall then
a burst of answers, windows touching at their edges, a retried stream) are never called
concurrent: streamed they are `not-exercised`, whole answers without a gauge are `unproven`;
neither clears a record, and triage fails such a record rather than passing it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from k3diff.sample.overlap import Receiving, Timing

from .support import read_samples, report_exit, sample, triage_samples, write_prompts

STREAMED = {"delay": 0.05, "chunk_delay": 0.04, "pieces": 6}
"""Six token chunks 40 ms apart: streams generated together interleave them."""


def _concurrent_run(
    fault_server: Any,
    tmp_path: Path,
    *flags: str,
    stream: bool = True,
    fault: dict[str, Any] = STREAMED,
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


def _triage(tmp_path: Path, out: Path, *args: str) -> tuple[int, Any]:
    return triage_samples(tmp_path, out, *args)


def test_streams_the_server_generates_together_are_unproven_without_its_gauge(
    fault_server: Any, tmp_path: Path
) -> None:
    """The server does generate the four streams together, and they interleave at the client;
    but a serial server behind a pacing front end interleaves them as well, so without the
    gauge nothing is proven (this was `exercised` by token windows, and `match`)."""
    out, summary = _concurrent_run(fault_server, tmp_path)
    _, lines = read_samples(out)
    assert len(lines) == 8
    for line in lines:
        assert line["sent"] <= line["first_byte"] <= line["first_token"] <= line["ended"]
        assert line["overlap_proof"] == "unproven"
    assert {line["batch"] for line in lines} == {"concurrent:base:k0:0", "concurrent:patch:k0:0"}
    # Each of the four streams received tokens while each other one was open.
    assert {line["streams_overlapped"] for line in lines} == {3}
    records = summary["records"]
    assert {(r["batches"], r["batches_by_token_windows"], r["in_flight"]) for r in records} == {
        (1, 0, None)
    }
    assert {(r["batches_one_at_a_time"], r["batches_unproven"]) for r in records} == {(0, 1)}
    code, document = _triage(tmp_path, out)
    verdict = document["records"][0]
    assert (code, verdict["category"]) == (1, "inconclusive")
    assert "unproven" in verdict["flags"] and "not-exercised" not in verdict["flags"]
    assert "only the server's running-requests gauge proves a batch" in verdict["reason"]
    # The fault server answers 404 on /metrics: no --metrics-url can prove its batches.
    assert "expose no running-requests gauge at their metrics URL" in verdict["reason"]
    assert "'k3diff" not in verdict["reason"]
    assert "(--mode serial still checks batch-1 parity)" in verdict["reason"]
    assert verdict["modes"][0]["base"]["batches_unproven"] == 1
    assert _report(tmp_path, out) == 1


def test_streams_the_server_generates_together_are_exercised_by_its_gauge(
    fault_server: Any, tmp_path: Path
) -> None:
    out, summary = _concurrent_run(fault_server, tmp_path, "--metrics", "vllm")
    _, lines = read_samples(out)
    assert {line["overlap_proof"] for line in lines} == {"gauge"}
    assert {(r["batches_by_gauge"], r["in_flight"]) for r in summary["records"]} == {(1, 4)}
    code, document = _triage(tmp_path, out)
    verdict = document["records"][0]
    assert (code, verdict["category"]) == (0, "match")
    assert not {"not-exercised", "unproven"} & set(verdict["flags"])


def test_a_server_that_serialises_behind_a_lock_streamed_is_not_exercised(
    fault_server: Any, tmp_path: Path
) -> None:
    out, summary = _concurrent_run(fault_server, tmp_path, "--serialise")
    _, lines = read_samples(out)
    assert {line["streams_overlapped"] for line in lines} == {0}
    assert {r["batches_one_at_a_time"] for r in summary["records"]} == {1}
    assert "not-exercised: 2 of them answered one at a time" in _summary_text(
        fault_server, tmp_path / "text", "--serialise"
    )
    code, document = _triage(tmp_path, out)
    verdict = document["records"][0]
    # Both sides agree on one output, but the batch never overlapped: no match by concurrency,
    # and a concurrent run that was not concurrent is never a pass.
    assert (code, verdict["category"]) == (1, "inconclusive")
    assert "not-exercised" in verdict["flags"]
    assert (
        "base 1 of 1 batches never overlapped: decided by token windows in 1" in (verdict["reason"])
    )
    assert _report(tmp_path, out) == 1


def _report(tmp_path: Path, out: Path) -> int:
    return report_exit(tmp_path, out)


def _summary_text(fault_server: Any, tmp_path: Path, *flags: str) -> str:
    base = fault_server(*flags)
    tmp_path.mkdir(parents=True, exist_ok=True)
    prompts = write_prompts(
        tmp_path / "p.jsonl", [{"key": "k0", "prompt": "p0", "fault": STREAMED}]
    )
    result = sample(
        "--base", base.url, "--patch", base.url, "--prompts", prompts, "--repeats", "4",
        "--mode", "concurrent", "--concurrency", "4", "--out", tmp_path / "out", "--stream",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    return str(result.stdout)


def test_a_stall_then_a_burst_of_whole_answers_is_unproven_never_exercised(
    fault_server: Any, tmp_path: Path
) -> None:
    """Whole answers of a serialising server after a stall end close together; those of a
    batching one too: without a gauge the client cannot tell them apart, so both are
    unproven (the ended-together rule proved co-batching for a server that had none)."""
    stall = {"delay": 0.3}
    for flags in ((), ("--serialise",)):
        where = tmp_path / ("lock" if flags else "batching")
        out, summary = _concurrent_run(fault_server, where, *flags, stream=False, fault=stall)
        _, lines = read_samples(out)
        assert {line["overlap_proof"] for line in lines} == {"unproven"}
        assert all("streams_overlapped" not in line for line in lines)
        records = summary["records"]
        assert {(r["batches_unproven"], r["batches_one_at_a_time"]) for r in records} == {(1, 0)}
        assert {r["in_flight"] for r in records} == {None}
        code, document = _triage(where, out)
        verdict = document["records"][0]
        assert (code, verdict["category"]) == (1, "inconclusive")
        assert "unproven" in verdict["flags"]
        assert "this mode clears nothing: only the server's" in verdict["reason"]
        assert _report(where, out) == 1


def test_a_retried_stream_of_a_serialising_server_is_not_exercised(
    fault_server: Any, tmp_path: Path
) -> None:
    cut = {**STREAMED, "truncate": 2}
    out, summary = _concurrent_run(fault_server, tmp_path, "--serialise", fault=cut)
    _, lines = read_samples(out)
    assert max(line["attempts"] for line in lines) >= 2
    assert {line["streams_overlapped"] for line in lines} == {0}
    assert {r["batches_one_at_a_time"] for r in summary["records"]} == {1}


def _stream(receiving: Receiving, side: str = "base") -> Timing:
    timing = Timing(receiving, side)
    timing.sending(streamed=True)
    timing.answering(opens=False)
    return timing


def test_windows_touching_at_their_edges_prove_nothing() -> None:
    """The next stream's first token a millisecond before the previous one's last byte: one
    token while the other is open, on one side only."""
    receiving = Receiving()
    first, second = _stream(receiving), _stream(receiving)
    for _ in range(5):
        first.producing()
    second.producing()  # arrives while `first` is still open ...
    first.done()  # ... whose last byte (no token) follows
    for _ in range(5):
        second.producing()
    second.done()
    assert (first.peak, second.peak) == (2, 2)  # the client saw two windows open together
    assert (first.streams_overlapped, second.streams_overlapped) == (0, 0)


def test_two_tokens_each_while_the_other_is_open_prove_overlap_and_one_does_not() -> None:
    receiving = Receiving()
    one, two = _stream(receiving), _stream(receiving)
    one.producing()
    two.producing()  # two: 1 while one open
    one.producing()  # one: 1 while two open
    two.producing()  # two: 2
    assert (one.streams_overlapped, two.streams_overlapped) == (0, 0)
    one.producing()  # one: 2: both have received two while the other was open
    assert (one.streams_overlapped, two.streams_overlapped) == (1, 1)
    one.done()
    two.done()
    assert (one.streams_overlapped, two.streams_overlapped) == (1, 1)
    assert one.overlapped == set() and two.overlapped == set()  # no references kept


def test_a_retried_attempt_forgets_what_the_interrupted_one_overlapped() -> None:
    receiving = Receiving()
    retried, other = _stream(receiving), _stream(receiving)
    for _ in range(3):
        retried.producing()
        other.producing()
    assert other.streams_overlapped == 1
    retried.sending(streamed=True)  # cut, and sent again: the earlier tokens prove nothing
    assert (retried.streams_overlapped, other.streams_overlapped) == (0, 0)
    retried.answering(opens=False)
    other.producing()
    other.done()
    for _ in range(3):
        retried.producing()
    retried.done()
    assert (retried.streams_overlapped, other.streams_overlapped) == (0, 0)


def test_headers_and_whole_answers_prove_nothing() -> None:
    receiving = Receiving()
    headers_only, whole = _stream(receiving), Timing(receiving, "base")
    whole.sending()
    whole.answering()
    headers_only.done()
    whole.done()
    assert headers_only.streams_overlapped == 0 and whole.streams_overlapped is None


def test_old_logs_whose_streams_carry_no_proof_are_unproven() -> None:
    """A streamed log written before token windows were counted (`first_token`, no
    `streams_overlapped`) decided overlap by open windows: triage calls it unproven."""
    from k3diff.sample.lines import SampleLine
    from k3diff.sample.proof import batch_overlap
    from k3diff.triage.samples import Sample

    def one(order: int, overlapped: int | None, gauge: int | None = None) -> Sample:
        line = SampleLine(
            side="base", key="k", mode="concurrent", repeat=order, request_sha256="r",
            status=200, text="t", text_xxh3="t", token_ids_xxh3=None, finish_reason="stop",
            usage=None, latency_s=1.0, fingerprint=None, error=None, attempts=1, sent=0.0,
            first_token=0.5, ended=1.0, batch="b", in_flight=2, server_running=gauge,
            streams_overlapped=overlapped,
        )  # fmt: skip
        return Sample(line, order=(0, order), batch="0:b")

    old = batch_overlap([one(0, None), one(1, None)])
    assert (old.unproven, old.one_at_a_time, old.largest, old.exercised) == (1, 0, None, False)
    # Streams that interleaved at the client: they proved overlap until 2026-12-03 (a serial
    # engine behind a pacing front end interleaves them too); now they prove nothing.
    interleaved = batch_overlap([one(0, 1), one(1, 1)])
    assert (interleaved.unproven, interleaved.by_token_windows) == (1, 0)
    assert (interleaved.largest, interleaved.exercised) == (None, False)
    refuted = batch_overlap([one(0, 0), one(1, 0)])
    assert (refuted.one_at_a_time, refuted.by_token_windows, refuted.largest) == (1, 1, 1)
    gauge = batch_overlap([one(0, 0, gauge=3), one(1, 0, gauge=1)])  # the server's word wins
    assert (gauge.by_gauge, gauge.largest, gauge.exercised) == (1, 3, True)


def test_a_log_whose_interleaved_streams_say_token_windows_is_read_and_judged_again(
    fault_server: Any, tmp_path: Path
) -> None:
    """Logs written before 2026-12-03 give every streamed line `overlap_proof: token-windows`,
    interleaved or not (then proof of overlap). They are still read, and judged from their
    `streams_overlapped` and `server_running`: interleaved streams without a gauge are
    unproven, streams that never interleaved not exercised."""
    for flags, flag in (((), "unproven"), (("--serialise",), "not-exercised")):
        where = tmp_path / flag
        out, _ = _concurrent_run(fault_server, where, *flags)
        log = out / "samples.jsonl"
        lines = [json.loads(line) for line in log.read_text().splitlines()]
        for line in lines[1:]:
            line["overlap_proof"] = "token-windows"
        log.write_text("".join(json.dumps(line) + "\n" for line in lines))
        code, document = _triage(where, out)
        verdict = document["records"][0]
        assert (code, verdict["category"]) == (1, "inconclusive")
        assert flag in verdict["flags"]
        base = verdict["modes"][0]["base"]
        assert (base["batches_unproven"], base["batches_one_at_a_time"]) == (
            (1, 0) if flag == "unproven" else (0, 1)
        )


def test_the_summary_counts_unproven_batches_in_words(fault_server: Any, tmp_path: Path) -> None:
    """'unproven: 2 batches without a running-requests gauge reading' (it said 'unproven: 2
    of whole answers')."""
    base, patch = fault_server("--serialise"), fault_server("--serialise")
    prompts = write_prompts(tmp_path / "p.jsonl", [{"key": "k0", "prompt": "p0"}])
    result = sample(
        "--base", base.url, "--patch", patch.url, "--prompts", prompts, "--repeats", "2",
        "--mode", "concurrent", "--concurrency", "2", "--out", tmp_path / "out",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    text = result.stdout + result.stderr
    assert (
        "overlap: 0 of 2 batches exercised (decided by gauge 0, token windows 0, unproven 2)"
        in text
    )
    assert "unproven: 2 batches without a running-requests gauge reading (whole answers" in text


def test_batches_without_two_answered_requests_are_not_counted() -> None:
    """A failed request was not answered: a batch with fewer than two answered requests can
    neither show overlap nor be shown answered one at a time, so it is not counted (sample's
    summary and triage's re-reading alike)."""
    from k3diff.sample.lines import SampleLine
    from k3diff.sample.proof import Proof, batch_overlap, line_proof
    from k3diff.triage.samples import Sample

    def one(order: int, batch: str, error: str | None) -> Sample:
        line = SampleLine(
            side="base", key="k", mode="concurrent", repeat=order, request_sha256="r",
            status=None if error else 200, text=None if error else "t",
            text_xxh3=None if error else "t", token_ids_xxh3=None, finish_reason=None,
            usage=None, latency_s=1.0, fingerprint=None, error=error, attempts=1, sent=0.0,
            first_token=None, ended=1.0, batch=batch, in_flight=0, server_running=None,
            streams_overlapped=0,
        )  # fmt: skip
        return Sample(line, order=(0, order), batch=f"0:{batch}")

    failed = batch_overlap([one(i, f"b{i // 2}", "boom") for i in range(8)])
    assert (failed.batches, failed.one_at_a_time, failed.by_token_windows) == (0, 0, 0)
    assert (failed.largest, failed.exercised) == (None, None)
    half = batch_overlap([one(0, "a", None), one(1, "a", "boom"), one(2, "b", "boom")])
    assert (half.batches, half.one_at_a_time, half.largest) == (0, 0, None)
    mixed = batch_overlap([one(0, "a", None), one(1, "a", None), one(2, "b", "boom")])
    assert (mixed.batches, mixed.one_at_a_time, mixed.by_token_windows) == (1, 1, 1)
    assert line_proof(True, None, 0, failed=True) == Proof.UNPROVEN.value
    assert line_proof(True, None, 0) == Proof.TOKEN_WINDOWS.value
