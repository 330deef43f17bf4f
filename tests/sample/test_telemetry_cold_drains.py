"""telem68: a cold-warm cold request's reused KV blocks (TensorRT-LLM) are read from the
`/perf_metrics` drain `sample` writes right after it. TensorRT-LLM's records name no request of
the samples log, so that drain is matched by its label and place: one the file lacks, or the
first after a resume (which also holds what the server kept from before it), cannot be read
and holds `--expect cache-reuse`; one out of the order `sample` writes is refused. Before, the
cold request's drain deleted, its hit vanished and the warm requests' hits passed.

Runs are real `k3diff sample` runs against loopback fault servers answering with records built
from TensorRT-LLM's published schema (`engine_schemas.py`); the perf log is then edited as a
killed run or a hand would leave it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import engine_schemas
from cli_support import run_k3diff, run_telemetry

from .support import sample, write_prompts

REPEATS = 4
HIT = engine_schemas.aggregated_record(kv=(3, 1))
MISS = engine_schemas.aggregated_record(kv=(0, 4))


def _args(fault_server: Any, tmp_path: Path) -> tuple[str | Path, ...]:
    """cold-warm of one prompt: the base's prefix cache honours the salt (usage counts), the
    patch's server reuses KV blocks on every request, its cold ones too (no usage count)."""
    base, patch = fault_server("--perf-metrics"), fault_server("--perf-metrics")
    prompts = write_prompts(tmp_path / "p.jsonl", [{"key": "a", "prompt": "a"}])
    return (
        "--base", base.url, "--patch", patch.url, "--prompts", prompts, "--mode", "cold-warm",
        "--base-param", f"fault={json.dumps({'cache': 'prefix'})}",
        "--patch-param", f"fault={json.dumps({'perf_record': HIT})}",
        "--repeats", str(REPEATS), "--out", tmp_path / "out",
    )  # fmt: skip


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(text) for text in path.read_text().splitlines()]


