"""A whole answer's finish reason is judged as a stream's is (`k3diff.sample.finish`), and
`--finish-reason NAME` adds a server's own finishing reason, recorded in the log's header."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from k3diff.sample.log import read_log

from .support import flat, read_samples, sample, write_prompts


def _run(server: Any, tmp_path: Path, *flags: str, out: str = "out") -> Any:
    prompts = write_prompts(tmp_path / "p.jsonl", [{"key": "k0", "prompt": "p0"}])
    return sample(
        "--base", server.url, "--prompts", prompts, "--repeats", "2", "--retries", "0",
        "--out", tmp_path / out, *flags,
    )  # fmt: skip


@pytest.mark.parametrize("reason", ["null", "\u200b", "model_length", "abort"])
def test_a_whole_answer_ending_with_no_known_reason_fails_its_sample(
    fault_server: Any, tmp_path: Path, reason: str
) -> None:
    """Failed on main, which took these whole answers as samples (exit 0) while a stream ending
    so failed: counted, a base server's malformed answers are extra distinct outputs that its
    nondeterminism then explains a patch's difference away with."""
    result = _run(fault_server("--finish-reason", reason), tmp_path)
    assert result.exit_code == 1, result.stdout + result.stderr
    _, samples = read_samples(tmp_path / "out")
    assert [s["text"] for s in samples] == [None, None]
    assert all("finish_reason" in s["error"] for s in samples)
    assert "FAILED: 2 of 2 planned samples taken" in flat(result.stdout)


def test_finish_reason_adds_a_servers_own_reason_and_the_header_records_it(
    fault_server: Any, tmp_path: Path
) -> None:
    """Mistral's `model_length` keeps the sample once named (in any case, blanks stripped);
    the header says so, and a resumed run takes them from it, or names the same (samples74:
    before, a resume had to name them again)."""
    server = fault_server("--finish-reason", "model_length")
    flags = ("--finish-reason", " Model_Length", "--finish-reason", "model_length")
    result = _run(server, tmp_path, *flags)
    assert result.exit_code == 0, result.stdout + result.stderr
    run, samples = read_samples(tmp_path / "out")
    assert run["finish_reasons"] == ["model_length"]
    assert [(s["error"], s["finish_reason"]) for s in samples] == [(None, "model_length")] * 2
    again = _run(server, tmp_path, "--resume")
    assert again.exit_code == 0, again.stderr
    other = _run(server, tmp_path, "--resume", "--finish-reason", "overlong")
    assert other.exit_code == 2
    assert "differs from the logged one in --finish-reason" in flat(other.stderr)
    assert _run(server, tmp_path, "--resume", *flags).exit_code == 0


def test_a_run_without_finish_reason_keeps_its_header(fault_server: Any, tmp_path: Path) -> None:
    result = _run(fault_server(), tmp_path)
    assert result.exit_code == 0, result.stderr
    run, _ = read_samples(tmp_path / "out")
    assert "finish_reasons" not in run


@pytest.mark.parametrize("reason", ["abort", "Cancelled", " timeout ", "", " "])
def test_a_gave_up_or_blank_reason_is_a_usage_error(
    fault_server: Any, tmp_path: Path, reason: str
) -> None:
    result = _run(fault_server(), tmp_path, "--finish-reason", reason)
    assert result.exit_code == 2, result.stdout + result.stderr
    assert "gives a request up" in result.stderr or "is blank" in result.stderr
    assert not (tmp_path / "out" / "samples.jsonl").exists()


def test_the_help_describes_finish_reason() -> None:
    shown = flat(sample("--help").stdout)
    assert "--finish-reason NAME" in shown
    assert "model_length" in shown


@pytest.mark.parametrize("reason", [None, "null", "abort"])
def test_a_resumed_log_judges_its_logged_successes_by_the_same_rule(
    fault_server: Any, tmp_path: Path, reason: str | None
) -> None:
    """A success logged before the rule (or edited by hand) with no, an unknown or a gave-up
    finish_reason is a failed sample when the log is read back: `--resume` neither counts it
    nor takes it again, and says it failed."""
    server = fault_server()
    assert _run(server, tmp_path).exit_code == 0
    log = tmp_path / "out" / "samples.jsonl"
    lines = log.read_text().splitlines()
    edited = json.loads(lines[1])
    edited["finish_reason"] = reason
    log.write_text("\n".join([lines[0], json.dumps(edited), *lines[2:]]) + "\n")
    contents = read_log(log)
    assert contents.not_counted == (2,)
    assert contents.samples[0].text_xxh3 is None
    assert (contents.samples[0].error or "").startswith("logged as a success, but ")
    again = _run(server, tmp_path, "--resume")
    assert again.exit_code == 1, again.stdout + again.stderr
    assert "1 of them failed" in flat(again.stdout)
    assert "logged as a success, but" in flat(again.stdout)
