"""`--mode loaded` counts its background load, against the fault server on loopback: every
background request that ends while a target is in flight is recorded on the target's line
(`load_ended`, `load_failed`, `load_error`); a target whose background requests all failed was
not sent under the load the run claims, so its batch is unproven whatever the server's gauge
read, and the summary says how many background requests failed. A background request answered
with a page (no completion server) is one more failed request, never a silently dead worker."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from k3diff.sample.log import read_log

from .support import headline, read_samples, sample, triage_samples, write_prompts


def _prompts(tmp_path: Path, load_fault: dict[str, Any]) -> Path:
    """A slow target `t` (its window long enough for background requests to end in it) and a
    prompt `l` whose answers carry `load_fault`: while `t` is sampled the load sends only `l`."""
    return write_prompts(
        tmp_path / "p.jsonl",
        [
            {"key": "t", "prompt": "t", "fault": {"delay": 0.8}},
            {"key": "l", "prompt": "l", "fault": load_fault},
        ],
    )


def _loaded(server: str, prompts: Path, out: Path, *args: str) -> Any:
    return sample(
        "--base", server, "--prompts", prompts, "--repeats", "2", "--mode", "loaded",
        "--concurrency", "3", "--retries", "0", "--out", out, *args,
    )  # fmt: skip


def test_a_load_answered_with_pages_is_recorded_not_swallowed(
    fault_server: Any, tmp_path: Path
) -> None:
    server = fault_server()
    out = tmp_path / "out"
    result = _loaded(server.url, _prompts(tmp_path, {"garbage": -1}), out)
    # the target `l` itself is answered with a page: the run stops there, as ever
    assert result.exit_code == 2, result.stdout
    assert "not an OpenAI-compatible endpoint" in result.stderr
    _, samples = read_samples(out)
    targets = [s for s in samples if s["key"] == "t"]
    assert len(targets) == 2 and all(s["error"] is None for s in targets)
    for line in targets:
        # both workers kept sending after their first page (0.5 s pause, 0.8 s target)
        assert line["load_ended"] >= 2, line
        assert line["load_failed"] == line["load_ended"]
        assert "answered a completion request as text/html" in line["load_error"]
        assert line["overlap_proof"] == "unproven"
    assert len(read_log(out / "samples.jsonl").samples) == 2  # the log reads back


def test_a_failed_load_leaves_its_batches_unproven_whatever_the_gauge_read(
    fault_server: Any, tmp_path: Path
) -> None:
    server = fault_server("--metrics", "vllm")
    out = tmp_path / "out"
    prompts = _prompts(tmp_path, {"malformed": -1, "delay": 0.2})
    result = _loaded(server.url, prompts, out, "--format", "json")
    assert result.exit_code == 1, result.stderr  # the target `l`'s samples fail
    document = json.loads(result.stdout)
    rows = {(r["key"], r["mode"]): r for r in document["records"]}
    target = rows[("t", "loaded")]
    assert target["batches"] == 2
    assert target["batches_load_failed"] == 2
    assert target["batches_unproven"] == 2
    assert target["batches_by_gauge"] == 0  # the gauge read the failing load: no proof
    load = document["load"]
    assert 0 < load["failed"] == load["requests"]
    assert load["common_error"].startswith("malformed JSON in the response")
    _, samples = read_samples(out)
    assert all(s["server_running"] >= 2 for s in samples if s["key"] == "t")
    text = _loaded(server.url, prompts, out, "--resume")
    shown = headline(text.stdout)
    assert (
        "overlap: 0 of 2 loaded targets exercised (decided by gauge 0, token windows 0, " in shown
    )
    assert "unproven: 2 loaded targets whose background requests all failed" in shown
    assert "without a running-requests gauge reading" not in shown
    assert "base none proven, gauge " in shown and "not read" not in shown
    ended = f"background load: {load['failed']} of {load['requests']} background requests"
    assert ended in shown


def test_triage_says_the_load_failed_and_clears_nothing(fault_server: Any, tmp_path: Path) -> None:
    server = fault_server("--metrics", "vllm")
    out = tmp_path / "out"
    prompts = write_prompts(
        tmp_path / "p.jsonl",
        [
            {"key": "k0", "prompt": "p0", "fault": {"delay": 0.8}},
            {"key": "l", "prompt": "l", "fault": {"malformed": -1, "delay": 0.2}},
        ],
    )
    assert _loaded(server.url, prompts, out, "--patch", server.url).exit_code == 1
    _, document = triage_samples(tmp_path, out)
    [record] = [r for r in document["records"] if r["key"] == "k0"]
    assert record["category"] != "match", record
    assert (
        "unproven: the background load failed (base 2 of 2 targets, patch 2 of 2 targets: "
        "every background request that ended while the target was in flight failed)"
    ) in record["reason"]


def test_an_answered_load_records_its_count_and_no_failure(
    fault_server: Any, tmp_path: Path
) -> None:
    server = fault_server()
    out = tmp_path / "out"
    result = _loaded(server.url, _prompts(tmp_path, {"delay": 0.2}), out, "--format", "json")
    assert result.exit_code == 0, result.stderr
    load = json.loads(result.stdout)["load"]
    assert load["requests"] > 0 and load["failed"] == 0 and load["common_error"] is None
    _, samples = read_samples(out)
    assert all(s["load_failed"] == 0 and "load_error" not in s for s in samples)
    assert "background load" not in sample(
        "--base", server.url, "--prompts", tmp_path / "p.jsonl", "--repeats", "2",
        "--mode", "loaded", "--concurrency", "3", "--out", out, "--resume",
    ).stdout  # fmt: skip


@pytest.mark.parametrize(
    ("concurrency", "load_fault"),
    [("1", {}), ("3", {"delay": 5})],
    ids=["no-load", "load-slower-than-the-targets"],
)
def test_a_target_no_background_request_ended_during_says_so(
    fault_server: Any, tmp_path: Path, concurrency: str, load_fault: dict[str, Any]
) -> None:
    """A fast target and no load at all (`--concurrency 1`), or a load far slower than the
    targets: no background request ended while a target was in flight (`load_ended: 0`). The
    batches stay unproven (no gauge), and the summary says why instead of nothing."""
    server = fault_server()
    prompts = write_prompts(
        tmp_path / "p.jsonl",
        [{"key": "t", "prompt": "t"}, {"key": "l", "prompt": "l", "fault": load_fault}],
    )
    out = tmp_path / "out"
    args = ["--base", server.url, "--prompts", prompts, "--repeats", "2", "--mode", "loaded"]
    args += ["--concurrency", concurrency, "--out", out, "--metrics-url", "off"]
    result = sample(*args, "--format", "json")
    assert result.exit_code == 0, result.stderr
    _, samples = read_samples(out)
    targets = [s for s in samples if s["key"] == "t"]
    assert [(s["load_ended"], s["overlap_proof"]) for s in targets] == [(0, "unproven")] * 2
    row = next(r for r in json.loads(result.stdout)["records"] if r["key"] == "t")
    assert (row["batches"], row["batches_unproven"], row["batches_load_idle"]) == (2, 2, 2)
    shown = headline(sample(*args, "--resume").stdout)
    assert shown.startswith("CONCURRENCY NOT PROVEN (0 of 4 loaded targets exercised; ")
    assert "during which no background request ended)" in shown
    assert (
        "loaded targets during which no background request ended (load_ended 0): the load "
        "never overlapped them as far as the client can tell"
    ) in shown


def test_triage_says_no_background_request_ended_and_clears_nothing(
    fault_server: Any, tmp_path: Path
) -> None:
    """`--concurrency 1`: loaded targets with no load at all (load_ended 0 on both sides).
    Triage's reason says why the mode clears nothing, not only that no gauge was read."""
    server = fault_server()
    out = tmp_path / "out"
    prompts = write_prompts(tmp_path / "p.jsonl", [{"key": "k0", "prompt": "p0"}])
    result = sample(
        "--base", server.url, "--patch", server.url, "--prompts", prompts, "--repeats", "2",
        "--mode", "loaded", "--concurrency", "1", "--out", out, "--metrics-url", "off",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    _, document = triage_samples(tmp_path, out)
    [record] = document["records"]
    assert record["category"] != "match", record
    assert (
        "unproven: no background request ended while the target was in flight (base 2 of 2 "
        "targets, patch 2 of 2 targets: load_ended 0)"
    ) in record["reason"]
    assert "this mode clears nothing" in record["reason"]


def test_loaded_targets_without_a_gauge_are_not_called_batches(
    fault_server: Any, tmp_path: Path
) -> None:
    """The summary and triage count loaded targets no gauge reading decided in their own unit
    (failed on main: 'unproven: N batches without a running-requests gauge reading' for N
    loaded targets, and triage's 'no running-requests gauge reading in base 2 of 2 batches')."""
    server = fault_server()  # no /metrics: no gauge
    out = tmp_path / "out"
    prompts = write_prompts(
        tmp_path / "p.jsonl",
        [
            {"key": "k0", "prompt": "p0", "fault": {"delay": 0.8}},
            {"key": "l", "prompt": "l", "fault": {"delay": 0.05}},
        ],
    )
    result = _loaded(server.url, prompts, out, "--patch", server.url)
    assert result.exit_code == 0, result.stdout + result.stderr
    shown = headline(result.stdout)
    assert re.search(r"unproven: \d+ loaded targets? without a running-requests gauge", shown)
    assert "batches without a running-requests gauge reading" not in shown
    _, document = triage_samples(tmp_path, out)
    [record] = [r for r in document["records"] if r["key"] == "k0"]
    assert record["reason"].startswith(
        "loaded: unproven: no running-requests gauge reading in base 2 of 2 loaded targets, patch "
        "2 of 2 loaded targets"
    )
