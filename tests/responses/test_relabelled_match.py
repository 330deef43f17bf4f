"""A comparison record relabelled `match` while its own evidence still differs is refused by
every reader (hunt75: only a match's texts were held to its status, so a tokens-differ,
fields-differ, logprobs-differ or failed record relabelled `match`, the summary and verdict
edited to agree, made a bundle read `OK (exit 0)` and `triage` pass it as a match)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_support import run_k3diff

PATCHES = {
    "tokens-differ": (
        '"token_ids": [1, 2]',
        '"token_ids": [1, 3]',
        "token ids, a first divergence",
    ),
    "fields-differ": ('"finish_reason": "stop"', '"finish_reason": "length"', "field changes"),
    "logprobs-differ": (
        '"logprobs": {"tokens": ["x"], "token_logprobs": [-0.1]}',
        '"logprobs": {"tokens": ["x"], "token_logprobs": [-0.5]}',
        "logprobs beyond the tolerance",
    ),
    "error": ('"finish_reason": "stop"', '"error": "CUDA error: an illegal memory access"', ""),
}
"""Per status, the base's extra field, the patch's, and what the refusal names."""


def _comparison(folder: Path, status: str) -> Path:
    """`k3diff responses` of one record that differs as `status` says, and one that matches."""
    base_extra, patch_extra, _named = PATCHES[status]
    same = '{"key": "m", "prompt": "q", "text": "y"}\n'
    for name, extra in (("base", base_extra), ("patch", patch_extra)):
        text = "" if "error" in extra else "x"
        line = f'{{"key": "k", "prompt": "p", "text": "{text}", {extra}}}\n'
        (folder / f"{name}.jsonl").write_text(line + same)
    result = run_k3diff(
        "responses", "base.jsonl", "patch.jsonl", "--format", "json", "-o", "cmp.json", cwd=folder
    )
    assert result.exit_code == 1, result.stderr
    return folder / "cmp.json"


def _relabelled(document: dict[str, Any], status: str) -> dict[str, Any]:
    """The differing record called a match, every count and the verdict edited to agree."""
    record = next(r for r in document["records"] if r["key"] == "k")
    assert record["status"] == status
    record["status"] = "match"
    summary = document["summary"]
    summary["by_status"][status] = 0
    summary["by_status"]["match"] = 2
    summary["differing"] = 0
    if status == "error":
        summary["errors"] = 0
        summary["exact_match"] = 2
        record["text_match"] = True
        record["patch"]["text_xxh3"] = record["base"]["text_xxh3"]
    if status == "logprobs-differ":
        summary["logprobs_differ"] = 0
    document["verdict"] = {"ok": True, "exit_code": 0, "reasons": []}
    return document


@pytest.mark.parametrize("status", sorted(PATCHES))
def test_a_record_relabelled_match_is_refused(tmp_path: Path, status: str) -> None:
    path = _comparison(tmp_path, status)
    as_written = run_k3diff("report", "cmp.json", "--out", "written", cwd=tmp_path)
    assert as_written.exit_code == 1, as_written.stderr
    path.write_text(json.dumps(_relabelled(json.loads(path.read_text()), status)))
    for command in (("report", "cmp.json", "--out", "bundle"), ("triage", "cmp.json", "s.jsonl")):
        result = run_k3diff(*command, cwd=tmp_path)
        assert result.exit_code == 2, (command, result.stdout, result.stderr)
        named = PATCHES[status][2] or "the patch request failed"
        assert result.stderr == (
            "k3diff: error: cmp.json: the document disagrees with itself (record 'k' is a "
            f"match, but its own evidence differs ({named})): it was edited or is corrupt; "
            "regenerate it with the command that wrote it\n"
        ), command
    assert not (tmp_path / "bundle").exists()
