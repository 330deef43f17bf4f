"""cap78: a side of `responses` reads at most `recordcap.MAX_RECORDS` records, and a comparison
document holds at most twice as many: many tiny records (40 million fit the 1 GiB byte cap,
~15 GB of memory projected) are refused with exit 2 and one line naming the file, the cap and
the record reached, checked as records are read. Shrunk here through the module constant."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import run_k3diff

from k3diff import jsonvalues
from k3diff.errors import InputError
from k3diff.responses import recordcap
from k3diff.sample.prompts import read_prompts
from k3diff.strictjson import decode_at


def _capture(path: Path, records: int) -> Path:
    path.write_text("".join(json.dumps({"id": f"r{n}", "text": ""}) + "\n" for n in range(records)))
    return path


@pytest.fixture
def small_cap(monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setattr(recordcap, "MAX_RECORDS", 5)
    return 5


def test_a_side_past_the_cap_is_refused(tmp_path: Path, small_cap: int) -> None:
    base = _capture(tmp_path / "base.jsonl", small_cap)
    patch = _capture(tmp_path / "patch.jsonl", small_cap + 1)
    result = run_k3diff("responses", base, patch)
    assert result.exit_code == 2, result.stdout
    assert result.stderr.count("\n") == 1
    assert f"{patch}: more than 5 records (the cap of records a side); refused at record 6 " in (
        result.stderr
    )
    assert "(line 6)" in result.stderr and "Traceback" not in result.stderr


def test_a_side_at_the_cap_is_read(tmp_path: Path, small_cap: int) -> None:
    base = _capture(tmp_path / "base.jsonl", small_cap)
    patch = _capture(tmp_path / "patch.jsonl", small_cap)
    assert run_k3diff("responses", base, patch).exit_code == 0


def test_a_json_array_past_the_cap_is_refused(tmp_path: Path, small_cap: int) -> None:
    base = _capture(tmp_path / "base.jsonl", 2)
    patch = tmp_path / "patch.json"
    patch.write_text(json.dumps([{"id": f"r{n}", "text": ""} for n in range(9)]))
    result = run_k3diff("responses", base, patch)
    assert result.exit_code == 2
    assert "more than 5 records" in result.stderr and str(patch) in result.stderr


def test_a_document_past_the_cap_is_refused_by_report_and_triage(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = _capture(tmp_path / "base.jsonl", 3)
    patch = _capture(tmp_path / "patch.jsonl", 3)
    document = tmp_path / "cmp.json"
    assert run_k3diff("responses", base, patch, "--format", "json", "-o", document).exit_code == 0
    assert run_k3diff("report", document, "--out", tmp_path / "ok").exit_code == 0
    monkeypatch.setattr(recordcap, "MAX_RECORDS", 1)  # a document holds at most 2
    report = run_k3diff("report", document, "--out", tmp_path / "bundle")
    assert report.exit_code == 2
    past = "field 'records' holds more than 2 records (twice the cap of records a side k3diff "
    assert f"{document}: {past}responses reads); refused at record 3" in report.stderr
    triage = run_k3diff("triage", document, tmp_path / "samples.jsonl")
    assert triage.exit_code == 2
    assert past in triage.stderr


def test_a_document_is_read_no_further_than_the_record_past_the_cap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """review79c: the records past the cap were each decoded to count them (20,000,000 items of
    `0` in a 60 MB document: 38 s of CPU, a 1 GiB one about half an hour): the document is
    refused at the record past the cap, what follows unread (here a bare NaN, never reached)."""
    base = _capture(tmp_path / "base.jsonl", 3)
    patch = _capture(tmp_path / "patch.jsonl", 3)
    written = tmp_path / "written.json"
    assert run_k3diff("responses", base, patch, "--format", "json", "-o", written).exit_code == 0
    text = written.read_text()
    end = text.rindex("]")
    document = tmp_path / "cmp.json"
    document.write_text(text[:end] + ",\n" + "0,\n" * 5_000 + "NaN\n" + text[end:])
    decoded: list[int] = []

    def counted(text: str, pos: int, where: str, levels: int) -> tuple[object, int]:
        decoded.append(pos)
        return decode_at(text, pos, where, levels)

    monkeypatch.setattr(jsonvalues, "decode_at", counted)
    monkeypatch.setattr(recordcap, "MAX_RECORDS", 1)  # a document holds at most 2
    report = run_k3diff("report", document, "--out", tmp_path / "bundle")
    assert report.exit_code == 2, report.stdout
    assert report.stderr.count("\n") == 1 and "Traceback" not in report.stderr
    assert f"{document}: field 'records' holds more than 2 records " in report.stderr
    assert "refused at record 3" in report.stderr
    assert len(decoded) < 100


def test_sample_prompts_from_a_responses_file_past_the_cap_are_refused(
    tmp_path: Path, small_cap: int
) -> None:
    capture = _capture(tmp_path / "responses.jsonl", small_cap + 1)
    with pytest.raises(
        InputError, match=r"more than 5 records .*refused at record 6 \(line 6\): split the file"
    ):
        read_prompts(capture)


def test_a_prompts_file_past_the_cap_is_refused(tmp_path: Path, small_cap: int) -> None:
    prompts = tmp_path / "prompts.jsonl"
    prompts.write_text("".join(json.dumps({"prompt": f"p{n}"}) + "\n" for n in range(7)))
    with pytest.raises(InputError, match=r"more than 5 prompts \(the cap of prompts a side\); "):
        read_prompts(prompts)
    prompts.write_text("".join(json.dumps({"prompt": f"p{n}"}) + "\n" for n in range(5)))
    assert len(read_prompts(prompts)) == 5
