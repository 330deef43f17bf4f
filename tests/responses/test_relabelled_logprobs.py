"""A comparison record whose logprobs differ beyond its tolerance is no match, whatever its
`within_tolerance` says (review75f: a logprobs-differ record relabelled `match`, its
`within_tolerance` flipped to true and its counts and verdict edited to agree, passed `report`,
exit 0; hunt75 held a match to the flag only). A genuine match within the tolerance is read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import run_k3diff


def _captures(folder: Path, patch_logprob: float) -> None:
    for name, second in (("base", -0.2), ("patch", patch_logprob)):
        logprobs = {"tokens": ["h", "i"], "token_logprobs": [-0.1, second]}
        line = {"key": "a", "prompt": "p", "text": "hi", "token_ids": [1, 2], "logprobs": logprobs}
        (folder / f"{name}.jsonl").write_text(json.dumps(line) + "\n")


def test_logprobs_beyond_the_tolerance_relabelled_a_match_are_refused(tmp_path: Path) -> None:
    _captures(tmp_path, -0.9)
    args = ("responses", "base.jsonl", "patch.jsonl", "--format", "json", "-o", "c.json")
    assert run_k3diff(*args, cwd=tmp_path).exit_code == 1
    document = json.loads((tmp_path / "c.json").read_text())
    (record,) = document["records"]
    assert record["status"] == "logprobs-differ"
    record["status"] = "match"
    record["logprobs"]["within_tolerance"] = True
    summary = document["summary"]
    summary.update(differing=0, exact_match=1, logprobs_differ=0)
    summary["by_status"].update({"match": 1, "logprobs-differ": 0})
    document["verdict"].update(ok=True, exit_code=0, reasons=[])
    (tmp_path / "c.json").write_text(json.dumps(document))
    refused = run_k3diff("report", "c.json", "--out", "bundle", cwd=tmp_path)
    assert refused.exit_code == 2, refused.stdout
    assert refused.stderr.startswith(
        "k3diff: error: c.json: the document disagrees with itself (record 'a' is a match, but "
        "its own evidence differs (logprobs beyond the tolerance))"
    ), refused.stderr


@pytest.mark.parametrize("tolerance", ["0.7", "0.69999999", "1"])
def test_a_match_within_the_tolerance_is_read(tmp_path: Path, tolerance: str) -> None:
    """The tolerance compared as written to the digits the delta is (0.7 delta, 0.69999999)."""
    _captures(tmp_path, -0.9)
    args = ("base.jsonl", "patch.jsonl", "--logprob-tol", tolerance, "--format", "json")
    written = run_k3diff("responses", *args, "-o", "c.json", cwd=tmp_path)
    document = json.loads((tmp_path / "c.json").read_text())
    status = document["records"][0]["status"]
    assert written.exit_code == (0 if status == "match" else 1), written.stderr
    bundle = run_k3diff("report", "c.json", "--out", "bundle", cwd=tmp_path)
    assert bundle.exit_code == written.exit_code, bundle.stderr
