"""telem70: a request that failed may have left a `/perf_metrics` record or none (TensorRT-LLM
records a request when it finishes, whatever became of its answer; one refused before it ran
leaves none). Both counts of a cold-warm cold request's drain (the drains before it: telem69's
short count; the next drain: its late count) take a failed request either way, whichever
leaves the record the cold request's drain held unproven; before, the first counted it as
leaving none and the second as leaving one, each reading the cold request where the other
way would not have.

Runs are real `k3diff sample` runs against loopback fault servers (started and stopped by pid
by the `fault_server` fixture), whose perf log is then edited as the server would have left
it; records are built from TensorRT-LLM's published schema (`engine_schemas.py`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import engine_schemas
from cli_support import run_telemetry

from .support import sample, write_prompts

HIT = engine_schemas.aggregated_record(kv=(3, 1))
MISS = engine_schemas.aggregated_record(kv=(0, 4))
PREFIX = f"fault={json.dumps({'cache': 'prefix'})}"


def _run(fault_server: Any, tmp_path: Path, failing: str) -> tuple[Path, list[dict[str, Any]]]:
    """cold-warm of prompts a and b, three repeats, no retry; the patch's server answers the
    second request of prompt `failing` (its first warm one) HTTP 500, leaving no record. Its
    drains: after each record's cold request and after its last warm one."""
    faults = {failing: {"status": 500, "times": [0, 1]}}
    base = fault_server()
    patch = fault_server("--perf-metrics", "--faults", json.dumps(faults))
    prompts = [{"key": p, "prompt": p} for p in ("a", "b")]
    out = tmp_path / "out"
    assert sample(
        "--base", base.url, "--patch", patch.url, "--mode", "cold-warm", "--repeats", "3",
        "--retries", "0", "--prompts", write_prompts(tmp_path / "p.jsonl", prompts),
        "--out", out, "--base-param", PREFIX,
        "--patch-param", f"fault={json.dumps({'perf_kv': [3, 1]})}", "--control", "off",
    ).exit_code in (0, 1)  # fmt: skip
    perf = [json.loads(line) for line in (out / "perf_metrics.jsonl").read_text().splitlines()]
    return out, perf


def _drain(perf: list[dict[str, Any]], key: str, repeat: int) -> dict[str, Any]:
    (found,) = [
        d for d in perf if (d["side"], d.get("key"), d.get("repeat")) == ("patch", key, repeat)
    ]
    return found


def _write(out: Path, perf: list[dict[str, Any]]) -> None:
    (out / "perf_metrics.jsonl").write_text("".join(json.dumps(d) + "\n" for d in perf))


def test_a_failed_request_before_the_cold_drain_holds_the_count(
    fault_server: Any, tmp_path: Path
) -> None:
    """a's first warm request failed. As the server may have left it: that request finished
    and was recorded (a hit) in the drain after a's last warm one, whose own record (a miss)
    came late, into b's cold request's drain, while b's cold request's hit came late and the
    cap dropped it. The drains before b's hold 2 records where 2 requests were answered, and
    1 failed: whether one is owed cannot be told. Before, the failed request counted as
    leaving none, the count held, and b's cold request read as the miss: the patch passed
    `cache-reuse` (exit 0)."""
    out, perf = _run(fault_server, tmp_path, "a")
    assert len(_drain(perf, "a", 2)["metrics"]) == 1  # a's last warm one: the failed one none
    _drain(perf, "a", 2)["metrics"] = [HIT]
    _drain(perf, "b", 0)["metrics"] = [MISS]
    _drain(perf, "b", 2)["metrics"] = [HIT, HIT]
    _write(out, perf)

    code, doc, text = run_telemetry(out / "samples.jsonl", "--expect", "cache-reuse")

    assert code == 1, text
    kv = {k["side"]: k for k in doc["kv_reuse"]}["patch"]
    line = 1 + perf.index(_drain(perf, "a", 2))
    assert (kv["unread_cold"], kv["unread"]) == (
        1,
        "the TensorRT-LLM request of b cold-warm repeat 0: the drains of that server before it "
        f"since its run's start-up drain (through line {line}) hold 2 records where 2 requests "
        "were answered and 1 failed (first: a cold-warm repeat 1): a failed request may have "
        "left a record or none, so whether one is owed to a later drain cannot be told, and the "
        "one record its own drain held may be that one",
    )


def test_a_failed_request_after_the_cold_drain_holds_the_count(
    fault_server: Any, tmp_path: Path
) -> None:
    """b's first warm request failed, leaving no record. b's cold request hit and came late,
    into the drain after b's last warm one: 2 records where 1 request was answered since and
    1 failed. Its own drain held a miss no count shows owed (another client's, as a hand can
    also put it). Before, the failed request counted as leaving one, 2 records where 2 were
    sent held, and b's cold request read as the miss: the patch passed `cache-reuse`
    (exit 0)."""
    out, perf = _run(fault_server, tmp_path, "b")
    assert len(_drain(perf, "b", 2)["metrics"]) == 1
    _drain(perf, "b", 0)["metrics"] = [MISS]
    _drain(perf, "b", 2)["metrics"] = [HIT, HIT]
    _write(out, perf)

    code, doc, text = run_telemetry(out / "samples.jsonl", "--expect", "cache-reuse")

    assert code == 1, text
    kv = {k["side"]: k for k in doc["kv_reuse"]}["patch"]
    line = 1 + perf.index(_drain(perf, "b", 2))
    assert (kv["unread_cold"], kv["unread"]) == (
        1,
        "the TensorRT-LLM request of b cold-warm repeat 0: the next /perf_metrics drain of that "
        f"server (line {line}) holds 2 records where 1 request was answered since its own drain "
        "(1 more failed, each of which may have left a record or none): a record came after "
        "its request was answered (TensorRT-LLM's chat stream records a request after sending "
        "data: [DONE]), so the one record its own drain held may be an earlier request's",
    )


def test_a_failed_request_that_left_no_record_as_sampled(fault_server: Any, tmp_path: Path) -> None:
    """As sampled, b's failed warm request left no record, and nothing else came late: the
    counts hold either way after b's cold drain (1 record where 1 was answered and 1 failed
    is no surplus), and b's cold request is read (a miss), a's too; the patch passes."""
    out, _ = _run(fault_server, tmp_path, "b")
    code, doc, text = run_telemetry(out / "samples.jsonl", "--expect", "cache-reuse")
    assert code == 0, text
    kv = {k["side"]: k for k in doc["kv_reuse"]}["patch"]
    assert (kv.get("unread_cold"), kv.get("cold_hits")) == (None, None)
