"""hunt78: a server whose usage counts more cached prompt tokens than its prompt holds is
making the count up (a prefix cache serves part of the prompt at most). `k3diff sample` records
such a usage as invalid (`usage_invalid`), so `telemetry --expect cache-reuse` does not read it
as reuse; before, 1,000 cached tokens of a 1-token prompt in every sample passed, exit 0
(`every side exercised cache-reuse`). A log line that holds such a usage (written before, or
edited) is refused, exit 2, as every other usage that is no counts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_k3diff, run_telemetry

from .support import read_samples, sample, write_prompts

REPEATS = 3


def _usage(cached: dict[str, Any]) -> dict[str, Any]:
    return {"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3, **cached}


def _run(fault_server: Any, tmp_path: Path, usage: dict[str, Any]) -> Path:
    base, patch = fault_server(), fault_server()
    prompts = write_prompts(
        tmp_path / "p.jsonl", [{"key": "a", "prompt": "a", "fault": {"usage": usage}}]
    )
    out = tmp_path / "out"
    result = sample(
        "--base", base.url, "--patch", patch.url, "--prompts", prompts,
        "--repeats", str(REPEATS), "--out", out,
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    return out


@pytest.mark.parametrize(
    ("cached", "named"),
    [
        ({"prompt_tokens_details": {"cached_tokens": 1000}}, "prompt_tokens_details.cached_tokens"),
        ({"cached_tokens": 2}, "cached_tokens"),  # SGLang's top-level count
    ],
)
def test_more_cached_tokens_than_the_prompt_is_no_cache_reuse(
    fault_server: Any, tmp_path: Path, cached: dict[str, Any], named: str
) -> None:
    out = _run(fault_server, tmp_path, _usage(cached))
    _, samples = read_samples(out)
    assert samples and all(s["usage"] is None for s in samples)
    why = samples[0]["usage_invalid"]
    assert why.startswith(f"usage.{named} is ") and "more than the prompt's 1 tokens" in why
    code, doc, text = run_telemetry(out / "samples.jsonl", "--expect", "cache-reuse")
    assert code == 1, text
    assert {n["side"] for n in doc["not_exercised"]} == {"base", "patch"}
    assert "every side exercised cache-reuse" not in text


def test_a_log_line_holding_such_a_usage_is_refused(fault_server: Any, tmp_path: Path) -> None:
    out = _run(fault_server, tmp_path, _usage({"prompt_tokens_details": {"cached_tokens": 1}}))
    log = out / "samples.jsonl"
    assert run_telemetry(log, "--expect", "cache-reuse")[0] == 0  # 1 of 1 cached: a count
    lines = log.read_text().splitlines()
    edited = []
    for text in lines:
        line = json.loads(text)
        if line.get("usage"):
            line["usage"]["prompt_tokens_details"]["cached_tokens"] = 5
        edited.append(json.dumps(line))
    log.write_text("\n".join(edited) + "\n")
    refused = run_k3diff("telemetry", log, "--expect", "cache-reuse")
    assert refused.exit_code == 2, refused.stdout
    assert "usage.prompt_tokens_details.cached_tokens is 5, more than the prompt's 1" in (
        refused.stderr
    )
    assert refused.stderr.count("\n") == 1


_NO_PROMPT = [
    ({"prompt_tokens_details": {"cached_tokens": 1000}}, {}, "prompt_tokens_details.cached_tokens"),
    ({"cached_tokens": 1000}, {}, "cached_tokens"),  # SGLang's top-level count
    (
        {"prompt_tokens_details": {"cached_tokens": 1000}},
        {"prompt_tokens": None},
        "prompt_tokens_details.cached_tokens",
    ),
]


@pytest.mark.parametrize(("cached", "prompt", "named"), _NO_PROMPT)
def test_cached_tokens_with_no_prompt_count_are_written_as_no_usage(
    fault_server: Any, tmp_path: Path, cached: dict[str, Any], prompt: dict[str, Any], named: str
) -> None:
    """small79: with no `prompt_tokens` the cached-past-prompt check cannot run, so the count
    is no evidence of reuse (review78c, small78: the readers count none of it); the log says so
    too (`usage_invalid`), so that no reader takes it as evidence. Before, `sample` wrote the
    usage as valid."""
    usage = {"completion_tokens": 2, "total_tokens": 3, **prompt, **cached}
    out = _run(fault_server, tmp_path, usage)
    _, samples = read_samples(out)
    assert samples and all(s["usage"] is None for s in samples)
    assert {s["usage_invalid"] for s in samples} == {
        f"usage.{named} is 1000 with no usage.prompt_tokens to check it against (a cache "
        "serves part of the prompt at most)"
    }
    code, doc, text = run_telemetry(out / "samples.jsonl", "--expect", "cache-reuse")
    assert code == 1, text
    assert {n["side"] for n in doc["not_exercised"]} == {"base", "patch"}
    assert "every side exercised cache-reuse" not in text


@pytest.mark.parametrize(("cached", "prompt", "named"), _NO_PROMPT)
def test_a_log_written_before_with_such_a_usage_is_read_and_not_counted(
    fault_server: Any, tmp_path: Path, cached: dict[str, Any], prompt: dict[str, Any], named: str
) -> None:
    """review78c: a log written before small79 holds such a usage as valid; it is read, and
    its cached count is no reuse (before review78c, 1,000 cached tokens passed, exit 0)."""
    usage = {"completion_tokens": 2, "total_tokens": 3, **prompt, **cached}
    out = _run(fault_server, tmp_path, usage)
    log = out / "samples.jsonl"
    lines = []
    for text in log.read_text().splitlines():
        line = json.loads(text)
        if line.get("usage_invalid"):
            del line["usage_invalid"]
            line["usage"] = usage
        lines.append(json.dumps(line))
    log.write_text("\n".join(lines) + "\n")
    code, doc, text = run_telemetry(log, "--expect", "cache-reuse")
    assert code == 1, text
    details = {n["side"]: n["detail"] for n in doc["not_exercised"]}
    assert set(details) == {"base", "patch"}
    said = f"{REPEATS} samples reported cached prompt tokens without usage.prompt_tokens"
    assert said in details["base"] and said in details["patch"]
    assert "every side exercised cache-reuse" not in text


@pytest.mark.parametrize(
    "cached",
    [
        {"prompt_tokens_details": {"cached_tokens": None}},
        {"cached_tokens": None},
        {"prompt_tokens_details": {"cached_tokens": {"tokens": 1000}}},  # no count either
    ],
)
def test_a_null_cached_count_with_no_prompt_count_keeps_the_usage(
    fault_server: Any, tmp_path: Path, cached: dict[str, Any]
) -> None:
    """review79b: a cached count of null reports no cached tokens (the readers count it as
    none reported, not as unchecked), so there is nothing to check against the prompt: the
    usage is kept. small79 wrote it as invalid ("… is None with no usage.prompt_tokens"),
    losing its completion count and making a cold-warm cold request read as unread."""
    usage = {"completion_tokens": 2, "total_tokens": 3, **cached}
    out = _run(fault_server, tmp_path, usage)
    _, samples = read_samples(out)
    assert samples and all(s["usage"] == usage for s in samples)
    assert not any("usage_invalid" in s for s in samples)


def test_a_null_openai_cached_count_does_not_hide_sglangs(
    fault_server: Any, tmp_path: Path
) -> None:
    """review79b: with `prompt_tokens_details.cached_tokens` null beside a top-level
    `cached_tokens` count and no prompt count, the count is still unchecked: no usage."""
    usage = {
        "completion_tokens": 2,
        "total_tokens": 3,
        "prompt_tokens_details": {"cached_tokens": None},
        "cached_tokens": 1000,
    }
    out = _run(fault_server, tmp_path, usage)
    _, samples = read_samples(out)
    assert samples and all(s["usage"] is None for s in samples)
    assert {s["usage_invalid"] for s in samples} == {
        "usage.cached_tokens is 1000 with no usage.prompt_tokens to check it against (a cache "
        "serves part of the prompt at most)"
    }
