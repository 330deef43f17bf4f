"""A triage document without `requests` is refused when `report` reads it alone (forge60).

Stop 59 recounts each mode's `sampled` from the sampling fields its requests sent
(`requests`), but a mode without the field was read as written by an older k3diff and its
`sampled` trusted: deleting `requests` brought review59a's forgery (a greedy mode held
novel-undecided, relabelled sampled, a consistent distribution test pasted in) back to exit 0.
Every mode promises `requests` (and each side's `errors` they are counted against): a document
without them, read alone, is exit 2 naming the file and the field and saying how to get one
that has them; given with the comparison and logs it was made from, `report` runs triage again
and believes it only as far as the run again agrees."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_support import run_k3diff

from .helpers import without_added_after
from .test_sampled_forged import _forge, _greedy_held, _moved_fixed


def _report(where: Path, document: dict[str, Any], *given: str) -> Any:
    forged = where / "forged.json"
    forged.write_text(json.dumps(document))
    return run_k3diff("report", *given, str(forged), "--out", str(where / "bundle"), cwd=where)


def _without_requests(document: dict[str, Any]) -> dict[str, Any]:
    """The document as a triage written before `requests` wrote it: without `requests` and
    the fields added after it (`model_check`, `gaugeless`, ...)."""
    for record in document["records"]:
        for mode in record["modes"]:
            del mode["requests"]
    del document["model_check"], document["gaugeless"]
    return without_added_after(document, "gaugeless")


def _one_line(result: Any) -> str:
    assert result.exit_code == 2, result.stdout + result.stderr
    (line,) = result.stderr.strip().splitlines()
    return str(line)


def test_the_forgery_without_requests_is_refused(tmp_path: Path) -> None:
    # review59a's forgery with the pasted test's counts fixed to the mode's, then `requests`
    # deleted: before forge60 this read as an older document and passed with exit 0.
    document = _without_requests(_moved_fixed(_forge(tmp_path)))
    line = _one_line(_report(tmp_path, document))
    if _power_refused(line):
        return
    assert "forged.json: field 'records[0].modes[0].requests' is missing" in line, line
    assert "re-run k3diff triage" in line, line
    assert "the comparison and sample logs" in line, line


def _power_refused(line: str) -> bool:
    """review77d: the forgery's pasted power (0.22 at 3 a side, whose smallest p 1/20 is above
    the α / 2 a sampled test is judged at) is refused before its missing `requests` is read."""
    return (
        "records[0].modes[0].distribution.detectable_shift is 0.22 but no test of 3 and 3 "
        "samples reaches p ≤ 0.025 (its smallest p is 1/20)"
    ) in line


def test_a_null_requests_is_refused(tmp_path: Path) -> None:
    document = _moved_fixed(_forge(tmp_path))
    document["records"][0]["modes"][0]["requests"] = None
    line = _one_line(_report(tmp_path, document))
    assert _power_refused(line) or "field 'records[0].modes[0].requests' is missing" in line, line


def test_a_side_without_errors_is_refused(tmp_path: Path) -> None:
    # `requests` is counted against each side's successful and failed samples.
    document = _greedy_held(tmp_path / "greedy")
    del document["records"][0]["modes"][0]["patch"]["errors"]
    line = _one_line(_report(tmp_path, document))
    assert "field 'records[0].modes[0].patch.errors' is missing" in line, line


def test_an_honest_older_document_read_alone_is_refused(tmp_path: Path) -> None:
    document = _without_requests(_greedy_held(tmp_path / "greedy"))
    line = _one_line(_report(tmp_path, document))
    assert "records[0].modes[0].requests' is missing" in line, line


def test_an_honest_older_document_with_its_evidence_is_run_again(tmp_path: Path) -> None:
    where = tmp_path / "greedy"
    document = _without_requests(_greedy_held(where))
    result = _report(where, document, "cmp.json", "run/samples.jsonl")
    assert result.exit_code == 1, result.stderr


def test_the_forgery_without_requests_with_its_evidence_is_refused(tmp_path: Path) -> None:
    document = _without_requests(_moved_fixed(_forge(tmp_path)))
    line = _one_line(_report(tmp_path / "greedy", document, "cmp.json", "run/samples.jsonl"))
    assert _power_refused(line) or "does not follow from the evidence given with it" in line, line
