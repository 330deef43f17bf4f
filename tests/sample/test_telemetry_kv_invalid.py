"""telem67: a TensorRT-LLM request whose `kv_cache_metrics` are no counts (a block count
negative or missing) is lost, not "not reported": `kv_reuse` counts it apart (`invalid`, the
first named in `lost`), the text says so, and where it bears on `--expect cache-reuse` (a
cold-warm cold request, whose miss can then not be read) it holds the side. Before, such a
request was read as one that sent no `kv_cache_metrics` without a word, and a cold request
that may have hit the cache passed.

Runs are real `k3diff sample` runs against loopback servers answering with records built from
TensorRT-LLM's published schema (`engine_schemas.py`); the perf log is then edited as a faulty
engine or a hand would leave it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import engine_schemas
from cli_support import run_k3diff, run_telemetry

from .support import sample, sample_fault_pair, write_prompts

REPEATS = 4
INVALID = "num_reused_blocks or num_missed_blocks missing or not a count"


def _edit_patch_records(perf: Path, wanted: Any, first: bool = False) -> int:
    """Make the KV counts of the patch's records in the drains `wanted(drain)` picks (with
    `first`, of each such drain's first record) invalid (a negative block count); how many
    were edited."""
    edited, count = [], 0
    for text in perf.read_text().splitlines():
        drain = json.loads(text)
        if drain["side"] == "patch" and drain.get("metrics") and wanted(drain):
            for record in drain["metrics"][:1] if first else drain["metrics"]:
                record["perf_metrics"]["kv_cache_metrics"]["num_reused_blocks"] = -1
                count += 1
        edited.append(json.dumps(drain))
    perf.write_text("\n".join(edited) + "\n")
    return count


def test_invalid_kv_counts_are_said_lost_not_unreported(fault_server: Any, tmp_path: Path) -> None:
    record = {"perf_record": engine_schemas.aggregated_record(kv=(3, 1))}
    out = sample_fault_pair(fault_server, tmp_path, (record, record), REPEATS, "--perf-metrics")
    edited = _edit_patch_records(out / "perf_metrics.jsonl", lambda drain: True)
    assert edited == REPEATS

    code, doc, text = run_telemetry(out / "samples.jsonl", "--expect", "cache-reuse")
    assert code == 1, text
    kv = {k["side"]: k for k in doc["kv_reuse"]}
    assert "invalid" not in kv["base"]
    first = "the TensorRT-LLM request of a serial repeat 0"
    assert kv["patch"] == {
        "side": "patch", "requests": 0, "reused_blocks": 0, "missed_blocks": 0, "hits": 0,
        "invalid": REPEATS, "invalid_cold": 0, "lost": f"{first}: {INVALID}",
    }  # fmt: skip
    lost = f"{REPEATS} requests' kv_cache_metrics not valid, lost (first: {first}: {INVALID})"
    assert f"KV-cache reuse, patch: no request reported valid kv_cache_metrics; {lost}" in text
    assert [(n["side"], n["detail"]) for n in doc["not_exercised"]] == [
        (
            "patch",
            "the server reported no cached-token count in any sample; no request reused a KV "
            f"block (0 report kv_cache_metrics; {lost})",
        )
    ]
    # The bundle counts them apart too.
    (tmp_path / "t.json").write_text(json.dumps(doc))
    bundle = run_k3diff("report", tmp_path / "t.json", "--out", tmp_path / "b0")
    assert bundle.exit_code == 1, bundle.stderr
    report = (tmp_path / "b0" / "REPORT.md").read_text()
    assert (
        f"no request reported valid kv\\_cache\\_metrics ({REPEATS} reported kv\\_cache\\_metrics "
        "not valid, lost)"
    ) in report


def test_a_cold_request_whose_kv_counts_are_invalid_holds_cache_reuse(
    fault_server: Any, tmp_path: Path
) -> None:
    """cold-warm: every request reused KV blocks by the records; the cold one's counts were
    then made invalid, so whether it missed cannot be read. The warm ones' hits do not pass
    the side."""
    base, patch = fault_server("--perf-metrics"), fault_server("--perf-metrics")
    prompts = write_prompts(tmp_path / "p.jsonl", [{"key": "a", "prompt": "a"}])
    out = tmp_path / "out"
    record = {"perf_record": engine_schemas.aggregated_record(kv=(3, 1))}
    result = sample(
        "--base", base.url, "--patch", patch.url, "--prompts", prompts, "--mode", "cold-warm",
        "--base-param", f"fault={json.dumps({'cache': 'prefix'})}",
        "--patch-param", f"fault={json.dumps(record)}",
        "--repeats", str(REPEATS), "--out", out,
    )  # fmt: skip
    assert result.exit_code in (0, 1), result.stderr
    # The cold request's record: the first drained after repeat 0 (on its own since telem67).
    cold = lambda drain: drain["mode"] == "cold-warm" and drain["repeat"] == 0  # noqa: E731
    assert _edit_patch_records(out / "perf_metrics.jsonl", cold, first=True) == 1

    code, doc, text = run_telemetry(out / "samples.jsonl", "--expect", "cache-reuse")
    assert code == 1, text
    kv = {k["side"]: k for k in doc["kv_reuse"]}["patch"]
    assert (kv["hits"], kv["requests"], kv["invalid"], kv["invalid_cold"]) == (
        REPEATS - 1, REPEATS - 1, 1, 1,
    )  # fmt: skip
    (gap,) = doc["not_exercised"]
    assert gap["side"] == "patch"
    assert gap["detail"] == (
        "whether the cold request was cold cannot be read: 1 cold-warm cold request reported "
        "kv_cache_metrics that are no counts (1 request's kv_cache_metrics not valid, lost "
        f"(first: the TensorRT-LLM request of a cold-warm repeat 0: {INVALID}))"
    )
    # The bundle recounts it: the finding removed, the document is refused.
    doc["not_exercised"] = []
    doc["verdict"] = {"ok": True, "exit_code": 0}
    (tmp_path / "t.json").write_text(json.dumps(doc))
    edited = run_k3diff("report", tmp_path / "t.json", "--out", tmp_path / "b1")
    assert edited.exit_code == 2
    assert (
        "1 cold requests that failed or whose usage, KV-cache counts or /perf_metrics drain "
        "cannot be read" in edited.stderr
    )
