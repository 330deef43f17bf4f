"""The server's own view of a run, from its `/metrics`: the running-requests gauge read while a
batch is in flight is logged next to the client's overlap figure, and a batch the client saw
overlap but the server ran one at a time (it queued them) is `not-exercised`. Without the
gauge a batch is never exercised: streams that interleaved at the client are `unproven` (a
serial server behind a pacing front end interleaves them too), streams that never did
`not-exercised`; a hostile `/metrics` never fails or hangs the run. Where
`usage` reports no cached tokens, cold-warm reads the prefix-cache hit counter instead."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_k3diff
from triage.helpers import compare_texts

from k3diff.sample.metrics import MetricsProblem, parse_metrics

from .support import read_samples, sample, write_prompts

FAULT = {"delay": 0.3, "chunk_delay": 0.05, "pieces": 6}


def _concurrent(
    fault_server: Any, tmp_path: Path, *flags: str, options: tuple[str, ...] = ()
) -> tuple[Path, dict[str, Any], float]:
    base, patch = fault_server(*flags), fault_server(*flags)
    tmp_path.mkdir(parents=True, exist_ok=True)
    prompts = write_prompts(tmp_path / "p.jsonl", [{"key": "k0", "prompt": "p0", "fault": FAULT}])
    out = tmp_path / "out"
    began = time.monotonic()
    result = sample(
        "--base", base.url, "--patch", patch.url, "--prompts", prompts, "--repeats", "4",
        "--mode", "concurrent", "--concurrency", "4", "--stream", "--out", out,
        "--format", "json", *options,
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    return out, json.loads(result.stdout), time.monotonic() - began


def _triage(tmp_path: Path, out: Path, fmt: str = "json") -> Any:
    comparison = compare_texts(tmp_path, {"k0": ("echo:p0", "echo:p0")})
    result = run_k3diff("triage", str(comparison), str(out / "samples.jsonl"), "--format", fmt)
    assert result.exit_code in (0, 1), result.stderr
    return json.loads(result.stdout) if fmt == "json" else result.stdout


def test_a_batching_server_whose_gauge_reads_n_is_exercised_and_the_figure_logged(
    fault_server: Any, tmp_path: Path
) -> None:
    out, summary, _ = _concurrent(fault_server, tmp_path, "--metrics", "vllm")
    header, lines = read_samples(out)
    assert header["metrics"]["base"]["running"] == "vllm:num_requests_running"
    assert {line["in_flight"] for line in lines} == {4}
    # Four requests generated together: the server's own gauge said 4 while they were.
    assert {line["server_running"] for line in lines} == {4}
    assert {r["server_running"] for r in summary["records"]} == {4}
    assert {r["batches_one_at_a_time"] for r in summary["records"]} == {0}
    verdict = _triage(tmp_path, out)["records"][0]
    assert verdict["category"] == "match" and "not-exercised" not in verdict["flags"]
    assert verdict["modes"][0]["base"]["server_running"] == 4
    text = _triage(tmp_path, out, "text")
    assert (
        "k0: concurrent: overlap: base 1 of 1 batches exercised (gauge 1, token windows 0, "
        "unproven 0), most together 4, gauge 4 (vllm:num_requests_running); patch 1 of 1 "
        "batches exercised (gauge 1, token windows 0, unproven 0), most together 4, gauge 4" in text
    )


def test_a_server_that_queues_behind_a_lock_is_not_exercised_though_the_client_saw_overlap(
    fault_server: Any, tmp_path: Path
) -> None:
    out, summary, _ = _concurrent(
        fault_server, tmp_path, "--queue-first-token", "--metrics", "vllm"
    )
    _, lines = read_samples(out)
    # Headers and a first token arrive for all four at once: the client sees them overlap ...
    assert {line["in_flight"] for line in lines} == {4}
    # ... but the server ran one at a time, and its gauge says so.
    assert {line["server_running"] for line in lines} == {1}
    assert {r["batches_server_one_at_a_time"] for r in summary["records"]} == {1}
    assert {r["batches_one_at_a_time"] for r in summary["records"]} == {1}
    verdict = _triage(tmp_path, out)["records"][0]
    assert verdict["category"] == "inconclusive" and "not-exercised" in verdict["flags"]
    assert "not-exercised: the server handled them one at a time" in verdict["reason"]
    assert "base 1 of 1 batches never overlapped: gauge read 1 in 1" in verdict["reason"]
    assert verdict["modes"][0]["patch"]["batches_server_one_at_a_time"] == 1


def test_a_data_parallel_server_running_one_request_per_engine_is_not_exercised(
    fault_server: Any, tmp_path: Path
) -> None:
    """hunt78: a data-parallel vLLM writes its running gauge per engine; four requests on four
    engines, one each, share no batch. The gauge was summed over its series (4: exercised, the
    record `match`, triage exit 0); the most one engine ran is 1: one at a time."""
    out, summary, _ = _concurrent(fault_server, tmp_path, "--metrics", "vllm-dp")
    _, lines = read_samples(out)
    assert {line["server_running"] for line in lines} == {1}
    assert {r["batches_server_one_at_a_time"] for r in summary["records"]} == {1}
    comparison = compare_texts(tmp_path, {"k0": ("echo:p0", "echo:p0")})
    result = run_k3diff("triage", str(comparison), str(out / "samples.jsonl"), "--format", "json")
    assert result.exit_code == 1, result.stdout
    verdict = json.loads(result.stdout)["records"][0]
    assert verdict["category"] == "inconclusive" and "not-exercised" in verdict["flags"]
    assert "not-exercised: the server handled them one at a time" in verdict["reason"]


def test_a_queueing_server_whose_first_chunk_is_empty_is_not_exercised_without_a_gauge(
    fault_server: Any, tmp_path: Path
) -> None:
    """What `transformers serve` without continuous batching does on a GPU: headers and an
    empty first event for every request at once, then one generated after the other. Only a
    token opens a streamed answer's window, so the client alone sees them one at a time."""
    out, summary, _ = _concurrent(fault_server, tmp_path, "--queue")  # /metrics answers 404
    header, lines = read_samples(out)
    assert header["metrics"]["base"]["problem"] == "HTTP 404"
    for side in ("base", "patch"):  # all four had their headers before the first one ended
        times = [line for line in lines if line["side"] == side]
        assert max(t["first_byte"] for t in times) < min(t["ended"] for t in times)
    assert {line["in_flight"] for line in lines} == {1}
    assert {r["batches_one_at_a_time"] for r in summary["records"]} == {1}
    verdict = _triage(tmp_path, out)["records"][0]
    assert verdict["category"] == "inconclusive" and "not-exercised" in verdict["flags"]
    assert (
        "base 1 of 1 batches never overlapped: decided by token windows in 1" in verdict["reason"]
    )


