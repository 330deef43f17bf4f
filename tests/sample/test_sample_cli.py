"""`k3diff sample` against fault-injecting servers running as real processes on loopback: the
modes, what they count, and the requests they send (failures: test_sample_failures.py)."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

from .support import inference, read_samples, sample, write_prompts


def test_serial_never_has_two_requests_in_flight_across_both_servers(
    fault_server: Any, tmp_path: Path
) -> None:
    base, patch = fault_server(), fault_server()
    prompts = write_prompts(
        tmp_path / "p.jsonl",
        [{"key": f"k{i}", "prompt": f"p{i}", "fault": {"delay": 0.01}} for i in range(3)],
    )
    result = sample(
        "--base",
        base.url,
        "--patch",
        patch.url,
        "--prompts",
        prompts,
        "--repeats",
        "4",
        "--out",
        tmp_path / "out",
    )
    assert result.exit_code == 0, result.stderr
    intervals = sorted((r["start"], r["end"]) for s in (base, patch) for r in inference(s))
    assert len(intervals) == 3 * 4 * 2
    for (_, previous_end), (start, _) in itertools.pairwise(intervals):
        assert start > previous_end
    _, samples = read_samples(tmp_path / "out")
    firsts = [s["side"] for s in samples if s["key"] == "k0"][::2]
    assert firsts == ["base", "patch", "base", "patch"]  # sides alternate per repeat


def test_concurrent_mode_does_overlap_requests(fault_server: Any, tmp_path: Path) -> None:
    """The in-flight check above can fail: concurrent mode shows overlapping requests."""
    base = fault_server()
    prompts = write_prompts(
        tmp_path / "p.jsonl", [{"key": "a", "prompt": "a", "fault": {"delay": 0.2}}]
    )
    result = sample(
        "--base",
        base.url,
        "--prompts",
        prompts,
        "--repeats",
        "4",
        "--mode",
        "concurrent",
        "--concurrency",
        "4",
        "--out",
        tmp_path / "out",
    )
    assert result.exit_code == 0, result.stderr
    intervals = sorted((r["start"], r["end"]) for r in inference(base))
    assert any(start < end for (_, end), (start, _) in itertools.pairwise(intervals))


def test_streams_with_and_without_done_match_non_streamed_answers(
    fault_server: Any, tmp_path: Path
) -> None:
    base = fault_server()
    records: list[dict[str, Any]] = [
        {"key": "done", "messages": [{"role": "user", "content": "hi"}]},
        {
            "key": "nodone",
            "messages": [{"role": "user", "content": "yo"}],
            "fault": {"no_done": True},
        },
        {"key": "cut", "messages": [{"role": "user", "content": "c"}], "fault": {"truncate": 1}},
    ]
    prompts = write_prompts(tmp_path / "p.jsonl", records)
    streamed = sample(
        "--base",
        base.url,
        "--prompts",
        prompts,
        "--repeats",
        "2",
        "--stream",
        "--out",
        tmp_path / "s",
    )
    plain = sample(
        "--base", base.url, "--prompts", prompts, "--repeats", "1", "--out", tmp_path / "p"
    )
    assert streamed.exit_code == 0 and plain.exit_code == 0, streamed.stderr + plain.stderr
    header, samples = read_samples(tmp_path / "s")
    assert header["endpoint"] == "chat" and header["stream"] is True
    _, plain_samples = read_samples(tmp_path / "p")
    hashes = {s["key"]: s["text_xxh3"] for s in plain_samples}
    for s in samples:
        assert s["text_xxh3"] == hashes[s["key"]]
        assert s["usage"] is not None and s["fingerprint"] == "fp-test"
    assert next(s for s in samples if s["key"] == "cut")["attempts"] == 2


def test_deterministic_and_nondeterministic_outputs_are_counted(
    fault_server: Any, tmp_path: Path
) -> None:
    base, patch = fault_server(), fault_server()
    prompts = write_prompts(
        tmp_path / "p.jsonl",
        [
            {"key": "det", "prompt": "d"},
            {"key": "rand", "prompt": "r", "fault": {"output": "rand"}},
        ],
    )
    result = sample(
        "--base",
        base.url,
        "--patch",
        patch.url,
        "--prompts",
        prompts,
        "--repeats",
        "4",
        "--mode",
        "serial",
        "--mode",
        "loaded",
        "--concurrency",
        "3",
        "--param",
        "temperature=0",
        "--param",
        "return_token_ids=true",
        "--out",
        tmp_path / "out",
        "--format",
        "json",
    )
    assert result.exit_code == 0, result.stderr
    rows = {(r["key"], r["side"], r["mode"]): r for r in json.loads(result.stdout)["records"]}
    assert len(rows) == 8
    for side in ("base", "patch"):
        for mode in ("serial", "loaded"):
            assert rows[("det", side, mode)]["distinct"] == 1
            assert rows[("det", side, mode)]["modal_share"] == 1.0
            assert rows[("rand", side, mode)]["distinct"] == 4
    header, samples = read_samples(tmp_path / "out")
    assert header["params"] == {"temperature": 0, "return_token_ids": True}
    assert all(s["token_ids_xxh3"] is not None for s in samples)
    loaded_prompts = {r["prompt"] for r in inference(base)}
    assert loaded_prompts == {'"d"', '"r"'}


def test_seed_is_stable_serially_but_not_under_concurrency(
    fault_server: Any, tmp_path: Path
) -> None:
    base = fault_server("--seed-concurrency-noise")
    prompts = write_prompts(
        tmp_path / "p.jsonl",
        [
            {"key": "s", "prompt": "s", "seed": 7, "fault": {"output": "seeded", "delay": 0.1}},
        ],
    )
    result = sample(
        "--base",
        base.url,
        "--prompts",
        prompts,
        "--repeats",
        "6",
        "--mode",
        "serial",
        "--mode",
        "concurrent",
        "--concurrency",
        "6",
        "--out",
        tmp_path / "out",
        "--format",
        "json",
    )
    assert result.exit_code == 0, result.stderr
    rows = {r["mode"]: r for r in json.loads(result.stdout)["records"]}
    assert rows["serial"]["distinct"] == 1
    assert rows["concurrent"]["distinct"] > 1


def test_adaptive_stops_once_the_base_is_unstable(fault_server: Any, tmp_path: Path) -> None:
    base, patch = fault_server(), fault_server()
    prompts = write_prompts(
        tmp_path / "p.jsonl",
        [
            {"key": "rand", "prompt": "r", "fault": {"output": "rand"}},
            {"key": "det", "prompt": "d"},
        ],
    )
    result = sample(
        "--base",
        base.url,
        "--patch",
        patch.url,
        "--prompts",
        prompts,
        "--repeats",
        "8",
        "--adaptive",
        "--out",
        tmp_path / "out",
        "--format",
        "json",
    )
    assert result.exit_code == 0, result.stderr
    _, samples = read_samples(tmp_path / "out")
    assert sum(1 for s in samples if s["key"] == "rand") == 4  # two rounds: base saw 2 outputs
    assert sum(1 for s in samples if s["key"] == "det") == 16
    summary = json.loads(result.stdout)["summary"]
    assert summary["planned"] == summary["taken"] == 20


def test_cache_salt_flush_url_and_headers(fault_server: Any, tmp_path: Path) -> None:
    base = fault_server()
    prompts = write_prompts(tmp_path / "p.jsonl", [{"key": "a", "prompt": "a"}])
    result = sample(
        "--base",
        base.url,
        "--prompts",
        prompts,
        "--repeats",
        "3",
        "--cache-salt",
        "--flush-url",
        f"{base.url}/flush",
        "--header",
        "Authorization: Bearer s3cret",
        "--out",
        tmp_path / "out",
    )
    assert result.exit_code == 0, result.stderr
    paths = [r["path"] for r in base.requests()]
    assert paths == ["/flush", "/v1/completions"] * 3
    salts = {r["cache_salt"] for r in inference(base)}
    assert len(salts) == 3
    header, samples = read_samples(tmp_path / "out")
    assert len({s["request_sha256"] for s in samples}) == 1  # the salt is not part of the hash
    assert header["header_names"] == ["authorization"]
    assert "s3cret" not in (tmp_path / "out" / "samples.jsonl").read_text()


def test_perf_metrics_are_drained_beside_the_samples(fault_server: Any, tmp_path: Path) -> None:
    base = fault_server("--perf-metrics")
    prompts = write_prompts(tmp_path / "p.jsonl", [{"key": "a", "prompt": "a"}])
    result = sample(
        "--base", base.url, "--prompts", prompts, "--repeats", "3", "--out", tmp_path / "out"
    )
    assert result.exit_code == 0, result.stderr
    lines = [
        json.loads(x) for x in (tmp_path / "out" / "perf_metrics.jsonl").read_text().splitlines()
    ]
    # The start-up drain first (telem68b): the server held no record yet.
    assert lines[0] == {"side": "base", "start": 0, "records": 0}
    assert [x["repeat"] for x in lines[1:-1]] == [0, 1, 2]
    assert all(len(x["metrics"]) == 1 and x["side"] == "base" for x in lines[1:-1])
    # And its closing drain last (telem70): no record came after the last drain.
    assert lines[-1] == {"side": "base", "end": 0, "records": 0}


def _max_in_flight(requests: list[dict[str, Any]]) -> int:
    events = sorted([(r["start"], 1) for r in requests] + [(r["end"], -1) for r in requests])
    level = peak = 0
    for _, step in events:
        level += step
        peak = max(peak, level)
    return peak


def test_concurrent_and_loaded_modes_hold_c_requests_in_flight(
    fault_server: Any, tmp_path: Path
) -> None:
    prompts = write_prompts(
        tmp_path / "p.jsonl",
        [{"key": k, "prompt": k, "fault": {"delay": 0.1}} for k in ("a", "b", "c")],
    )
    for mode in ("concurrent", "loaded"):
        base = fault_server()
        result = sample(
            "--base",
            base.url,
            "--prompts",
            prompts,
            "--repeats",
            "3",
            "--mode",
            mode,
            "--concurrency",
            "3",
            "--out",
            tmp_path / mode,
        )
        assert result.exit_code == 0, result.stderr
        served = inference(base)
        assert _max_in_flight(served) == 3, mode  # C in flight, never more
        _, samples = read_samples(tmp_path / mode)
        assert len(samples) == 9
        if mode == "loaded":  # the load is other prompts, beyond the 3 samples of each
            assert len(served) > 9


def test_an_openai_sdk_style_base_url_with_v1_is_the_same_server(
    fault_server: Any, tmp_path: Path
) -> None:
    base = fault_server()
    prompts = write_prompts(tmp_path / "p.jsonl", [{"key": "k", "prompt": "x"}])
    result = sample(
        "--base", f"{base.url}/v1/", "--prompts", prompts, "--repeats", "2", "--out", tmp_path / "o"
    )
    assert result.exit_code == 0, result.stderr
    header, samples = read_samples(tmp_path / "o")
    assert header["servers"]["base"] == base.url
    assert [s["status"] for s in samples] == [200, 200]


def test_requests_that_carry_their_own_temperature_are_said_to_sample(
    fault_server: Any, tmp_path: Path
) -> None:
    # Found by the new-user trial: prompts carrying `"temperature": 1` (no --param) went out
    # sampling, but the summary's "the requests sampled" note read --param alone.
    base = fault_server()
    prompts = write_prompts(
        tmp_path / "p.jsonl", [{"key": "a", "prompt": "a", "temperature": 1, "max_tokens": 4}]
    )
    out = tmp_path / "out"
    result = sample(
        "--base", base.url, "--prompts", prompts, "--repeats", "2", "--out", out,
        "--format", "json",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["sampled"] == ["base"]
