"""telem70: a cold-warm cold request's `/perf_metrics` record is read only where the log proves
which record is its own. TensorRT-LLM's records name no request of the samples log, and the
server keeps the newest `perf_metrics_max_requests` of them; `telemetry` counts what each
drain of a server holds against the requests `sample` sent it since the drain before.

Runs are real `k3diff sample` runs against loopback fault servers (started and stopped by pid
by the `fault_server` fixture) answering with records built from TensorRT-LLM's published
schema (`engine_schemas.py`)."""

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
"""The base's prefix cache honours the salt, and says so in its usage."""


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(text) for text in path.read_text().splitlines()]


def _loaded_then_cold_warm(fault_server: Any, tmp_path: Path, *modes: str) -> Path:
    """Prompts b and a, `modes` in that order at concurrency 2, against a patch server keeping
    one record (a cap below one loaded round: its target and the background requests). Prompt
    b takes 0.3 s on the patch; its requests without a salt (the loaded mode's, its background
    ones too) record a miss; its cold request hits (the server kept the prompt whatever the
    salt) and is recorded late (after its answer, as TensorRT-LLM's chat stream is), its warm
    one hits. Prompt a's cold request misses and its warm one hits."""
    faults = {
        "b": {
            "delay": 0.3,
            "perf_record": MISS,
            "perf_salted": {"cold": HIT, "warm": HIT, "cold_late": True},
        }
    }
    base = fault_server()
    patch = fault_server("--perf-metrics", "--perf-cap", "1", "--faults", json.dumps(faults))
    prompts = [{"key": "b", "prompt": "b"}, {"key": "a", "prompt": "a"}]
    out = tmp_path / "out"
    result = sample(
        "--base", base.url, "--patch", patch.url, *[f"--mode={m}" for m in modes],
        "--concurrency", "2", "--repeats", "2",
        "--prompts", write_prompts(tmp_path / "p.jsonl", prompts), "--out", out,
        "--base-param", PREFIX, "--patch-param", f"fault={json.dumps({'perf_kv': [3, 1]})}",
        "--control", "off",
    )  # fmt: skip
    assert result.exit_code in (0, 1), result.output
    return out


def test_a_cold_request_after_the_loaded_mode_is_not_read_from_a_background_record(
    fault_server: Any, tmp_path: Path
) -> None:
    """The loaded mode's last background request on the patch (prompt b, a miss) was in
    flight when the mode ended; it is recorded after the mode's last drain. b's cold request
    hit, and its record came late: its drain holds the background request's miss alone, and
    the cap then drops the cold request's hit for its warm request's. Every count agrees (one
    record where one request was sent), since the background requests' records, which no
    sample names, filled the count of the loaded drains. Before, the miss was read as b's
    cold request's, and the patch passed `cache-reuse` on the warm hits (exit 0)."""
    out = _loaded_then_cold_warm(fault_server, tmp_path, "loaded", "cold-warm")
    perf = _lines(out / "perf_metrics.jsonl")
    cold = [d for d in perf if d.get("mode") == "cold-warm" and d.get("key") == "b"]
    assert [(d["side"], d["repeat"], d["metrics"]) for d in cold] == [
        ("patch", 0, [MISS]), ("patch", 1, [HIT]),
    ]  # fmt: skip
    first_loaded = 1 + next(i for i, d in enumerate(perf) if d.get("mode") == "loaded")

    code, doc, text = run_telemetry(out / "samples.jsonl", "--expect", "cache-reuse")

    assert code == 1, text
    kv = {k["side"]: k for k in doc["kv_reuse"]}["patch"]
    assert (kv["unread_cold"], kv.get("cold_hits")) == (2, None)
    assert kv["unread"] == (
        "the TensorRT-LLM request of b cold-warm repeat 0: the drains of that server before "
        f"it since its run's start-up drain hold the loaded mode's records (from line "
        f"{first_loaded}), its background requests' among them, which no sample names: a "
        "record missing from them (late, or dropped past the server's cap) cannot be counted, "
        "so the one record its own drain held may be a background request's; sample "
        "cold-warm before loaded (--mode cold-warm --mode loaded) or in a run of its own"
    )
    (gap,) = doc["not_exercised"]
    assert (gap["side"], gap["expectation"]) == ("patch", "cache-reuse")
