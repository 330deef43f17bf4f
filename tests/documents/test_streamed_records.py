"""A `k3diff.responses/1` document is read record by record into its typed view (stream79):
`report` and `triage` hold its text and its typed records, never its raw dicts beside them, and
refuse a malformed or forged document as the whole-text decoder did."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

import pytest
from cli_support import run_k3diff

from k3diff import bounded
from k3diff.documents.read import read_document
from k3diff.errors import InputError
from k3diff.responses.doccheck import parse_comparison
from k3diff.responses.document import ResponsesDocument
from k3diff.triage.inputs import read_comparison

RECORDS = 4_000


def _capture(path: Path, side: str) -> None:
    lines = []
    for index in range(RECORDS):
        text = f"answer {index} " + "word " * 40 + (side if index % 100 == 0 else "")
        choice = {"index": 0, "text": text, "token_ids": list(range(index, index + 48))}
        choice["finish_reason"] = "stop"
        lines.append(json.dumps({"id": f"cmpl-{index}", "model": "m", "choices": [choice]}))
    path.write_text("\n".join(lines) + "\n")


@pytest.fixture(scope="module")
def comparison(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A comparison of 4,000 records written by `k3diff responses` (40 differ)."""
    root = tmp_path_factory.mktemp("streamed")
    _capture(root / "base.jsonl", "base")
    _capture(root / "patch.jsonl", "patch")
    out = root / "cmp.json"
    result = run_k3diff(
        "responses", root / "base.jsonl", root / "patch.jsonl", "--format", "json", "-o", out
    )
    assert result.exit_code == 1, result.stderr
    return out


def _peak(read: object, path: Path) -> float:
    """The traced peak of reading `path`, as a multiple of its size."""
    tracemalloc.start()
    try:
        read(path)  # type: ignore[operator]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return peak / path.stat().st_size


@pytest.mark.parametrize("read", [read_document, read_comparison], ids=["report", "triage"])
def test_a_comparison_is_read_in_little_more_than_its_text(comparison: Path, read: object) -> None:
    # Before stream79: ≈ 10× (the bytes, the text, every record's dicts, then a regex pass
    # over the whole text for its nesting); now the bytes and the text while it is decoded,
    # then the text and the typed records.
    ratio = _peak(read, comparison)
    print(f"{RECORDS:,} records, {comparison.stat().st_size / 1e6:.1f} MB: peak {ratio:.2f}×")
    assert ratio < 3.0


def test_records_before_the_schema_are_read_alike(comparison: Path, tmp_path: Path) -> None:
    body = json.loads(comparison.read_text())
    moved = tmp_path / "moved.json"
    moved.write_text(json.dumps({"records": body.pop("records"), **body}))
    first = read_comparison(comparison)
    again = read_comparison(moved)
    assert isinstance(again, ResponsesDocument)
    assert again.records == first.records
    assert again.summary == first.summary


def _refusal(text: str, tmp_path: Path) -> str:
    path = tmp_path / "doc.json"
    path.write_text(text)
    with pytest.raises(InputError) as caught:
        parse_comparison(text.encode(), path)
    return str(caught.value).replace(str(path), "DOC")


def _whole(text: str) -> str:
    """How the whole-text decoder refused `text` (`docbody`'s words, before stream79)."""
    try:
        bounded.loads(text, "DOC", written=True)
    except json.JSONDecodeError as exc:
        return f"DOC: not a k3diff JSON document (line {exc.lineno}: {exc.msg})"
    except InputError as exc:
        return str(exc)
    raise AssertionError("decoded")


_DOC = (
    '{\n  "schema": "k3diff.responses/1",\n  "summary": {},\n  "verdict": {},\n'
    '  "records": [\n    {"key": "a", "status": "match"},\n    {"key": "b", "status": "match"}\n'
    "  ]\n}\n"
)


@pytest.mark.parametrize(
    ("edit", "new"),
    [
        ('{"key": "b", "status": "match"}\n  ]', '{"key": "b", "status": "match"},\n  ]'),
        ('"match"},\n    {"key": "b"', '"match"}\n    {"key": "b"'),
        ('"summary": {},', '"summary" {},'),
        ('"summary": {},', '"summary": {}'),
        ('"summary": {},', "summary: {},"),
        ("  ]\n}\n", "  ]\n}\n{}"),
        ('"summary": {},', '"summary": {}, "summary": {},'),
        ('{"key": "a", "status": "match"}', '{"key": "a", "key": "a", "status": "match"}'),
        ('"status": "match"}', '"status": "match", "x": NaN}'),
        ('"status": "match"}', '"status": "match", "x": ' + "[" * 97 + "]" * 97 + "}"),
        ('"status": "match"}', '"status": "match", "x": ' + "[" * 98 + "]" * 98 + "}"),
        ('"summary": {}', '"summary": {"x": ' + "[" * 98 + "]" * 98 + "}"),
        ('"summary": {}', '"summary": {"x": ' + "[" * 97 + "]" * 97 + "}"),
        ('"records": [', '"records": ["a" "b",'),
        ('"key": "a"', '"key": "a\x01"'),
    ],
    ids=[
        "trailing comma",
        "no comma between records",
        "no colon",
        "no comma between members",
        "unquoted key",
        "extra data",
        "top-level key twice",
        "record key twice",
        "bare NaN",
        "a record nested 100 deep",
        "a record nested 101 deep",
        "a member nested 101 deep",
        "a member nested 100 deep",
        "no comma in the records",
        "a control character",
    ],
)
def test_refused_as_the_whole_text_decoder_refused(edit: str, new: str, tmp_path: Path) -> None:
    text = _DOC.replace(edit, new, 1)
    assert text != _DOC
    try:
        expected = _whole(text)
    except AssertionError:  # decodes whole: refused (or not) by the reader alike
        expected = None
    said = _refusal(text, tmp_path)
    if expected is not None:
        assert said == expected
    else:
        assert "nested" not in said and "not a k3diff JSON document" not in said


def test_a_top_level_list_is_named(tmp_path: Path) -> None:
    path = tmp_path / "list.json"
    path.write_text(json.dumps([{"key": str(i)} for i in range(1000)]))
    result = run_k3diff("report", path, "--out", tmp_path / "bundle")
    assert result.exit_code == 2
    assert result.stderr.strip().endswith("not a k3diff document (a JSON list)")
