"""After a triage that more samples would decide, the text says the command that takes them
(found by the new-user trial: "about 7 more samples a side", but `--resume --repeats 32` was
refused and `--pool-runs` was named nowhere): the run triaged grows in place with `k3diff
sample --resume` and a larger `--repeats` (`tests/sample/test_resume_more.py`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_support import run_k3diff

from .helpers import compare_texts, side, write_samples


def _triage(
    tmp_path: Path, base: list[str], patch: list[str], *args: str
) -> tuple[str, str, dict[str, Any]]:
    cmp = compare_texts(tmp_path, {"k": (base[0], patch[-1])})
    log = write_samples(
        tmp_path / "run" / "samples.jsonl", side("k", "base", base) + side("k", "patch", patch)
    )
    text = run_k3diff("triage", "cmp.json", "run/samples.jsonl", *args, cwd=tmp_path)
    markdown = run_k3diff("triage", cmp, log, "--format", "markdown", *args)
    result = run_k3diff("triage", cmp, log, "--format", "json", *args)
    return text.stdout, markdown.stdout, json.loads(result.stdout)


def test_a_hold_names_the_command_that_takes_the_samples(tmp_path: Path) -> None:
    text, markdown, doc = _triage(tmp_path, ["a", "a", "a"], ["a", "b", "a"])
    record = doc["records"][0]
    assert record["category"] == "inconclusive" and doc["verdict"]["exit_code"] == 1
    more = record["more_samples"]
    command = f"k3diff sample <its options, as before> --out run --resume --repeats {3 + more}"
    lines = text.splitlines()
    assert lines[-1].startswith("result: ")
    assert lines[-2] == (
        f"next: to take the {more} more samples a side the inconclusive records ask for, grow "
        f"the run: {command} (only --repeats may grow; the samples logged are kept), then run "
        "this triage again"
    )
    assert "--resume --repeats" in markdown and "&lt;its options, as before>" in markdown


def test_a_pass_or_a_decided_record_names_no_next_step(tmp_path: Path) -> None:
    text, markdown, doc = _triage(tmp_path, ["a", "b", "a"], ["b", "b", "b"])
    assert doc["records"][0]["category"] == "base-nondeterminism"
    assert "next:" not in text and "--resume" not in markdown
