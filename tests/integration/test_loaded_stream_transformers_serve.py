"""`--mode loaded` and `--stream` against a real server (`transformers serve`, conftest.py).

- The background load is counted: every loaded sample records `load_ended` and `load_failed`,
  the summary's `load` sums them; a load the server refuses (422: a request field it does not
  know) leaves the targets it ran under unproven (`batches_load_failed`), whatever else.
- With no background load at all (`--concurrency 1`), no background request ends while a
  target is in flight (`load_ended: 0`): the batches are unproven and the summary says why.
- The server's own event streams are read as streams: `--stream` samples in every mode are
  taken (no false "not an event stream" stop).
- The same server behind a front end that drops `stream` (tests/integration/unstreaming_proxy.py)
  answers each stream request with its real whole completion: the run stops at the first such
  answer (exit 2, one line naming the URL and the samples kept), where it used to fail every
  sample in turn.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_k3diff
from server_support import loopback_script

from .serve import InferenceServer

pytestmark = pytest.mark.xdist_group("inference_server")

PROMPTS = [
    {"key": "fox", "prompt": "the quick brown fox"},
    {"key": "dog", "prompt": "a lazy dog sleeps"},
]
PROXY_SCRIPT = Path(__file__).with_name("unstreaming_proxy.py")


def _sample(
    server: str, tmp_path: Path, prompts: list[dict[str, Any]], *options: str
) -> tuple[Any, list[dict[str, Any]]]:
    """Run `k3diff sample` (JSON summary); its result and the logged samples."""
    prompts_file = tmp_path / "prompts.jsonl"
    prompts_file.write_text("".join(json.dumps(p) + "\n" for p in prompts))
    out = tmp_path / "out"
    result = run_k3diff(
        "sample", "--base", server, "--prompts", prompts_file, "--out", out,
        "--param", "temperature=0", "--timeout", "300", *options,
    )  # fmt: skip
    log = out / "samples.jsonl"
    lines = [json.loads(x) for x in log.read_text().splitlines()[1:]] if log.exists() else []
    # Samples only: the header, resume markers and a stop line carry `schema`.
    return result, [x for x in lines if "side" in x and "schema" not in x]


def test_the_background_load_is_counted_against_a_real_server(
    inference_server: InferenceServer, tmp_path: Path
) -> None:
    result, samples = _sample(
        inference_server.base_url, tmp_path, PROMPTS, "--mode", "loaded", "--repeats", "3",
        "--concurrency", "3", "--param", "max_tokens=16", "--format", "json",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    summary = json.loads(result.stdout)
    print("load_ended:", [s["load_ended"] for s in samples], "load:", summary["load"])
    assert len(samples) == 6 and all(s["error"] is None for s in samples)
    assert all(isinstance(s["load_ended"], int) and s["load_failed"] == 0 for s in samples)
    assert summary["load"] == {
        "requests": sum(s["load_ended"] for s in samples),
        "failed": 0,
        "common_error": None,
    }
    # a serialising server finishes the running load before the target: it ends in flight
    assert summary["load"]["requests"] > 0
    for record in summary["records"]:
        assert record["batches_load_failed"] == 0, record
        # no gauge (transformers serve has no /metrics): nothing is exercised
        assert record["batches_unproven"] == record["batches"] == 3, record


def test_a_load_the_server_refuses_leaves_its_targets_unproven(
    inference_server: InferenceServer, tmp_path: Path
) -> None:
    """The load for `fox` is `refused` (the server answers 422 to a field it does not know), so
    fox's targets ran under no load: every background request that ended while one was in flight
    failed. refused's own targets fail (exit 1)."""
    prompts = [
        {"key": "fox", "prompt": "the quick brown fox", "max_tokens": 48},
        {"key": "refused", "prompt": "a lazy dog", "unknown_field": 1},
    ]
    result, samples = _sample(
        inference_server.base_url, tmp_path, prompts, "--mode", "loaded", "--repeats", "4",
        "--concurrency", "3", "--format", "json",
    )  # fmt: skip
    assert result.exit_code == 1, result.stderr
    summary = json.loads(result.stdout)
    fox = [s for s in samples if s["key"] == "fox"]
    print("fox load:", [(s["load_ended"], s["load_failed"]) for s in fox])
    assert len(fox) == 4 and all(s["error"] is None for s in fox)
    assert all(s["load_failed"] == s["load_ended"] for s in fox)
    failed_under = [s for s in fox if s["load_ended"]]
    assert failed_under, "no background request ended while a fox target was in flight"
    assert all(s["overlap_proof"] == "unproven" for s in failed_under)
    assert all("422" in s["load_error"] for s in failed_under), failed_under
    [row] = [r for r in summary["records"] if r["key"] == "fox"]
    assert row["batches_load_failed"] == len(failed_under)
    assert row["batches_unproven"] == row["batches_load_failed"] + row["batches_load_idle"]
    assert summary["load"]["failed"] >= len(failed_under)
    assert all(s["status"] == 422 for s in samples if s["key"] == "refused")


