"""A hostile server cannot hold `k3diff sample` past its `--timeout` or fill its memory.

Every case talks to a real process on loopback (`hostile_server.py`): a body dripped one byte
every 2 s, a `Retry-After` of eleven days, a 1 GiB answer, an event stream without end. Each ends
in a failed sample that is in the log (exit 1, the run goes on to the next request), on time
and in bounded memory, measured on the CLI as its own process.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest
from peakrss import run_with_peak_rss

from .support import read_samples, sample, write_prompts

PEAK_LIMIT_MB = 300
"""The issue's bound for a 1 GiB answer or an endless stream (measured: see the README)."""


def _prompts(tmp_path: Path, hostile: str, **extra: Any) -> Path:
    records = [
        {"key": "bad", "prompt": "p", "hostile": hostile, **extra},
        {"key": "good", "prompt": "q"},
    ]
    return write_prompts(tmp_path / "prompts.jsonl", records)


def _failed_then_good(out: Path) -> dict[str, Any]:
    """The hostile request's sample; the ordinary one after it must have succeeded."""
    _, samples = read_samples(out)
    by_key = {s["key"]: s for s in samples}
    assert by_key["good"]["error"] is None and by_key["good"]["text"] == "ok"
    assert by_key["bad"]["error"] is not None and by_key["bad"]["text"] is None
    return by_key["bad"]


def test_a_dripping_server_ends_within_the_timeout(hostile_server: str, tmp_path: Path) -> None:
    prompts = _prompts(tmp_path, "drip")
    began = time.monotonic()
    result = sample(
        "--base", hostile_server, "--prompts", prompts, "--repeats", "1",
        "--timeout", "5", "--retries", "0", "--out", tmp_path / "run",
    )  # fmt: skip
    elapsed = time.monotonic() - began
    assert result.exit_code == 1, result.stderr
    assert elapsed < 9, f"took {elapsed:.1f} s with --timeout 5 (two requests, one dripping)"
    bad = _failed_then_good(tmp_path / "run")
    assert "within --timeout 5 s" in bad["error"]
    assert bad["latency_s"] < 6


def test_a_retry_after_beyond_the_timeout_fails_the_sample_at_once(
    hostile_server: str, tmp_path: Path
) -> None:
    prompts = _prompts(tmp_path, "retry_after")
    began = time.monotonic()
    result = sample(
        "--base", hostile_server, "--prompts", prompts, "--repeats", "1",
        "--timeout", "5", "--retries", "3", "--out", tmp_path / "run",
    )  # fmt: skip
    assert result.exit_code == 1, result.stderr
    assert time.monotonic() - began < 4
    bad = _failed_then_good(tmp_path / "run")
    assert bad["status"] == 503 and bad["attempts"] == 1
    assert "Retry-After 999999 s is beyond" in bad["error"]