def test_without_metrics_the_gauge_is_not_exposed_and_interleaved_streams_are_unproven(
    fault_server: Any, tmp_path: Path
) -> None:
    """A server that does generate the four streams together, but shows no gauge: the client
    sees them interleave, which proves nothing of the server, so the batch is unproven and the
    record is not cleared (it was `match` when token windows proved overlap)."""
    out, summary, _ = _concurrent(fault_server, tmp_path)  # /metrics answers 404
    header, lines = read_samples(out)
    assert header["metrics"]["base"] == {
        "url": header["servers"]["base"] + "/metrics",
        "running": None,
        "cache": None,
        "problem": "HTTP 404",
        "given": False,
    }
    assert all("server_running" not in line for line in lines)
    assert {r["server_running"] for r in summary["records"]} == {None}
    assert {line["streams_overlapped"] for line in lines} == {3}
    assert {(r["batches_one_at_a_time"], r["batches_unproven"]) for r in summary["records"]} == {
        (0, 1)
    }
    verdict = _triage(tmp_path, out)["records"][0]
    assert verdict["category"] == "inconclusive" and "unproven" in verdict["flags"]
    assert (
        "base 0 of 1 batches exercised (gauge 0, token windows 0, unproven 1), most together -, "
        "gauge: not exposed (HTTP 404)" in _triage(tmp_path, out, "text")
    )