def test_no_background_load_is_said_and_the_summary_is_one_clause_a_line(
    inference_server: InferenceServer, tmp_path: Path
) -> None:
    result, samples = _sample(
        inference_server.base_url, tmp_path, PROMPTS[:1], "--mode", "loaded", "--repeats", "2",
        "--concurrency", "1", "--param", "max_tokens=4",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    assert [(s["load_ended"], s["overlap_proof"]) for s in samples] == [(0, "unproven")] * 2
    summary = result.stdout.split("\n\n")[-1]
    print(summary)
    assert summary.startswith("CONCURRENCY NOT PROVEN (0 of 2 loaded targets exercised; 2 during ")
    assert all(len(line) <= 100 or " " not in line.strip() for line in summary.splitlines())
    flat = " ".join(summary.split())
    assert "unproven: 2 loaded targets during which no background request ended" in flat
    assert "without a running-requests gauge reading" not in flat


@pytest.mark.parametrize("endpoint", ["completions", "chat"])
def test_the_servers_own_streams_are_read_as_streams(
    inference_server: InferenceServer, tmp_path: Path, endpoint: str
) -> None:
    prompts = [
        {"key": p["key"], "messages": [{"role": "user", "content": p["prompt"]}]}
        if endpoint == "chat"
        else p
        for p in PROMPTS
    ]
    result, samples = _sample(
        inference_server.base_url, tmp_path, prompts, "--stream", "--endpoint", endpoint,
        "--mode", "serial", "--mode", "loaded", "--repeats", "2", "--concurrency", "2",
        "--param", "max_tokens=8", "--format", "json",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    assert result.stderr == ""
    assert len(samples) == 8
    assert all(s["error"] is None and s["text"] for s in samples), samples
    assert all(s["first_token"] is not None for s in samples), samples  # token chunks came


@pytest.fixture
def unstreaming_front(inference_server: InferenceServer) -> Iterator[str]:
    """The real server behind unstreaming_proxy.py (its URL), stopped by pid after the test."""
    with loopback_script(PROXY_SCRIPT, "--upstream", inference_server.base_url) as url:
        yield url


def test_a_real_whole_completion_for_a_stream_stops_the_run(
    inference_server: InferenceServer, unstreaming_front: str, tmp_path: Path
) -> None:
    """Base: the server itself (it streams); patch: the same server behind a front end that
    drops `stream`. Serial repeat 0 takes the base's sample, then the patch's whole completion
    stops the run; --resume meets it again."""
    args = ("--stream", "--patch", unstreaming_front, "--repeats", "50", "--param", "max_tokens=4")
    result, samples = _sample(inference_server.base_url, tmp_path, PROMPTS[:1], *args)
    out = tmp_path / "out"
    assert result.exit_code == 2, result.stdout
    assert result.stderr.splitlines() == [
        f"k3diff: error: {unstreaming_front}/v1/completions: answered a stream request (stream: "
        "true) with one whole JSON completion as application/json, not an event stream: the "
        "server does not stream (sample it without --stream, in another --out); stopped, 1 "
        f"sample kept in {out}/samples.jsonl (--resume sends the same stream requests and stops "
        "the same way)"
    ]
    assert [(s["side"], s["error"]) for s in samples] == [("base", None)]
    stop = json.loads((out / "samples.jsonl").read_text().splitlines()[-1])
    assert (stop["reason"], stop["resumable"], stop.get("side")) == ("not-streamed", False, "patch")
    again, _ = _sample(inference_server.base_url, tmp_path, PROMPTS[:1], *args, "--resume")
    assert again.exit_code == 2 and "stopped, 1 sample kept" in again.stderr
