"""`k3diff sample` against a real inference server: the three behaviours, per mode, from the log.

Each test runs the real CLI in a subprocess against `transformers serve` (conftest.py), then
reads DIR/samples.jsonl back and counts distinct outputs by `text_xxh3` itself, so the summary
`k3diff sample` prints is checked against its own evidence, not trusted.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_json, run_k3diff

from k3diff.responses.model import text_digest

from .serve import InferenceServer

pytestmark = pytest.mark.xdist_group("inference_server")

REPEATS = 4
CONCURRENCY = 4
PROMPTS = [
    {"key": "fox", "prompt": "the quick brown fox"},
    {"key": "dog", "prompt": "a lazy dog"},
]
CHAT_PROMPTS = [{"key": "fox", "messages": [{"role": "user", "content": "the quick brown fox"}]}]


def _sample(
    server: InferenceServer,
    tmp_path: Path,
    prompts: list[dict[str, Any]],
    *options: str,
    patch: bool = False,
) -> tuple[int, dict[str, Any], list[dict[str, Any]]]:
    """Run `k3diff sample`; return its exit code, JSON report and the logged samples."""
    prompts_file = tmp_path / "prompts.jsonl"
    prompts_file.write_text("".join(json.dumps(p) + "\n" for p in prompts))
    out = tmp_path / "out"
    args = ["sample", "--base", server.base_url, "--prompts", str(prompts_file)]
    if patch:
        args += ["--patch", server.base_url]
    args += ["--repeats", str(REPEATS), "--concurrency", str(CONCURRENCY), "--out", str(out)]
    args += ["--param", "max_tokens=12", *options]
    if patch:
        # One server on both sides on purpose: sample says so on stderr, once, and nothing else.
        result = run_k3diff(*args, "--format", "json")
        assert result.exit_code in (0, 1), result.stderr
        port = server.base_url.rsplit(":", 1)[1]
        assert result.stderr == (
            f"k3diff: note: --base and --patch are the same server ({server.base_url}, both "
            f"loopback port {port}): the run measures that server against itself, and triage "
            "holds it unless --allow-same-server\n"
        )
        code, report = result.exit_code, json.loads(result.stdout)
    else:
        code, report = run_json(*args)
    lines = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    assert lines[0]["schema"] == "k3diff.samples/1"
    return code, report, [line for line in lines[1:] if "schema" not in line]


def _distinct_from_log(samples: list[dict[str, Any]]) -> dict[tuple[str, str, str], int]:
    """Distinct `text_xxh3` per (key, side, mode), checking every sample on the way."""
    hashes: dict[tuple[str, str, str], set[str]] = defaultdict(set)
    repeats: dict[tuple[str, str, str], list[int]] = defaultdict(list)
    for s in samples:
        assert s["error"] is None, s
        assert s["status"] == 200, s
        assert s["text"], s
        assert s["text_xxh3"] == text_digest(s["text"])
        cell = (s["key"], s["side"], s["mode"])
        hashes[cell].add(s["text_xxh3"])
        repeats[cell].append(s["repeat"])
    for cell, taken in repeats.items():
        assert sorted(taken) == list(range(REPEATS)), (cell, taken)
    return {cell: len(h) for cell, h in hashes.items()}


def _distinct_from_report(report: dict[str, Any]) -> dict[tuple[str, str, str], int]:
    for r in report["records"]:
        assert (r["n"], r["errors"]) == (REPEATS, 0), r
    return {(r["key"], r["side"], r["mode"]): r["distinct"] for r in report["records"]}


def test_a_fixed_seed_is_stable_serially_but_not_under_concurrency(
    inference_server: InferenceServer, tmp_path: Path
) -> None:
    code, report, samples = _sample(
        inference_server, tmp_path, PROMPTS,
        "--mode", "serial", "--mode", "concurrent",
        "--param", "temperature=1", "--param", "seed=1234",
    )  # fmt: skip
    assert code == 0
    assert report["verdict"] == {"ok": True, "exit_code": 0}
    distinct = _distinct_from_log(samples)
    assert distinct == _distinct_from_report(report)
    assert len(samples) == len(PROMPTS) * 2 * REPEATS
    for prompt in PROMPTS:
        assert distinct[(prompt["key"], "base", "serial")] == 1, distinct
        assert distinct[(prompt["key"], "base", "concurrent")] >= 2, distinct


def test_temperature_one_without_a_seed_is_not_stable_serially(
    inference_server: InferenceServer, tmp_path: Path
) -> None:
    code, report, samples = _sample(
        inference_server, tmp_path, PROMPTS, "--mode", "serial", "--param", "temperature=1"
    )
    assert code == 0
    distinct = _distinct_from_log(samples)
    assert distinct == _distinct_from_report(report)
    for prompt in PROMPTS:
        assert distinct[(prompt["key"], "base", "serial")] >= REPEATS - 1, distinct


def test_temperature_zero_is_stable_in_every_mode_on_both_sides(
    inference_server: InferenceServer, tmp_path: Path
) -> None:
    code, report, samples = _sample(
        inference_server, tmp_path, CHAT_PROMPTS,
        "--endpoint", "chat", "--mode", "serial", "--mode", "concurrent", "--mode", "loaded",
        "--param", "temperature=0",
        patch=True,
    )  # fmt: skip
    assert code == 0
    distinct = _distinct_from_log(samples)
    assert distinct == _distinct_from_report(report)
    assert set(distinct) == {
        ("fox", side, mode)
        for side in ("base", "patch")
        for mode in ("serial", "concurrent", "loaded")
    }
    assert set(distinct.values()) == {1}
    # The same server behind both flags: one output across sides and modes.
    assert len({s["text_xxh3"] for s in samples}) == 1


def test_a_field_the_server_refuses_is_a_failed_sample_and_exit_1(
    inference_server: InferenceServer, tmp_path: Path
) -> None:
    # transformers serve answers 422 to request fields it does not know, such as cache_salt.
    prompts_file = tmp_path / "prompts.jsonl"
    prompts_file.write_text(json.dumps(PROMPTS[0]) + "\n")
    out = tmp_path / "out"
    result = run_k3diff(
        "sample", "--base", inference_server.base_url, "--prompts", prompts_file,
        "--repeats", "2", "--cache-salt", "--param", "max_tokens=4", "--out", out,
        "--format", "json",
    )  # fmt: skip
    assert result.exit_code == 1, (result.stdout, result.stderr)
    report = json.loads(result.stdout)
    assert report["verdict"] == {"ok": False, "exit_code": 1}
    lines = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()[1:]]
    assert len(lines) == 2
    assert all(s["status"] == 422 and s["error"] and s["text"] is None for s in lines), lines


def test_streamed_temperature_zero_is_stable_and_keeps_the_usage(
    inference_server: InferenceServer, tmp_path: Path
) -> None:
    code, report, samples = _sample(
        inference_server, tmp_path, PROMPTS[:1],
        "--stream", "--mode", "serial", "--mode", "concurrent", "--param", "temperature=0",
    )  # fmt: skip
    assert code == 0
    distinct = _distinct_from_log(samples)
    assert distinct == _distinct_from_report(report)
    assert set(distinct.values()) == {1}
    assert all(s["usage"] and s["usage"]["completion_tokens"] >= 1 for s in samples), samples
    assert all(s["finish_reason"] in ("stop", "length") for s in samples), samples
