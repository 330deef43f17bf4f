"""The batch-1 parity headline says which side had no successful serial sample of the records
it leaves out (triage70). Before, one side failing every request of a record read 'reproduces
the base on 2 of 2 records (1 without successful serial samples on both sides)', as if both
sides had failed it, and never said which."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_k3diff

from .helpers import compare_texts

FAIL_500 = {"c": {"status": 500, "times": -1}}


@pytest.mark.parametrize(
    ("base", "patch", "said"),
    [
        ({}, FAIL_500, "the patch has no successful serial sample of 1 more record"),
        (FAIL_500, {}, "the base has no successful serial sample of 1 more record"),
        (FAIL_500, FAIL_500, "neither side has a successful serial sample of 1 more record"),
    ],
    ids=["patch", "base", "both"],
)
def test_the_headline_says_which_side_had_no_serial_sample(
    tmp_path: Path, fault_server: Any, base: dict[str, Any], patch: dict[str, Any], said: str
) -> None:
    compare_texts(tmp_path, {key: (f"echo:{key}",) * 2 for key in "abc"})
    urls = [fault_server("--faults", json.dumps(faults)).url for faults in (base, patch)]
    (tmp_path / "p.jsonl").write_text(
        "".join(f'{{"key": "{k}", "prompt": "{k}"}}\n' for k in "abc")
    )
    sampled = run_k3diff(
        "sample", "--base", urls[0], "--patch", urls[1], "--prompts", "p.jsonl",
        "--repeats", "3", "--retries", "0", "--out", "run", cwd=tmp_path,
    )  # fmt: skip
    assert sampled.exit_code == 1, sampled.stderr
    text = run_k3diff("triage", "cmp.json", "run/samples.jsonl", cwd=tmp_path)
    assert text.exit_code == 1, text.stderr  # c is held unanswered
    headline = f"serially, the patch reproduces the base on 2 of 2 records; {said}\n"
    assert headline in text.stdout
    assert "without successful serial samples" not in text.stdout
    markdown = run_k3diff(
        "triage", "cmp.json", "run/samples.jsonl", "--format", "markdown", cwd=tmp_path
    )
    assert f"**Serially, the patch reproduces the base on 2 of 2 records; {said}.**" in (
        markdown.stdout
    )
