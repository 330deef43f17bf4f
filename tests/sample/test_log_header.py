"""What the log header and lines record: the command as `main()` got it, the run's identity, and
fields validated where they are recorded (usage counts)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from .support import read_samples, sample, write_prompts


def test_the_log_records_the_argv_main_was_given_not_the_host_process(
    fault_server: Any, tmp_path: Path, monkeypatch: Any
) -> None:
    base = fault_server()
    prompts = write_prompts(tmp_path / "p.jsonl", [{"key": "a", "prompt": "a"}])
    monkeypatch.setattr(sys, "argv", ["pytest", "--host-only-flag", "tests/"])
    args = ("--base", base.url, "--prompts", str(prompts), "--repeats", "1")
    result = sample(*args, "--header", "Authorization: Bearer s3cret", "--out", str(tmp_path / "o"))
    assert result.exit_code == 0, result.stderr
    run, _ = read_samples(tmp_path / "o")
    assert run["command"] == [
        "k3diff",
        "sample",
        *args,
        "--header",
        "Authorization:***",
        "--out",
        str(tmp_path / "o"),
    ]


def test_entered_through_click_the_log_records_what_click_parsed_never_the_host_argv(
    fault_server: Any, tmp_path: Path, monkeypatch: Any
) -> None:
    """`cli.main(args)` and click's test runner bypass `main()`: the group's context still
    knows the arguments it parsed, and those are what the log records."""
    from click.testing import CliRunner

    from k3diff.cli import cli

    base = fault_server()
    prompts = write_prompts(tmp_path / "p.jsonl", [{"key": "a", "prompt": "a"}])
    monkeypatch.setattr(sys, "argv", ["pytest", "--host-only-flag", "tests/"])
    for route in ("main", "runner"):
        out = str(tmp_path / route)
        args = ["sample", "--base", base.url, "--prompts", str(prompts), "--repeats", "1"]
        args += ["--out", out]
        if route == "main":
            assert cli.main(args=args, standalone_mode=False) == 0
        else:
            assert CliRunner().invoke(cli, args).exit_code == 0
        run, _ = read_samples(Path(out))
        assert run["command"] == ["k3diff", *args], route


def test_the_sample_command_invoked_alone_records_no_command_rather_than_the_host_argv(
    fault_server: Any, tmp_path: Path, monkeypatch: Any
) -> None:
    """Outside the `k3diff` group nothing says what was typed: the header's command is empty,
    never the host process's `sys.argv` standing in for it."""
    from k3diff.cli.sample_cmd import sample as sample_command

    base = fault_server()
    prompts = write_prompts(tmp_path / "p.jsonl", [{"key": "a", "prompt": "a"}])
    monkeypatch.setattr(sys, "argv", ["pytest", "--host-only-flag", "tests/"])
    args = ["--base", base.url, "--prompts", str(prompts), "--repeats", "1"]
    code = sample_command.main(args=[*args, "--out", str(tmp_path / "o")], standalone_mode=False)
    assert code == 0
    run, _ = read_samples(tmp_path / "o")
    assert run["command"] == []


def test_the_header_names_the_run_its_prompts_and_request_template(
    fault_server: Any, tmp_path: Path
) -> None:
    base = fault_server()
    prompts = write_prompts(tmp_path / "p.jsonl", [{"key": "a", "prompt": "a"}])
    args = ("--base", base.url, "--prompts", prompts, "--repeats", "2", "--param", "temperature=0")
    assert sample(*args, "--out", tmp_path / "one").exit_code == 0
    assert sample(*args, "--out", tmp_path / "two").exit_code == 0
    one, two = read_samples(tmp_path / "one")[0], read_samples(tmp_path / "two")[0]
    assert len(one["run_id"]) == 32 and one["run_id"] != two["run_id"]
    assert one["prompts_sha256"] == two["prompts_sha256"]
    assert one["request_template"] == {
        "path": "/v1/completions",
        "fields": {"temperature": 0},
        "default_model": {"base": "m"},
        "cache_salt": False,
    }
    log = tmp_path / "one" / "samples.jsonl"
    lines = log.read_text().splitlines()
    log.write_text("\n".join(lines[:2]) + "\n")  # a run killed after one sample
    resumed = sample(*args, "--out", tmp_path / "one", "--resume")
    assert resumed.exit_code == 0, resumed.stderr
    assert read_samples(tmp_path / "one")[0]["run_id"] == one["run_id"]


def test_invalid_usage_counts_are_recorded_as_invalid(fault_server: Any, tmp_path: Path) -> None:
    base = fault_server()
    bad = {
        "neg": {"prompt_tokens": -5, "completion_tokens": 1},
        "huge": {"prompt_tokens": 10**30},
        "word": {"prompt_tokens": "many"},
        "nested": {"prompt_tokens": 1, "prompt_tokens_details": {"cached_tokens": -1}},
        "fine": {
            "prompt_tokens": 3,
            "completion_tokens": 2,
            "prompt_tokens_details": {"cached_tokens": 0},
        },
    }
    prompts = write_prompts(
        tmp_path / "p.jsonl",
        [{"key": key, "prompt": key, "fault": {"usage": usage}} for key, usage in bad.items()],
    )
    result = sample(
        "--base", base.url, "--prompts", prompts, "--repeats", "1", "--out", tmp_path / "o"
    )
    assert result.exit_code == 0, result.stderr
    by_key = {s["key"]: s for s in read_samples(tmp_path / "o")[1]}
    for key in ("neg", "huge", "word", "nested"):
        assert by_key[key]["usage"] is None, key
        assert "not a non-negative integer count" in by_key[key]["usage_invalid"], key
    assert "usage.prompt_tokens is -5" in by_key["neg"]["usage_invalid"]
    assert "usage.prompt_tokens_details.cached_tokens" in by_key["nested"]["usage_invalid"]
    assert by_key["fine"]["usage"] == bad["fine"] and "usage_invalid" not in by_key["fine"]
    assert json.loads(json.dumps(by_key["fine"]))["error"] is None
