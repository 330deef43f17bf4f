"""review70d: a cold-warm cold request's `/perf_metrics` record is proven its own by counting
the records of each drain of its server against the requests `sample` sent it (telem70). Some
modes send requests that no sample names: the loaded mode's background requests, the needle
and mixed modes' fillers. TensorRT-LLM records them as it records any request, so their
records fill the count of one that is missing (late, or dropped past the server's cap), and
neither count proves anything where they are among the records counted.

Runs are real `k3diff sample` runs against loopback fault servers (started and stopped by pid
by the `fault_server` fixture), whose perf log is then edited as the server would have left
it (`test_telemetry_cold_failures.py` does the same); records are built from TensorRT-LLM's
published schema (`engine_schemas.py`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import engine_schemas
import pytest
from cli_support import run_telemetry

from .support import sample, write_prompts

HIT = engine_schemas.aggregated_record(kv=(3, 1))
MISS = engine_schemas.aggregated_record(kv=(0, 4))
PREFIX = f"fault={json.dumps({'cache': 'prefix'})}"


def _run(fault_server: Any, tmp_path: Path, *flags: str) -> tuple[Path, list[dict[str, Any]]]:
    """Prompt b (the needle mode's batches for b at concurrency 2 are of 1 and 2 requests: one
    filler), `flags` its modes and repeats, against a patch server offering `/perf_metrics`."""
    base, patch = fault_server(), fault_server("--perf-metrics")
    out = tmp_path / "out"
    assert sample(
        "--base", base.url, "--patch", patch.url, *flags, "--concurrency", "2",
        "--prompts", write_prompts(tmp_path / "p.jsonl", [{"key": "b", "prompt": "b"}]),
        "--out", out, "--base-param", PREFIX,
        "--patch-param", f"fault={json.dumps({'perf_kv': [3, 1]})}", "--control", "off",
    ).exit_code in (0, 1)  # fmt: skip
    perf = [json.loads(line) for line in (out / "perf_metrics.jsonl").read_text().splitlines()]
    return out, perf


def _drain(perf: list[dict[str, Any]], mode: str, repeat: int) -> dict[str, Any]:
    (found,) = [
        d for d in perf if (d["side"], d.get("mode"), d.get("repeat")) == ("patch", mode, repeat)
    ]
    return found


def _write(out: Path, perf: list[dict[str, Any]]) -> None:
    (out / "perf_metrics.jsonl").write_text("".join(json.dumps(d) + "\n" for d in perf))


def test_needle_fillers_records_do_not_prove_a_cold_request_s_drain(
    fault_server: Any, tmp_path: Path
) -> None:
    """needle, then serial, then cold-warm, on a chat stream whose records come after the
    answers (TensorRT-LLM): the needle mode's filler is recorded with its targets, in serial
    repeat 0's drain (4 records where 3 requests were answered); serial repeat 1's record
    came late, into the cold request's drain, whose own hit came late into the warm
    request's drain, whose own came into the closing drain. The filler's record fills the
    count of the late one: 4 records where 4 requests were answered, and the next drain holds
    1 where 1 was. Before, the cold request was read from serial repeat 1's record (a miss:
    the server had dropped b's blocks) and the patch passed `cache-reuse` (exit 0) though its
    cold request hit."""
    out, perf = _run(
        fault_server, tmp_path, "--mode", "needle", "--mode", "serial", "--mode", "cold-warm",
        "--repeats", "2",
    )  # fmt: skip
    assert len(_drain(perf, "serial", 0)["metrics"]) == 4  # targets 2, filler 1, serial 1
    _drain(perf, "serial", 1)["metrics"] = []
    _drain(perf, "cold-warm", 0)["metrics"] = [MISS]
    _drain(perf, "cold-warm", 1)["metrics"] = [HIT]
    (end,) = [d for d in perf if "end" in d]
    end["records"] = 1
    _write(out, perf)

    code, doc, text = run_telemetry(out / "samples.jsonl", "--expect", "cache-reuse")

    assert code == 1, text
    kv = {k["side"]: k for k in doc["kv_reuse"]}["patch"]
    assert (kv["unread_cold"], kv.get("cold_hits")) == (1, None)
    assert kv["unread"] == (
        "the TensorRT-LLM request of b cold-warm repeat 0: the drains of that server before "
        "it since its run's start-up drain hold the needle mode's records (from b needle "
        "repeat 0), its fillers' among them, which no sample names: a record missing from "
        "them (late, or dropped past the server's cap) cannot be counted, so the one record "
        "its own drain held may be a filler's; sample cold-warm before needle "
        "(--mode cold-warm --mode needle) or in a run of its own"
    )


def test_a_late_cold_record_is_not_read_from_a_loaded_drain(
    fault_server: Any, tmp_path: Path
) -> None:
    """cold-warm of one repeat, then loaded, on a server keeping 2 records: the cold request's
    record came late (its drain holds none), and the cap dropped it, and a background
    request's, for the next background request's and the loaded target's. The next drain
    (the loaded round's) holds 2 records where 1 request was answered since: the count of
    a late cold record and its requests', but the one more is a background request's (no
    sample names it). Before, the cold request was read as the one of least request_id, the
    loaded target's (a miss), and the patch passed `cache-reuse` on the background
    request's hit (exit 0) though its cold request hit."""
    out, perf = _run(
        fault_server, tmp_path, "--mode", "cold-warm", "--mode", "loaded", "--repeats", "1"
    )
    loaded = _drain(perf, "loaded", 0)
    _drain(perf, "cold-warm", 0)["metrics"] = []
    loaded["metrics"] = [{**MISS, "request_id": 3}, {**HIT, "request_id": 4}]
    _write(out, perf)

    code, doc, text = run_telemetry(out / "samples.jsonl", "--expect", "cache-reuse")

    assert code == 1, text
    kv = {k["side"]: k for k in doc["kv_reuse"]}["patch"]
    assert (kv["unread_cold"], kv.get("cold_hits")) == (1, None)
    cold, after = (1 + perf.index(d) for d in (_drain(perf, "cold-warm", 0), loaded))
    assert kv["unread"] == (
        f"the TensorRT-LLM request of b cold-warm repeat 0: its /perf_metrics drain (line "
        f"{cold}) holds no record, and the next (line {after}) holds the loaded mode's "
        "records, its background requests' among them, which no sample names: one of theirs "
        "may stand in for its own (dropped past the server's cap), so which is its own cannot "
        "be told; sample cold-warm with more than one repeat: the drain after its warm "
        "requests then counts it"
    )


@pytest.mark.parametrize("spelling", ["same", "localhost"])
def test_a_cold_request_on_a_server_both_sides_share_is_unread(
    fault_server: Any, tmp_path: Path, spelling: str
) -> None:
    """base and patch on one server (an A/B run of request fields): each drain, labelled with
    one side, empties the server's one queue, so a record that came late is in the other
    side's next drain. As the server may have left it: the base's first concurrent batch's
    last record came into the patch's batch drain, the patch's second batch's into the
    base's, and the base's last warm request's (a miss) into the patch's cold request's
    drain, whose own hit came late into its warm requests' drain. Each side's counts hold (4
    records where 4 requests were answered; no more in the next drain than were answered
    since). Before, the patch's cold request was read as the base's warm miss, and the patch
    passed `cache-reuse` (exit 0) though its cold request hit. The same server spelled
    `http://localhost:PORT/v1` as the patch is one server too (server71: before, only one
    spelling of both was)."""
    server = fault_server("--perf-metrics")
    port = server.url.rsplit(":", 1)[1]
    patch = server.url if spelling == "same" else f"http://localhost:{port}/v1"
    urls = server.url if spelling == "same" else f"{server.url} and http://localhost:{port}"
    out = tmp_path / "out"
    assert sample(
        "--base", server.url, "--patch", patch, "--mode", "concurrent",
        "--mode", "cold-warm", "--repeats", "4", "--concurrency", "2",
        "--prompts", write_prompts(tmp_path / "p.jsonl", [{"key": "b", "prompt": "b"}]),
        "--out", out, "--base-param", f"fault={json.dumps({'perf_kv': [3, 1]})}",
        "--patch-param", f"fault={json.dumps({'perf_kv': [2, 2]})}", "--control", "off",
    ).exit_code in (0, 1)  # fmt: skip
    perf = [json.loads(line) for line in (out / "perf_metrics.jsonl").read_text().splitlines()]
    drains = [(d["side"], d.get("mode"), d.get("repeat")) for d in perf if "metrics" in d]
    assert drains == [
        ("base", "concurrent", 0), ("patch", "concurrent", 0), ("patch", "concurrent", 2),
        ("base", "concurrent", 2), ("base", "cold-warm", 0), ("base", "cold-warm", 3),
        ("patch", "cold-warm", 0), ("patch", "cold-warm", 3),
    ]  # fmt: skip
    held = [
        [HIT], [HIT, HIT, HIT], [HIT], [HIT, HIT, HIT],
        [MISS], [HIT, HIT], [MISS], [HIT, HIT, HIT],
    ]  # fmt: skip
    for drain, metrics in zip((d for d in perf if "metrics" in d), held, strict=True):
        drain["metrics"] = metrics
    (end,) = [d for d in perf if d.get("end") == 0 and d["side"] == "base"]
    end["records"] = 1  # the patch's last warm request's, late
    (out / "perf_metrics.jsonl").write_text("".join(json.dumps(d) + "\n" for d in perf))

    code, doc, text = run_telemetry(out / "samples.jsonl", "--expect", "cache-reuse")

    assert code == 1, text
    kv = {k["side"]: k for k in doc["kv_reuse"]}
    assert [(kv[s]["unread_cold"], kv[s].get("cold_hits")) for s in ("base", "patch")] == [
        (1, None), (1, None),
    ]  # fmt: skip
    assert kv["patch"]["unread"] == (
        "the TensorRT-LLM request of b cold-warm repeat 0: base and patch were sampled from "
        f"the same server ({urls}, both loopback port {port}): each /perf_metrics drain, "
        "labelled with one side, "
        "takes both sides' records (one that came late, in the other side's next drain), so "
        "no count of one side's drains proves which record is its own; sample each side on a "
        "server of its own"
    )
