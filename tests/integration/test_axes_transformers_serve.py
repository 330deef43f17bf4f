"""The sampling axes against a real inference server (`transformers serve` on the CPU, a tiny
random Llama, without and with continuous batching): what the server really shows, read from
the log.

- `sweep --levels 1,2,4`: every level runs; at temperature 0 without batching the curve is flat
  (one output per level, none differing from serial) — the CPU server has no batch variance.
- `cold-warm`: `transformers serve` refuses a `cache_salt` field (HTTP 422) and has no flush
  endpoint, so the axis cannot be exercised there: every sample is a logged failure (never
  dropped), and neither triage nor telemetry may clear the run.
- the default control (temperature 1, distinct seeds) varies on a live server: not vacuous.
- with `--continuous-batching`: a level's requests are answered together (level 4: 4 answers
  streaming at once, interleaved at the client), yet without a running-requests gauge no sweep
  batch is exercised (interleaved streams are `unproven`: docs/evidence-conditions.md), and the
  server samples whatever the request's temperature (the tiny model's generation config has
  `do_sample: true`, which wins there), so every output differs, serially too (observed: 4
  distinct of 4 at levels 1, 2 and 4); cold-warm is refused (HTTP 422 on `cache_salt`) as
  without batching. The first batched request takes ~55 s on the CPU.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_k3diff, twin

from .serve import InferenceServer

pytestmark = pytest.mark.xdist_group("inference_server")


def _run(server: InferenceServer, tmp_path: Path, *options: str) -> tuple[Path, dict[str, Any]]:
    prompts = tmp_path / "prompts.jsonl"
    prompts.write_text(json.dumps({"key": "fox", "prompt": "the quick brown fox"}) + "\n")
    out = tmp_path / "out"
    sampled = run_k3diff(
        "sample", "--base", server.base_url, "--patch", server.base_url, "--prompts", prompts,
        "--param", "max_tokens=6", "--param", "temperature=0", "--out", out, *options,
        "--format", "json",
    )  # fmt: skip
    assert sampled.exit_code in (0, 1), sampled.stderr
    return out, json.loads(sampled.stdout)


def _triage_mode(tmp_path: Path, out: Path, mode: str) -> dict[str, Any]:
    lines = [json.loads(x) for x in (out / "samples.jsonl").read_text().splitlines()[1:]]
    text = next(x["text"] for x in lines if x.get("mode") == mode and x.get("error") is None)
    capture = tmp_path / "capture.jsonl"
    capture.write_text(
        json.dumps({"key": "fox", "prompt": "the quick brown fox", "text": text}) + "\n"
    )
    compared = run_k3diff(
        "responses", capture, twin(capture), "--format", "json", "-o", tmp_path / "cmp.json"
    )
    assert compared.exit_code == 0, compared.stderr
    # One server as both sides on purpose (an A/A run of its axes): --allow-same-server, or
    # triage holds every record same-server (server71).
    result = run_k3diff(
        "triage", tmp_path / "cmp.json", out / "samples.jsonl", "--format", "json",
        "--allow-same-server",
    )  # fmt: skip
    assert result.exit_code in (0, 1), result.stderr
    record = json.loads(result.stdout)["records"][0]
    found: dict[str, Any] = next(m for m in record["modes"] if m["mode"] == mode)
    return found


def test_a_sweep_on_the_cpu_server_is_flat(
    inference_server: InferenceServer, tmp_path: Path
) -> None:
    out, summary = _run(
        inference_server, tmp_path, "--mode", "sweep", "--levels", "1,2,4", "--repeats", "4"
    )
    assert summary["vacuous"] == [], summary["control"]
    # No /metrics on transformers serve: the gauge is not exposed, the client's overlap decides.
    assert summary["metrics"]["base"]["running"] is None, summary["metrics"]
    print("transformers serve /metrics:", summary["metrics"]["base"]["problem"])
    mode = _triage_mode(tmp_path, out, "sweep")
    levels = {
        (p["side"], p["level"]): (p["distinct"], p["differ_from_serial"]) for p in mode["sweep"]
    }
    assert {level for _, level in levels} == {1, 2, 4}
    assert all(value == (1, 0) for value in levels.values()), levels


def test_cold_warm_on_a_server_that_refuses_cache_salt_is_never_cleared(
    inference_server: InferenceServer, tmp_path: Path
) -> None:
    out, _ = _run(inference_server, tmp_path, "--mode", "cold-warm", "--repeats", "3")
    lines = [json.loads(x) for x in (out / "samples.jsonl").read_text().splitlines()[1:]]
    cold_warm = [x for x in lines if x.get("mode") == "cold-warm"]
    assert len(cold_warm) == 6  # 3 per side, each logged
    assert all(x["status"] == 422 and "cache_salt" in x["error"] for x in cold_warm)
    telemetry = run_k3diff(
        "telemetry", out / "samples.jsonl", "--expect", "cache-reuse", "--format", "json"
    )
    assert telemetry.exit_code == 1
    assert {n["side"] for n in json.loads(telemetry.stdout)["not_exercised"]} == {"base", "patch"}


# --- the same axes against `transformers serve --continuous-batching` ---------------------------
# Few requests and tiny answers: on the CPU the first batched request is slow (tens of seconds).


def _log(out: Path) -> list[dict[str, Any]]:
    lines = [json.loads(x) for x in (out / "samples.jsonl").read_text().splitlines()[1:]]
    return [x for x in lines if "schema" not in x]


def test_a_sweep_on_the_continuous_batching_server(
    continuous_server: InferenceServer, tmp_path: Path
) -> None:
    prompts = tmp_path / "prompts.jsonl"
    prompts.write_text(json.dumps({"key": "fox", "prompt": "the quick brown fox"}) + "\n")
    out = tmp_path / "out"
    sampled = run_k3diff(
        "sample", "--base", continuous_server.base_url, "--prompts", prompts,
        "--param", "max_tokens=4", "--param", "temperature=0", "--mode", "sweep",
        "--levels", "1,2,4", "--repeats", "4", "--control-repeats", "2", "--stream",
        "--timeout", "300", "--out", out, "--format", "json",
    )  # fmt: skip
    assert sampled.exit_code in (0, 1), sampled.stderr
    summary = json.loads(sampled.stdout)
    sweep = [x for x in _log(out) if x["mode"] == "sweep"]
    figures = {
        level: {
            "n": sum(1 for x in sweep if x["level"] == level and x["error"] is None),
            "distinct": len({x["text_xxh3"] for x in sweep if x["level"] == level} - {None}),
            "in_flight": max(x["in_flight"] for x in sweep if x["level"] == level),
        }
        for level in (1, 2, 4)
    }
    print("continuous-batching sweep:", json.dumps(figures), "control:", summary["control"])
    print("continuous-batching /metrics:", summary["metrics"]["base"])
    assert summary["metrics"]["base"]["running"] is None  # not exposed: the client's rule
    records = summary["records"]
    print("batches one at a time:", [r["batches_one_at_a_time"] for r in records])
    print("batches unproven:", [r["batches_unproven"] for r in records])
    print("streams_overlapped:", sorted((x["level"], x["streams_overlapped"]) for x in sweep))
    assert all(x["error"] is None for x in sweep), [x["error"] for x in sweep]
    assert {level: f["n"] for level, f in figures.items()} == {1: 4, 2: 4, 4: 4}
    assert figures[1]["in_flight"] == 1  # level 1 sends one request at a time
    # The batching server really runs a level's requests together (streams interleave) ...
    assert figures[4]["in_flight"] >= 2
    # ... but without a gauge nothing proves it: streams that interleave at the client prove
    # nothing (a serial server behind a pacing front end interleaves them too) and are
    # unproven; with 4-token answers most streams do not even interleave (each needs two token
    # chunks while the other is open), and those batches read not-exercised (observed: 3 of 3,
    # or 2 of 3 and one unproven). Either way no sweep batch is exercised.
    for record in (r for r in records if r["mode"] == "sweep"):
        assert record["batches_unproven"] + record["batches_one_at_a_time"] == record["batches"]
    # ... and samples even one at a time at temperature 0: with --continuous-batching the
    # model's generation config (do_sample: true) wins over the request's temperature, so the
    # serial level already gives several outputs (observed: 4 distinct of 4 at every level).
    assert figures[1]["distinct"] >= 2


def test_cold_warm_on_the_continuous_batching_server_is_never_cleared(
    continuous_server: InferenceServer, tmp_path: Path
) -> None:
    out, _ = _run(
        continuous_server, tmp_path, "--mode", "cold-warm", "--repeats", "2",
        "--control", "off",
    )  # fmt: skip
    cold_warm = [x for x in _log(out) if x["mode"] == "cold-warm"]
    print("continuous-batching cold-warm:", [(x["status"], x["error"]) for x in cold_warm])
    assert len(cold_warm) == 4
    assert all(x["status"] == 422 and "cache_salt" in x["error"] for x in cold_warm)