def _write(path: Path, lines: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


def _patch_cold_warm(line: dict[str, Any]) -> bool:
    return line.get("side") == "patch" and line.get("mode") == "cold-warm"


def test_a_cold_request_whose_drain_was_removed_holds_cache_reuse(
    fault_server: Any, tmp_path: Path
) -> None:
    assert sample(*_args(fault_server, tmp_path)).exit_code in (0, 1)
    out = tmp_path / "out"
    perf = out / "perf_metrics.jsonl"
    drains = _lines(perf)
    cold = [d for d in drains if _patch_cold_warm(d) and d["repeat"] == 0]
    assert [len(d["metrics"]) for d in cold] == [1]
    code, doc, _ = run_telemetry(out / "samples.jsonl", "--expect", "cache-reuse")
    assert code == 1  # the cold request reused blocks: the salt did not take
    assert {k["side"]: k for k in doc["kv_reuse"]}["patch"]["cold_hits"] == 1

    _write(perf, [d for d in drains if d not in cold])
    code, doc, text = run_telemetry(out / "samples.jsonl", "--expect", "cache-reuse")
    assert code == 1, text
    kv = {k["side"]: k for k in doc["kv_reuse"]}["patch"]
    why = (
        "the TensorRT-LLM request of a cold-warm repeat 0: no /perf_metrics drain after it in "
        "perf_metrics.jsonl (a run stopped before it, or the line removed)"
    )
    assert (kv["hits"], kv.get("cold_hits"), kv["unread_cold"], kv["unread"]) == (
        REPEATS - 1, None, 1, why,
    )  # fmt: skip
    (gap,) = doc["not_exercised"]
    assert (gap["side"], gap["detail"]) == (
        "patch",
        "whether the cold request was cold cannot be read: 1 cold-warm cold request whose "
        f"/perf_metrics drain cannot be read (first: {why})",
    )
    # Without --expect the text says it on a line of its own; exit 0, as a summary.
    code, _, text = run_telemetry(out / "samples.jsonl")
    assert code == 0
    assert "cold-warm, patch: whether the cold request was cold cannot be read: 1" in text

    # The bundle says it; and recounts it: the finding removed, the document is refused.
    code, doc, _ = run_telemetry(out / "samples.jsonl", "--expect", "cache-reuse")
    (tmp_path / "t.json").write_text(json.dumps(doc))
    bundle = run_k3diff("report", tmp_path / "t.json", "--out", tmp_path / "b0")
    assert bundle.exit_code == 1, bundle.stderr
    report = (tmp_path / "b0" / "REPORT.md").read_text()
    assert "1 cold-warm cold requests' /perf\\_metrics drain cannot be read (may have hit)" in (
        report
    )
    doc["not_exercised"], doc["verdict"] = [], {"ok": True, "exit_code": 0}
    (tmp_path / "t.json").write_text(json.dumps(doc))
    edited = run_k3diff("report", tmp_path / "t.json", "--out", tmp_path / "b")
    assert edited.exit_code == 2, edited.stdout
    assert "the patch side has 1 cold requests that failed or whose usage" in edited.stderr


def test_a_cold_requests_drain_after_its_warm_ones_is_refused(
    fault_server: Any, tmp_path: Path
) -> None:
    """`sample` drains a record's cold request before its warm ones: the cold drain moved after
    the warm drain is another request's, and the log is refused, not read."""
    assert sample(*_args(fault_server, tmp_path)).exit_code in (0, 1)
    out = tmp_path / "out"
    perf = out / "perf_metrics.jsonl"
    drains = _lines(perf)
    (cold,) = [d for d in drains if _patch_cold_warm(d) and d["repeat"] == 0]
    (warm,) = [d for d in drains if _patch_cold_warm(d) and d["repeat"] == REPEATS - 1]
    cold["metrics"], warm["metrics"] = [MISS], [HIT] * REPEATS  # a miss moved under the label
    moved = [d for d in drains if d is not cold] + [cold]
    _write(perf, moved)

    refused = run_k3diff("telemetry", out / "samples.jsonl", "--expect", "cache-reuse")
    assert refused.exit_code == 2, refused.stdout
    (message,) = refused.stderr.strip().splitlines()
    assert f"{perf}:{len(moved)}: the drain labelled with patch 'a' cold-warm repeat 0" in message
    assert f"comes after line {moved.index(warm) + 1}'s, drained after repeat 3" in message


def test_the_first_cold_drain_after_a_resume_is_not_read_as_the_cold_requests(
    fault_server: Any, tmp_path: Path
) -> None:
    """A run killed after the base's cold-warm record, before the patch's, then resumed: the
    patch's first drain after the resume holds, besides its cold request's record, one the
    server kept from before the kill (a request still running when the resumed run probed
    `/perf_metrics`), which missed. Before, that record was read as the cold request's: its
    miss hid the cold request's reused blocks, and the warm hits passed the side. Since
    telem68b the resumed run's start-up drain is written, and a drain after one request that
    holds two records is what cannot be read (a clean resume is read:
    test_telemetry_drain_attempts.py)."""
    args = _args(fault_server, tmp_path)
    out = tmp_path / "out"
    assert sample(*args).exit_code in (0, 1)
    log, perf = out / "samples.jsonl", out / "perf_metrics.jsonl"
    _write(log, [line for line in _lines(log) if not _patch_cold_warm(line)])
    _write(perf, [line for line in _lines(perf) if not _patch_cold_warm(line)])
    assert sample(*args, "--resume").exit_code in (0, 1)
    drains = _lines(perf)
    (cold,) = [d for d in drains if _patch_cold_warm(d) and d["repeat"] == 0]
    cold["metrics"] = [MISS, *cold["metrics"]]
    _write(perf, drains)

    code, doc, text = run_telemetry(log, "--expect", "cache-reuse")
    assert code == 1, text
    kv = {k["side"]: k for k in doc["kv_reuse"]}["patch"]
    assert (kv["requests"], kv["hits"], kv.get("cold_hits"), kv["unread_cold"]) == (
        REPEATS + 1, REPEATS, None, 1,
    )  # fmt: skip
    (gap,) = doc["not_exercised"]
    assert gap["side"] == "patch"
    assert gap["detail"] == (
        "whether the cold request was cold cannot be read: 1 cold-warm cold request whose "
        "/perf_metrics drain cannot be read (first: the TensorRT-LLM request of a cold-warm "
        f"repeat 0: its /perf_metrics drain (line {drains.index(cold) + 1}) holds 2 records "
        "where one request was sent since the drain before it (a request sent before it, or a "
        "run before a resume, finished since): which is its own cannot be told)"
    )
