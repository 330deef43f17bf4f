"""Triage reads sample logs through the one reader: logs of different runs are pooled only when
asked (`--pool-runs`, each run listed), a concatenated or duplicated log is refused, and a text
both sides agree on but with different finish reasons is flagged. Every hostile log here is
derived from real `k3diff sample` output."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_support import run_k3diff

from .helpers import compare_texts

PROMPTS = [{"key": "a", "prompt": "a"}, {"key": "b", "prompt": "b"}]


def _sample_run(
    tmp_path: Path, out: str, base: Any, patch: Any, records: list[dict[str, Any]]
) -> Path:
    prompts = tmp_path / f"{out}.prompts.jsonl"
    prompts.write_text("".join(json.dumps(r) + "\n" for r in records))
    result = run_k3diff(
        "sample",
        "--base",
        base.url,
        "--patch",
        patch.url,
        "--prompts",
        str(prompts),
        "--repeats",
        "3",
        "--out",
        str(tmp_path / out),
    )
    assert result.exit_code == 0, result.stderr
    return tmp_path / out / "samples.jsonl"


def _triage(tmp_path: Path, *args: str) -> Any:
    return run_k3diff("triage", "cmp.json", *args, cwd=tmp_path)


def test_logs_of_two_runs_are_pooled_only_with_pool_runs(fault_server: Any, tmp_path: Path) -> None:
    base, patch = fault_server(), fault_server()
    compare_texts(tmp_path, {"a": ("echo:a", "echo:a"), "b": ("echo:b", "other")})
    _sample_run(tmp_path, "one", base, patch, PROMPTS)
    # a second run: another prompts file (one more record), the same requests for a and b
    _sample_run(tmp_path, "two", base, patch, [*PROMPTS, {"key": "c", "prompt": "c"}])

    refused = _triage(tmp_path, "one/samples.jsonl", "two/samples.jsonl")
    assert refused.exit_code == 2 and refused.stdout == ""
    (line,) = refused.stderr.splitlines()
    assert "2 different runs" in line and "one/samples.jsonl (run " in line
    assert "two/samples.jsonl (run " in line and "--pool-runs" in line

    pooled = _triage(
        tmp_path, "one/samples.jsonl", "two/samples.jsonl", "--pool-runs", "--format", "json"
    )
    assert pooled.exit_code in (0, 1), pooled.stderr
    document = json.loads(pooled.stdout)
    runs = {run["log"]: run for run in document["runs"]}
    assert set(runs) == {"one/samples.jsonl", "two/samples.jsonl"} and document["pool_runs"] is True
    assert runs["one/samples.jsonl"]["run_id"] != runs["two/samples.jsonl"]["run_id"]
    assert (
        runs["one/samples.jsonl"]["prompts_sha256"] != runs["two/samples.jsonl"]["prompts_sha256"]
    )
    text = _triage(tmp_path, "one/samples.jsonl", "two/samples.jsonl", "--pool-runs")
    assert "pooled runs (--pool-runs): one/samples.jsonl (run " in text.stdout


def test_concatenated_duplicated_and_retyped_logs_exit_2_naming_the_line(
    fault_server: Any,
    tmp_path: Path,
) -> None:
    base, patch = fault_server(), fault_server()
    compare_texts(tmp_path, {"a": ("echo:a", "echo:a"), "b": ("echo:b", "other")})
    one = _sample_run(tmp_path, "one", base, patch, PROMPTS)
    two = _sample_run(tmp_path, "two", base, patch, PROMPTS)
    lines = one.read_text().splitlines(keepends=True)
    header_count = len(lines)
    hostile = {
        "cat.jsonl": (
            one.read_text() + two.read_text(),
            f"cat.jsonl:{header_count + 1}: a second header line",
        ),
        "dup.jsonl": (
            "".join(lines + [lines[1]] * 1000),
            f"dup.jsonl:{header_count + 1}: repeat 0 of",
        ),
        "turbo.jsonl": (
            lines[0]
            + json.dumps(json.loads(lines[1]) | {"mode": "turbo"})
            + "\n"
            + "".join(lines[2:]),
            "turbo.jsonl:2: 'mode' is 'turbo'; known modes: serial, concurrent, loaded",
        ),
        "torn.jsonl": ("".join(lines)[:-20], f"torn.jsonl:{header_count}: torn last line"),
    }
    for name, (content, message) in hostile.items():
        (tmp_path / name).write_text(content)
        result = _triage(tmp_path, name)
        assert result.exit_code == 2, (name, result.stdout)
        (line,) = result.stderr.splitlines()
        assert message in line, (name, line)
    same_run_twice = _triage(tmp_path, "one/samples.jsonl", "one/samples.jsonl")
    assert (
        same_run_twice.exit_code == 2
        and "one/samples.jsonl: given twice; give each log once" in same_run_twice.stderr
    )


def test_same_text_with_different_finish_reasons_is_flagged(
    fault_server: Any, tmp_path: Path
) -> None:
    base, patch = fault_server("--finish-reason", "stop"), fault_server("--finish-reason", "length")
    compare_texts(tmp_path, {"a": ("echo:a", "echo:a"), "b": ("echo:b", "echo:b")})
    _sample_run(tmp_path, "one", base, patch, PROMPTS)
    result = _triage(tmp_path, "one/samples.jsonl", "--format", "json")
    document = json.loads(result.stdout)
    assert all("finish-reason-differs" in r["flags"] for r in document["records"]), document[
        "records"
    ]
    base_again = fault_server("--finish-reason", "stop")
    _sample_run(tmp_path, "agree", base, base_again, PROMPTS)
    agreed = json.loads(_triage(tmp_path, "agree/samples.jsonl", "--format", "json").stdout)
    assert not any("finish-reason-differs" in r["flags"] for r in agreed["records"])