def test_the_summary_text_states_the_gauge_next_to_the_client_figure(
    fault_server: Any, tmp_path: Path
) -> None:
    base, patch = fault_server("--metrics", "sglang"), fault_server()
    prompts = write_prompts(tmp_path / "p.jsonl", [{"key": "k0", "prompt": "p0", "fault": FAULT}])
    result = sample(
        "--base", base.url, "--patch", patch.url, "--prompts", prompts, "--repeats", "3",
        "--mode", "concurrent", "--concurrency", "3", "--stream", "--out", tmp_path / "out",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    text = " ".join(result.stdout.split())
    # The patch's streams interleaved too, but without its gauge that proves nothing.
    assert (
        "overlap: 1 of 2 batches exercised (decided by gauge 1, token windows 0, unproven 1)"
        in text
    )
    assert (
        "most in flight together: base 3 proven, gauge 3 (sglang:num_running_reqs); "
        "patch none proven, gauge: not exposed (HTTP 404)" in text
    )


@pytest.mark.parametrize(
    ("kind", "problem"),
    [
        ("garbage", "not Prometheus text"),
        ("huge", "larger than 2 MiB"),
        ("slow", "unreadable (ReadTimeout)"),
        # review65: one line is quadratic time to prometheus_client (15 s for a 2 MiB one).
        ("wide", "not Prometheus text (a line longer than 16 KiB)"),
    ],
)
def test_a_hostile_metrics_endpoint_is_capped_and_never_fails_the_run(
    fault_server: Any, tmp_path: Path, kind: str, problem: str
) -> None:
    out, summary, seconds = _concurrent(fault_server, tmp_path, "--metrics", kind)
    header, lines = read_samples(out)
    assert header["metrics"]["base"]["running"] is None
    assert header["metrics"]["base"]["problem"].startswith(problem)
    assert summary["verdict"]["exit_code"] == 0 and len(lines) == 8
    assert {r["batches_one_at_a_time"] for r in summary["records"]} == {0}
    assert {r["batches_unproven"] for r in summary["records"]} == {1}  # interleaved: unproven
    assert seconds < 20  # a slow /metrics costs its 2 s probe per side, once


def test_a_metrics_endpoint_that_turns_to_garbage_mid_run_leaves_readings_missing(
    fault_server: Any, tmp_path: Path
) -> None:
    out, summary, _ = _concurrent(fault_server, tmp_path, "--metrics", "flaky")
    header, lines = read_samples(out)
    assert header["metrics"]["base"]["running"] == "vllm:num_requests_running"  # the probe
    assert all("server_running" not in line for line in lines) and len(lines) == 8
    assert summary["verdict"]["exit_code"] == 0
    assert (
        "base 0 of 1 batches exercised (gauge 0, token windows 0, unproven 1), most together -, "
        "gauge: not read while in flight" in _triage(tmp_path, out, "text")
    )


def test_a_needle_trial_reads_the_gauge_with_its_fillers_in_flight(
    fault_server: Any, tmp_path: Path
) -> None:
    base = fault_server("--metrics", "tgi")
    fault = {"delay": 0.3, "chunk_delay": 0.1}
    prompts = write_prompts(tmp_path / "p.jsonl", [{"key": "k0", "prompt": "p0", "fault": fault}])
    out = tmp_path / "out"
    result = sample(
        "--base", base.url, "--prompts", prompts, "--out", out, "--mode", "needle",
        "--concurrency", "4", "--repeats", "2", "--stream", "--control", "off",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    _, lines = read_samples(out)
    # The fillers' faults are the target's too (the same body), so they run together with it.
    assert all(line["server_running"] == line["in_flight"] >= 2 for line in lines), lines


def test_metrics_url_off_reads_nothing(fault_server: Any, tmp_path: Path) -> None:
    out, _, _ = _concurrent(
        fault_server, tmp_path, "--metrics", "vllm", options=("--metrics-url", "off")
    )
    header, lines = read_samples(out)
    assert "metrics" not in header and all("server_running" not in line for line in lines)


def _cold_warm(fault_server: Any, tmp_path: Path, cache: str) -> dict[str, Any]:
    base, patch = fault_server("--metrics", "vllm"), fault_server("--metrics", "vllm")
    fault = {"cache": cache, "output": "seeded"}
    prompts = write_prompts(tmp_path / "p.jsonl", [{"key": "k0", "prompt": "p0", "fault": fault}])
    out = tmp_path / "out"
    result = sample(
        "--base", base.url, "--patch", patch.url, "--prompts", prompts, "--out", out,
        "--mode", "cold-warm", "--repeats", "4",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr + result.stdout
    _, lines = read_samples(out)
    cold_warm = [line for line in lines if line["mode"] == "cold-warm"]
    assert all("prompt_tokens_details" not in line["usage"] for line in cold_warm)
    comparison = compare_texts(tmp_path, {"k0": ("x", "x")})
    triaged = run_k3diff("triage", str(comparison), str(out / "samples.jsonl"), "--format", "json")
    assert triaged.exit_code in (0, 1), triaged.stderr
    mode: dict[str, Any] = next(
        m for m in json.loads(triaged.stdout)["records"][0]["modes"] if m["mode"] == "cold-warm"
    )
    mode["lines"] = cold_warm
    return mode


def test_cold_warm_reads_the_prefix_cache_counter_where_usage_reports_nothing(
    fault_server: Any, tmp_path: Path
) -> None:
    mode = _cold_warm(fault_server, tmp_path, "counter")
    hits = {(line["side"], line["repeat"]): line["server_cache_hits"] for line in mode["lines"]}
    assert hits == {(side, r): 0 if r == 0 else 3 for side in ("base", "patch") for r in range(4)}
    assert "not-exercised" not in mode["flags"]
    assert mode["base"]["warm"] == 3 and mode["base"]["cache_hits"] == 3
    telemetry = run_k3diff(
        "telemetry", str(tmp_path / "out" / "samples.jsonl"), "--expect", "cache-reuse",
        "--format", "json",
    )  # fmt: skip
    assert telemetry.exit_code == 0, telemetry.stdout  # the counter proves the cache reuse


def test_cold_warm_whose_prefix_cache_counter_never_rises_is_not_exercised(
    fault_server: Any, tmp_path: Path
) -> None:
    mode = _cold_warm(fault_server, tmp_path, "counter_zero")
    assert {line["server_cache_hits"] for line in mode["lines"]} == {0}
    assert "not-exercised" in mode["flags"] and mode["category"] == "inconclusive"
    assert mode["reason"].startswith("not-exercised: no warm request hit the cache")


# --- the parser, on what each engine writes ----------------------------------------------------


def test_each_engines_running_gauge_is_read() -> None:
    vllm = (
        b"# HELP vllm:num_requests_running Number of requests.\n"
        b"# TYPE vllm:num_requests_running gauge\n"
        b'vllm:num_requests_running{engine="0",model_name="m"} 3.0\n'
        b'vllm:num_requests_running{engine="1",model_name="m"} 2.0\n'
        b"# TYPE vllm:prefix_cache_hits counter\n"
        b'vllm:prefix_cache_hits_total{engine="0",model_name="m"} 128.0\n'
        b'vllm:prefix_cache_hits_created{engine="0",model_name="m"} 1.7e9\n'
    )
    reading = parse_metrics(vllm)
    # The most one engine runs (engine 0's 3), not the sum: two engines share no batch.
    assert (reading.running, reading.running_name) == (3, "vllm:num_requests_running")
    assert (reading.cache, reading.cache_name) == (128, "vllm:prefix_cache_hits")
    assert parse_metrics(b'sglang:num_running_reqs{model_name="m"} 7\n').running == 7
    assert parse_metrics(b"tgi_batch_current_size 4\n").running == 4
    trtllm = b'[{"iter": 1, "numActiveRequests": 2}, {"iter": 2, "numActiveRequests": 6}]'
    assert parse_metrics(trtllm).running == 6  # the drained iterations' largest
    none = parse_metrics(b"process_cpu_seconds_total 1.0\n")
    assert none.running is None and none.cache is None


@pytest.mark.parametrize(
    "body",
    [
        b"vllm:num_requests_running{oops 1\n",
        b"vllm:num_requests_running NaN\n",
        b"vllm:num_requests_running -1\n",
        b"\xff\xfe",
        b'[{"numActiveRequests": "many"}]',
        b"[" * 5000,
    ],
)
def test_a_garbage_body_is_a_problem_never_a_crash(body: bytes) -> None:
    with pytest.raises(MetricsProblem):
        parse_metrics(body)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (
            "http://x/metrics",
            "--metrics-url 'http://x/metrics': expected base=URL, patch=URL or off",
        ),
        ("patch=http://x/metrics", "--metrics-url patch=URL needs --patch"),
    ],
)
def test_a_bad_metrics_url_is_a_usage_error(tmp_path: Path, value: str, message: str) -> None:
    prompts = write_prompts(tmp_path / "p.jsonl", [{"key": "k0", "prompt": "p0"}])
    result = sample(
        "--base", "http://127.0.0.1:9", "--prompts", prompts, "--repeats", "1",
        "--out", tmp_path / "out", "--metrics-url", value,
    )  # fmt: skip
    assert result.exit_code == 2 and message in result.stderr
    assert result.stderr.count("\n") == 1


NO_GAUGE = (
    "the base and patch servers expose no running-requests gauge at their metrics URL (asked, "
    "and answered without one), so co-batching cannot be proven on them and {modes} cannot be "
    "cleared there: drop {it}, or sample a server that exports the gauge (--mode serial still "
    "checks batch-1 parity)"
)


def test_a_server_that_answers_404_for_metrics_is_told_no_metrics_url_will_prove_it(
    fault_server: Any, tmp_path: Path
) -> None:
    """`transformers serve` answers 404 on /metrics: every concurrent batch is unproven, and
    the reason said to add --metrics-url, which such a server cannot serve (left67b)."""
    out, _summary, _ = _concurrent(fault_server, tmp_path)
    header, _ = read_samples(out)
    assert header["metrics"]["base"]["problem"] == "HTTP 404"
    (record,) = _triage(tmp_path, out)["records"]
    assert record["category"] == "inconclusive" and "unproven" in record["flags"]
    assert NO_GAUGE.format(modes="--mode concurrent", it="it") in record["reason"]
    assert "--metrics-url" not in record["reason"]
    prompts = tmp_path / "p.jsonl"
    base, patch = fault_server(), fault_server()
    text = sample(
        "--base", base.url, "--patch", patch.url, "--prompts", prompts, "--repeats", "4",
        "--mode", "concurrent", "--concurrency", "4", "--stream", "--out", tmp_path / "text",
    )  # fmt: skip
    said = " ".join(text.stdout.split())
    assert NO_GAUGE.format(modes="its batched modes", it="them") in said
    assert "give --metrics-url" not in said


def test_a_metrics_url_that_was_not_read_still_asks_for_one(
    fault_server: Any, tmp_path: Path
) -> None:
    """Unreadable (garbage) is not 'no gauge': the URL may be the wrong one."""
    out, _, _ = _concurrent(fault_server, tmp_path, "--metrics", "garbage")
    (record,) = _triage(tmp_path, out)["records"]
    assert (
        "adding --metrics-url URL to the sample command, where the server has one"
        in (record["reason"])
    )
    assert "expose no running-requests gauge" not in record["reason"]
