"""An array read before a document's `schema` is known is capped (caps80): its items are decoded
one by one to count them before anything knows what they are, so 4,000,000 items of `0` (a 12 MB
document naming its schema last, or none) cost 14 s of CPU in `report` before its refusal, a
1 GiB one some twenty minutes. Past `MAX_ITEMS_UNNAMED` the read stops: exit 2, one line naming
the file, the member and the cap."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_support import run_k3diff

from k3diff import strictjson
from k3diff.documents.read import read_document
from k3diff.errors import InputError
from k3diff.jsonmembers import MAX_ITEMS_UNNAMED
from k3diff.triage.inputs import read_comparison


def _zeros(count: int) -> str:
    return "[" + ",".join(["0"] * count) + "]"


def _cap_line(path: Path, member: str) -> str:
    return (
        f"{path}: {member} holds more than {MAX_ITEMS_UNNAMED:,} items before the document's "
        "'schema' member (the cap of items read before it; k3diff writes it first); refused: "
        "put the schema first"
    )


@pytest.mark.parametrize(
    ("key", "schema"),
    [
        ("records", "k3diff.triage/1"),
        ("entries", "k3diff.wheels/1"),
        ("records", "k3diff.responses/1"),
        ("artifacts", "k3diff.audit/2"),
        ("records", None),
    ],
    ids=["triage", "wheels", "responses", "audit", "no schema"],
)
def test_report_refuses_a_long_array_before_the_schema(
    key: str, schema: str | None, tmp_path: Path
) -> None:
    path = tmp_path / "doc.json"
    named = "" if schema is None else f', "schema": "{schema}"'
    path.write_text(f'{{"{key}": {_zeros(MAX_ITEMS_UNNAMED + 1)}{named}}}\n')
    result = run_k3diff("report", path, "--out", tmp_path / "bundle")
    assert result.exit_code == 2, result.stderr
    line = _cap_line(path, f"member {key!r}")
    assert result.stderr.strip() == f"k3diff: error: {line}"


def test_report_refuses_a_long_top_level_list(tmp_path: Path) -> None:
    path = tmp_path / "list.json"
    path.write_text(_zeros(MAX_ITEMS_UNNAMED + 1))
    result = run_k3diff("report", path, "--out", tmp_path / "bundle")
    assert result.exit_code == 2, result.stderr
    assert result.stderr.strip() == f"k3diff: error: {_cap_line(path, 'top-level list')}"


def test_triage_refuses_a_comparison_whose_records_come_first(tmp_path: Path) -> None:
    path = tmp_path / "cmp.json"
    path.write_text(
        f'{{"records": {_zeros(MAX_ITEMS_UNNAMED + 1)}, "schema": "k3diff.responses/1"}}'
    )
    with pytest.raises(InputError) as caught:
        read_comparison(path)
    assert str(caught.value) == _cap_line(path, "member 'records'")


def test_an_array_at_the_cap_is_read_on(tmp_path: Path) -> None:
    # At the cap the array is read once the schema is known, and refused by its reader.
    path = tmp_path / "doc.json"
    path.write_text(f'{{"records": {_zeros(MAX_ITEMS_UNNAMED)}, "schema": "k3diff.triage/1"}}')
    result = run_k3diff("report", path, "--out", tmp_path / "bundle")
    assert result.exit_code == 2, result.stderr
    assert "before the document's 'schema'" not in result.stderr
    assert "k3diff.triage/1 document without alpha" in result.stderr


def test_a_one_line_document_is_decoded_once(tmp_path: Path) -> None:
    # Its first line was decoded whole (to ask whether it is a samples log's header), uncapped,
    # before its reader counted the array: 4,000,000 items of `{}` took 6 s and 500 MB more.
    path = tmp_path / "doc.json"
    count = MAX_ITEMS_UNNAMED + 1
    path.write_text('{"records": [' + ",".join(["{}"] * count) + '], "schema": "k3diff.triage/1"}')
    made = next(strictjson._OBJECTS_MADE)
    with pytest.raises(InputError) as caught:
        read_document(path)
    made = next(strictjson._OBJECTS_MADE) - made - 1
    assert str(caught.value) == _cap_line(path, "member 'records'")
    assert made == count  # each item decoded once, the last one past the cap