def test_a_json_event_over_two_data_lines_is_joined(hostile_server: str, tmp_path: Path) -> None:
    prompts = _prompts(tmp_path, "split")
    result = sample(
        "--base", hostile_server, "--prompts", prompts, "--repeats", "1", "--stream",
        "--out", tmp_path / "run",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    _, samples = read_samples(tmp_path / "run")
    assert {s["key"]: s["text"] for s in samples}["bad"] == "ab"


def test_a_declared_oversize_answer_is_not_read(hostile_server: str, tmp_path: Path) -> None:
    prompts = _prompts(tmp_path, "huge_declared", huge_bytes=1 << 20)
    result = sample(
        "--base", hostile_server, "--prompts", prompts, "--repeats", "1",
        "--max-response-bytes", "64K", "--out", tmp_path / "run",
    )  # fmt: skip
    assert result.exit_code == 1, result.stderr
    bad = _failed_then_good(tmp_path / "run")
    assert bad["attempts"] == 1  # not retried: the same request would be as large
    assert "larger than 64 KiB (--max-response-bytes)" in bad["error"]


def _measured(hostile_server: str, tmp_path: Path, hostile: str, *flags: str) -> float:
    prompts = _prompts(tmp_path, hostile)
    command = [
        sys.executable, "-m", "k3diff", "sample", "--base", hostile_server,
        "--prompts", str(prompts), "--repeats", "1", "--timeout", "60",
        "--out", str(tmp_path / "run"), *flags,
    ]  # fmt: skip
    with tempfile.TemporaryFile() as errors:
        measured = run_with_peak_rss(command, stderr=errors)
        errors.seek(0)
        text = errors.read().decode()
    assert measured.exit_code == 1, text
    assert "Traceback" not in text
    bad = _failed_then_good(tmp_path / "run")
    assert "(--max-response-bytes)" in bad["error"]
    assert measured.peak_rss_mb < PEAK_LIMIT_MB, f"peak {measured.peak_rss_mb:.0f} MB"
    print(f"{hostile}: peak RSS {measured.peak_rss_mb:.0f} MB")  # shown with pytest -s
    return measured.peak_rss_mb


def test_a_one_gib_answer_fails_the_sample_in_bounded_memory(
    hostile_server: str, tmp_path: Path
) -> None:
    _measured(hostile_server, tmp_path, "huge")


def test_an_endless_event_stream_fails_the_sample_in_bounded_memory(
    hostile_server: str, tmp_path: Path
) -> None:
    _measured(hostile_server, tmp_path, "endless", "--stream")


def test_an_endless_stream_line_fails_the_sample_in_bounded_memory(
    hostile_server: str, tmp_path: Path
) -> None:
    _measured(hostile_server, tmp_path, "endless_line", "--stream")


def _bounded_failure(
    hostile_server: str, tmp_path: Path, hostile: str, *flags: str, **extra: Any
) -> dict[str, Any]:
    """The failed sample of `hostile` (the run's peak RSS bounded)."""
    prompts = _prompts(tmp_path, hostile, **extra)
    command = [
        sys.executable, "-m", "k3diff", "sample", "--base", hostile_server,
        "--prompts", str(prompts), "--repeats", "1", "--out", str(tmp_path / "run"), *flags,
    ]  # fmt: skip
    with tempfile.TemporaryFile() as errors:
        measured = run_with_peak_rss(command, stderr=errors)
        errors.seek(0)
        text = errors.read().decode()
    assert measured.exit_code == 1, text
    assert "Traceback" not in text
    bad = _failed_then_good(tmp_path / "run")
    assert bad["attempts"] == 1  # not retried: the same request would be as large
    assert measured.peak_rss_mb < PEAK_LIMIT_MB, f"peak {measured.peak_rss_mb:.0f} MB"
    return bad


def test_an_answer_padded_with_63_mib_of_objects_is_not_parsed(
    hostile_server: str, tmp_path: Path
) -> None:
    """Under --max-response-bytes, yet 30 million `{}`: refused from its commas and brackets
    before parsing (it peaked at 2,103 MB and succeeded after 36 s under --timeout 10)."""
    bad = _bounded_failure(hostile_server, tmp_path, "padding", "--timeout", "10")
    assert "holds more than 2,097,152 JSON values" in bad["error"]
    assert "--max-response-bytes 64 MiB" in bad["error"]


def test_a_million_choices_are_not_parsed(hostile_server: str, tmp_path: Path) -> None:
    bad = _bounded_failure(hostile_server, tmp_path, "choices")
    assert "JSON values" in bad["error"] and "--max-response-bytes" in bad["error"]


def test_a_brotli_zstd_or_stacked_encoding_is_refused_before_decoding(
    hostile_server: str, tmp_path: Path
) -> None:
    for encoding in ("br", "zstd", "gzip, gzip"):
        run = tmp_path / encoding.replace(", ", "-")
        run.mkdir()
        bad = _bounded_failure(hostile_server, run, "encoded", encoding=encoding)
        assert f"Content-Encoding is {encoding!r}" in bad["error"]


def test_only_bounded_encodings_are_advertised(hostile_server: str, tmp_path: Path) -> None:
    """httpx advertises br and zstd whenever their modules are installed; k3diff never does."""
    records = [{"key": "a", "prompt": "p", "hostile": "accept"}]
    prompts = write_prompts(tmp_path / "p.jsonl", records)
    out = tmp_path / "run"
    result = sample("--base", hostile_server, "--prompts", prompts, "--repeats", "1", "--out", out)
    assert result.exit_code == 0, result.stderr
    _, samples = read_samples(out)
    assert samples[0]["text"] == "gzip, deflate"


def test_a_model_list_over_the_cap_is_an_error_not_a_model_less_run(
    hostile_server: str, tmp_path: Path
) -> None:
    prompts = _prompts(tmp_path, "accept")
    result = sample(
        "--base", hostile_server, "--prompts", prompts, "--repeats", "1",
        "--max-response-bytes", "16", "--out", tmp_path / "run",
    )  # fmt: skip
    assert result.exit_code == 2 and "Traceback" not in result.stderr
    assert "/v1/models: the answer is larger than 16 bytes (--max-response-bytes)" in result.stderr


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
def test_a_second_answer_to_one_request_counts_for_no_other(
    hostile_server: str, tmp_path: Path, stream: bool
) -> None:
    """Two answers to one request in one write: the second, left in the connection's buffer,
    was read as the answer to the next request (whose own answer then went to the one after).
    An answer read before its request was sent is refused and the request sent again on a
    new connection, so each sample is its own request's answer."""
    records = [
        {"key": "twice", "prompt": "p", "hostile": "twice"},
        {"key": "next", "prompt": "q"},
        {"key": "last", "prompt": "r"},
    ]
    prompts = write_prompts(tmp_path / "p.jsonl", records)
    out = tmp_path / "run"
    flags = ["--stream", "--metrics-url", "base=off"] if stream else []
    result = sample(
        "--base", hostile_server, "--prompts", prompts, "--repeats", "2", "--out", out, *flags
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    _, samples = read_samples(out)
    assert len(samples) == 6
    assert all(s["error"] is None and s["text"] == "ok" for s in samples), samples
    assert any(s["attempts"] == 2 for s in samples)  # the one read out of step was sent again
